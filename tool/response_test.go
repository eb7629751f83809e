package tool_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/tool"
)

func textOf(b block.Block) string {
	switch v := b.(type) {
	case *block.Text:
		return v.Text
	case *block.Data:
		if s, ok := v.Source.(*block.Base64); ok {
			return "data:" + s.Data()
		}
	}
	return ""
}

func text(id, s string) *block.Text { return &block.Text{ID: id, Text: s} }

func data(id, mt, b64 string) *block.Data {
	return &block.Data{ID: id, Source: block.NewBase64(mt, b64)}
}

// TK-3: the fixture's six chunks fold into the fixture's response.
func TestResponseFoldsToolTwoChunks(t *testing.T) {
	fx := loadToolkitFixture(t)
	var raw []struct {
		Content []json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(fx["tool2_chunks"], &raw); err != nil {
		t.Fatal(err)
	}
	resp := tool.NewResponse("test_2", seqStamp())
	for _, c := range raw {
		var ch tool.Chunk
		for _, b := range c.Content {
			blk, err := block.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			ch.Content = append(ch.Content, blk)
		}
		if err := resp.Append(ch); err != nil {
			t.Fatal(err)
		}
	}
	matchJSON(t, "tool2 response", resp.AppendJSON(nil), fx["tool2_response_dump"])
}

// TK-4: independently encoded base64 chunks merge by bytes.
func TestResponseMergesBase64ByBytes(t *testing.T) {
	fx := loadToolkitFixture(t)
	var m struct{ First, Second, Decoded_merged string }
	if err := json.Unmarshal(fx["base64_merge"], &m); err != nil {
		t.Fatal(err)
	}
	resp := tool.NewResponse("c", nil)
	for _, part := range []string{m.First, m.Second} {
		if err := resp.Append(tool.Chunk{Content: []block.Block{data("image", "image/png", part)}}); err != nil {
			t.Fatal(err)
		}
	}
	if len(resp.Content) != 1 {
		t.Fatalf("want one block, got %d", len(resp.Content))
	}
	src := resp.Content[0].(*block.Data).Source.(*block.Base64)
	raw, err := src.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != m.Decoded_merged {
		t.Fatalf("decoded %q, want %q", raw, m.Decoded_merged)
	}
	if src.Data() != base64.StdEncoding.EncodeToString([]byte("helloworld")) {
		t.Fatalf("encoded %q", src.Data())
	}
}

// DRV-12: error is sticky, interrupted/denied override, running/success
// never change the state, metadata merges.
func TestResponseStateRules(t *testing.T) {
	cases := []struct {
		states []block.ToolResultState
		want   block.ToolResultState
	}{
		{nil, block.ResultSuccess},
		{[]block.ToolResultState{"", block.ResultRunning, block.ResultSuccess}, block.ResultSuccess},
		{[]block.ToolResultState{block.ResultInterrupted}, block.ResultInterrupted},
		{[]block.ToolResultState{block.ResultDenied, block.ResultInterrupted}, block.ResultInterrupted},
		{[]block.ToolResultState{block.ResultInterrupted, block.ResultDenied, block.ResultRunning}, block.ResultDenied},
		{[]block.ToolResultState{block.ResultError, block.ResultInterrupted, block.ResultDenied, block.ResultSuccess}, block.ResultError},
		{[]block.ToolResultState{block.ResultInterrupted, block.ResultError}, block.ResultError},
	}
	for _, c := range cases {
		resp := tool.NewResponse("c", nil)
		for _, s := range c.states {
			if err := resp.Append(tool.Chunk{State: s}); err != nil {
				t.Fatal(err)
			}
		}
		if resp.State != c.want {
			t.Errorf("states %v: got %s, want %s", c.states, resp.State, c.want)
		}
	}
	resp := tool.NewResponse("c", nil)
	_ = resp.Append(tool.Chunk{Metadata: map[string]any{"a": 1, "b": 1}})
	_ = resp.Append(tool.Chunk{Metadata: map[string]any{"b": 2}})
	if resp.Metadata["a"] != 1 || resp.Metadata["b"] != 2 {
		t.Errorf("metadata %v", resp.Metadata)
	}
}

// Consecutive texts are merged after every chunk, so an id swallowed by a
// merge is new again later — the reference's per-append behaviour.
func TestResponseMergesTextsAfterEachChunk(t *testing.T) {
	resp := tool.NewResponse("c", nil)
	for _, c := range []tool.Chunk{
		{Content: []block.Block{text("a", "1")}},
		{Content: []block.Block{text("b", "2")}},
		{Content: []block.Block{data("d", "image/png", "AAAA")}},
		{Content: []block.Block{text("b", "3")}},
		{Content: []block.Block{text("a", "4")}},
	} {
		if err := resp.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, b := range resp.Content {
		got = append(got, b.BlockID()+"="+textOf(b))
	}
	if want := "a=124|d=data:AAAA|b=3"; strings.Join(got, "|") != want {
		t.Fatalf("content %v, want %s", got, want)
	}
}

func TestResponseSameIDOtherKindGetsFreshID(t *testing.T) {
	resp := tool.NewResponse("c", seqStamp())
	_ = resp.Append(tool.Chunk{Content: []block.Block{data("x", "image/png", "AAAA")}})
	if err := resp.Append(tool.Chunk{Content: []block.Block{text("x", "hi")}}); err != nil {
		t.Fatal(err)
	}
	if len(resp.Content) != 2 || resp.Content[1].BlockID() == "x" || resp.Content[1].BlockID() == "" {
		t.Fatalf("content %s", resp.AppendJSON(nil))
	}
}

func TestResponseURLMergeIsAnError(t *testing.T) {
	u, _ := block.NewURL("image/png", "https://example.com/a.png")
	resp := tool.NewResponse("c", nil)
	_ = resp.Append(tool.Chunk{Content: []block.Block{&block.Data{ID: "u", Source: u}}})
	err := resp.Append(tool.Chunk{Content: []block.Block{&block.Data{ID: "u", Source: u}}, State: block.ResultDenied})
	var me *tool.MergeError
	if !errors.As(err, &me) || me.BlockID != "u" {
		t.Fatalf("err = %v", err)
	}
	if resp.State != block.ResultSuccess {
		t.Fatalf("state changed to %s by a failed chunk", resp.State)
	}
}

func TestResponseDoesNotAliasChunkBlocks(t *testing.T) {
	b := text("a", "x")
	resp := tool.NewResponse("c", nil)
	_ = resp.Append(tool.Chunk{Content: []block.Block{b}})
	_ = resp.Append(tool.Chunk{Content: []block.Block{text("a", "y")}})
	if b.Text != "x" {
		t.Fatalf("chunk block modified: %q", b.Text)
	}
	res := resp.Result("t")
	res.Output.Blocks[0].(*block.Text).Text = "changed"
	if textOf(resp.Content[0]) != "xy" {
		t.Fatal("Result shares blocks with the response")
	}
	if res.ID != "c" || res.Name != "t" || res.State != block.ResultSuccess {
		t.Fatalf("result %s", res.AppendJSON(nil))
	}
}

func TestResponseRejectsForeignBlocks(t *testing.T) {
	resp := tool.NewResponse("c", nil)
	if err := resp.Append(tool.Chunk{Content: []block.Block{nil, text("a", "x")}}); err != nil {
		t.Fatal(err)
	}
	err := resp.Append(tool.Chunk{Content: []block.Block{&block.ToolCall{ID: "x", Name: "n"}}})
	var me *tool.MergeError
	if !errors.As(err, &me) || len(resp.Content) != 1 {
		t.Fatalf("%v %s", err, resp.AppendJSON(nil))
	}
}

// A typed-nil block is a *MergeError, not a panic: the call it came from
// ends with an error result.
func TestResponseRejectsTypedNilBlocks(t *testing.T) {
	var tx *block.Text
	var dx *block.Data
	for _, b := range []block.Block{tx, dx} {
		resp := tool.NewResponse("c", nil)
		err := resp.Append(tool.Chunk{Content: []block.Block{text("a", "x"), b}})
		var me *tool.MergeError
		if !errors.As(err, &me) || len(resp.Content) != 1 {
			t.Fatalf("%T: %v %s", b, err, resp.AppendJSON(nil))
		}
	}
}
