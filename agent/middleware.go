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
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// Item travels through the reply and reasoning chains: an event, or a
// message — the reply's final message (the last item of a reply) or, in
// the reasoning chain, the candidate final answer of a reasoning step.
type Item struct {
	Event event.Event
	Msg   *message.Msg
}

// ReplyInput is what the reply chain works on: at most one of Msgs,
// Confirm, External and Interrupt is set (none: continue from the
// context). A middleware changes it by passing a modified copy to next
// (fields it leaves alone keep their values, as the reference's keyword
// merging does); an input with more than one of them set is an
// *InputError.
type ReplyInput struct {
	// Msgs start a new reply (Agent.Stream, Agent.Reply).
	Msgs []*message.Msg
	// Confirm resumes a reply parked on a permission prompt
	// (Agent.Confirm).
	Confirm *event.UserConfirmResult
	// External resumes a reply parked on external tools
	// (Agent.DeliverExternal).
	External *event.ExternalExecutionResult
	// Interrupt abandons a parked reply (Agent.Interrupt).
	Interrupt bool
	// StructuredSchema requests a structured final output (ignored, with a
	// warning, when resuming a parked reply: its own schema is kept).
	StructuredSchema json.RawMessage
}

// ReplyHandler produces a reply's items.
type ReplyHandler func(ctx context.Context, in ReplyInput) iter.Seq2[Item, error]

// ReplyMiddleware wraps a whole reply. Swallowing a REPLY_END (not passing
// it on while still pulling items) makes the loop decide again instead of
// finishing: the reply only ends once a REPLY_END came out of the whole
// chain.
type ReplyMiddleware func(ctx context.Context, a *Agent, in ReplyInput, next ReplyHandler) iter.Seq2[Item, error]

// ReasoningInput is what one reasoning step works on.
type ReasoningInput struct {
	ToolChoice *model.ToolChoice
}

// ReasoningHandler produces one reasoning step's events and, last, its
// candidate final answer (if any).
type ReasoningHandler func(ctx context.Context, in ReasoningInput) iter.Seq2[Item, error]

// ReasoningMiddleware wraps one reasoning step.
type ReasoningMiddleware func(ctx context.Context, a *Agent, in ReasoningInput, next ReasoningHandler) iter.Seq2[Item, error]

// ModelCallInput is one model call attempt.
type ModelCallInput struct {
	Model   model.ChatModel
	Request *model.Request
}

// ModelCallHandler makes the call.
type ModelCallHandler func(ctx context.Context, in ModelCallInput) iter.Seq2[model.Chunk, error]

// ModelCallMiddleware wraps each model call attempt (inside the retry and
// fallback loop).
type ModelCallMiddleware func(ctx context.Context, a *Agent, in ModelCallInput, next ModelCallHandler) iter.Seq2[model.Chunk, error]

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
type ActingMiddleware func(ctx context.Context, a *Agent, in ActingInput, next ActingHandler) iter.Seq[tool.Chunk]

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
type PermissionMiddleware func(ctx context.Context, a *Agent, in PermissionInput, next PermissionHandler) (permission.Decision, error)

// CompressInput is what one context compression works on (the
// reference's on_compress_context kwargs).
type CompressInput struct {
	// Config is the context configuration the compression applies; a
	// middleware may pass next another (its zero fields mean the
	// defaults).
	Config ContextConfig
	// Instructions, when set, are shown to the model with the messages
	// to summarize, to guide the summary.
	Instructions *block.Hint
}

// CompressHandler evicts images beyond the limit and compresses the
// context if it passed the threshold.
type CompressHandler func(ctx context.Context, in CompressInput) error

// CompressMiddleware wraps the context compression that runs before every
// reasoning step. Not calling next skips it.
type CompressMiddleware func(ctx context.Context, a *Agent, in CompressInput, next CompressHandler) error

// SystemPromptMiddleware transforms the system prompt; these run in order
// (a pipeline, not an onion) before every model call.
type SystemPromptMiddleware func(ctx context.Context, a *Agent, prompt string) (string, error)

type replyStateKey struct{}

// ReplyState returns the state of the reply running under ctx: the
// agent's own state, not a copy, for the middleware hooks, which run inside
// the reply (where Agent.State is ErrBusy). A hook may read it and change
// it as the reply's own steps do — e.g. a Reply hook that swallows a
// REPLY_END lowers Reply.CurIter to grant another round. Acting hooks of a
// concurrent batch run while their call holds the batch's turn (their
// siblings' tools may run meanwhile, but no sibling touches the state), and
// must only read it.
// Outside a middleware hook's reply it is nil.
func ReplyState(ctx context.Context) *state.AgentState {
	st, _ := ctx.Value(replyStateKey{}).(*state.AgentState)
	return st
}

