package agent_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

// cancelAfter runs a reply and cancels its context right after the event
// for which when returns true.
func cancelAfter(t *testing.T, a *agent.Agent, input any, when func(event.Event) bool) replyRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var r replyRun
	for e, err := range stream(ctx, a, input, agent.WithResult(&r.res)) {
		if err != nil {
			r.err = err
			break
		}
		r.events = append(r.events, e)
		if when(e) {
			cancel()
		}
	}
	return r
}

func isType(ty event.Type) func(event.Event) bool {
	return func(e event.Event) bool { return e.Type() == ty }
}

var imsg = tool.InterruptedText

// INT-1: cancel during a sequential tool: the tool's interrupted result
// (list output), REPLY_END(interrupted), the fallback message.
func TestCancelSequentialTool(t *testing.T) {
	defer goleak.VerifyNone(t)
	slow := makeTool(t, toolSpec{name: "slow", body: sleeper(time.Hour)})
	a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("Calling."), scripted.ToolCall("tc", "slow", `{}`))}, []tool.Tool{slow})
	r := cancelAfter(t, a, user("Hi"), isType(event.TypeToolResultStart))
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !strings.HasSuffix(r.kinds(), "RESULT_START(tc) RESULT_DELTA(tc:"+imsg+") RESULT_END(tc:interrupted) REPLY_END(interrupted)") {
		t.Fatalf("events %s", r.kinds())
	}
	if r.res.Outcome != agent.OutcomeInterrupted || contextShape(r.res.Msg) != "text "+agent.DefaultInterruptionMessage ||
		r.res.Msg.ID != stateOf(t, a).Reply.ReplyID || r.res.Msg.FinishedReason != event.ReplyInterrupted {
		t.Fatalf("result %+v", r.res)
	}
	if got := contextShape(stateOf(t, a).Tail()); got != "text Calling. | call tc finished | result tc interrupted list:"+imsg {
		t.Fatalf("context %s", got)
	}
	if stateOf(t, a).Reply.CurIter != 0 {
		t.Fatal("an interrupted round was counted")
	}
}

