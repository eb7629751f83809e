package conformance

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/internal/ojson"
)

func loadGolden(t *testing.T, name string) *ojson.Object {
	t.Helper()
	data, err := os.ReadFile(fixture.Path(t, "conformance", "golden", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := parseOrdered(data)
	if err != nil {
		t.Fatal(err)
	}
	return v.(*ojson.Object)
}

// at walks a parsed document: keys and integer indexes.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(*ojson.Object).Vals[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

func set(t *testing.T, root any, value any, path ...any) {
	t.Helper()
	parent := at(t, root, path[:len(path)-1]...)
	switch k := path[len(path)-1].(type) {
	case string:
		parent.(*ojson.Object).Set(k, value)
	case int:
		parent.([]any)[k] = value
	}
}

// Any change to what the reference recorded makes the trace fail, at the
// path of the change — the comparison is not vacuous.
func TestCompareDetectsDifferences(t *testing.T) {
	cases := []struct {
		name  string
		path  []any
		value any
		want  string
	}{
		{"delta text", []any{"steps", 0, "stream", 3, "event", "delta"}, "Hullo", "steps[0].stream[3].event.delta"},
		{"event type", []any{"steps", 0, "stream", 1, "event", "type"}, "TEXT_BLOCK_START", "steps[0].stream[1].event.type"},
		{"usage", []any{"steps", 0, "stream", 7, "event", "input_tokens"}, json.Number("13"), "steps[0].stream[7].event.input_tokens"},
		{"cur_iter", []any{"steps", 0, "state", "reply_context", "cur_iter"}, json.Number("2"), "steps[0].state.reply_context.cur_iter"},
		{"context text", []any{"final_context", 1, "content", 0, "text"}, "Hello world?", "final_context[1].content[0].text"},
		{"outcome", []any{"steps", 0, "outcome", "status"}, "raised", "steps[0].outcome.status"},
		{"unused turns", []any{"unused_model_turns"}, json.Number("1"), "unused_model_turns"},
		{"model call tools", []any{"steps", 0, "model_calls", 0, "tools"}, []any{"x"}, "steps[0].model_calls[0].tools"},
		// An id relation: the REPLY_END must name the reply REPLY_START opened.
		{"id relation", []any{"steps", 0, "stream", 8, "event", "reply_id"}, "<id:99>", "steps[0].stream[8].event.reply_id"},
		{"fold", []any{"folded_replies", 0, "msg", "finished_reason"}, "interrupted", "folded_replies[0].msg.finished_reason"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := loadGolden(t, "plain_text_reply")
			set(t, g, tc.value, tc.path...)
			d, err := Compare(g, 1)
			if err != nil {
				t.Fatal(err)
			}
			if d == nil || d.Path != tc.want {
				t.Fatalf("difference = %v, want one at %s", d, tc.want)
			}
		})
	}
	// A missing event is reported too.
	g := loadGolden(t, "plain_text_reply")
	stream := at(t, g, "steps", 0, "stream").([]any)
	set(t, g, append(stream[:4:4], stream[5:]...), "steps", 0, "stream")
	if d, err := Compare(g, 1); err != nil || d == nil {
		t.Fatalf("a dropped event went unnoticed: %v %v", d, err)
	}
	// And the unmodified trace passes.
	if d, err := Compare(loadGolden(t, "plain_text_reply"), 2); err != nil || d != nil {
		t.Fatalf("unmodified trace: %v %v", d, err)
	}
}

// The excused final-message content is excused only for model answers: a
// synthetic exit message is still compared.
func TestExcusesAreNarrow(t *testing.T) {
	g := loadGolden(t, "max_iters_exceeded")
	stream := at(t, g, "steps", 0, "stream").([]any)
	last := len(stream) - 1
	set(t, g, "Something else.", "steps", 0, "stream", last, "msg", "content", 0, "text")
	d, err := Compare(g, 1)
	if err != nil || d == nil || !strings.HasSuffix(d.Path, "msg.content[0].text") {
		t.Fatalf("synthetic message content not compared: %v %v", d, err)
	}
	g = loadGolden(t, "single_tool_call")
	stream = at(t, g, "steps", 0, "stream").([]any)
	last = len(stream) - 1
	set(t, g, "Something else.", "steps", 0, "stream", last, "msg", "content", 0, "text")
	if d, err := Compare(g, 1); err != nil || d != nil {
		t.Fatalf("answer content should be excused (D1): %v %v", d, err)
	}
	// The rest of that message is still compared.
	set(t, g, "interrupted", "steps", 0, "stream", last, "msg", "finished_reason")
	if d, err := Compare(g, 1); err != nil || d == nil {
		t.Fatalf("finished_reason not compared: %v %v", d, err)
	}
}

func TestPatterns(t *testing.T) {
	root := obj("steps", []any{obj("stream", []any{obj("msg", obj("finished_reason", "completed", "structured_output", nil))})})
	p, err := parsePattern("steps[*].stream[*].msg[?finished_reason=completed,structured_output=null].content")
	if err != nil {
		t.Fatal(err)
	}
	path := []elem{{key: "steps", index: -1}, {index: 0}, {key: "stream", index: -1}, {index: 0}, {key: "msg", index: -1}, {key: "content", index: -1}, {index: 2}, {key: "text", index: -1}}
	if !p.match(path, root) {
		t.Fatal("pattern should cover a path below it")
	}
	if p.match(path[:5], root) {
		t.Fatal("pattern must not cover its parent")
	}
	at(t, root, "steps", 0, "stream", 0, "msg").(*ojson.Object).Set("finished_reason", "interrupted")
	if p.match(path, root) {
		t.Fatal("predicate ignored")
	}
	for _, bad := range []string{"", "steps[x]", "steps[*", "[?a=b]", "steps[?a]"} {
		if _, err := parsePattern(bad); err == nil {
			t.Errorf("parsePattern(%q) accepted", bad)
		}
	}
	paths, err := Excused()
	if err != nil || len(paths) < 4 {
		t.Fatalf("DEVIATIONS.md excuses: %v %v", paths, err)
	}
}

func TestReprPrefix(t *testing.T) {
	want := "Agent is not waiting for user confirmation, but received UserConfirmResultEvent: id='<id:26>' created_at='<ts>'"
	c := &comparer{want: obj()}
	p := []elem{{key: "steps", index: -1}, {index: 1}, {key: "outcome", index: -1}, {key: "error", index: -1}, {key: "message", index: -1}}
	if d := c.compare(p, "Agent is not waiting for user confirmation, but received UserConfirmResultEvent: {\"id\":1}", want); d != nil {
		t.Fatalf("repr tail compared: %v", d)
	}
	if d := c.compare(p, "Agent is waiting for user confirmation, but received UserConfirmResultEvent: {}", want); d == nil {
		t.Fatal("text before the repr not compared")
	}
}

func TestNormalizeLevels(t *testing.T) {
	id1, id2 := strings.Repeat("a", 32), strings.Repeat("b", 32)
	doc := obj(
		"steps", []any{obj("stream", []any{id1, id2}, "context", []any{id2, "2026-01-01T00:00:00.123456 and <ts>"})},
		"final_context", []any{id1},
	)
	n1 := normalize(doc, 1, nil)
	if got := string(toJSON(n1)); got != `{"steps":[{"stream":["<id:1>","<id:2>"],"context":["<id:1>","<ts> and <ts>"]}],"final_context":["<id:1>"]}` {
		t.Fatalf("level 1: %s", got)
	}
	n2 := normalize(doc, 2, nil)
	if got := string(toJSON(n2)); got != `{"steps":[{"stream":["<id:1>","<id:2>"],"context":["<id:2>","<ts> and <ts>"]}],"final_context":["<id:1>"]}` {
		t.Fatalf("level 2: %s", got)
	}
}

// D7: with interruption_raise_cancelled_error set, a cancellation that
// lands in the model stream or in a tool completes the reply in the
// reference (§6.1), so its trace is the one recorded without the option;
// the engine then returns the cancellation, which D7 excuses — and only
// there.
func TestInterruptionReturnsErrorIsExcused(t *testing.T) {
	for _, name := range []string{"cancel_during_sequential_tool", "cancel_during_concurrent_batch", "cancel_during_model_streaming_task_cancel"} {
		g := loadGolden(t, name)
		spec := at(t, g, "spec").(*ojson.Object)
		if spec.Vals["agent"] == nil {
			spec.Set("agent", obj())
		}
		set(t, g, true, "spec", "agent", "interruption_raise_cancelled_error")
		got, err := record(g)
		if err != nil {
			t.Fatal(err)
		}
		if s := at(t, got, "steps", 0, "outcome", "status"); s != "raised" {
			t.Fatalf("%s: outcome %v, want raised (the engine returns the cancellation)", name, s)
		}
		if d, err := Compare(g, 2); err != nil || d != nil {
			t.Fatalf("%s: %v %v", name, d, err)
		}
		// The excuse does not cover a step the reference did not cancel.
		set(t, g, "raised", "steps", 0, "outcome", "status")
		at(t, g, "steps", 0, "outcome").(*ojson.Object).Set("cancel", nil)
		if d, err := Compare(g, 2); err != nil || d == nil {
			t.Fatalf("%s: an outcome without a cancellation was excused: %v", name, err)
		}
	}
}
