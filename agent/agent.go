package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// Agent is a ReAct agent: a model, a toolkit, a permission engine and a
// state. One reply runs at a time (starting another while one runs fails
// with ErrBusy). A parked reply is not running: it is resumed with Confirm
// or DeliverExternal, by this agent or by any agent built on a saved copy
// of its state (State, Config.State).
type Agent struct {
	name    string
	prompt  string
	model   model.ChatModel
	toolkit *tool.Toolkit
	st      *state.AgentState
	engine  *permission.Engine
	react   reactConfig
	modelC  modelConfig
	inject  injection
	ctxCfg  ContextConfig
	mws     middlewares
	src     stamp.Source
	// defaultSrc: src is stamp.Default, whose id and time come as a pair.
	defaultSrc bool
	log        *slog.Logger
	runner     tool.Runner
	preempt    time.Duration
	now        func() time.Time
	// tracer is Config.TracerProvider's (nil: the global's, see
	// replyTracer).
	tracer       trace.Tracer
	traceContent bool

	// mu guards busy, so that State can copy the state while no reply can
	// start.
	mu   sync.Mutex
	busy bool
	// endSeen is set when a REPLY_END leaves the outermost reply
	// middleware; only the reply's own goroutine touches it.
	endSeen bool
	soMu    sync.Mutex // guards the structured output written by its tool
	// msgBuf is the model input's message list and the token count's,
	// reused step after step (see fillInput).
	msgBuf []*message.Msg
	// est is the default estimate's count of each slot of msgBuf, and
	// estWarm says its counts may be reused (see run.countCached).
	est     []estSlot
	estWarm bool
	// estTail is the tail of that count's input, counted again by the
	// next (it grew after: see run.countCached).
	estTail *message.Msg
	// stamper stamps the events emitted on a reply's own goroutine (the
	// loop's and the reasoning steps', not a concurrent batch's workers);
	// one reply runs at a time. Event ids need to be unique, not
	// unguessable.
	stamper stamp.Stamper
}

// reactConfig, modelConfig and injection are Config's fields as the loop
// reads them, defaults filled in.
type reactConfig struct {
	MaxIters                   int
	StructuredOutputGraceIters int
	InterruptionMessage        string
	InterruptionReturnsError   bool
}

type modelConfig struct {
	MaxRetries int
	Fallback   model.ChatModel
}

type injection struct {
	InjectRuntimeState bool
	Timezone           string
	TimeFormat         string
	TimeInterval       float64 // hours
	Template           string
	Source             string
	TaskToolNames      []string
	ExtraFields        []Field
	EmitHintEvent      bool
	ContextBufferRatio float64
}

// New builds an agent from cfg (see Config for the defaults). A Config
// that cannot work is an error wrapping ErrConfig.
func New(cfg Config) (*Agent, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	tk := c.Toolkit
	if tk == nil {
		if tk, err = tool.NewToolkit(nil); err != nil {
			return nil, err
		}
	}
	st := c.State
	if st == nil {
		st = state.New(c.Stamp)
	}
	if st.Permission == nil {
		st.Permission = permission.NewContext(permission.ModeDefault)
	}
	rs := c.RuntimeState
	a := &Agent{
		name: c.Name, prompt: c.SystemPrompt, model: c.Model, toolkit: tk, st: st,
		engine: permission.NewEngine(st.Permission),
		react: reactConfig{
			MaxIters: c.MaxIters, StructuredOutputGraceIters: c.StructuredOutputGraceIters,
			InterruptionMessage: c.InterruptionMessage, InterruptionReturnsError: c.InterruptionReturnsError,
		},
		modelC: modelConfig{MaxRetries: c.ModelRetries, Fallback: c.FallbackModel},
		inject: injection{
			InjectRuntimeState: !rs.Disabled, Timezone: rs.Timezone, TimeFormat: rs.TimeFormat,
			TimeInterval: rs.TimeInterval.Hours(), Template: rs.Template, Source: rs.Source,
			TaskToolNames: rs.TaskToolNames, ExtraFields: rs.ExtraFields, EmitHintEvent: !rs.NoHintEvent,
			ContextBufferRatio: rs.ContextBufferRatio,
		},
		ctxCfg: c.Context,
		mws:    sortMiddlewares(c.Middleware), src: c.Stamp, defaultSrc: c.Stamp == stamp.Default,
		log: c.Logger, preempt: c.Preemption, now: c.Now,
		runner: tool.Runner{Middlewares: c.ToolMiddleware, Stamp: c.Stamp, Grace: c.ToolGrace, Logger: c.Logger},
	}
	a.traceContent = c.TraceContent
	if c.TracerProvider != nil {
		a.tracer = c.TracerProvider.Tracer(TracerScope)
	}
	return a, nil
}

// Name returns the agent's name.
func (a *Agent) Name() string { return a.name }

