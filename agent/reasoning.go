package agent

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"
	"unsafe"

	"go.opentelemetry.io/otel/trace"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
)

// reasoning runs one reasoning step through the on_reasoning chain,
// forwarding its events. It returns the step's candidate final answer and
// stepInterrupted if the model call was interrupted.
func (r *run) reasoning(choice *model.ToolChoice) (*message.Msg, outcome, error) {
	h := r.a.reasoningChain(func(ctx context.Context, in ReasoningInput) iter.Seq2[Item, error] {
		return func(y func(Item, error) bool) {
			s := sink{a: r.a, yield: y, st: &r.a.stamper}
			if err := r.reason(ctx, in, &s); err != nil && !errors.Is(err, errStopped) {
				s.fail(err)
			}
		}
	})
	// What the range body sets lives in one variable: the body is a
	// closure, and each variable it writes costs an allocation per step.
	var step struct {
		cand *message.Msg
		o    outcome
		err  error
	}
	for it, err := range h(r.ctx, ReasoningInput{ToolChoice: choice}) {
		if err != nil {
			step.err = err
			break
		}
		if it.Msg != nil {
			step.cand = it.Msg
			continue
		}
		if it.Event == nil {
			continue
		}
		if e, isEnd := it.Event.(*event.ModelCallEnd); isEnd && e.FinishedReason == event.ModelInterrupted {
			step.o = stepInterrupted
		}
		if step.err = r.out.put(it); step.err != nil {
			break
		}
	}
	if step.err != nil {
		return nil, 0, step.err
	}
	return step.cand, step.o, nil
}

// blockState tracks the event-level blocks open during one model call.
type blockState struct {
	text, thinking string   // agent-generated ids of the open text/thinking streams
	tools          []string // open tool-call ids, in opening order
	data           []string // open data block ids
	// acc holds what the call streamed before the current chunk: a tool
	// call re-opened after other blocks came between its fragments takes
	// its name from there for its second START, since providers send the
	// name with the first fragment only.
	acc *model.Accumulator
}

// toolName is the name a START for p carries.
func (s *blockState) toolName(p *model.Part) string {
	if p.Name != "" || s.acc == nil {
		return p.Name
	}
	if c := s.acc.ToolCall(p.ID); c != nil {
		return c.Name
	}
	return ""
}