// Middleware is one middleware: a hook per step it wraps. Nil hooks are
// skipped, so a middleware sets only the ones it needs; hooks that share
// state are usually method values of one type:
//
//	audit := &Audit{}
//	cfg.Middleware = append(cfg.Middleware, agent.Middleware{
//		Name:       "audit",
//		Reply:      audit.OnReply,
//		Permission: audit.OnPermission,
//	})
//
// Hooks run inside the reply, so the *Agent they are given is busy: its
// State is ErrBusy there; ReplyState(ctx) is the reply's live state.
type Middleware struct {
	// Name labels the middleware in errors ("": its index).
	Name         string
	Reply        ReplyMiddleware
	Reasoning    ReasoningMiddleware
	ModelCall    ModelCallMiddleware
	Acting       ActingMiddleware
	Permission   PermissionMiddleware
	SystemPrompt SystemPromptMiddleware
	// CompressContext wraps the context compression (the reference's
	// on_compress_context).
	CompressContext CompressMiddleware
}

func (m Middleware) isZero() bool {
	return m.Reply == nil && m.Reasoning == nil && m.ModelCall == nil && m.Acting == nil &&
		m.Permission == nil && m.SystemPrompt == nil && m.CompressContext == nil
}

func (m Middleware) label(i int) string {
	if m.Name != "" {
		return m.Name
	}
	return "#" + itoa(i)
}

// middlewares are the hooks of Config.Middleware sorted per step.
type middlewares struct {
	reply      []ReplyMiddleware
	reasoning  []ReasoningMiddleware
	modelCall  []ModelCallMiddleware
	acting     []ActingMiddleware
	permission []PermissionMiddleware
	prompt     []namedPrompt
	compress   []CompressMiddleware
}

type namedPrompt struct {
	name string
	fn   SystemPromptMiddleware
}

func (m *middlewares) any() bool {
	return len(m.reply)+len(m.reasoning)+len(m.modelCall)+len(m.acting)+len(m.permission)+len(m.prompt)+len(m.compress) > 0
}

func sortMiddlewares(mws []Middleware) middlewares {
	var m middlewares
	for i, mw := range mws {
		if mw.Reply != nil {
			m.reply = append(m.reply, mw.Reply)
		}
		if mw.Reasoning != nil {
			m.reasoning = append(m.reasoning, mw.Reasoning)
		}
		if mw.ModelCall != nil {
			m.modelCall = append(m.modelCall, mw.ModelCall)
		}
		if mw.Acting != nil {
			m.acting = append(m.acting, mw.Acting)
		}
		if mw.Permission != nil {
			m.permission = append(m.permission, mw.Permission)
		}
		if mw.SystemPrompt != nil {
			m.prompt = append(m.prompt, namedPrompt{mw.label(i), mw.SystemPrompt})
		}
		if mw.CompressContext != nil {
			m.compress = append(m.compress, mw.CompressContext)
		}
	}
	return m
}

// The chain builders wrap the innermost handler so that mws[0] is the
// outermost layer.

func (a *Agent) replyChain(inner ReplyHandler) ReplyHandler {
	h := inner
	for i := len(a.mws.reply) - 1; i >= 0; i-- {
		mw, next := a.mws.reply[i], h
		h = func(ctx context.Context, in ReplyInput) iter.Seq2[Item, error] { return mw(ctx, a, in, next) }
	}
	return h
}

func (a *Agent) reasoningChain(inner ReasoningHandler) ReasoningHandler {
	h := inner
	for i := len(a.mws.reasoning) - 1; i >= 0; i-- {
		mw, next := a.mws.reasoning[i], h
		h = func(ctx context.Context, in ReasoningInput) iter.Seq2[Item, error] {
			return mw(ctx, a, in, next)
		}
	}
	return h
}

func (a *Agent) modelCallChain(inner ModelCallHandler) ModelCallHandler {
	h := inner
	for i := len(a.mws.modelCall) - 1; i >= 0; i-- {
		mw, next := a.mws.modelCall[i], h
		h = func(ctx context.Context, in ModelCallInput) iter.Seq2[model.Chunk, error] {
			return mw(ctx, a, in, next)
		}
	}
	return h
}

func (a *Agent) actingChain(inner ActingHandler) ActingHandler {
	h := inner
	for i := len(a.mws.acting) - 1; i >= 0; i-- {
		mw, next := a.mws.acting[i], h
		h = func(ctx context.Context, in ActingInput) iter.Seq[tool.Chunk] { return mw(ctx, a, in, next) }
	}
	return h
}

func (a *Agent) permissionChain(inner PermissionHandler) PermissionHandler {
	h := inner
	for i := len(a.mws.permission) - 1; i >= 0; i-- {
		mw, next := a.mws.permission[i], h
		h = func(ctx context.Context, in PermissionInput) (permission.Decision, error) {
			return mw(ctx, a, in, next)
		}
	}
	return h
}

func (a *Agent) compressChain(inner CompressHandler) CompressHandler {
	h := inner
	for i := len(a.mws.compress) - 1; i >= 0; i-- {
		mw, next := a.mws.compress[i], h
		h = func(ctx context.Context, in CompressInput) error { return mw(ctx, a, in, next) }
	}
	return h
}

func (a *Agent) systemPrompt(ctx context.Context) (string, error) {
	p := a.prompt
	for _, mw := range a.mws.prompt {
		var err error
		if p, err = mw.fn(ctx, a, p); err != nil {
			return "", fmt.Errorf("system prompt middleware %s: %w", mw.name, err)
		}
	}
	return p, nil
}
