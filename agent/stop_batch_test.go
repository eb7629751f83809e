package agent_test

import (
	"context"
	"iter"
	"sync/atomic"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

// Stopping the iteration while a tool call runs leaves that call with an
// interrupted result in the state, in a sequential batch as in a
// concurrent one: continuing the reply does not run its tool again.
func TestStopDuringToolCall(t *testing.T) {
	for _, concurrent := range []bool{false, true} {
		for _, at := range []string{"RESULT_START(c1)", "RESULT_DELTA(c1:part)"} {
			var runs atomic.Int32
			one := makeTool(t, toolSpec{name: "one", concurrent: concurrent, body: func(ctx context.Context, _ map[string]any) iter.Seq2[tool.Chunk, error] {
				return func(yield func(tool.Chunk, error) bool) {
					runs.Add(1)
					if !yield(tool.Text("part"), nil) {
						return
					}
					yield(tool.Text(" rest"), nil)
				}
			}})
			a, _ := newAgent(t, []scripted.Turn{
				scripted.Reply(scripted.ToolCall("c1", "one", `{}`)),
				scripted.Reply(scripted.Text("done")),
			}, []tool.Tool{one})
			stopped := false
			for e, err := range stream(context.Background(), a, user("go")) {
				if err != nil {
					t.Fatal(err)
				}
				if describe(e) == at {
					stopped = true
					break
				}
			}
			if !stopped {
				t.Fatalf("concurrent=%v: never saw %s", concurrent, at)
			}
			tail := stateOf(t, a).Tail()
			c, _ := tail.Find(block.KindToolCall, "c1").(*block.ToolCall)
			res, _ := tail.Find(block.KindToolResult, "c1").(*block.ToolResult)
			// In a concurrent batch the tool may have finished before the
			// consumer stopped (its worker does not wait for the consumer
			// to take its events); then its result is its own.
			if c == nil || c.State != block.CallFinished || res == nil ||
				(res.State != block.ResultInterrupted && (!concurrent || res.State != block.ResultSuccess)) {
				t.Fatalf("concurrent=%v, stopped at %s: context %s", concurrent, at, contextShape(tail))
			}
			before := runs.Load()
			r := mustReply(t, a, nil)
			if runs.Load() != before {
				t.Errorf("concurrent=%v, stopped at %s: continuing ran the tool again", concurrent, at)
			}
			if last := r.events[len(r.events)-1]; last.Type() != event.TypeReplyEnd {
				t.Errorf("concurrent=%v, stopped at %s: continued reply %s", concurrent, at, r.kinds())
			}
		}
	}
}