// reason is the innermost reasoning handler (the reference's
// _reasoning_impl); out is the reasoning chain's.
func (r *run) reason(ctx context.Context, in ReasoningInput, out *sink) error {
	a := r.a
	if err := out.emit(&event.ModelCallStart{ReplyID: r.replyID, ModelName: a.model.Name()}); err != nil {
		return err
	}
	req, err := r.modelInput(ctx, in.ToolChoice)
	if err != nil {
		return err
	}
	acc := model.NewAccumulator(a.src)
	open := blockState{acc: acc}
	interrupted := false
	var callErr error
	models := []model.ChatModel{a.model}
	if a.modelC.Fallback != nil {
		models = append(models, a.modelC.Fallback)
	}
	attempts := 0
	var last model.ChatModel
	succeeded := false
	// chat is the span of the attempt in progress (nil: untraced); the
	// last attempt's stays open until its usage is known.
	var chat trace.Span
calls:
	for _, m := range models {
		for try := 0; try <= a.modelC.MaxRetries; try++ {
			attempts++
			last = m
			// One variable for what the range body sets (see reasoning).
			var at struct {
				started, failed bool
				broke           error
			}
			var callCtx context.Context
			callCtx, chat = r.startChatSpan(ctx, m, req, attempts)
			stream := a.modelCallChain(func(ctx context.Context, in ModelCallInput) iter.Seq2[model.Chunk, error] {
				return in.Model.Stream(ctx, in.Request)
			})(callCtx, ModelCallInput{Model: m, Request: req})
			for chunk, err := range stream {
				if err != nil {
					switch {
					case errors.Is(err, context.Canceled) || ctx.Err() != nil:
						// The reference's model layer turns a cancellation
						// into an interrupted response holding what arrived.
						interrupted = true
						break calls
					case !at.started:
						callErr, at.failed = err, true
						attempts += adapterRetries(err)
					default:
						at.broke = &StreamError{Model: m.Name(), Err: err}
					}
					break
				}
				at.started = true
				if !chunk.Final && len(chunk.Parts) > 0 {
					if at.broke = r.convert(&open, chunk.Parts, out); at.broke != nil {
						break
					}
				}
				if err := acc.Add(chunk); err != nil {
					at.broke = &StreamError{Model: m.Name(), Err: err}
					break
				}
			}
			if at.broke != nil {
				failChatSpan(chat, at.broke)
				return at.broke
			}
			if !at.failed {
				succeeded = true
				break calls
			}
			failChatSpan(chat, callErr)
			chat = nil
		}
	}
	if !interrupted && !succeeded {
		a.log.Warn("Model " + last.Name() + " exhausted all " + itoa(attempts) + " attempt(s) for agent " + a.name + ".")
		return &ModelCallError{Model: last.Name(), Attempts: attempts, Err: callErr}
	}
	if err := r.closeOpen(&open, out); err != nil {
		r.endChatSpan(chat, nil, nil, true)
		return err
	}
	end := &event.ModelCallEnd{ReplyID: r.replyID, FinishedReason: event.ModelCompleted}
	if interrupted {
		end.FinishedReason = event.ModelInterrupted
	}
	usage := acc.Usage()
	if usage != nil {
		end.InputTokens, end.OutputTokens = usage.InputTokens, usage.OutputTokens
		end.CacheInputTokens, end.CacheCreationInputTokens = usage.CacheInputTokens, usage.CacheCreationInputTokens
	}
	content := acc.Content()
	r.endChatSpan(chat, content, usage, interrupted)
	r.saveResponse(content, usage)
	if err := out.emit(end); err != nil {
		return err
	}
	if interrupted || !isFinalAnswer(content) {
		return nil
	}
	// The final answer is the whole reply message as stored (see
	// conformance/DEVIATIONS.md), with the reply's accumulated usage.
	msg := &message.Msg{Name: a.name, Role: event.RoleAssistant, ID: r.replyID, FinishedReason: event.ReplyCompleted}
	if m := a.st.ReplyMsg(a.name); m != nil {
		msg.Content = block.CloneList(m.Content)
		if m.Usage != nil {
			u := *m.Usage
			msg.Usage = &u
		}
	}
	if msg.Content == nil {
		msg.Content = []block.Block{}
	}
	msg.CreatedAt = a.src.Now()
	return out.msg(msg)
}

// isFinalAnswer: no tool call, and not thinking only (an empty response is
// a final answer).
func isFinalAnswer(content []block.Block) bool {
	thinkingOnly := len(content) > 0
	for _, b := range content {
		switch b.Kind() {
		case block.KindToolCall:
			return false
		case block.KindThinking:
		default:
			thinkingOnly = false
		}
	}
	return !thinkingOnly
}

// saveResponse appends the response to the reply message (assistant audio
// is streamed but not kept) and accumulates the usage into it.
func (r *run) saveResponse(content []block.Block, usage *message.Usage) {
	a := r.a
	kept := content[:0:0]
	for _, b := range content {
		if d, ok := b.(*block.Data); ok && strings.HasPrefix(d.MediaType(), "audio/") {
			continue
		}
		kept = append(kept, b)
	}
	if len(kept) == 0 && usage == nil {
		return
	}
	m := a.st.AppendContext(a.src, a.name, kept...)
	if usage != nil {
		if m.Usage == nil {
			m.Usage = &message.Usage{}
		}
		m.Usage.Add(*usage)
	}
}

