package demo_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/demo"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/tool"
	"go.uber.org/goleak"
)

func TestEvaluate(t *testing.T) {
	for expr, want := range map[string]float64{
		"12*(3+4)": 84, "1+2*3": 7, "(1+2)*3": 9, "-4+10": 6, "2.5 / 5": 0.5,
		"10-2-3": 5, "100/10/5": 2, "-(2+3)*2": -10, "7": 7,
	} {
		got, err := demo.Evaluate(expr)
		if err != nil || got != want {
			t.Errorf("Evaluate(%q) = %v, %v; want %v", expr, got, err, want)
		}
	}
	deep := strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000)
	for _, bad := range []string{"", "1+", "(1+2", "2/0", "1+x", "3)", "1.2.3", ".", strings.Repeat("-", 5000) + "1", deep} {
		if _, err := demo.Evaluate(bad); !errors.Is(err, demo.ErrExpression) {
			t.Errorf("Evaluate(%.40q): got %v, want ErrExpression", bad, err)
		}
	}
}

func newAgent(t *testing.T, opts ...demo.Option) *agent.Agent {
	t.Helper()
	fixed := time.Date(2026, 11, 30, 9, 30, 0, 0, time.UTC)
	ts, err := demo.Tools(func() time.Time { return fixed })
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tool.NewToolkit(ts)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{Name: "Friday", Model: demo.New(opts...), Toolkit: tk})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// reply runs one reply, checks that its events fold into the message the
// agent returns, and returns the events and the final text.
func reply(t *testing.T, a *agent.Agent, prompt string) ([]event.Event, *agent.Result) {
	t.Helper()
	var res agent.Result
	var evs []event.Event
	for ev, err := range a.Stream(context.Background(), []*message.Msg{message.UserText("user", prompt)}, agent.WithResult(&res)) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	if res.Outcome != agent.OutcomeCompleted {
		t.Fatalf("outcome %q", res.Outcome)
	}
	start := evs[0].(*event.ReplyStart)
	folded, err := message.AssistantMsg(start.Name, nil, message.WithID(start.ReplyID))
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if err := folded.AppendEvent(ev); err != nil {
			t.Fatalf("fold %s: %v", ev.Type(), err)
		}
	}
	gotText, _ := res.Msg.TextContent("")
	foldText, _ := folded.TextContent("")
	if gotText != foldText || len(folded.Content) != len(res.Msg.Content) {
		t.Fatalf("folded events disagree with the reply:\n%s\n%s", folded.AppendJSON(nil), res.Msg.AppendJSON(nil))
	}
	return evs, &res
}

func count(evs []event.Event, ty event.Type) int {
	n := 0
	for _, e := range evs {
		if e.Type() == ty {
			n++
		}
	}
	return n
}

func TestArithmeticGoesThroughTheCalculateTool(t *testing.T) {
	defer goleak.VerifyNone(t)
	a := newAgent(t)
	evs, res := reply(t, a, "What is 12*(3+4)?")
	if count(evs, event.TypeToolCallDelta) != 3 || count(evs, event.TypeThinkingBlockStart) != 1 {
		t.Fatalf("want a thought and three argument fragments, got %d deltas", count(evs, event.TypeToolCallDelta))
	}
	calls := message.BlocksOf[*block.ToolCall](res.Msg)
	results := message.BlocksOf[*block.ToolResult](res.Msg)
	if len(calls) != 1 || calls[0].Name != "calculate" || calls[0].Input != `{"expression":"12*(3+4)"}` {
		t.Fatalf("calls = %+v", calls)
	}
	if len(results) != 1 || results[0].State != block.ResultSuccess {
		t.Fatalf("results = %+v", results)
	}
	text, _ := res.Msg.TextContent("")
	if !strings.Contains(text, "12*(3+4) = 84") {
		t.Fatalf("answer %q lacks the tool's result", text)
	}
	if res.Msg.Usage == nil || res.Msg.Usage.OutputTokens == 0 {
		t.Fatalf("usage not accumulated: %+v", res.Msg.Usage)
	}
}

func TestToolErrorIsReported(t *testing.T) {
	a := newAgent(t)
	_, res := reply(t, a, "what is 1/0")
	results := message.BlocksOf[*block.ToolResult](res.Msg)
	if len(results) != 1 || results[0].State != block.ResultError {
		t.Fatalf("results = %+v", results)
	}
	text, _ := res.Msg.TextContent("")
	if !strings.Contains(text, "division by zero") {
		t.Fatalf("answer %q", text)
	}
}

func TestTimeAndSmallTalk(t *testing.T) {
	a := newAgent(t)
	_, res := reply(t, a, "What time is it?")
	if text, _ := res.Msg.TextContent(""); !strings.Contains(text, "Monday 30 November 2026, 09:30:00 UTC") {
		t.Fatalf("answer %q", text)
	}
	evs, res := reply(t, a, "hello")
	if count(evs, event.TypeToolCallStart) != 0 {
		t.Fatal("small talk must not call tools")
	}
	if text, _ := res.Msg.TextContent(""); !strings.Contains(text, `You said: "hello"`) {
		t.Fatalf("answer %q", text)
	}
	if st, err := a.State(); err != nil || len(st.Context) != 4 {
		t.Fatalf("state: %v; want 4 messages in the context", err)
	}
}

