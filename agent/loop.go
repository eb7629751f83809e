package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/ojson"
	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// Texts of the reference the client or the model sees, for callers that
// compare against them; the definitions live with the other reference
// texts in internal/pycompat.
const (
	ParkText           = pycompat.ParkText
	StructuredDoneText = pycompat.StructuredDoneText
	MaxItersText       = pycompat.MaxItersText
	StructuredSource   = pycompat.StructuredSource
)

// run is one reply in progress. Everything runs on the consumer's
// goroutine except the workers of a concurrent batch, which touch the state
// only while they hold their batch's turn.
type run struct {
	a   *Agent
	ctx context.Context
	// yield is the reply chain's; the loop writes only through out.
	yield   func(Item, error) bool
	out     sink
	res     *Result
	replyID string
	// tr traces the reply (nil: untraced).
	tr trace.Tracer

	textDeltas  slab[event.TextBlockDelta]
	thinkDeltas slab[event.ThinkingBlockDelta]
	toolDeltas  slab[event.ToolCallDelta]
}

func (r *run) newMsg(text string, opts ...message.Option) *message.Msg {
	opts = append([]message.Option{message.WithID(r.replyID), message.WithStamp(r.a.src)}, opts...)
	return message.AssistantText(r.a.name, text, opts...)
}

// reply is the reference's _reply_impl with its except/finally: an
// interruption closes the reply, any other error is the stream's last
// item.
func (r *run) reply(in ReplyInput) {
	r.out = sink{a: r.a, yield: r.yield, st: &r.a.stamper}
	o, err := r.start(in)
	if err != nil && !errors.Is(err, errStopped) && r.cancelled(err) {
		// The reference's `except CancelledError` around the whole reply:
		// a cancellation surfacing as an error anywhere (a middleware, a
		// permission check, the system prompt) interrupts the reply.
		o, err = stepInterrupted, nil
	}
	if err == nil && o == stepInterrupted {
		err = r.finishInterrupted(true)
	}
	if err != nil && !errors.Is(err, errStopped) {
		r.out.fail(err)
	}
}

func (r *run) cancelled(err error) bool {
	return r.ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, r.ctx.Err()))
}

// start checks the input, opens or resumes the reply and runs the loop.
func (r *run) start(in ReplyInput) (outcome, error) {
	a, st := r.a, r.a.st
	msgs, ev, err := splitInput(in)
	if err != nil {
		return 0, err
	}
	if _, ok := ev.(*event.UserInterrupt); ok {
		// Only a parked reply can be interrupted this way; on an idle agent
		// this is a silent no-op. The event's reply id is not checked.
		if !st.HasAwaitingToolCalls(a.name) {
			return stepFinished, nil
		}
		r.replyID = st.Reply.ReplyID
		r.res.ReplyID = r.replyID
		return stepFinished, r.finishInterrupted(false)
	}
	resuming, err := a.checkIncoming(ev)
	if err != nil {
		return 0, err
	}
	if resuming {
		if len(in.StructuredSchema) > 0 {
			a.log.Warn("a structured schema given with a resume event is ignored; the parked reply's schema is kept", "agent", a.name)
		}
		r.replyID = st.Reply.ReplyID
		r.res.ReplyID = r.replyID
		so, err := r.structuredTool(st.Reply.StructuredSchema)
		if err != nil {
			return 0, err
		}
		if err := r.mount(so); err != nil {
			return 0, err
		}
		if err := r.handleIncoming(ev); err != nil {
			return 0, err
		}
	} else {
		// Everything that can reject the input is checked before the state
		// changes.
		for _, m := range msgs {
			if err := checkInputMsg(m); err != nil {
				return 0, err
			}
		}
		schema := compactSchema(in.StructuredSchema)
		so, err := r.structuredTool(schema)
		if err != nil {
			return 0, inputErr("Invalid structured schema: %v", err)
		}
		for _, m := range msgs {
			st.Context = append(st.Context, m.Clone())
		}
		st.Reply = state.ReplyContext{ReplyID: a.src.NewID(), StructuredSchema: schema}
		r.replyID = st.Reply.ReplyID
		r.res.ReplyID = r.replyID
		if err := r.mount(so); err != nil {
			return 0, err
		}
		if err := r.out.emit(&event.ReplyStart{SessionID: st.SessionID, ReplyID: r.replyID, Name: a.name, Role: event.RoleAssistant}); err != nil {
			return 0, err
		}
	}
	return r.loop()
}

