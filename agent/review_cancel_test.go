package agent_test

import (
	"context"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

// waitingPolicy is a permission middleware that waits for a remote policy
// service: it returns ctx's error once the reply is cancelled.
type waitingPolicy struct{ entered chan struct{} }

func (p waitingPolicy) OnCheckPermission(ctx context.Context, _ *agent.Agent, _ agent.PermissionInput, _ agent.PermissionHandler) (permission.Decision, error) {
	close(p.entered)
	<-ctx.Done()
	return permission.Decision{}, ctx.Err()
}

// A cancellation that lands in a permission middleware interrupts the
// reply like any other (§6.1 "anywhere else"): the call gets an
// interrupted result, REPLY_END(interrupted) ends the stream, no error.
func TestCancelDuringPermissionMiddleware(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, concurrent := range []bool{false, true} {
		echo := makeTool(t, toolSpec{name: "echo", concurrent: concurrent})
		p := waitingPolicy{entered: make(chan struct{})}
		a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.ToolCall("c1", "echo", `{}`))}, []tool.Tool{echo}, withMW(agent.Middleware{Permission: p.OnCheckPermission}))
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-p.entered; cancel() }()
		r := reply(t, ctx, a, user("go"))
		cancel()
		if r.err != nil {
			t.Fatalf("concurrent=%v: err %v (events %s)", concurrent, r.err, r.kinds())
		}
		if !strings.HasSuffix(r.kinds(), "RESULT_START(c1) RESULT_DELTA(c1:"+imsg+") RESULT_END(c1:interrupted) REPLY_END(interrupted)") ||
			r.res.Outcome != agent.OutcomeInterrupted {
			t.Fatalf("concurrent=%v: events %s outcome %s", concurrent, r.kinds(), r.res.Outcome)
		}
		for _, b := range stateOf(t, a).Tail().Content {
			if c, ok := b.(*block.ToolCall); ok && c.State != block.CallFinished {
				t.Fatalf("concurrent=%v: call %s left %s", concurrent, c.ID, c.State)
			}
		}
	}
}
