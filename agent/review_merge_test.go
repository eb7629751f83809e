package agent_test

import (
	"context"
	"iter"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

// A chunk that cannot be folded into the result ends the call with an
// error chunk (the reference's toolkit reports the exception): the error
// text is streamed like the stored result says, and the tool is not read
// any further.
func TestUnfoldableToolChunkEndsTheCall(t *testing.T) {
	for _, concurrent := range []bool{false, true} {
		unfoldable(t, concurrent)
	}
}

func unfoldable(t *testing.T, concurrent bool) {
	bad := makeTool(t, toolSpec{name: "bad", concurrent: concurrent, body: func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) {
			if !yield(tool.Text("a"), nil) {
				return
			}
			if !yield(tool.Chunk{Content: []block.Block{block.NewThinking("hmm")}}, nil) {
				return
			}
			yield(tool.Text("after"), nil)
		}
	}})
	a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.ToolCall("c1", "bad", `{}`)), scripted.Reply(scripted.Text("done"))}, []tool.Tool{bad})
	r := mustReply(t, a, user("go"))
	var res *block.ToolResult
	for _, m := range stateOf(t, a).Context {
		if b, ok := m.Find(block.KindToolResult, "c1").(*block.ToolResult); ok {
			res = b
		}
	}
	if res == nil || res.State != block.ResultError {
		t.Fatalf("result %+v", res)
	}
	var stored strings.Builder
	for _, b := range res.Output.Blocks {
		if tb, ok := b.(*block.Text); ok {
			stored.WriteString(tb.Text)
		}
	}
	var streamed strings.Builder
	for _, e := range r.events {
		if d, ok := e.(*event.ToolResultTextDelta); ok && d.ToolCallID == "c1" {
			streamed.WriteString(d.Delta)
		}
	}
	if strings.Contains(stored.String(), "after") {
		t.Fatalf("the tool was read after the failure: %q", stored.String())
	}
	if streamed.String() != stored.String() {
		t.Fatalf("streamed %q, stored %q", streamed.String(), stored.String())
	}
}
