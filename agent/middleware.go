package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

// Item travels through the reply and reasoning chains: an event, or a
// message — the reply's final message (the last item of a reply) or, in
// the reasoning chain, the candidate final answer of a reasoning step.
type Item struct {
	Event event.Event
	Msg   *message.Msg
}

// ReplyInput is what the reply chain works on. A middleware changes it by
// passing a modified copy to next (fields it leaves alone keep their
// values, as the reference's keyword merging does).
type ReplyInput struct {
	// Input is the reply's input: *message.Msg, []*message.Msg,
	// *event.UserConfirmResult, *event.ExternalExecutionResult,
	// *event.UserInterrupt or nil.
	Input any
	// StructuredSchema requests a structured final output (ignored, with a
	// warning, when resuming a parked reply).
	StructuredSchema json.RawMessage
}

// ReplyHandler produces a reply's items.
type ReplyHandler func(ctx context.Context, in ReplyInput) iter.Seq2[Item, error]

// ReplyMiddleware wraps a whole reply. Swallowing a REPLY_END (not passing
// it on while still pulling items) makes the loop decide again instead of
// finishing: the reply only ends once a REPLY_END came out of the whole
// chain.
type ReplyMiddleware interface {
	OnReply(ctx context.Context, a *Agent, in ReplyInput, next ReplyHandler) iter.Seq2[Item, error]
}

// ReasoningInput is what one reasoning step works on.
type ReasoningInput struct {
	ToolChoice *model.ToolChoice
}

// ReasoningHandler produces one reasoning step's events and, last, its
// candidate final answer (if any).
type ReasoningHandler func(ctx context.Context, in ReasoningInput) iter.Seq2[Item, error]

// ReasoningMiddleware wraps one reasoning step.
type ReasoningMiddleware interface {
	OnReasoning(ctx context.Context, a *Agent, in ReasoningInput, next ReasoningHandler) iter.Seq2[Item, error]
}

// ModelCallInput is one model call attempt.
type ModelCallInput struct {
	Model   model.ChatModel
	Request *model.Request
}

// ModelCallHandler makes the call.
type ModelCallHandler func(ctx context.Context, in ModelCallInput) iter.Seq2[model.Chunk, error]

// ModelCallMiddleware wraps each model call attempt (inside the retry and
// fallback loop).
type ModelCallMiddleware interface {
	OnModelCall(ctx context.Context, a *Agent, in ModelCallInput, next ModelCallHandler) iter.Seq2[model.Chunk, error]
}

// ActingInput is one tool execution. Validation, the permission check and
// context writes use the original call; a middleware may hand next another
// call or input, which only the execution sees.
type ActingInput struct {
	ToolCall *block.ToolCall
	Tool     tool.Tool
	Input    map[string]any
}

// ActingHandler runs the tool and streams its chunks; the agent folds them
// into the result.
type ActingHandler func(ctx context.Context, in ActingInput) iter.Seq[tool.Chunk]

// ActingMiddleware wraps the raw execution of one tool call.
type ActingMiddleware interface {
	OnActing(ctx context.Context, a *Agent, in ActingInput, next ActingHandler) iter.Seq[tool.Chunk]
}

// PermissionInput is one permission check; ToolCall and Input are copies
// the middleware may change.
type PermissionInput struct {
	ToolCall *block.ToolCall
	Tool     tool.Tool
	Input    map[string]any
}

// PermissionHandler decides.
type PermissionHandler func(ctx context.Context, in PermissionInput) (permission.Decision, error)

// PermissionMiddleware wraps the permission decision of each tool call. A
// call the user already approved skips the engine (the innermost handler
// then allows it at once) but still passes through the middlewares.
type PermissionMiddleware interface {
	OnCheckPermission(ctx context.Context, a *Agent, in PermissionInput, next PermissionHandler) (permission.Decision, error)
}

