package scripted_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/scripted"
)

// collect plays one call and describes every chunk compactly.
func collect(t *testing.T, ctx context.Context, m model.ChatModel) ([]string, error) {
	t.Helper()
	var out []string
	for c, err := range m.Stream(ctx, &model.Request{}) {
		if err != nil {
			return out, err
		}
		var b strings.Builder
		if c.Final {
			b.WriteString("FINAL ")
		}
		for _, p := range c.Parts {
			fmt.Fprintf(&b, "%s[%s]%q ", p.Kind, p.ID, p.Text)
		}
		if c.Usage != nil {
			fmt.Fprintf(&b, "usage=%d/%d", c.Usage.InputTokens, c.Usage.OutputTokens)
		}
		out = append(out, strings.TrimSpace(b.String()))
	}
	return out, nil
}

func equal(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestBlockIDsFollowTheReferenceHarness(t *testing.T) {
	m := scripted.New("mock-model", []scripted.Turn{
		scripted.Stream(scripted.Text("x")),
		scripted.Stream(
			scripted.Thinking("a"), scripted.Thinking("b"),
			scripted.ToolCall("call_1", "echo", `{"a"`),
			scripted.Text("c"),
			scripted.Step{Parts: []scripted.Part{{Kind: model.PartText, Block: "second", Text: "d"}}},
			scripted.Data("", "image/png", "aGk="),
		),
	})
	ctx := context.Background()
	got, err := collect(t, ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, got, []string{`text[t0-text-0]"x"`})
	got, err = collect(t, ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, got, []string{
		`thinking[t1-thinking-0]"a"`, `thinking[t1-thinking-0]"b"`,
		`tool_call[call_1]"{\"a\""`, `text[t1-text-2]"c"`, `text[t1-text-3]"d"`,
		`data[t1-data-4]"aGk="`,
	})
	if _, err := collect(t, ctx, m); !errors.Is(err, scripted.ErrNoTurns) {
		t.Fatalf("err = %v", err)
	}
}

func TestExplicitAndNonStreamingCarryTheWholeContent(t *testing.T) {
	m := scripted.New("m", []scripted.Turn{
		{Steps: []scripted.Step{scripted.Text("He"), scripted.Text("llo").WithUsage(3, 2)}, Explicit: true},
		scripted.Reply(scripted.Text("He"), scripted.Data("img", "image/png", "aGk="), scripted.Data("img", "image/png", "dGhlcmU=")),
	})
	got, err := collect(t, context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, got, []string{`text[t0-text-0]"He"`, `text[t0-text-0]"llo" usage=3/2`, `FINAL text[t0-text-0]"Hello" usage=3/2`})
	got, err = collect(t, context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	// Base64 fragments of one block are joined by bytes: "hi"+"there".
	equal(t, got, []string{`text[t1-text-0]"He" data[img]"aGl0aGVyZQ=="`})
}

func TestFailuresAndPauses(t *testing.T) {
	turns, err := scripted.Parse([]byte(`[
		{"raise": "error", "message": "upstream 503"},
		{"raise": "cancelled"},
		{"chunks": [{"text": "a"}, {"raise": "cancelled"}, {"text": "never"}]},
		{"chunks": [{"text": "a"}, {"pause": 0}, {"text": "b"}]},
		{"chunks": [{"text": "a"}, {"pause": 30}, {"text": "b"}]}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	m := scripted.New("m", turns)
	ctx := context.Background()
	_, err = collect(t, ctx, m)
	var se *scripted.Error
	if !errors.As(err, &se) || err.Error() != "upstream 503" {
		t.Fatalf("err = %v", err)
	}
	if _, err := collect(t, ctx, m); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	got, err := collect(t, ctx, m)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	equal(t, got, []string{`text[t2-text-0]"a"`})

	// A pause is a suspension point: a pending cancellation lands there.
	cctx, cancel := context.WithCancel(ctx)
	var seen []string
	for c, err := range m.Stream(cctx, &model.Request{}) {
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v", err)
			}
			break
		}
		seen = append(seen, c.Parts[0].Text)
		cancel()
	}
	equal(t, seen, []string{"a"})

	// A long pause ends as soon as the context is cancelled.
	cctx, cancel = context.WithCancel(ctx)
	start := time.Now()
	time.AfterFunc(20*time.Millisecond, cancel)
	got, err = collect(t, cctx, m)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
	equal(t, got, []string{`text[t4-text-0]"a"`})
	if m.Remaining() != 0 {
		t.Fatalf("remaining = %d", m.Remaining())
	}
}

func TestParseRejectsMalformedTurns(t *testing.T) {
	for _, bad := range []string{
		`{}`, `[{"raise": "boom"}]`, `[{"final": "later"}]`, `[{"chunks": [{}]}]`,
		`[{"chunks": [{"tool_call": {"name": "x", "input": "{}"}}]}]`,
		`[{"chunks": [{"data": {"media_type": "image/png"}}]}]`,
	} {
		if _, err := scripted.Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%s) succeeded", bad)
		}
	}
}

// Every model_turns of the golden traces parses.
func TestParseGoldenTurns(t *testing.T) {
	files, err := filepath.Glob(fixture.Path(t, "conformance", "golden", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Spec struct {
				ModelTurns json.RawMessage `json:"model_turns"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		if _, err := scripted.Parse(doc.Spec.ModelTurns); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
	}
}

func TestRecording(t *testing.T) {
	m := scripted.New("m", []scripted.Turn{scripted.Stream(scripted.Text("ok"))}, scripted.WithRecording())
	req := &model.Request{
		Messages:   []*message.Msg{message.UserText("user", "hi")},
		Tools:      []model.ToolSchema{{Name: "echo", Description: "Echo."}},
		ToolChoice: &model.ToolChoice{Mode: "echo"},
	}
	for range m.Stream(context.Background(), req) {
	}
	calls := m.Calls()
	if len(calls) != 1 {
		t.Fatalf("calls = %d", len(calls))
	}
	var msgs []map[string]any
	if err := json.Unmarshal(calls[0].Messages, &msgs); err != nil || len(msgs) != 1 || msgs[0]["role"] != "user" {
		t.Fatalf("messages = %s (%v)", calls[0].Messages, err)
	}
	if string(calls[0].ToolChoice) != `{"mode":"echo","tools":null}` {
		t.Fatalf("tool choice = %s", calls[0].ToolChoice)
	}
	if !strings.Contains(string(calls[0].Tools), `"name":"echo"`) {
		t.Fatalf("tools = %s", calls[0].Tools)
	}
}

func Example() {
	m := scripted.New("demo", []scripted.Turn{
		scripted.Stream(scripted.Text("Hello"), scripted.Text(" world").WithUsage(5, 2)),
	})
	for chunk, err := range m.Stream(context.Background(), &model.Request{}) {
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s %q\n", chunk.Parts[0].ID, chunk.Parts[0].Text)
	}
	// Output:
	// t0-text-0 "Hello"
	// t0-text-0 " world"
}
