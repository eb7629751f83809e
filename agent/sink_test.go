package agent_test

import (
	"context"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

// A consumer may stop after any event: the reply then ends without
// another item (a yield after a stop would panic), leaves no goroutine
// behind, and the agent takes the next reply. The script passes through
// every step kind: reasoning, a concurrent batch, a sequential batch and
// the exit.
func TestStopAfterEveryEvent(t *testing.T) {
	defer goleak.VerifyNone(t)
	script := func() []scripted.Turn {
		return []scripted.Turn{
			scripted.Reply(scripted.Text("calling"), scripted.ToolCall("c1", "conc", `{"input": "a"}`),
				scripted.ToolCall("c2", "conc", `{"input": "b"}`), scripted.ToolCall("c3", "seq", `{"input": "c"}`)),
			scripted.Reply(scripted.Text("done")),
			scripted.Reply(scripted.Text("next")),
		}
	}
	tools := func() []tool.Tool {
		return []tool.Tool{
			makeTool(t, toolSpec{name: "conc", concurrent: true}),
			makeTool(t, toolSpec{name: "seq"}),
		}
	}
	a, _ := newAgent(t, script(), tools())
	full := mustReply(t, a, user("go"))
	if n := len(full.events); n < 20 {
		t.Fatalf("the script produced only %d events: %s", n, full.kinds())
	}
	for stop := 1; stop <= len(full.events); stop++ {
		a, _ := newAgent(t, script(), tools())
		seen := 0
		for e, err := range a.Stream(context.Background(), []*message.Msg{user("go")}) {
			if err != nil {
				t.Fatalf("stop %d: %v", stop, err)
			}
			if e.Type() != full.events[seen].Type() {
				t.Fatalf("stop %d: event %d is %s, the full run had %s", stop, seen, e.Type(), full.events[seen].Type())
			}
			seen++
			if seen == stop {
				break
			}
		}
		if seen != stop {
			t.Fatalf("stop %d: the stream ended after %d events", stop, seen)
		}
		// Not busy, and the state is usable: the next input continues.
		r := reply(t, context.Background(), a, user("again"))
		if r.err != nil {
			t.Fatalf("stop %d: next reply: %v", stop, r.err)
		}
		if last := r.events[len(r.events)-1]; last.Type() != event.TypeReplyEnd {
			t.Fatalf("stop %d: next reply ended with %s (%s)", stop, last.Type(), r.kinds())
		}
		if r.res.Outcome != agent.OutcomeCompleted {
			t.Fatalf("stop %d: next reply outcome %s", stop, r.res.Outcome)
		}
	}
}