func compactSchema(s json.RawMessage) json.RawMessage {
	t := strings.TrimSpace(string(s))
	if t == "" || t == "null" {
		return nil
	}
	return append(json.RawMessage(nil), s...)
}

// structuredTool builds the structured-output tool for schema (nil for no
// schema); it stores the output in the reply context.
func (r *run) structuredTool(schema json.RawMessage) (tool.Tool, error) {
	if len(schema) == 0 {
		return nil, nil
	}
	a := r.a
	return tool.NewStructuredOutput(schema, func(_ context.Context, out map[string]any) error {
		a.soMu.Lock()
		a.st.Reply.StructuredOutput = out
		a.soMu.Unlock()
		return nil
	})
}

// mount replaces any structured-output tool of the toolkit with so (none
// for a reply without a schema).
func (r *run) mount(so tool.Tool) error {
	r.a.toolkit.Remove(tool.StructuredOutputName)
	if so == nil {
		return nil
	}
	return r.a.toolkit.Add(tool.BasicGroup, so)
}

func (r *run) decideInput(haveFinal bool) decideInput {
	a, st := r.a, r.a.st
	a.soMu.Lock()
	ready := st.Reply.StructuredOutput != nil
	a.soMu.Unlock()
	return decideInput{
		Name: a.name, Tail: st.Tail(), CurIter: st.Reply.CurIter,
		MaxIters: a.react.MaxIters, Grace: a.react.StructuredOutputGraceIters,
		SchemaRequired: len(st.Reply.StructuredSchema) > 0, OutputReady: ready, HaveFinal: haveFinal,
	}
}

// loopState is what the loop carries from one step to the next.
type loopState struct {
	// final is the last reasoning step's final answer, if it gave one.
	final *message.Msg
	// progress: a reasoning or acting step ran since the last swallowed
	// REPLY_END.
	progress bool
}

// loop runs decide → step until a step ends the reply: it returns
// stepFinished (the last item is out, or the reply parked) or
// stepInterrupted (the caller closes the reply).
func (r *run) loop() (outcome, error) {
	a, st := r.a, r.a.st
	ls := loopState{progress: true}
	for {
		if r.ctx.Err() != nil {
			// A cancellation that landed where nothing reported it (a
			// batch whose calls all finished before the sweep) still ends
			// the reply before the next step starts a model or tool call.
			return stepInterrupted, nil
		}
		act := decide(r.decideInput(ls.final != nil))
		var o outcome
		var err error
		switch act.Kind {
		case actExit:
			o, err = r.exitStep(act.Exit, &ls)
		case actReason:
			o, err = r.reasonStep(act, &ls)
		case actAct:
			ls.progress = true
			o, err = r.acting(act.Calls)
		}
		if err != nil {
			return 0, err
		}
		switch o {
		case stepContinue:
			// A round counts once every tool call of the reply has a result.
			if !st.HasUnfinishedToolCalls(a.name) {
				st.Reply.CurIter++
			}
		case stepAgain:
		case stepParked:
			if r.ctx.Err() != nil {
				// Cancelled while a batch parked a call: the reply is
				// interrupted, not left waiting for an answer.
				return stepInterrupted, nil
			}
			return stepFinished, r.park()
		case stepInterrupted, stepFinished:
			return o, nil
		}
	}
}