func TestCancelWhileStreaming(t *testing.T) {
	defer goleak.VerifyNone(t)
	a := newAgent(t, demo.WithDelay(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last event.Event
	for ev, err := range a.Stream(ctx, []*message.Msg{message.UserText("user", "hello")}) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type() == event.TypeTextBlockDelta {
			cancel() // the next chunk waits an hour: only ctx can end it
		}
		last = ev
	}
	end, ok := last.(*event.ReplyEnd)
	if !ok || end.FinishedReason != event.ReplyInterrupted {
		t.Fatalf("last event %v, want REPLY_END(interrupted)", last)
	}
}

type shortIDs struct{}

func (shortIDs) NewID() string { return "id1" }
func (shortIDs) Now() string   { return "2026-11-30T09:30:00" }

// A stamp.Source may hand out ids shorter than the 24 characters a tool-call
// id keeps.
func TestToolCallWithShortIDs(t *testing.T) {
	m := demo.New(demo.WithStamp(shortIDs{}))
	req := &model.Request{
		Messages: []*message.Msg{message.UserText("user", "what is 2+2")},
		Tools:    []model.ToolSchema{{Name: "calculate"}},
	}
	var callID string
	for c, err := range m.Stream(context.Background(), req) {
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range c.Parts {
			if p.Kind == model.PartToolCall {
				callID = p.ID
			}
		}
	}
	if callID != "call_id1" {
		t.Fatalf("tool call id %q", callID)
	}
}

// save_note is not read-only: asked for a note, the model calls it, the
// agent parks on the user's confirmation, and the tool runs only once it
// is confirmed.
func TestSaveNoteAsksFirst(t *testing.T) {
	var saved []string
	note, err := demo.SaveNote(func(_ context.Context, text string) error { saved = append(saved, text); return nil })
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tool.NewToolkit([]tool.Tool{note})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{Name: "Friday", Model: demo.New(), Toolkit: tk})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Reply(context.Background(), []*message.Msg{message.UserText("user", "Please save a note: buy milk")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != agent.OutcomeAwaitingConfirmation || len(res.Pending) != 1 || res.Pending[0].Name != "save_note" || res.Pending[0].Input != `{"text":"buy milk"}` {
		t.Fatalf("parked %+v %+v", res, res.Pending)
	}
	if len(saved) != 0 {
		t.Fatal("the note was saved before the user confirmed")
	}
	var final agent.Result
	confirm := &event.UserConfirmResult{ReplyID: res.ReplyID, ConfirmResults: []event.ConfirmResult{{Confirmed: true, ToolCall: res.Pending[0]}}}
	for _, err := range a.Confirm(context.Background(), confirm, agent.WithResult(&final)) {
		if err != nil {
			t.Fatal(err)
		}
	}
	text, _ := final.Msg.TextContent("")
	if final.Outcome != agent.OutcomeCompleted || len(saved) != 1 || saved[0] != "buy milk" || !strings.Contains(text, `saved the note "buy milk"`) {
		t.Fatalf("after confirm: %s %v %q", final.Outcome, saved, text)
	}
}

// Asked to wait, the model calls wait, which runs without asking, takes
// the time asked, and ends early as interrupted when the reply's context
// ends.
func TestWait(t *testing.T) {
	defer goleak.VerifyNone(t)
	w, err := demo.Wait()
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tool.NewToolkit([]tool.Tool{w})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{Name: "Friday", Model: demo.New(), Toolkit: tk})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := a.Reply(context.Background(), []*message.Msg{message.UserText("user", "please wait 0.2 seconds")})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := res.Msg.TextContent("")
	if res.Outcome != agent.OutcomeCompleted || !strings.Contains(text, "waited 0.2 seconds") || time.Since(start) < 200*time.Millisecond {
		t.Fatalf("%s after %v: %q", res.Outcome, time.Since(start), text)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var interrupted agent.Result
	var states []block.ToolResultState
	start = time.Now()
	for ev, err := range a.Stream(ctx, []*message.Msg{message.UserText("user", "wait 30 seconds")}, agent.WithResult(&interrupted)) {
		if err != nil {
			t.Fatal(err)
		}
		switch ev := ev.(type) {
		case *event.ToolResultStart:
			cancel()
		case *event.ToolResultEnd:
			states = append(states, ev.State)
		}
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("wait did not honour its context: %v", time.Since(start))
	}
	if interrupted.Outcome != agent.OutcomeInterrupted || len(states) != 1 || states[0] != block.ResultInterrupted {
		t.Fatalf("results %v (outcome %s)", states, interrupted.Outcome)
	}
}