// INT-2..INT-5: cancel during a concurrent batch with calls asking,
// submitted and running: running calls report first (list output), then
// the closure settles the parked ones in call order (plain output, no
// second START for the submitted call).
func TestCancelConcurrentBatch(t *testing.T) {
	defer goleak.VerifyNone(t)
	ask := makeTool(t, toolSpec{name: "ask", perm: block.Ask, concurrent: true})
	ext := makeTool(t, toolSpec{name: "ext", external: true, concurrent: true, readOnly: true})
	slow := makeTool(t, toolSpec{name: "slow", concurrent: true, readOnly: true, body: sleeper(time.Hour)})
	a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("Mixed batch."),
		scripted.ToolCall("tc-confirm", "ask", `{}`), scripted.ToolCall("tc-ext", "ext", `{}`),
		scripted.ToolCall("tc-run", "slow", `{}`), scripted.ToolCall("tc-run2", "slow", `{}`))}, []tool.Tool{ask, ext, slow})
	starts := 0
	r := cancelAfter(t, a, user("Hi"), func(e event.Event) bool {
		if s, ok := e.(*event.ToolResultStart); ok && strings.HasPrefix(s.ToolCallID, "tc-run") {
			starts++
		}
		return starts == 2
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := "REQUIRE_CONFIRM(tc-confirm) RESULT_START(tc-ext) REQUIRE_EXTERNAL(tc-ext) RESULT_START(tc-run) RESULT_START(tc-run2) " +
		"RESULT_DELTA(tc-run:" + imsg + ") RESULT_END(tc-run:interrupted) RESULT_DELTA(tc-run2:" + imsg + ") RESULT_END(tc-run2:interrupted) " +
		"RESULT_START(tc-confirm) RESULT_DELTA(tc-confirm:" + imsg + ") RESULT_END(tc-confirm:interrupted) " +
		"RESULT_DELTA(tc-ext:" + imsg + ") RESULT_END(tc-ext:interrupted) REPLY_END(interrupted)"
	if !strings.HasSuffix(r.kinds(), want) {
		t.Fatalf("events\n%s\nwant suffix\n%s", r.kinds(), want)
	}
	got := contextShape(stateOf(t, a).Tail())
	wantCtx := "text Mixed batch. | call tc-confirm finished | call tc-ext finished | call tc-run finished | call tc-run2 finished | " +
		"result tc-run interrupted list:" + imsg + " | result tc-run2 interrupted list:" + imsg + " | " +
		"result tc-confirm interrupted plain:" + imsg + " | result tc-ext interrupted plain:" + imsg
	if got != wantCtx {
		t.Fatalf("context\n%s\nwant\n%s", got, wantCtx)
	}
}

// INT-12: cancel in the middle of the model stream: the partial answer is
// kept, MODEL_CALL_END(interrupted), and the state serves the next reply.
func TestCancelModelStream(t *testing.T) {
	defer goleak.VerifyNone(t)
	a, _ := newAgent(t, []scripted.Turn{
		scripted.Stream(scripted.Text("part1 "), scripted.Pause(time.Hour), scripted.Text("part2")),
		scripted.Stream(scripted.Text("Continued.")),
	}, nil)
	r := cancelAfter(t, a, user("Hello"), isType(event.TypeTextBlockDelta))
	expectKinds(t, r, "REPLY_START MODEL_CALL_START TEXT_BLOCK_START TEXT_DELTA(part1 ) TEXT_BLOCK_END MODEL_CALL_END(interrupted) REPLY_END(interrupted)")
	if got := contextShape(stateOf(t, a).Tail()); got != "text part1 " {
		t.Fatalf("context %s", got)
	}
	r = mustReply(t, a, user("Continue please"))
	if r.res.Outcome != agent.OutcomeCompleted {
		t.Fatalf("next reply: %s", r.res.Outcome)
	}
}

// INT-10/11: a model call cancelled before it streams: an empty
// interrupted response, no retry, no fallback, no forced structured round.
func TestCancelBlockedModelCall(t *testing.T) {
	defer goleak.VerifyNone(t)
	blocked := &blockingModel{started: make(chan struct{})}
	fb := scripted.New("fallback", nil)
	tk, _ := tool.NewToolkit(nil)
	a, err := agent.New(agent.Config{Name: "Friday", Model: blocked, Toolkit: tk, Logger: quietLog,
		ModelRetries: 2, FallbackModel: fb})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-blocked.started; cancel() }()
	var r replyRun
	for e, err := range a.Stream(ctx, []*message.Msg{user("Hello")}, agent.WithStructuredSchema([]byte(`{"type":"object","properties":{"answer":{"type":"string"}}}`)), agent.WithResult(&r.res)) {
		if err != nil {
			t.Fatal(err)
		}
		r.events = append(r.events, e)
	}
	// Injection is on (the default), so a HINT_BLOCK precedes the call.
	expectKinds(t, r, "REPLY_START HINT_BLOCK MODEL_CALL_START MODEL_CALL_END(interrupted) REPLY_END(interrupted)")
	if blocked.calls != 1 || fb.Remaining() != 0 {
		t.Fatalf("calls %d, fallback turns left %d", blocked.calls, fb.Remaining())
	}
	if tail := stateOf(t, a).Tail(); len(tail.Content) != 2 { // the two hints, nothing from the empty response
		t.Fatalf("context %s", contextShape(tail))
	}
}

// blockingModel waits for cancellation on every call.
type blockingModel struct {
	started chan struct{}
	calls   int
}

func (b *blockingModel) Name() string { return "blocking" }
func (b *blockingModel) Stream(ctx context.Context, _ *model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		b.calls++
		close(b.started)
		<-ctx.Done()
		yield(model.Chunk{}, ctx.Err())
	}
}

// A tool that ignores its context cannot hang the reply: it is abandoned
// after the grace period, and its goroutine ends when the tool returns.
// The tool cancels the reply once it runs and then blocks until the reply
// has ended (or a watchdog gives up on it), so a reply that waited for it
// would end only after it returned.
func TestToolIgnoringContext(t *testing.T) {
	defer goleak.VerifyNone(t)
	var running atomic.Int32
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free()
	var cancel atomic.Pointer[context.CancelFunc]
	deaf := func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) {
			running.Add(1)
			defer running.Add(-1)
			(*cancel.Load())()
			<-release // deaf to cancellation
			yield(tool.Text("too late"), nil)
		}
	}
	stubborn := makeTool(t, toolSpec{name: "stubborn", body: deaf})
	stubbornC := makeTool(t, toolSpec{name: "stubbornc", concurrent: true, body: deaf})
	watchdog := time.AfterFunc(30*time.Second, free)
	defer watchdog.Stop()
	for _, name := range []string{"stubborn", "stubbornc"} {
		a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.ToolCall("c1", name, `{}`), scripted.ToolCall("c2", name, `{}`))},
			[]tool.Tool{stubborn, stubbornC}, func(c *agent.Config) { c.ToolGrace = 20 * time.Millisecond }, preemption(5*time.Millisecond))
		ctx, stop := context.WithCancel(context.Background())
		cancel.Store(&stop)
		var r replyRun
		for e, err := range stream(ctx, a, user("go"), agent.WithResult(&r.res)) {
			if err != nil {
				r.err = err
				break
			}
			r.events = append(r.events, e)
		}
		stop()
		if running.Load() == 0 {
			t.Fatalf("%s: the reply ended only once its tools that ignore cancellation returned (%s)", name, r.kinds())
		}
		if r.err != nil || r.res.Outcome != agent.OutcomeInterrupted {
			t.Fatalf("%s: %v %s", name, r.err, r.kinds())
		}
		for _, b := range stateOf(t, a).Tail().Content {
			if c, ok := b.(*block.ToolCall); ok && c.State != block.CallFinished {
				t.Fatalf("%s: call %s left %s", name, c.ID, c.State)
			}
		}
	}
	// The abandoned goroutines end with their tools; then nothing is left.
	free()
	for deadline := time.Now().Add(5 * time.Second); running.Load() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("abandoned tools still running")
		}
	}
}