// modelInput assembles the request: the system prompt, the summary, the
// context, the tools. The messages are the agent's buffer (fillInput),
// rewritten by the next step.
func (r *run) modelInput(ctx context.Context, choice *model.ToolChoice) (*model.Request, error) {
	a, st := r.a, r.a.st
	prompt, err := a.systemPrompt(ctx)
	if err != nil {
		return nil, err
	}
	var head [2]*message.Msg
	head[0] = message.SystemText("system", prompt, message.WithStamp(a.src))
	n := 1
	if !(st.Summary.Plain && st.Summary.Text == "") && !(!st.Summary.Plain && len(st.Summary.Blocks) == 0) {
		var sum *message.Msg
		if st.Summary.Plain {
			sum = message.UserText("user", st.Summary.Text, message.WithStamp(a.src))
		} else if sum, err = message.UserMsg("user", block.CloneList(st.Summary.Blocks), message.WithStamp(a.src)); err != nil {
			return nil, err
		}
		head[1], n = sum, 2
	}
	msgs := a.fillInput(head[:n], st.Context)
	return &model.Request{
		Messages:   slices.Clip(msgs),
		Tools:      a.toolkit.Schemas(st.Tools.ActivatedGroups),
		ToolChoice: choice,
	}, nil
}

// convert turns one delta chunk into events (§3.4): thinking before text,
// each tool call started on first sight and ended once a chunk no longer
// carries it, base64 data streamed by block id.
func (r *run) convert(open *blockState, parts []model.Part, out *sink) error {
	a := r.a
	var nThink, nText, nData int
	for i := range parts {
		switch parts[i].Kind {
		case model.PartThinking:
			nThink++
		case model.PartText:
			nText++
		case model.PartData:
			nData++
		}
	}
	if nThink > 0 {
		if open.thinking == "" {
			open.thinking = a.src.NewID()
			if err := out.emit(&event.ThinkingBlockStart{ReplyID: r.replyID, BlockID: open.thinking}); err != nil {
				return err
			}
		}
		d := r.thinkDeltas.next()
		d.ReplyID, d.BlockID, d.Delta = r.replyID, open.thinking, joinParts(parts, model.PartThinking, nThink)
		if err := out.emit(d); err != nil {
			return err
		}
	} else if open.thinking != "" && nData == 0 {
		id := open.thinking
		open.thinking = ""
		if err := out.emit(&event.ThinkingBlockEnd{ReplyID: r.replyID, BlockID: id}); err != nil {
			return err
		}
	}
	if nText > 0 {
		if open.text == "" {
			open.text = a.src.NewID()
			if err := out.emit(&event.TextBlockStart{ReplyID: r.replyID, BlockID: open.text}); err != nil {
				return err
			}
		}
		d := r.textDeltas.next()
		d.ReplyID, d.BlockID, d.Delta = r.replyID, open.text, joinParts(parts, model.PartText, nText)
		if err := out.emit(d); err != nil {
			return err
		}
	} else if open.text != "" && nData == 0 {
		id := open.text
		open.text = ""
		if err := out.emit(&event.TextBlockEnd{ReplyID: r.replyID, BlockID: id}); err != nil {
			return err
		}
	}
	for i := range parts {
		p := &parts[i]
		if p.Kind != model.PartToolCall {
			continue
		}
		if !slices.Contains(open.tools, p.ID) {
			open.tools = append(open.tools, p.ID)
			if err := out.emit(&event.ToolCallStart{ReplyID: r.replyID, ToolCallID: p.ID, ToolCallName: open.toolName(p)}); err != nil {
				return err
			}
		}
		d := r.toolDeltas.next()
		d.ReplyID, d.ToolCallID, d.Delta = r.replyID, p.ID, p.Text
		if err := out.emit(d); err != nil {
			return err
		}
	}
	if len(open.tools) > 0 {
		kept := open.tools[:0]
		var ended []string
		for _, id := range open.tools {
			if hasToolPart(parts, id) {
				kept = append(kept, id)
			} else {
				ended = append(ended, id)
			}
		}
		open.tools = kept
		for _, id := range ended {
			if err := out.emit(&event.ToolCallEnd{ReplyID: r.replyID, ToolCallID: id}); err != nil {
				return err
			}
		}
	}
	for i := range parts {
		p := &parts[i]
		if p.Kind != model.PartData || p.URL != "" {
			continue
		}
		if !slices.Contains(open.data, p.ID) {
			open.data = append(open.data, p.ID)
			if err := out.emit(&event.DataBlockStart{ReplyID: r.replyID, BlockID: p.ID, MediaType: p.MediaType}); err != nil {
				return err
			}
		}
		if err := out.emit(&event.DataBlockDelta{ReplyID: r.replyID, BlockID: p.ID, Data: p.Text, MediaType: p.MediaType}); err != nil {
			return err
		}
	}
	return nil
}

