package block_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/stamp"
)

func TestBase64KeepsGivenTextUntilAppended(t *testing.T) {
	// Not canonical base64 ("iVBOR==" has non-zero pad bits): kept verbatim,
	// as the reference stores the string it was given.
	s := block.NewBase64("image/png", "iVBOR==")
	if got := string(s.AppendJSON(nil)); got != `{"type":"base64","data":"iVBOR==","media_type":"image/png"}` {
		t.Fatal(got)
	}
	if s.Data() != "iVBOR==" {
		t.Fatal(s.Data())
	}
}

func TestBase64AppendDecodesEachChunk(t *testing.T) {
	s := block.NewBase64("audio/wav", "")
	for _, chunk := range []string{"aGk=", "", "aGk=", "IQ=="} {
		if err := s.AppendBase64(chunk); err != nil {
			t.Fatal(err)
		}
	}
	// "hi"+"hi"+"!" re-encoded as one value, never "aGk=aGk=IQ==".
	if s.Data() != base64.StdEncoding.EncodeToString([]byte("hihi!")) {
		t.Fatalf("data %q", s.Data())
	}
	raw, err := s.Bytes()
	if err != nil || string(raw) != "hihi!" || s.Len() != 5 {
		t.Fatalf("bytes %q %v len %d", raw, err, s.Len())
	}
	if got := string(s.AppendJSON(nil)); got != `{"type":"base64","data":"aGloaSE=","media_type":"audio/wav"}` {
		t.Fatal(got)
	}
}

func TestBase64AppendErrorLeavesSourceUnchanged(t *testing.T) {
	s := block.NewBase64("image/png", "aGk=")
	for _, bad := range []string{"a", "!!!!", "aGk", "aGk=aGk="} {
		err := s.AppendBase64(bad)
		if !errors.Is(err, block.ErrInvalidBase64) {
			t.Fatalf("AppendBase64(%q) = %v, want ErrInvalidBase64", bad, err)
		}
	}
	if s.Data() != "aGk=" {
		t.Fatalf("data changed to %q", s.Data())
	}
	// Existing data that does not decode cannot be appended to.
	broken := block.NewBase64("image/png", "not base64")
	if err := broken.AppendBase64("aGk="); !errors.Is(err, block.ErrInvalidBase64) {
		t.Fatalf("got %v", err)
	}
	if broken.Data() != "not base64" {
		t.Fatal(broken.Data())
	}
	if _, err := broken.Bytes(); !errors.Is(err, block.ErrInvalidBase64) {
		t.Fatalf("Bytes: %v", err)
	}
}