// InterruptionReturnsError: the same items, then the context's error.
func TestInterruptionReturnsError(t *testing.T) {
	defer goleak.VerifyNone(t)
	a, _ := newAgent(t, []scripted.Turn{scripted.Stream(scripted.Text("a"), scripted.Pause(time.Hour))}, nil, func(c *agent.Config) {
		c.InterruptionReturnsError = true
		c.InterruptionMessage = "Stopped."
	})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	res, err := a.Reply(ctx, []*message.Msg{user("hi")})
	if !errors.Is(err, context.Canceled) || res == nil || contextShape(res.Msg) != "text Stopped." {
		t.Fatalf("res %+v err %v", res, err)
	}
}

// Stopping the iteration early abandons the reply without leaking and
// leaves a state the next reply can use.
func TestConsumerBreak(t *testing.T) {
	defer goleak.VerifyNone(t)
	slow := makeTool(t, toolSpec{name: "slow", concurrent: true, body: sleeper(time.Hour)})
	a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.ToolCall("c1", "slow", `{}`), scripted.ToolCall("c2", "slow", `{}`)),
		scripted.Reply(scripted.Text("fresh"))}, []tool.Tool{slow})
	for e := range a.Stream(context.Background(), []*message.Msg{user("go")}) {
		if e.Type() == event.TypeToolResultStart {
			break
		}
	}
	r := mustReply(t, a, user("again"))
	if r.res.Outcome != agent.OutcomeCompleted {
		t.Fatalf("outcome %s", r.res.Outcome)
	}
}

// A second reply while one runs is refused.
func TestBusy(t *testing.T) {
	defer goleak.VerifyNone(t)
	slow := makeTool(t, toolSpec{name: "slow", body: sleeper(time.Hour)})
	a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.ToolCall("c1", "slow", `{}`))}, []tool.Tool{slow})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for e := range a.Stream(ctx, []*message.Msg{user("go")}) {
		if e.Type() == event.TypeToolResultStart {
			if _, err := a.Reply(context.Background(), []*message.Msg{user("again")}); !errors.Is(err, agent.ErrBusy) {
				t.Fatalf("err %v", err)
			}
			cancel()
		}
	}
}

// A cancellation requested while an instant tool is about to run keeps it
// from starting: its result is the interruption and no model call
// follows. (The reference runs it, since its cancellation lands at the
// next suspension point: conformance/DEVIATIONS.md, D8.)
func TestCancellationBeforeAnInstantTool(t *testing.T) {
	defer goleak.VerifyNone(t)
	echo := makeTool(t, toolSpec{name: "echo"})
	a, _ := newAgent(t, []scripted.Turn{
		scripted.Reply(scripted.ToolCall("c1", "echo", `{"input": "x"}`)),
		scripted.Stream(scripted.Text("partial"), scripted.Pause(time.Hour), scripted.Text("never")),
	}, []tool.Tool{echo})
	r := cancelAfter(t, a, user("go"), func(e event.Event) bool {
		s, ok := e.(*event.ToolResultStart)
		return ok && s.ToolCallID == "c1"
	})
	want := "MODEL_CALL_END RESULT_START(c1) RESULT_DELTA(c1:" + tool.InterruptedText + ") RESULT_END(c1:interrupted) REPLY_END(interrupted)"
	if !strings.HasSuffix(r.kinds(), want) {
		t.Fatalf("events\n%s\nwant suffix\n%s", r.kinds(), want)
	}
}