func hasToolPart(parts []model.Part, id string) bool {
	for i := range parts {
		if parts[i].Kind == model.PartToolCall && parts[i].ID == id {
			return true
		}
	}
	return false
}

func joinParts(parts []model.Part, k model.PartKind, n int) string {
	if n == 1 {
		for i := range parts {
			if parts[i].Kind == k {
				return parts[i].Text
			}
		}
	}
	var b strings.Builder
	for i := range parts {
		if parts[i].Kind == k {
			b.WriteString(parts[i].Text)
		}
	}
	return b.String()
}

// closeOpen ends what is still open after the stream: text, thinking, tool
// calls, data — in that order.
func (r *run) closeOpen(open *blockState, out *sink) error {
	if open.text != "" {
		if err := out.emit(&event.TextBlockEnd{ReplyID: r.replyID, BlockID: open.text}); err != nil {
			return err
		}
	}
	if open.thinking != "" {
		if err := out.emit(&event.ThinkingBlockEnd{ReplyID: r.replyID, BlockID: open.thinking}); err != nil {
			return err
		}
	}
	for _, id := range open.tools {
		if err := out.emit(&event.ToolCallEnd{ReplyID: r.replyID, ToolCallID: id}); err != nil {
			return err
		}
	}
	for _, id := range open.data {
		if err := out.emit(&event.DataBlockEnd{ReplyID: r.replyID, BlockID: id}); err != nil {
			return err
		}
	}
	return nil
}

// slab hands out zeroed values carved from shared blocks: the delta events
// of a stream cost one allocation per block of them instead of one each.
// A block stays alive while any of its events does.
type slab[T any] struct {
	buf []T
	// i is the next value's index: advancing an index, not the slice,
	// spares a pointer write (and its write barrier while the GC marks)
	// per event.
	i int
	n int
}

// slabBytes bounds a block: 8 KiB of events (about 85 text deltas) keeps
// a long stream at one allocation per 85 events while a block kept alive
// by one retained event stays small.
const slabBytes = 8 << 10

func (s *slab[T]) next() *T {
	if s.i == len(s.buf) {
		// Start small (most replies stream few deltas of a kind), then
		// grow to slabBytes.
		s.n = min(max(2*s.n, 4), max(slabBytes/int(unsafe.Sizeof(*new(T))), 4))
		s.buf, s.i = make([]T, s.n), 0
	}
	p := &s.buf[s.i]
	s.i++
	return p
}

// fillInput sets the agent's message buffer to head then msgs and returns
// it. A slot is written only when it holds another message: step after
// step the context's messages sit in the same slots (the token count
// fills the buffer just before the model input does), so an unchanged
// prior message costs a compare, not a pointer write and its write
// barrier while the GC marks. Slots past the end are cleared, so the
// buffer keeps alive no message the context dropped beyond the ones it
// still lists.
func (a *Agent) fillInput(head, msgs []*message.Msg) []*message.Msg {
	buf, n := a.msgBuf, len(head)+len(msgs)
	old := len(buf)
	if cap(buf) < n {
		buf, old = make([]*message.Msg, n, n+n/4+8), 0
	} else {
		buf = buf[:n]
	}
	for i, m := range head {
		if buf[i] != m {
			buf[i] = m
		}
	}
	tail := buf[len(head):]
	for i, m := range msgs {
		if tail[i] != m {
			tail[i] = m
		}
	}
	if old > n {
		clear(buf[n:old])
	}
	a.msgBuf = buf
	return buf
}
