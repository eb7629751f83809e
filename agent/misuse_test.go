package agent_test

import (
	"context"
	"errors"
	"iter"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

// What a new user hit (issue 7, section 5), agent side.

// A nil content block in an input message is an input error, not a panic,
// in a reply and in Observe; nothing is changed.
func TestNilContentBlock(t *testing.T) {
	a, m := newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("x"))}, nil)
	bad := &message.Msg{Name: "user", Role: event.RoleUser, Content: []block.Block{block.NewText("hi"), nil}}
	r := reply(t, context.Background(), a, bad)
	var ie *agent.InputError
	if !errors.As(r.err, &ie) || !errors.Is(r.err, agent.ErrInvalidInput) || len(r.events) != 0 {
		t.Fatalf("reply: err %v, %d events", r.err, len(r.events))
	}
	if err := a.Observe(bad); !errors.As(err, &ie) {
		t.Fatalf("observe: %v", err)
	}
	if st := stateOf(t, a); len(st.Context) != 0 || m.Remaining() != 1 {
		t.Fatalf("a rejected input changed the state: %d messages", len(st.Context))
	}
}

// A nil confirmation or external result is an input error before anything
// happens.
func TestNilResume(t *testing.T) {
	ask := makeTool(t, toolSpec{name: "ask", perm: block.Ask})
	a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.ToolCall("c1", "ask", `{}`))}, []tool.Tool{ask})
	mustReply(t, a, user("go"))
	before, _ := stateOf(t, a).MarshalJSON()
	for name, seq := range map[string]iter.Seq2[event.Event, error]{
		"confirm":  a.Confirm(context.Background(), nil),
		"external": a.DeliverExternal(context.Background(), nil),
	} {
		var errs []error
		n := 0
		for e, err := range seq {
			if err != nil {
				errs = append(errs, err)
			} else if e != nil {
				n++
			}
		}
		if len(errs) != 1 || !errors.Is(errs[0], agent.ErrInvalidInput) || n != 0 {
			t.Fatalf("%s: errors %v, %d events", name, errs, n)
		}
	}
	if after, _ := stateOf(t, a).MarshalJSON(); string(after) != string(before) {
		t.Fatal("a rejected resume changed the state")
	}
}

// A middleware that sets two inputs gets an input error.
func TestTwoInputsInOne(t *testing.T) {
	both := func(ctx context.Context, _ *agent.Agent, in agent.ReplyInput, next agent.ReplyHandler) iter.Seq2[agent.Item, error] {
		in.Interrupt = true
		return next(ctx, in)
	}
	a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("x"))}, nil, withMW(agent.Middleware{Reply: both}))
	if r := reply(t, context.Background(), a, user("hi")); !errors.Is(r.err, agent.ErrInvalidInput) || len(r.events) != 0 {
		t.Fatalf("err %v, events %s", r.err, r.kinds())
	}
}

// A context already done when a reply starts runs nothing: no model call,
// no tool, no event, no state change; the error wraps ctx's.
func TestCancelledBeforeStart(t *testing.T) {
	var ran atomic.Int32
	body := func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) { ran.Add(1); yield(tool.Text("ok"), nil) }
	}
	ask := makeTool(t, toolSpec{name: "ask", perm: block.Ask, body: body})
	turns := []scripted.Turn{scripted.Reply(scripted.ToolCall("c1", "ask", `{}`)), scripted.Reply(scripted.Text("done"))}
	a, m := newAgent(t, turns, []tool.Tool{ask})
	done, cancel := context.WithCancel(context.Background())
	cancel()

	before, _ := stateOf(t, a).MarshalJSON()
	r := reply(t, done, a, user("go"))
	if !errors.Is(r.err, context.Canceled) || len(r.events) != 0 || r.res.Outcome != agent.OutcomeNothing {
		t.Fatalf("new input: err %v, events %s, outcome %s", r.err, r.kinds(), r.res.Outcome)
	}
	if after, _ := stateOf(t, a).MarshalJSON(); string(after) != string(before) || len(m.Calls()) != 0 {
		t.Fatalf("the reply ran: %d model calls", len(m.Calls()))
	}

	// The same for a resume: the approved call does not run.
	mustReply(t, a, user("go"))
	approve := confirm(t, a, true, nil, "c1")
	before, _ = stateOf(t, a).MarshalJSON()
	r = reply(t, done, a, approve)
	if !errors.Is(r.err, context.Canceled) || len(r.events) != 0 {
		t.Fatalf("resume: err %v, events %s", r.err, r.kinds())
	}
	if after, _ := stateOf(t, a).MarshalJSON(); string(after) != string(before) || ran.Load() != 0 || len(m.Calls()) != 1 {
		t.Fatalf("the resume ran: tool %d times, %d model calls", ran.Load(), len(m.Calls()))
	}
}

