package agent_test

import (
	"context"
	"iter"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

// An Acting hook of a concurrent batch may read the reply's state (as
// ReplyState documents) while its siblings' tools run and their results
// are stored: the hook's own code runs while its call holds the batch's
// turn. Run with -race.
func TestActingHookReadsStateInBatch(t *testing.T) {
	slow := sleeper(30 * time.Millisecond)
	tools := []tool.Tool{
		makeTool(t, toolSpec{name: "a", concurrent: true, body: slow}),
		makeTool(t, toolSpec{name: "b", concurrent: true, body: slow}),
		makeTool(t, toolSpec{name: "c", concurrent: true, body: slow}),
	}
	read := func(ctx context.Context) {
		st := agent.ReplyState(ctx)
		for _, m := range st.Context {
			_ = m.AppendJSON(nil)
		}
	}
	mw := agent.Middleware{Acting: func(ctx context.Context, _ *agent.Agent, in agent.ActingInput, next agent.ActingHandler) iter.Seq[tool.Chunk] {
		return func(yield func(tool.Chunk) bool) {
			read(ctx)
			for c := range next(ctx, in) {
				read(ctx)
				if !yield(c) {
					return
				}
			}
			// After its tool returned, while the siblings' results are
			// being stored.
			deadline := time.Now().Add(50 * time.Millisecond)
			for time.Now().Before(deadline) {
				read(ctx)
				time.Sleep(time.Millisecond)
			}
		}
	}}
	a, _ := newAgent(t, []scripted.Turn{
		scripted.Reply(scripted.ToolCall("c1", "a", `{}`), scripted.ToolCall("c2", "b", `{}`), scripted.ToolCall("c3", "c", `{}`)),
		scripted.Reply(scripted.Text("done")),
	}, tools, withMW(mw))
	r := mustReply(t, a, user("go"))
	if r.res.Outcome != agent.OutcomeCompleted {
		t.Fatalf("outcome %s, events %s", r.res.Outcome, r.kinds())
	}
}
