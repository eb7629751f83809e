package agent_test

import (
	"context"
	"iter"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

// A cancellation that becomes visible inside a batch stops the reply there:
// the calls not yet started do not run (they get interrupted results), no
// further model call starts and REPLY_END(interrupted) closes the reply —
// in a concurrent batch as in a sequential one, whether the cancellation
// comes from a tool or from outside while a tool waits.
func TestCancelInBatchStartsNoMoreTools(t *testing.T) {
	type trigger struct {
		name string
		// first is the first call's body; it cancels (or lets the
		// outside cancel) the reply.
		first func(cancel context.CancelFunc) tool.CallFunc
		// entered, if set, is closed by the first call's tool once it
		// waits; the test then cancels from outside.
		entered chan struct{}
		// want are the results' end states, by call.
		want map[string]string
	}
	imsg := tool.InterruptedText
	makeTriggers := func() []trigger {
		entered := make(chan struct{})
		return []trigger{{
			name: "tool cancels and returns",
			first: func(cancel context.CancelFunc) tool.CallFunc {
				return func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
					return func(yield func(tool.Chunk, error) bool) { cancel(); yield(tool.Text("one done"), nil) }
				}
			},
			want: map[string]string{"c1": "RESULT_DELTA(c1:one done) RESULT_END(c1:success)", "c2": "RESULT_DELTA(c2:" + imsg + ") RESULT_END(c2:interrupted)"},
		}, {
			name: "cancelled from outside while the tool waits",
			first: func(context.CancelFunc) tool.CallFunc {
				return func(ctx context.Context, _ map[string]any) iter.Seq2[tool.Chunk, error] {
					return func(yield func(tool.Chunk, error) bool) {
						close(entered)
						<-ctx.Done()
						yield(tool.Chunk{}, ctx.Err())
					}
				}
			},
			entered: entered,
			want:    map[string]string{"c1": "RESULT_DELTA(c1:" + imsg + ") RESULT_END(c1:interrupted)", "c2": "RESULT_DELTA(c2:" + imsg + ") RESULT_END(c2:interrupted)"},
		}}
	}
	for _, concurrent := range []bool{false, true} {
		for _, tr := range makeTriggers() {
			ctx, cancel := context.WithCancel(context.Background())
			var ran2 atomic.Bool
			one := makeTool(t, toolSpec{name: "one", concurrent: concurrent, body: tr.first(cancel)})
			two := makeTool(t, toolSpec{name: "two", concurrent: concurrent, body: func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
				return func(yield func(tool.Chunk, error) bool) { ran2.Store(true); yield(tool.Text("two done"), nil) }
			}})
			a, m := newAgent(t, []scripted.Turn{
				scripted.Reply(scripted.ToolCall("c1", "one", `{}`), scripted.ToolCall("c2", "two", `{}`)),
				scripted.Reply(scripted.Text("done")),
			}, []tool.Tool{one, two}, preemption(200*time.Millisecond))
			if tr.entered != nil {
				// The first call gives up the turn only after the
				// preemption period, long after the cancellation is visible.
				go func() { <-tr.entered; cancel() }()
			}
			r := reply(t, ctx, a, user("go"))
			cancel()
			if r.err != nil {
				t.Fatalf("%s, concurrent=%v: err %v (events %s)", tr.name, concurrent, r.err, r.kinds())
			}
			if ran2.Load() {
				t.Errorf("%s, concurrent=%v: tool two ran after the cancellation", tr.name, concurrent)
			}
			if n := len(m.Calls()); n != 1 {
				t.Errorf("%s, concurrent=%v: %d model calls, want 1", tr.name, concurrent, n)
			}
			got := r.kinds()
			for id, want := range tr.want {
				if !strings.Contains(got, want) {
					t.Errorf("%s, concurrent=%v: events\n%s\nwant %s for %s", tr.name, concurrent, got, want, id)
				}
			}
			if !strings.HasSuffix(got, "RESULT_END(c2:interrupted) REPLY_END(interrupted)") && !strings.HasSuffix(got, "RESULT_END(c1:interrupted) REPLY_END(interrupted)") {
				t.Errorf("%s, concurrent=%v: events\n%s\nwant the results, then REPLY_END(interrupted)", tr.name, concurrent, got)
			}
			for _, b := range stateOf(t, a).Tail().Content {
				if c, ok := b.(*block.ToolCall); ok && c.State != block.CallFinished {
					t.Errorf("%s, concurrent=%v: call %s left %s", tr.name, concurrent, c.ID, c.State)
				}
			}
		}
	}
}

// A batch that parks a call after the cancellation became visible does not
// park the reply: the asking call gets an interrupted result too.
func TestCancelInBatchDoesNotPark(t *testing.T) {
	for _, concurrent := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		one := makeTool(t, toolSpec{name: "one", concurrent: concurrent, body: func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) { cancel(); yield(tool.Text("one done"), nil) }
		}})
		ask := makeTool(t, toolSpec{name: "ask", concurrent: concurrent, perm: block.Ask})
		a, _ := newAgent(t, []scripted.Turn{
			scripted.Reply(scripted.ToolCall("c1", "one", `{}`), scripted.ToolCall("c2", "ask", `{}`)),
		}, []tool.Tool{one, ask})
		r := reply(t, ctx, a, user("go"))
		cancel()
		if r.err != nil || r.res.Outcome != agent.OutcomeInterrupted ||
			!strings.HasSuffix(r.kinds(), "RESULT_END(c2:interrupted) REPLY_END(interrupted)") {
			t.Fatalf("concurrent=%v: err %v outcome %s events %s", concurrent, r.err, r.res.Outcome, r.kinds())
		}
	}
}