// Once the cancellation is visible no tool starts, even one that would
// run straight through without waiting: its result is the interruption.
func TestNoToolStartsAfterCancellation(t *testing.T) {
	for _, concurrent := range []bool{false, true} {
		var cancelled atomic.Bool
		var startedAfter, started atomic.Int32
		body := func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) {
				started.Add(1)
				if cancelled.Load() {
					startedAfter.Add(1)
				}
				yield(tool.Text("ran"), nil)
			}
		}
		quick := makeTool(t, toolSpec{name: "quick", concurrent: concurrent, body: body})
		a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.ToolCall("c1", "quick", `{}`), scripted.ToolCall("c2", "quick", `{}`))}, []tool.Tool{quick})
		ctx, cancel := context.WithCancel(context.Background())
		var r replyRun
		for e, err := range a.Stream(ctx, []*message.Msg{user("go")}, agent.WithResult(&r.res)) {
			if err != nil {
				t.Fatal(err)
			}
			r.events = append(r.events, e)
			if s, ok := e.(*event.ToolResultStart); ok && s.ToolCallID == "c1" {
				cancelled.Store(true)
				cancel()
			}
		}
		cancel()
		if startedAfter.Load() != 0 || r.res.Outcome != agent.OutcomeInterrupted {
			t.Fatalf("concurrent=%v: %d of %d tools started after the cancellation; outcome %s; %s",
				concurrent, startedAfter.Load(), started.Load(), r.res.Outcome, r.kinds())
		}
		if !concurrent {
			// Sequential: c1 had not started when its START was seen; c2
			// is closed with the reply.
			expectKinds(t, r, `REPLY_START MODEL_CALL_START TOOL_CALL_START(c1) TOOL_CALL_DELTA(c1)
				TOOL_CALL_START(c2) TOOL_CALL_DELTA(c2) TOOL_CALL_END(c1) TOOL_CALL_END(c2) MODEL_CALL_END
				RESULT_START(c1) RESULT_DELTA(c1:`+tool.InterruptedText+`) RESULT_END(c1:interrupted)
				RESULT_START(c2) RESULT_DELTA(c2:`+tool.InterruptedText+`) RESULT_END(c2:interrupted) REPLY_END(interrupted)`)
		}
	}
}

// State may be called at any time: during a reply it is ErrBusy (the reply
// is changing the state), between replies a deep copy. Run with -race.
func TestStateDuringReply(t *testing.T) {
	echo := makeTool(t, toolSpec{name: "echo", concurrent: true})
	turns := []scripted.Turn{
		scripted.Stream(scripted.Text("a"), scripted.ToolCall("c1", "echo", `{"input": "x"}`), scripted.ToolCall("c2", "echo", `{"input": "y"}`)),
		scripted.Stream(scripted.Text("b"), scripted.Text("c")),
	}
	a, _ := newAgent(t, turns, []tool.Tool{echo})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var copies, busy atomic.Int32
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				st, err := a.State()
				switch {
				case errors.Is(err, agent.ErrBusy):
					busy.Add(1)
				case err != nil:
					t.Error(err)
					return
				default:
					copies.Add(1)
					_ = st.AppendJSON(nil) // read all of it
					st.Context = nil       // a copy: the agent's state is not touched
				}
			}
		})
	}
	for _, err := range a.Stream(context.Background(), []*message.Msg{user("go")}) {
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.State(); !errors.Is(err, agent.ErrBusy) {
			t.Fatalf("State during the reply: %v", err)
		}
	}
	close(stop)
	wg.Wait()
	if st := stateOf(t, a); len(st.Context) != 2 || busy.Load() == 0 {
		t.Fatalf("context %d messages after the reply; %d busy, %d copies", len(st.Context), busy.Load(), copies.Load())
	}
}
