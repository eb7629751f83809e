package agent

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
)

// TracerScope is the instrumentation scope of the agent's spans.
const TracerScope = "github.com/agentscope-go/agentscope/agent"

// Span attributes of the OpenTelemetry GenAI semantic conventions, and the
// agent's own (agentscope.*) for what the conventions do not name.
const (
	attrOperation     = attribute.Key("gen_ai.operation.name")
	attrAgentName     = attribute.Key("gen_ai.agent.name")
	attrConversation  = attribute.Key("gen_ai.conversation.id")
	attrRequestModel  = attribute.Key("gen_ai.request.model")
	attrFinishReasons = attribute.Key("gen_ai.response.finish_reasons")
	attrInputTokens   = attribute.Key("gen_ai.usage.input_tokens")
	attrOutputTokens  = attribute.Key("gen_ai.usage.output_tokens")
	attrInputMessages = attribute.Key("gen_ai.input.messages")
	attrOutputMsgs    = attribute.Key("gen_ai.output.messages")
	attrToolName      = attribute.Key("gen_ai.tool.name")
	attrToolCallID    = attribute.Key("gen_ai.tool.call.id")
	attrToolType      = attribute.Key("gen_ai.tool.type")
	attrToolArgs      = attribute.Key("gen_ai.tool.call.arguments")
	attrToolResult    = attribute.Key("gen_ai.tool.call.result")
	attrErrorType     = attribute.Key("error.type")

	attrReplyID      = attribute.Key("agentscope.reply.id")
	attrReplyResumed = attribute.Key("agentscope.reply.resumed")
	attrReplyOutcome = attribute.Key("agentscope.reply.outcome")
	attrReplyParked  = attribute.Key("agentscope.reply.parked")
	attrPending      = attribute.Key("agentscope.reply.pending_tool_calls")
	attrAttempt      = attribute.Key("agentscope.model.attempt")
	attrPurpose      = attribute.Key("agentscope.model.purpose")
	attrResultState  = attribute.Key("agentscope.tool.result.state")
)

// The span kinds, as options built once: a variadic slice passed through
// the Tracer interface would be allocated per span otherwise.
var (
	internalSpan = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)}
	clientSpan   = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}
)

// quietGlobal is the global TracerProvider the process started with, when
// that one is a no-op (nobody had called otel.SetTracerProvider yet). While
// the global is still it, an agent without Config.TracerProvider traces
// nothing and starts no span at all: a no-op span still costs allocations.
var quietGlobal = func() trace.TracerProvider {
	tp := otel.GetTracerProvider()
	_, s := tp.Tracer(TracerScope).Start(context.Background(), "probe")
	defer s.End()
	if s.IsRecording() || s.SpanContext().IsValid() {
		return nil
	}
	return tp
}()

// replyTracer is the tracer of one reply, nil when nothing would record
// its spans.
func (a *Agent) replyTracer() trace.Tracer {
	if a.tracer != nil {
		return a.tracer
	}
	tp := otel.GetTracerProvider()
	if quietGlobal != nil && tp == quietGlobal {
		return nil
	}
	return tp.Tracer(TracerScope)
}

// startReplySpan opens the invoke_agent span of a reply; nil span when
// the reply is not traced.
func (a *Agent) startReplySpan(ctx context.Context, in ReplyInput) (context.Context, trace.Tracer, trace.Span) {
	tr := a.replyTracer()
	if tr == nil {
		return ctx, nil, nil
	}
	ctx, span := tr.Start(ctx, "invoke_agent "+a.name, internalSpan...)
	if span.IsRecording() {
		span.SetAttributes(attrOperation.String("invoke_agent"), attrAgentName.String(a.name),
			attrRequestModel.String(a.model.Name()))
		if a.st.SessionID != "" {
			span.SetAttributes(attrConversation.String(a.st.SessionID))
		}
		if in.Confirm != nil || in.External != nil || in.Interrupt {
			span.SetAttributes(attrReplyResumed.Bool(true))
		}
	}
	return ctx, tr, span
}

// endReplySpan closes the reply span with how the reply ended. A parked
// reply's span ends here too: its resume is a new span with the same
// agentscope.reply.id.
func endReplySpan(span trace.Span, res *Result) {
	if span == nil {
		return
	}
	if span.IsRecording() {
		if res.ReplyID != "" {
			span.SetAttributes(attrReplyID.String(res.ReplyID))
		}
		outcome := res.Outcome
		if res.Msg == nil {
			outcome = OutcomeNothing
		}
		span.SetAttributes(attrReplyOutcome.String(string(outcome)))
		if res.Outcome == OutcomeAwaitingConfirmation || res.Outcome == OutcomeAwaitingExternal {
			ids := make([]string, len(res.Pending))
			for i, c := range res.Pending {
				ids[i] = c.ID
			}
			span.SetAttributes(attrReplyParked.Bool(true), attrPending.StringSlice(ids))
		}
	}
	span.End()
}

// failSpan marks span as failed by err.
func failSpan(span trace.Span, err error) {
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(attrErrorType.String(errorType(err)))
	span.SetStatus(codes.Error, err.Error())
}

// errorType is error.type: low-cardinality, the model error's class when
// there is one, else the agent's error kind, else the conventions'
// "_OTHER".
func errorType(err error) string {
	var me *model.Error
	var ie *InputError
	var se *StreamError
	switch {
	case errors.As(err, &me) && me.Type != "":
		return string(me.Type)
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline_exceeded"
	case errors.As(err, &ie):
		return "invalid_input"
	case errors.As(err, &se):
		return "stream_error"
	case errors.Is(err, ErrPanicked):
		return "panic"
	case errors.Is(err, ErrNoProgress):
		return "no_progress"
	}
	return "_OTHER"
}