// exitStep leaves the loop (rows 2–4, 7, 8) unless a middleware swallows
// the REPLY_END: then the loop decides again, once per step of progress.
func (r *run) exitStep(k exitKind, ls *loopState) (outcome, error) {
	if k == exitParked {
		return stepParked, nil
	}
	msg, events := r.exit(k, ls.final)
	for _, e := range events {
		if err := r.out.emit(e); err != nil {
			return 0, err
		}
	}
	if r.a.endSeen {
		return stepFinished, r.out.msg(msg)
	}
	if !ls.progress {
		return 0, ErrNoProgress
	}
	ls.progress, ls.final = false, nil
	return stepAgain, nil
}

// reasonStep runs one reasoning step (rows 5, 6, 9).
func (r *run) reasonStep(act action, ls *loopState) (outcome, error) {
	a, st := r.a, r.a.st
	ls.progress, ls.final = true, nil
	if act.Hint != hintNone {
		st.AppendContext(a.src, a.name, r.structuredHint(act.Hint))
	}
	if err := r.compressContext(); err != nil {
		return 0, err
	}
	if err := r.injectRuntimeState(); err != nil {
		return 0, err
	}
	var choice *model.ToolChoice
	if act.ForceStructured {
		choice = &model.ToolChoice{Mode: tool.StructuredOutputName}
	}
	cand, o, err := r.reasoning(choice)
	if err != nil {
		return 0, err
	}
	ls.final = cand
	return o, nil
}

func (r *run) structuredHint(k hintKind) *block.Hint {
	h := &block.Hint{
		Hint:   block.BlocksBody(block.NewText(pycompat.StructuredReminder(k == hintStructForced))),
		Source: block.Some(StructuredSource),
	}
	block.Fill(h, r.a.src)
	return h
}

// exit builds the exit message and events of rows 3, 4, 7 and 8.
func (r *run) exit(k exitKind, final *message.Msg) (*message.Msg, []event.Event) {
	a, st := r.a, r.a.st
	end := func(reason event.ReplyReason) *event.ReplyEnd {
		return &event.ReplyEnd{SessionID: st.SessionID, ReplyID: r.replyID, FinishedReason: reason}
	}
	switch k {
	case exitStructured:
		a.soMu.Lock()
		out := ojson.CloneMap(st.Reply.StructuredOutput)
		a.soMu.Unlock()
		r.res.Outcome = OutcomeCompleted
		m := r.newMsg(StructuredDoneText, message.WithFinishedReason(event.ReplyCompleted), message.WithStructuredOutput(out))
		return m, []event.Event{end(event.ReplyCompleted)}
	case exitFinal:
		r.res.Outcome = OutcomeCompleted
		return final, []event.Event{end(event.ReplyCompleted)}
	default: // exitGraceSpent, exitMaxIters
		if k == exitMaxIters {
			a.log.Warn("Agent " + a.name + " exceeds the max iteration numbers " + itoa(a.react.MaxIters) + ". Stop the react loop.")
		}
		r.res.Outcome = OutcomeExceededMaxIters
		m := r.newMsg(MaxItersText, message.WithFinishedReason(event.ReplyExceedMaxIters))
		return m, []event.Event{&event.ExceedMaxIters{ReplyID: r.replyID, Name: a.name}, end(event.ReplyExceedMaxIters)}
	}
}

// park ends the reply without REPLY_END: it waits for a human or the host.
func (r *run) park() error {
	a := r.a
	pending := a.st.AwaitingToolCalls(a.name)
	r.res.Outcome = OutcomeAwaitingExternal
	r.res.Pending = make([]*block.ToolCall, len(pending))
	for i, c := range pending {
		r.res.Pending[i] = c.CloneBlock().(*block.ToolCall)
		if c.State == block.CallAsking {
			r.res.Outcome = OutcomeAwaitingConfirmation
		}
	}
	return r.out.msg(r.newMsg(ParkText))
}

