package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// Texts of the reference the client or the model sees.
const (
	ParkText           = "I'm waiting for your permission or the external execution to finish."
	StructuredDoneText = "The required structured output is generated."
	MaxItersText       = "The maximum reasoning-acting iterations are exceeded."
	StructuredSource   = `{"label": "System", "sublabel": "Structured Output Requirement"}`
	structuredReminder = "<system-reminder>You're required to generate structured output by calling the 'GenerateStructuredOutput' tool. "
	structuredNormal   = "Call it when you are ready to generate the final structured output."
	structuredForced   = "You have reached the maximum reasoning-acting iterations, so call this tool at once to generate the final structured output."
)

// run is one reply in progress. Everything runs on the consumer's
// goroutine except the workers of a concurrent batch, which touch the state
// only while they hold their batch's turn.
type run struct {
	a     *Agent
	ctx   context.Context
	yield func(Item, error) bool
	// out is yield for code shared with batch workers: it records that the
	// consumer stopped.
	out func(Item, error) bool
	res *Result
	// stopped: the consumer stopped iterating; nothing more may be yielded.
	stopped bool
	replyID string

	textDeltas  slab[event.TextBlockDelta]
	thinkDeltas slab[event.ThinkingBlockDelta]
	toolDeltas  slab[event.ToolCallDelta]
}

// send stamps e and passes it to y; false means stop.
func (r *run) send(y func(Item, error) bool, e event.Event) bool {
	if h := e.Header(); r.a.defaultSrc && h.ID == "" && h.CreatedAt == "" {
		h.ID, h.CreatedAt = stamp.IDNow() // the hot path: one arena visit
	} else {
		event.Stamp(e, r.a.src)
	}
	return y(Item{Event: e}, nil)
}

// emit sends e to the reply chain.
func (r *run) emit(e event.Event) bool {
	if r.stopped {
		return false
	}
	if !r.send(r.yield, e) {
		r.stopped = true
		return false
	}
	return true
}

func (r *run) yieldMsg(m *message.Msg) bool {
	if r.stopped {
		return false
	}
	if !r.yield(Item{Msg: m}, nil) {
		r.stopped = true
		return false
	}
	return true
}

func (r *run) fail(err error) {
	if r.ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, r.ctx.Err())) {
		// The reference's `except CancelledError` around the whole reply:
		// a cancellation surfacing as an error anywhere (a middleware, a
		// permission check, the system prompt) interrupts the reply.
		r.finishInterrupted(true)
		return
	}
	r.failRaw(err)
}

// failRaw passes err to the consumer as the reply's last item.
func (r *run) failRaw(err error) {
	if !r.stopped {
		r.yield(Item{}, err)
		r.stopped = true
	}
}

func (r *run) newMsg(text string, opts ...message.Option) *message.Msg {
	opts = append([]message.Option{message.WithID(r.replyID), message.WithStamp(r.a.src)}, opts...)
	return message.AssistantText(r.a.name, text, opts...)
}