// Copies of a growing source (by value or by Clone) never share writes.
func TestBase64CopiesAreIndependent(t *testing.T) {
	a := block.NewBase64("x/y", "")
	if err := a.AppendBase64("AAAA"); err != nil {
		t.Fatal(err)
	}
	b := *a // value copy: shares the array until one of them appends
	clone := block.NewData(a).CloneBlock().(*block.Data).Source.(*block.Base64)
	must(t, a.AppendBase64("AQID"))
	must(t, b.AppendBase64("BAUG"))
	must(t, clone.AppendBase64("BwgJ"))
	for _, c := range []struct {
		s    *block.Base64
		want []byte
	}{
		{a, []byte{0, 0, 0, 1, 2, 3}},
		{&b, []byte{0, 0, 0, 4, 5, 6}},
		{clone, []byte{0, 0, 0, 7, 8, 9}},
	} {
		got, _ := c.s.Bytes()
		if string(got) != string(c.want) {
			t.Errorf("got %v, want %v", got, c.want)
		}
	}
	// Bytes handed to Base64Bytes are not written by a later append.
	raw := make([]byte, 3, 64)
	s := block.Base64Bytes("x/y", raw)
	must(t, s.AppendBase64("AQID"))
	if got := raw[:6]; string(got) != "\x00\x00\x00\x00\x00\x00" {
		t.Fatalf("caller's spare capacity was written: %v", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Text grows in place, but a string read earlier never changes and a copy
// made by value does not see (or clobber) the other's appends.
func TestTextGrowerAliasing(t *testing.T) {
	a := block.NewText("ab")
	a.AppendText("c")
	early := a.Text
	b := *a
	a.AppendText("XYZ")
	b.AppendText("123")
	if early != "abc" || a.Text != "abcXYZ" || b.Text != "abc123" {
		t.Fatalf("early %q a %q b %q", early, a.Text, b.Text)
	}
	// Replacing the field by hand restarts growth from the new value.
	a.Text = "new"
	a.AppendText("!")
	if a.Text != "new!" || b.Text != "abc123" {
		t.Fatalf("a %q b %q", a.Text, b.Text)
	}
	c := a.CloneBlock().(*block.Text)
	c.AppendText("c")
	a.AppendText("a")
	if a.Text != "new!a" || c.Text != "new!c" {
		t.Fatalf("a %q clone %q", a.Text, c.Text)
	}

	th := block.NewThinking("")
	th.AppendThinking("x")
	th2 := *th
	th.AppendThinking("1")
	th2.AppendThinking("2")
	if th.Thinking != "x1" || th2.Thinking != "x2" {
		t.Fatal(th.Thinking, th2.Thinking)
	}
	tc := &block.ToolCall{ID: "c", Name: "n"}
	tc.AppendInput(`{"a":`)
	tc2 := *tc
	tc.AppendInput(`1}`)
	tc2.AppendInput(`2}`)
	if tc.Input != `{"a":1}` || tc2.Input != `{"a":2}` {
		t.Fatal(tc.Input, tc2.Input)
	}
}

func TestURLNormalization(t *testing.T) {
	cases := map[string]string{
		"https://example.com":           "https://example.com/",
		"HTTPS://Example.COM/A.png":     "https://example.com/A.png",
		"https://example.com/a.png?x=1": "https://example.com/a.png?x=1",
		"file:///tmp/x.png":             "file:///tmp/x.png",
		"s3://bucket/key.png":           "s3://bucket/key.png",
		"data:image/png;base64,aGk=":    "data:image/png;base64,aGk=",
	}
	for in, want := range cases {
		u, err := block.NewURL("image/png", in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if u.URL != want {
			t.Errorf("%s → %s, want %s", in, u.URL, want)
		}
	}
	for _, bad := range []string{"/srv/img.png", "img.png", "https://", "http:///x", "://x", ""} {
		if _, err := block.NewURL("image/png", bad); !errors.Is(err, block.ErrInvalidURL) {
			t.Errorf("%q: got %v, want ErrInvalidURL", bad, err)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		in    string
		field string // "" = not a field error
		is    error
	}{
		{`{"type":"video"}`, "", block.ErrUnknownKind},
		{`{"text":"no type"}`, "", nil},
		{`{"type":"text"}`, "text", wire.ErrField},
		{`{"type":"text","text":null}`, "text", wire.ErrField},
		{`{"type":"text","text":"a","finished_at":5}`, "finished_at", wire.ErrField},
		{`{"type":"thinking"}`, "thinking", wire.ErrField},
		{`{"type":"data"}`, "source", wire.ErrField},
		{`{"type":"data","source":null}`, "source", wire.ErrField},
		{`{"type":"data","source":{"type":"base64","media_type":"image/png"}}`, "data", wire.ErrField},
		{`{"type":"data","source":{"type":"url","url":"https://e.com/"}}`, "media_type", wire.ErrField},
		{`{"type":"data","source":{"type":"ftp","media_type":"x"}}`, "type", wire.ErrField},
		{`{"type":"data","source":{"type":"url","url":"/srv/x","media_type":"x"}}`, "", block.ErrInvalidURL},
		{`{"type":"hint"}`, "hint", wire.ErrField},
		{`{"type":"tool_call","id":"1","name":"n"}`, "input", wire.ErrField},
		{`{"type":"tool_call","id":"1","name":"n","input":"{}","state":"done"}`, "state", wire.ErrField},
		{`{"type":"tool_call","id":"1","name":"n","input":"{}","suggested_rules":[{"tool_name":"n","behavior":"allow","source":"s"}]}`, "rule_content", wire.ErrField},
		{`{"type":"tool_call","id":"1","name":"n","input":"{}","suggested_rules":[{"tool_name":"n","rule_content":null,"behavior":"maybe","source":"s"}]}`, "behavior", wire.ErrField},
		{`{"type":"tool_result","id":"1","name":"n"}`, "output", wire.ErrField},
		{`{"type":"tool_result","id":"1","name":"n","output":"x","state":"fine"}`, "state", wire.ErrField},
		{`{"type":"tool_result","id":"1","name":"n","output":[{"type":"thinking","thinking":"x"}]}`, "", block.ErrUnknownKind},
		{`{"type":"tool_result","id":"1","name":"n","output":{}}`, "", nil},
		{`{"type":"tool_result","id":"1","name":"n","output":null}`, "", nil},
		{`[]`, "", nil},
		{`null`, "", nil},
	}
	for _, c := range cases {
		b, err := block.Decode([]byte(c.in))
		if err == nil {
			t.Errorf("%s: decoded %T without error", c.in, b)
			continue
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: %v is not %v", c.in, err, c.is)
		}
		if c.field != "" {
			var fe *wire.FieldError
			if !errors.As(err, &fe) || fe.Field != c.field {
				t.Errorf("%s: %v, want a FieldError on %q", c.in, err, c.field)
			}
		}
	}
}

func TestDecodeDefaults(t *testing.T) {
	b, err := block.Decode([]byte(`{"type":"tool_call","id":"c","name":"n","input":"{}"}`))
	if err != nil {
		t.Fatal(err)
	}
	tc := b.(*block.ToolCall)
	if tc.State != block.CallPending || tc.CreatedAt == "" || tc.SuggestedRules != nil {
		t.Fatalf("%+v", tc)
	}
	if got := string(tc.AppendJSON(nil)); !strings.Contains(got, `"state":"pending","suggested_rules":[]`) {
		t.Fatal(got)
	}
	// A hint without finished_at is born finished; an explicit null stays null.
	h, err := block.Decode([]byte(`{"type":"hint","hint":"h","created_at":"T"}`))
	if err != nil {
		t.Fatal(err)
	}
	if hb := h.(*block.Hint); hb.FinishedAt != block.Some("T") || len(hb.ID) != 32 {
		t.Fatalf("%+v", hb)
	}
	h, err = block.Decode([]byte(`{"type":"hint","hint":"h","created_at":"T","finished_at":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if hb := h.(*block.Hint); hb.FinishedAt.Valid {
		t.Fatalf("%+v", hb)
	}
	// Only absent keys take defaults: an explicit "" survives a round trip.
	for _, in := range []string{
		`{"type":"text","text":"a","id":"","created_at":"","finished_at":null}`,
		`{"type":"thinking","thinking":"a","id":"","created_at":"","finished_at":null}`,
		`{"type":"data","id":"","source":{"type":"base64","data":"","media_type":""},"name":null,"created_at":"","finished_at":null}`,
		`{"type":"hint","hint":[{"type":"text","text":"a","id":"","created_at":"","finished_at":null}],"id":"","source":null,"created_at":"","finished_at":null}`,
		`{"type":"tool_call","id":"","name":"","input":"","state":"pending","suggested_rules":[],"created_at":"","finished_at":null}`,
		`{"type":"tool_result","id":"","name":"","output":[{"type":"text","text":"a","id":"","created_at":"","finished_at":null}],"state":"running","metadata":{},"created_at":"","finished_at":null}`,
	} {
		b, err := block.Decode([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(b.AppendJSON(nil)); got != in {
			t.Errorf("\n got %s\nwant %s", got, in)
		}
	}
	// Unknown keys are ignored except on thinking blocks.
	tx, err := block.Decode([]byte(`{"type":"text","text":"a","id":"i","created_at":"T","extra":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(tx.AppendJSON(nil)); got != `{"type":"text","text":"a","id":"i","created_at":"T","finished_at":null}` {
		t.Fatal(got)
	}
}

func TestThinkingExtras(t *testing.T) {
	in := `{"type":"thinking","thinking":"","id":"i","created_at":"T","finished_at":null,"redacted_thinking_data":"zz","signature":"s","n":{"b":1, "a":[1, 2]}}`
	b, err := block.Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	th := b.(*block.Thinking)
	// Extras keep arrival order, compacted.
	want := `{"type":"thinking","thinking":"","id":"i","created_at":"T","finished_at":null,"redacted_thinking_data":"zz","signature":"s","n":{"b":1,"a":[1,2]}}`
	if got := string(th.AppendJSON(nil)); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	if th.GetString("signature") != "s" || th.GetString("missing") != "" {
		t.Fatal("GetString")
	}
	th.Set("signature", "s2")
	th.Set("reasoning_item_id", "rs_1")
	want = `{"type":"thinking","thinking":"","id":"i","created_at":"T","finished_at":null,"redacted_thinking_data":"zz","signature":"s2","n":{"b":1,"a":[1,2]},"reasoning_item_id":"rs_1"}`
	if got := string(th.AppendJSON(nil)); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	c := th.CloneBlock().(*block.Thinking)
	c.Set("signature", "other")
	if th.GetString("signature") != "s2" {
		t.Fatal("clone shares extras")
	}
}

func TestBody(t *testing.T) {
	var b block.Body
	must(t, b.UnmarshalJSON([]byte(`"plain"`)))
	if !b.Plain || b.Text != "plain" {
		t.Fatalf("%+v", b)
	}
	must(t, b.UnmarshalJSON([]byte(`[]`)))
	if b.Plain || b.Blocks == nil || len(b.Blocks) != 0 {
		t.Fatalf("%+v", b)
	}
	if got := string(b.AppendJSON(nil)); got != `[]` {
		t.Fatal(got)
	}
	if got := string(block.BlocksBody().AppendJSON(nil)); got != `[]` {
		t.Fatal(got)
	}
	if got := string(block.PlainBody("").AppendJSON(nil)); got != `""` {
		t.Fatal(got)
	}
	for _, bad := range []string{`null`, `3`, `{}`, `[{"type":"hint","hint":"x"}]`, `[1]`} {
		if err := b.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestFill(t *testing.T) {
	src := &stamp.Fixed{Time: "T"}
	txt := block.NewText("a")
	block.Fill(txt, src)
	if txt.ID != "00000000000000000000000000000001" || txt.CreatedAt != "T" {
		t.Fatalf("%+v", txt)
	}
	block.Fill(txt, src) // already filled: unchanged
	if txt.ID != "00000000000000000000000000000001" {
		t.Fatal(txt.ID)
	}
	tc := &block.ToolCall{ID: "call_1", Name: "n"}
	block.Fill(tc, src)
	if tc.ID != "call_1" || tc.State != block.CallPending || tc.CreatedAt != "T" {
		t.Fatalf("%+v", tc)
	}
	tr := &block.ToolResult{ID: "call_1", Name: "n", Output: block.BlocksBody(block.NewText("x"))}
	block.Fill(tr, src)
	if tr.State != block.ResultRunning || tr.Output.Blocks[0].BlockID() == "" {
		t.Fatalf("%+v", tr)
	}
	h := block.NewHint("h", "")
	block.Fill(h, src)
	if h.FinishedAt != block.Some("T") || h.CreatedAt != "T" {
		t.Fatalf("%+v", h)
	}
	// A nil source falls back to the default one.
	d := block.NewData(block.NewBase64("image/png", "aGk="))
	block.Fill(d, nil)
	if len(d.ID) != 32 || d.CreatedAt == "" {
		t.Fatalf("%+v", d)
	}
}

func TestListHelpers(t *testing.T) {
	bs, err := block.DecodeList([]byte(`[{"type":"text","text":"a","id":"1","created_at":"T"},{"type":"data","id":"2","source":{"type":"url","url":"https://e.com","media_type":"image/png"},"created_at":"T"}]`))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"type":"text","text":"a","id":"1","created_at":"T","finished_at":null},{"type":"data","id":"2","source":{"type":"url","url":"https://e.com/","media_type":"image/png"},"name":null,"created_at":"T","finished_at":null}]`
	if got := string(block.AppendList(nil, bs)); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	if d := bs[1].(*block.Data); d.MediaType() != "image/png" {
		t.Fatal(d.MediaType())
	}
	if block.CloneList(nil) != nil {
		t.Fatal("CloneList(nil) != nil")
	}
	if _, err := block.DecodeList([]byte(`[{"type":"text"}]`)); err == nil {
		t.Fatal("bad element accepted")
	}
	if _, err := block.DecodeList([]byte(`{}`)); err == nil {
		t.Fatal("object accepted as a list")
	}
}

// A value copied back over a block (restoring a snapshot) must not append
// into bytes that a string or slice handed out in between still holds:
// Go strings are immutable, and the field's earlier value may sit in an
// event or another message.
func TestGrowersAfterSnapshotRestore(t *testing.T) {
	tx := block.NewText("hello")
	tx.AppendText("!")
	savedText := *tx
	tx.AppendText("abc")
	keepText := tx.Text
	*tx = savedText
	tx.AppendText("XYZ")
	if keepText != "hello!abc" || tx.Text != "hello!XYZ" {
		t.Errorf("text: kept %q, now %q", keepText, tx.Text)
	}

	th := block.NewThinking("")
	th.AppendThinking("hmm")
	savedThinking := *th
	th.AppendThinking(" yes")
	keepThinking := th.Thinking
	*th = savedThinking
	th.AppendThinking(" no!")
	if keepThinking != "hmm yes" || th.Thinking != "hmm no!" {
		t.Errorf("thinking: kept %q, now %q", keepThinking, th.Thinking)
	}

	call := &block.ToolCall{ID: "c1", Name: "f"}
	call.AppendInput(`{"a":`)
	savedCall := *call
	call.AppendInput(`1}`)
	keepInput := call.Input
	*call = savedCall
	call.AppendInput(`2}`)
	if keepInput != `{"a":1}` || call.Input != `{"a":2}` {
		t.Errorf("input: kept %q, now %q", keepInput, call.Input)
	}

	src := block.NewBase64("x/y", "")
	must(t, src.AppendBase64("AAAA"))
	savedSrc := *src
	must(t, src.AppendBase64("AQID"))
	keepBytes, err := src.Bytes()
	must(t, err)
	*src = savedSrc
	must(t, src.AppendBase64("BAUG"))
	now, _ := src.Bytes()
	if string(keepBytes) != "\x00\x00\x00\x01\x02\x03" || string(now) != "\x00\x00\x00\x04\x05\x06" {
		t.Errorf("base64: kept %v, now %v", keepBytes, now)
	}
}

// Value copies may grow on different goroutines (run with -race).
func TestGrowerCopiesOnGoroutines(t *testing.T) {
	a := block.NewText("x")
	a.AppendText("y")
	s := block.NewBase64("x/y", "")
	must(t, s.AppendBase64("AAAA"))
	texts := []block.Text{*a, *a, *a, *a}
	srcs := []block.Base64{*s, *s, *s, *s}
	done := make(chan struct{})
	for i := range texts {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 100 {
				texts[i].AppendText(string(rune('a' + i)))
				if err := srcs[i].AppendBase64("AQID"); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	for range texts {
		<-done
	}
	for i := range texts {
		want := "xy" + strings.Repeat(string(rune('a'+i)), 100)
		if texts[i].Text != want {
			t.Errorf("copy %d: %q", i, texts[i].Text)
		}
		got, _ := srcs[i].Bytes()
		if len(got) != 3+300 || string(got[3:6]) != "\x01\x02\x03" || string(got[len(got)-3:]) != "\x01\x02\x03" {
			t.Errorf("source %d: %d bytes", i, len(got))
		}
	}
}

// A nil block in a list (untyped, or a nil pointer of a block type) is
// written as null, cloned as nil and skipped by Fill, never a panic.
func TestNilBlocksInLists(t *testing.T) {
	var nilText *block.Text
	list := []block.Block{nil, nilText, block.NewText("x")}
	if got := string(block.AppendList(nil, list)); !strings.HasPrefix(got, `[null,null,{"type":"text"`) {
		t.Fatalf("AppendList: %s", got)
	}
	c := block.CloneList(list)
	if c[0] != nil || c[1] != nil || c[2].(*block.Text).Text != "x" {
		t.Fatalf("CloneList: %#v", c)
	}
	for _, b := range []block.Block{
		nil, nilText,
		&block.ToolResult{ID: "c", Output: block.BlocksBody(nil, nilText)},
		&block.Hint{Hint: block.BlocksBody(nil)},
	} {
		block.Fill(b, &stamp.Fixed{Time: "t"})
	}
	r := &block.ToolResult{ID: "c", Output: block.BlocksBody(nil)}
	if got := string(r.CloneBlock().(*block.ToolResult).Output.AppendJSON(nil)); got != "[null]" {
		t.Fatalf("output: %s", got)
	}
	if !block.IsNil(nilText) || !block.IsNil(nil) || block.IsNil(block.NewText("")) {
		t.Fatal("IsNil")
	}
}