// finishInterrupted is the reference's finally block for an interrupted
// reply: close the unfinished tool calls, REPLY_END(interrupted), then the
// fallback message. It is not subject to REPLY_END swallowing. The error
// it returns is the stream's last item as it is (ctx's error, when
// InterruptionReturnsError asks for it).
func (r *run) finishInterrupted(fromCancel bool) error {
	a, st := r.a, r.a.st
	r.res.Outcome = OutcomeInterrupted
	if err := r.closeUnfinished(); err != nil {
		return err
	}
	if err := r.out.emit(&event.ReplyEnd{SessionID: st.SessionID, ReplyID: r.replyID, FinishedReason: event.ReplyInterrupted}); err != nil {
		return err
	}
	if err := r.out.msg(r.newMsg(a.react.InterruptionMessage, message.WithFinishedReason(event.ReplyInterrupted))); err != nil {
		return err
	}
	if fromCancel && a.react.InterruptionReturnsError && r.ctx.Err() != nil {
		return r.ctx.Err()
	}
	return nil
}

// closeUnfinished gives every tool call of the tail message (this agent's,
// any reply) that has no result an interrupted one (§6.2). Calls that are
// allowed or submitted already had their TOOL_RESULT_START.
func (r *run) closeUnfinished() error {
	a := r.a
	m := a.st.LastReply(a.name)
	if m == nil {
		return nil
	}
	for _, c := range block.UnfinishedCalls(m.Content) {
		announced := c.State.ResultOpened()
		if err := c.Transition(block.CallFinished); err != nil {
			return err // as it is: the reply is being closed already
		}
		res := &block.ToolResult{ID: c.ID, Name: c.Name, Output: block.PlainBody(tool.InterruptedText), State: block.ResultInterrupted}
		block.Fill(res, a.src)
		m.Content = append(m.Content, res)
		if !announced {
			if err := r.out.emit(&event.ToolResultStart{ReplyID: r.replyID, ToolCallID: c.ID, ToolCallName: c.Name}); err != nil {
				return err
			}
		}
		if err := r.out.emit(&event.ToolResultTextDelta{ReplyID: r.replyID, ToolCallID: c.ID, Delta: tool.InterruptedText}); err != nil {
			return err
		}
		if err := r.out.emit(&event.ToolResultEnd{ReplyID: r.replyID, ToolCallID: c.ID, State: block.ResultInterrupted}); err != nil {
			return err
		}
	}
	return nil
}

// splitInput sorts the reply input into messages or a resume event.
func splitInput(in ReplyInput) ([]*message.Msg, event.Event, error) {
	n := 0
	var ev event.Event
	if len(in.Msgs) > 0 {
		n++
	}
	if in.Confirm != nil {
		n++
		ev = in.Confirm
	}
	if in.External != nil {
		n++
		ev = in.External
	}
	if in.Interrupt {
		n++
		ev = &event.UserInterrupt{}
	}
	if n > 1 {
		return nil, nil, inputErr("Invalid input: a reply input holds one of messages, a UserConfirmResultEvent, an ExternalExecutionResultEvent or a UserInterruptEvent, got %d of them.", n)
	}
	return in.Msgs, ev, nil
}

// checkInputMsg enforces §3.10: user or assistant messages without tool
// calls, tool results or thinking.
func checkInputMsg(m *message.Msg) error {
	if m == nil {
		return inputErr("Invalid message in the input: None should not contain tool calls, tool results or thinking blocks.")
	}
	bad := m.Role != event.RoleUser && m.Role != event.RoleAssistant
	for i, b := range m.Content {
		if b == nil {
			return inputErr("Invalid message in the input: content block %d is None.", i)
		}
		switch b.Kind() {
		case block.KindToolCall, block.KindToolResult, block.KindThinking:
			bad = true
		}
	}
	if bad {
		return inputErr("Invalid message in the input: %s should not contain tool calls, tool results or thinking blocks.", m.AppendJSON(nil))
	}
	if err := m.Validate(); err != nil {
		return inputErr("Invalid message in the input: %v", err)
	}
	return nil
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