// startChatSpan opens the chat span of one model call attempt; nil when
// the reply is not traced.
func (r *run) startChatSpan(ctx context.Context, m model.ChatModel, req *model.Request, attempt int) (context.Context, trace.Span) {
	if r.tr == nil {
		return ctx, nil
	}
	name := m.Name()
	ctx, span := r.tr.Start(ctx, "chat "+name, clientSpan...)
	if span.IsRecording() {
		span.SetAttributes(attrOperation.String("chat"), attrRequestModel.String(name),
			attrAgentName.String(r.a.name), attrAttempt.Int(attempt))
		if r.a.traceContent {
			span.SetAttributes(attrInputMessages.String(string(genAIMessages(nil, req.Messages))))
		}
	}
	return ctx, span
}

// startSummarySpan opens the chat span of a compression's summary call,
// told apart from the reasoning steps' by agentscope.model.purpose.
func (r *run) startSummarySpan(ctx context.Context, m model.ChatModel, req *model.Request) (context.Context, trace.Span) {
	ctx, span := r.startChatSpan(ctx, m, req, 1)
	if span != nil && span.IsRecording() {
		span.SetAttributes(attrPurpose.String("compression"))
	}
	return ctx, span
}

// endChatSpan closes a successful (or interrupted) model call's span.
func (r *run) endChatSpan(span trace.Span, content []block.Block, usage *message.Usage, interrupted bool) {
	if span == nil {
		return
	}
	if span.IsRecording() {
		reason := "stop"
		switch {
		case interrupted:
			reason = "interrupted"
		case hasToolCall(content):
			reason = "tool_calls"
		}
		span.SetAttributes(attrFinishReasons.StringSlice([]string{reason}))
		if usage != nil {
			span.SetAttributes(attrInputTokens.Int64(usage.InputTokens), attrOutputTokens.Int64(usage.OutputTokens))
		}
		if r.a.traceContent {
			out := &message.Msg{Role: event.RoleAssistant, Content: content}
			span.SetAttributes(attrOutputMsgs.String(string(genAIMessages(nil, []*message.Msg{out}))))
		}
	}
	span.End()
}

// failChatSpan closes a failed attempt's span.
func failChatSpan(span trace.Span, err error) {
	if span == nil {
		return
	}
	failSpan(span, err)
	span.End()
}

func hasToolCall(content []block.Block) bool {
	for _, b := range content {
		if b.Kind() == block.KindToolCall {
			return true
		}
	}
	return false
}

// startToolSpan opens the execute_tool span of one tool call; nil when
// the reply is not traced.
func (r *run) startToolSpan(ctx context.Context, c *block.ToolCall) (context.Context, trace.Span) {
	if r.tr == nil {
		return ctx, nil
	}
	ctx, span := r.tr.Start(ctx, "execute_tool "+c.Name, internalSpan...)
	if span.IsRecording() {
		span.SetAttributes(attrOperation.String("execute_tool"), attrToolName.String(c.Name),
			attrToolCallID.String(c.ID), attrToolType.String("function"), attrAgentName.String(r.a.name))
		if r.a.traceContent {
			span.SetAttributes(attrToolArgs.String(c.Input))
		}
	}
	return ctx, span
}

// endToolSpan closes a tool call's span with its result (nil: the call
// was abandoned before it had one).
func (r *run) endToolSpan(span trace.Span, res *block.ToolResult) {
	if span == nil {
		return
	}
	if span.IsRecording() && res != nil {
		span.SetAttributes(attrResultState.String(string(res.State)))
		switch res.State {
		case block.ResultError, block.ResultDenied:
			span.SetAttributes(attrErrorType.String("tool_" + string(res.State)))
			span.SetStatus(codes.Error, "tool result "+string(res.State))
		}
		if r.a.traceContent {
			span.SetAttributes(attrToolResult.String(string(res.Output.AppendJSON(nil))))
		}
	}
	span.End()
}

// genAIMessages writes msgs in the shape of the GenAI conventions'
// gen_ai.input.messages: [{"role", "parts": [{"type", ...}]}].
func genAIMessages(dst []byte, msgs []*message.Msg) []byte {
	dst = append(dst, '[')
	for i, m := range msgs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"role":`...)
		dst = wire.AppendString(dst, string(m.Role))
		dst = append(dst, `,"parts":[`...)
		for j, b := range m.Content {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = genAIPart(dst, b)
		}
		dst = append(dst, "]}"...)
	}
	return append(dst, ']')
}

func genAIPart(dst []byte, b block.Block) []byte {
	switch b := b.(type) {
	case *block.Text:
		dst = append(dst, `{"type":"text","content":`...)
		dst = wire.AppendString(dst, b.Text)
	case *block.Thinking:
		dst = append(dst, `{"type":"reasoning","content":`...)
		dst = wire.AppendString(dst, b.Thinking)
	case *block.ToolCall:
		dst = append(dst, `{"type":"tool_call","id":`...)
		dst = wire.AppendString(dst, b.ID)
		dst = append(dst, `,"name":`...)
		dst = wire.AppendString(dst, b.Name)
		dst = append(dst, `,"arguments":`...)
		dst = wire.AppendString(dst, b.Input)
	case *block.ToolResult:
		dst = append(dst, `{"type":"tool_call_response","id":`...)
		dst = wire.AppendString(dst, b.ID)
		dst = append(dst, `,"response":`...)
		dst = b.Output.AppendJSON(dst)
	default:
		dst = append(dst, `{"type":`...)
		dst = wire.AppendString(dst, string(b.Kind()))
	}
	return append(dst, '}')
}