// SystemPromptMiddleware transforms the system prompt; these run in order
// (a pipeline, not an onion) before every model call.
type SystemPromptMiddleware interface {
	OnSystemPrompt(ctx context.Context, a *Agent, prompt string) (string, error)
}

type middlewares struct {
	reply      []ReplyMiddleware
	reasoning  []ReasoningMiddleware
	modelCall  []ModelCallMiddleware
	acting     []ActingMiddleware
	permission []PermissionMiddleware
	prompt     []SystemPromptMiddleware
}

func sortMiddlewares(mws []any) (middlewares, error) {
	var m middlewares
	for i, mw := range mws {
		used := false
		if h, ok := mw.(ReplyMiddleware); ok {
			m.reply, used = append(m.reply, h), true
		}
		if h, ok := mw.(ReasoningMiddleware); ok {
			m.reasoning, used = append(m.reasoning, h), true
		}
		if h, ok := mw.(ModelCallMiddleware); ok {
			m.modelCall, used = append(m.modelCall, h), true
		}
		if h, ok := mw.(ActingMiddleware); ok {
			m.acting, used = append(m.acting, h), true
		}
		if h, ok := mw.(PermissionMiddleware); ok {
			m.permission, used = append(m.permission, h), true
		}
		if h, ok := mw.(SystemPromptMiddleware); ok {
			m.prompt, used = append(m.prompt, h), true
		}
		if !used {
			return m, configErr("middleware %d (%T) implements no middleware hook", i, mw)
		}
	}
	return m, nil
}

// The chain builders wrap the innermost handler so that mws[0] is the
// outermost layer.

func (a *Agent) replyChain(inner ReplyHandler) ReplyHandler {
	h := inner
	for i := len(a.mws.reply) - 1; i >= 0; i-- {
		mw, next := a.mws.reply[i], h
		h = func(ctx context.Context, in ReplyInput) iter.Seq2[Item, error] { return mw.OnReply(ctx, a, in, next) }
	}
	return h
}

func (a *Agent) reasoningChain(inner ReasoningHandler) ReasoningHandler {
	h := inner
	for i := len(a.mws.reasoning) - 1; i >= 0; i-- {
		mw, next := a.mws.reasoning[i], h
		h = func(ctx context.Context, in ReasoningInput) iter.Seq2[Item, error] {
			return mw.OnReasoning(ctx, a, in, next)
		}
	}
	return h
}

func (a *Agent) modelCallChain(inner ModelCallHandler) ModelCallHandler {
	h := inner
	for i := len(a.mws.modelCall) - 1; i >= 0; i-- {
		mw, next := a.mws.modelCall[i], h
		h = func(ctx context.Context, in ModelCallInput) iter.Seq2[model.Chunk, error] {
			return mw.OnModelCall(ctx, a, in, next)
		}
	}
	return h
}

func (a *Agent) actingChain(inner ActingHandler) ActingHandler {
	h := inner
	for i := len(a.mws.acting) - 1; i >= 0; i-- {
		mw, next := a.mws.acting[i], h
		h = func(ctx context.Context, in ActingInput) iter.Seq[tool.Chunk] { return mw.OnActing(ctx, a, in, next) }
	}
	return h
}

func (a *Agent) permissionChain(inner PermissionHandler) PermissionHandler {
	h := inner
	for i := len(a.mws.permission) - 1; i >= 0; i-- {
		mw, next := a.mws.permission[i], h
		h = func(ctx context.Context, in PermissionInput) (permission.Decision, error) {
			return mw.OnCheckPermission(ctx, a, in, next)
		}
	}
	return h
}

func (a *Agent) systemPrompt(ctx context.Context) (string, error) {
	p := a.prompt
	for _, mw := range a.mws.prompt {
		var err error
		if p, err = mw.OnSystemPrompt(ctx, a, p); err != nil {
			return "", fmt.Errorf("system prompt middleware %T: %w", mw, err)
		}
	}
	return p, nil
}