// reply is the reference's _reply_impl.
func (r *run) reply(in ReplyInput) {
	a, st := r.a, r.a.st
	r.initOut()
	msgs, ev, err := splitInput(in.Input)
	if err != nil {
		r.fail(err)
		return
	}
	if _, ok := ev.(*event.UserInterrupt); ok {
		// Only a parked reply can be interrupted this way; on an idle agent
		// this is a silent no-op. The event's reply id is not checked.
		if st.HasAwaitingToolCalls(a.name) {
			r.replyID = st.Reply.ReplyID
			r.res.ReplyID = r.replyID
			r.finishInterrupted(false)
		}
		return
	}
	resuming, err := a.checkIncoming(ev)
	if err != nil {
		r.fail(err)
		return
	}
	if resuming {
		if len(in.StructuredSchema) > 0 {
			a.log.Warn("a structured schema given with a resume event is ignored; the parked reply's schema is kept", "agent", a.name)
		}
		r.replyID = st.Reply.ReplyID
		r.res.ReplyID = r.replyID
		so, err := r.structuredTool(st.Reply.StructuredSchema)
		if err != nil {
			r.fail(err)
			return
		}
		if err := r.mount(so); err != nil {
			r.fail(err)
			return
		}
		if !r.handleIncoming(ev) {
			return
		}
	} else {
		// Everything that can reject the input is checked before the state
		// changes.
		for _, m := range msgs {
			if err := checkInputMsg(m); err != nil {
				r.fail(err)
				return
			}
		}
		schema := compactSchema(in.StructuredSchema)
		so, err := r.structuredTool(schema)
		if err != nil {
			r.fail(inputErr("Invalid structured schema: %v", err))
			return
		}
		for _, m := range msgs {
			st.Context = append(st.Context, m.Clone())
		}
		st.Reply = state.ReplyContext{ReplyID: a.src.NewID(), StructuredSchema: schema}
		r.replyID = st.Reply.ReplyID
		r.res.ReplyID = r.replyID
		if err := r.mount(so); err != nil {
			r.fail(err)
			return
		}
		if !r.emit(&event.ReplyStart{SessionID: st.SessionID, ReplyID: r.replyID, Name: a.name, Role: event.RoleAssistant}) {
			return
		}
	}
	r.loop()
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

// loop runs decide/execute until an exit, a park, an interruption or an
// error.
func (r *run) loop() {
	a, st := r.a, r.a.st
	var final *message.Msg
	progress := true
	for {
		act := decide(r.decideInput(final != nil))
		switch act.Kind {
		case actExit:
			if act.Exit == exitParked {
				r.park()
				return
			}
			msg, events := r.exit(act.Exit, final)
			for _, e := range events {
				if !r.emit(e) {
					return
				}
			}
			if a.endSeen {
				r.yieldMsg(msg)
				return
			}
			// A middleware swallowed the REPLY_END: decide again, unless
			// nothing happened since the last swallow.
			if !progress {
				r.fail(ErrNoProgress)
				return
			}
			progress, final = false, nil
			continue

		case actReason:
			progress, final = true, nil
			if act.Hint != hintNone {
				st.AppendContext(a.src, a.name, r.structuredHint(act.Hint))
			}
			if !r.injectRuntimeState() {
				return
			}
			var choice *model.ToolChoice
			if act.ForceStructured {
				choice = &model.ToolChoice{Mode: tool.StructuredOutputName}
			}
			cand, interrupted, ok := r.reasoning(choice)
			if !ok {
				return
			}
			if interrupted {
				r.finishInterrupted(true)
				return
			}
			final = cand

		case actAct:
			progress = true
			interrupted, ok := r.acting(act.Calls)
			if !ok {
				return
			}
			if interrupted {
				r.finishInterrupted(true)
				return
			}
		}
		// A round counts once every tool call of the reply has a result.
		if !st.HasUnfinishedToolCalls(a.name) {
			st.Reply.CurIter++
		}
	}
}

func (r *run) structuredHint(k hintKind) *block.Hint {
	suffix := structuredNormal
	if k == hintStructForced {
		suffix = structuredForced
	}
	h := &block.Hint{
		Hint:   block.BlocksBody(block.NewText(structuredReminder + suffix + "</system-reminder>")),
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
		out := cloneMap(st.Reply.StructuredOutput)
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
func (r *run) park() {
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
	r.yieldMsg(r.newMsg(ParkText))
}

// finishInterrupted is the reference's finally block for an interrupted
// reply: close the unfinished tool calls, REPLY_END(interrupted), then the
// fallback message. It is not subject to REPLY_END swallowing.
func (r *run) finishInterrupted(fromCancel bool) {
	a, st := r.a, r.a.st
	r.res.Outcome = OutcomeInterrupted
	if !r.closeUnfinished(r.out) {
		return
	}
	if !r.emit(&event.ReplyEnd{SessionID: st.SessionID, ReplyID: r.replyID, FinishedReason: event.ReplyInterrupted}) {
		return
	}
	if !r.yieldMsg(r.newMsg(a.react.InterruptionMessage, message.WithFinishedReason(event.ReplyInterrupted))) {
		return
	}
	if fromCancel && a.react.InterruptionReturnsError && r.ctx.Err() != nil {
		r.failRaw(r.ctx.Err())
	}
}

// closeUnfinished gives every tool call of the tail message (this agent's,
// any reply) that has no result an interrupted one (§6.2). Calls that are
// allowed or submitted already had their TOOL_RESULT_START.
func (r *run) closeUnfinished(y func(Item, error) bool) bool {
	a := r.a
	m := a.st.LastReply(a.name)
	if m == nil {
		return true
	}
	for _, c := range unfinishedCalls(m) {
		announced := c.State == block.CallAllowed || c.State == block.CallSubmitted
		c.State = block.CallFinished
		res := &block.ToolResult{ID: c.ID, Name: c.Name, Output: block.PlainBody(tool.InterruptedText), State: block.ResultInterrupted}
		block.Fill(res, a.src)
		m.Content = append(m.Content, res)
		if !announced && !r.emitTo(y, &event.ToolResultStart{ReplyID: r.replyID, ToolCallID: c.ID, ToolCallName: c.Name}) {
			return false
		}
		if !r.emitTo(y, &event.ToolResultTextDelta{ReplyID: r.replyID, ToolCallID: c.ID, Delta: tool.InterruptedText}) {
			return false
		}
		if !r.emitTo(y, &event.ToolResultEnd{ReplyID: r.replyID, ToolCallID: c.ID, State: block.ResultInterrupted}) {
			return false
		}
	}
	return true
}

// emitTo sends to y: r.out, or a batch worker's sink (which must not
// touch the run's fields: it runs on the worker's goroutine).
func (r *run) emitTo(y func(Item, error) bool, e event.Event) bool { return r.send(y, e) }

func (r *run) initOut() {
	r.out = func(it Item, err error) bool {
		if r.stopped {
			return false
		}
		if !r.yield(it, err) {
			r.stopped = true
			return false
		}
		return true
	}
}

func unfinishedCalls(m *message.Msg) []*block.ToolCall {
	done := map[string]bool{}
	for _, b := range m.Content {
		if res, ok := b.(*block.ToolResult); ok {
			done[res.ID] = true
		}
	}
	var out []*block.ToolCall
	for _, b := range m.Content {
		if c, ok := b.(*block.ToolCall); ok && !done[c.ID] {
			out = append(out, c)
		}
	}
	return out
}

// splitInput sorts the reply input into messages or a resume event.
func splitInput(in any) ([]*message.Msg, event.Event, error) {
	switch v := in.(type) {
	case nil:
		return nil, nil, nil
	case *message.Msg:
		if v == nil {
			return nil, nil, nil
		}
		return []*message.Msg{v}, nil, nil
	case []*message.Msg:
		return v, nil, nil
	case *event.UserConfirmResult:
		return nil, v, nil
	case *event.ExternalExecutionResult:
		return nil, v, nil
	case *event.UserInterrupt:
		return nil, v, nil
	}
	return nil, nil, inputErr("Invalid input: expected a Msg, a list of Msg, a UserConfirmResultEvent, an ExternalExecutionResultEvent, a UserInterruptEvent or None, got %T.", in)
}

// checkInputMsg enforces §3.10: user or assistant messages without tool
// calls, tool results or thinking.
func checkInputMsg(m *message.Msg) error {
	if m == nil {
		return inputErr("Invalid message in the input: None should not contain tool calls, tool results or thinking blocks.")
	}
	bad := m.Role != event.RoleUser && m.Role != event.RoleAssistant
	for _, b := range m.Content {
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

func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	c := (&message.Msg{StructuredOutput: m}).Clone()
	return c.StructuredOutput
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
