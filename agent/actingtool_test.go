package agent_test

import (
	"context"
	"iter"
	"testing"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

// toolWatcher records what on_acting is handed as the tool.
type toolWatcher struct{ seen *[]tool.Tool }

func (w toolWatcher) OnActing(ctx context.Context, _ *agent.Agent, in agent.ActingInput, next agent.ActingHandler) iter.Seq[tool.Chunk] {
	*w.seen = append(*w.seen, in.Tool)
	return next(ctx, in)
}

// An acting middleware sees the tool itself, also in a concurrent batch
// (where the agent keeps the tool in step with its worker): its optional
// interfaces, such as its permission policy, are not hidden by a wrapper.
func TestActingMiddlewareSeesTheTool(t *testing.T) {
	var seen []tool.Tool
	conc := makeTool(t, toolSpec{name: "conc", concurrent: true})
	seq := makeTool(t, toolSpec{name: "seq"})
	a, _ := newAgent(t, []scripted.Turn{
		scripted.Reply(scripted.ToolCall("c1", "conc", `{}`), scripted.ToolCall("c2", "conc", `{}`), scripted.ToolCall("c3", "seq", `{}`)),
		scripted.Reply(scripted.Text("done")),
	}, []tool.Tool{conc, seq}, withMW(agent.Middleware{Acting: toolWatcher{&seen}.OnActing}))
	mustReply(t, a, user("go"))
	if len(seen) != 3 {
		t.Fatalf("on_acting ran %d times, want 3", len(seen))
	}
	for i, want := range []tool.Tool{conc, conc, seq} {
		if seen[i] != want {
			t.Errorf("call %d: on_acting got %T, want the tool itself", i+1, seen[i])
		}
		s := tool.PermissionSubject(seen[i])
		if d := s.CheckPermissions(context.Background(), nil, nil); d.Behavior != block.Allow {
			t.Errorf("call %d: the tool's own policy is hidden: %+v", i+1, d)
		}
	}
}