// State returns a deep copy of the agent's state, to read, save or hand
// to another agent. While a reply runs it returns ErrBusy instead: the
// reply is changing the state (a parked reply is not running).
func (a *Agent) State() (*state.AgentState, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.busy {
		return nil, ErrBusy
	}
	return a.st.Clone(), nil
}

// acquire marks the agent busy for one reply or Observe.
func (a *Agent) acquire() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.busy {
		return ErrBusy
	}
	a.busy = true
	return nil
}

func (a *Agent) release() {
	a.mu.Lock()
	a.busy = false
	a.mu.Unlock()
}

// Toolkit returns the agent's toolkit (change it only between replies).
func (a *Agent) Toolkit() *tool.Toolkit { return a.toolkit }

// Permissions returns the agent's permission engine, which works on the
// state's permission context (change it only between replies).
func (a *Agent) Permissions() *permission.Engine { return a.engine }

// Observe validates messages and appends them to the context without
// replying.
func (a *Agent) Observe(msgs ...*message.Msg) error {
	if err := a.acquire(); err != nil {
		return err
	}
	defer a.release()
	for _, m := range msgs {
		if err := checkInputMsg(m); err != nil {
			return err
		}
	}
	for _, m := range msgs {
		a.st.Context = append(a.st.Context, m.Clone())
	}
	return nil
}

// Outcome is how a reply ended.
type Outcome string

// Outcomes.
const (
	// OutcomeCompleted: a final answer (or the structured output).
	OutcomeCompleted Outcome = "completed"
	// OutcomeAwaitingConfirmation: parked until a human answers for
	// Result.Pending (some may also await external execution).
	OutcomeAwaitingConfirmation Outcome = "awaiting_confirmation"
	// OutcomeAwaitingExternal: parked until the host delivers results for
	// Result.Pending.
	OutcomeAwaitingExternal Outcome = "awaiting_external"
	// OutcomeInterrupted: cancelled (or a user interrupt of a parked reply).
	OutcomeInterrupted Outcome = "interrupted"
	// OutcomeExceededMaxIters: out of reasoning-acting rounds.
	OutcomeExceededMaxIters Outcome = "exceeded_max_iters"
	// OutcomeNothing: nothing happened (Interrupt on an agent with no
	// parked reply, or a reply that did not start: an invalid input, a
	// done context); there is no message.
	OutcomeNothing Outcome = "nothing"
)

// Result is a reply's final message and how the reply ended.
type Result struct {
	Outcome Outcome
	// Msg is the final message (nil for OutcomeNothing). For a completed
	// answer it is the whole reply message as stored in the context, with
	// finished_reason set.
	Msg *message.Msg
	// ReplyID identifies the reply (a parked reply keeps it on resume).
	ReplyID string
	// Pending are copies of the tool calls a parked reply waits for, in
	// content order: state "asking" (answer with Confirm) or "submitted"
	// (answer with DeliverExternal).
	Pending []*block.ToolCall
}

// ReplyOption configures one reply.
type ReplyOption func(*replyOptions)

type replyOptions struct {
	schema json.RawMessage
	result *Result
}

// WithStructuredSchema asks for a structured final output validated
// against schema (a JSON Schema object). A resumed reply keeps the schema
// it was started with; one given to a resume is ignored with a warning.
func WithStructuredSchema(schema json.RawMessage) ReplyOption {
	return func(o *replyOptions) { o.schema = schema }
}

// WithResult makes the stream fill *r once it ends (also when it ends with
// an error or is stopped early: r then says how far the reply got).
func WithResult(r *Result) ReplyOption { return func(o *replyOptions) { o.result = r } }

// Stream starts a reply to msgs and streams its events; with no messages
// the reply continues from the context. An invalid message is an
// *InputError before any event, with the state unchanged.
//
// Cancelling ctx interrupts the reply wherever it is: no model call or
// tool starts once the cancellation is visible, unfinished tool calls get
// interrupted results, REPLY_END(interrupted) is the last event and the
// stream ends without an error (unless Config.InterruptionReturnsError).
// A ctx already done when the reply would start runs nothing and changes
// nothing: the stream is only an error wrapping ctx.Err(). The same holds
// for Confirm, DeliverExternal and Interrupt. Stopping the iteration early
// abandons the reply where it is, without further events: running tools
// are cancelled and their calls get interrupted results in the state. In
// a concurrent batch that holds for every call of the batch (one whose
// tool finished first keeps its own result); in a sequential one the
// calls after the running one stay pending. The state stays resumable,
// and continuing the reply runs no call twice.
func (a *Agent) Stream(ctx context.Context, msgs []*message.Msg, opts ...ReplyOption) iter.Seq2[event.Event, error] {
	return a.start(ctx, ReplyInput{Msgs: msgs}, nil, opts)
}

