package agent_test

import (
	"context"
	"errors"
	"iter"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

type panickyActing struct{}

func (panickyActing) OnActing(context.Context, *agent.Agent, agent.ActingInput, agent.ActingHandler) iter.Seq[tool.Chunk] {
	return func(func(tool.Chunk) bool) { panic("acting middleware bug") }
}

// A panicking on_acting middleware fails the reply with an error, in a
// sequential batch as in a concurrent one: it does not crash the caller,
// and the agent can reply again.
func TestPanickingActingMiddleware(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, concurrent := range []bool{false, true} {
		echo := makeTool(t, toolSpec{name: "echo", concurrent: concurrent})
		a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.ToolCall("c1", "echo", `{}`)), scripted.Reply(scripted.Text("ok"))},
			[]tool.Tool{echo}, withMW(agent.Middleware{Acting: panickyActing{}.OnActing}))
		var r replyRun
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("concurrent=%v: the panic reached the caller: %v", concurrent, p)
				}
			}()
			r = reply(t, context.Background(), a, user("go"))
		}()
		if !errors.Is(r.err, agent.ErrPanicked) {
			t.Fatalf("concurrent=%v: err %v", concurrent, r.err)
		}
	}
}