// Confirm resumes a reply parked on a permission prompt with the user's
// answers (one per pending call of Result.Pending in state "asking"; the
// calls not answered stay pending) and streams the rest of the reply. An
// answer that does not fit what the reply waits for (a call not asking,
// two answers for one call) is an *InputError wrapping ErrInvalidResume,
// with the state unchanged.
func (a *Agent) Confirm(ctx context.Context, res *event.UserConfirmResult, opts ...ReplyOption) iter.Seq2[event.Event, error] {
	var err error
	if res == nil {
		err = inputErr("Invalid input: the UserConfirmResultEvent is nil.")
	}
	return a.start(ctx, ReplyInput{Confirm: res}, err, opts)
}

// DeliverExternal resumes a reply parked on external tools with their
// results (for the pending calls in state "submitted", at most one per
// call) and streams the rest of the reply; errors as for Confirm. A result
// the agent could not store (an output block that is nil or not text or
// data, an unknown state) is an *InputError wrapping ErrInvalidInput.
func (a *Agent) DeliverExternal(ctx context.Context, res *event.ExternalExecutionResult, opts ...ReplyOption) iter.Seq2[event.Event, error] {
	var err error
	if res == nil {
		err = inputErr("Invalid input: the ExternalExecutionResultEvent is nil.")
	}
	return a.start(ctx, ReplyInput{External: res}, err, opts)
}

// Interrupt is the user's interrupt of a parked reply: its pending calls
// get interrupted results and it ends with REPLY_END(interrupted). On an
// agent with no parked reply it does nothing (an empty stream, Result
// OutcomeNothing).
func (a *Agent) Interrupt(ctx context.Context, opts ...ReplyOption) iter.Seq2[event.Event, error] {
	return a.start(ctx, ReplyInput{Interrupt: true}, nil, opts)
}

// start runs one reply through the reply middlewares; inErr rejects the
// input before anything happens.
func (a *Agent) start(ctx context.Context, in ReplyInput, inErr error, opts []ReplyOption) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		var ro replyOptions
		for _, o := range opts {
			o(&ro)
		}
		res := &Result{Outcome: OutcomeNothing}
		defer func() {
			if res.Msg == nil {
				res.Outcome = OutcomeNothing
			}
			if ro.result != nil {
				*ro.result = *res
			}
		}()
		if inErr != nil {
			yield(nil, inErr)
			return
		}
		if err := ctx.Err(); err != nil {
			// The reply never starts, so there is nothing to interrupt:
			// like a Go call given a done context (and like the reference's
			// task cancelled before its first step) it does nothing.
			yield(nil, fmt.Errorf("agent: reply not started: %w", err))
			return
		}
		if err := a.acquire(); err != nil {
			yield(nil, err)
			return
		}
		defer a.release()
		a.endSeen = false
		in.StructuredSchema = ro.schema
		ctx, tr, span := a.startReplySpan(ctx, in)
		if span != nil {
			defer endReplySpan(span, res)
		}
		if a.mws.any() {
			// For the hooks only (see ReplyState): without middleware the
			// reply costs no context value.
			ctx = context.WithValue(ctx, replyStateKey{}, a.st)
		}
		h := a.replyChain(func(ctx context.Context, in ReplyInput) iter.Seq2[Item, error] {
			return func(y func(Item, error) bool) {
				r := &run{a: a, ctx: ctx, yield: y, res: res, tr: tr}
				r.reply(in)
			}
		})
		for it, err := range h(ctx, in) {
			if err != nil {
				// Only read here: a variable the range body writes costs
				// an allocation per reply.
				if span != nil {
					failSpan(span, err)
				}
				yield(nil, err)
				return
			}
			if it.Msg != nil {
				res.Msg = it.Msg
				continue
			}
			if it.Event == nil {
				continue
			}
			if _, ok := it.Event.(*event.ReplyEnd); ok {
				// Set before the consumer sees it: the loop checks the flag
				// when it is resumed after yielding its last exit event.
				a.endSeen = true
			}
			if !yield(it.Event, nil) {
				return
			}
		}
	}
}

// Reply runs a reply to msgs (see Stream) and returns its result once it
// ends. A parked reply returns its result (Outcome and Pending say what it
// waits for). An interrupted reply returns its result, and ctx's error too
// when Config.InterruptionReturnsError is set.
func (a *Agent) Reply(ctx context.Context, msgs []*message.Msg, opts ...ReplyOption) (*Result, error) {
	var res Result
	opts = append(opts, WithResult(&res))
	var err error
	for _, e := range a.Stream(ctx, msgs, opts...) {
		if e != nil {
			err = e
			break
		}
	}
	// res is complete once the stream has ended.
	switch {
	case err != nil && res.Msg != nil:
		return &res, err
	case err != nil:
		return nil, err
	case res.Msg == nil:
		return nil, ErrNoFinalMessage
	}
	return &res, nil
}
