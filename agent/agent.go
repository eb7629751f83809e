package agent

import (
	"context"
	"encoding/json"
	"iter"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

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
// state. One reply runs at a time (a second concurrent one fails with
// ErrBusy); between replies the state may be read, saved or replaced.
type Agent struct {
	name    string
	prompt  string
	model   model.ChatModel
	toolkit *tool.Toolkit
	st      *state.AgentState
	engine  *permission.Engine
	react   ReActConfig
	modelC  ModelConfig
	ctxCfg  ContextConfig
	inject  InjectionConfig
	mws     middlewares
	src     stamp.Source
	// defaultSrc: src is stamp.Default, whose id and time come as a pair.
	defaultSrc bool
	log        *slog.Logger
	runner     tool.Runner
	preempt    time.Duration
	now        func() time.Time

	busy atomic.Bool
	// endSeen is set when a REPLY_END leaves the outermost reply
	// middleware; only the reply's own goroutine touches it.
	endSeen bool
	soMu    sync.Mutex // guards the structured output written by its tool
	msgBuf  []*message.Msg
}

// New returns an agent named name using m. See the Option functions for
// the defaults (the reference's).
func New(name string, m model.ChatModel, opts ...Option) (*Agent, error) {
	c := config{
		react:     DefaultReActConfig(),
		context:   DefaultContextConfig(),
		injection: DefaultInjectionConfig(),
		src:       stamp.Default,
		now:       time.Now,
	}
	for _, o := range opts {
		o(&c)
	}
	if m == nil {
		return nil, configErr("a model is required")
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	mws, err := sortMiddlewares(c.middlewares)
	if err != nil {
		return nil, err
	}
	if c.src == nil {
		c.src = stamp.Default
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	if c.toolkit == nil {
		if c.toolkit, err = tool.NewToolkit(nil); err != nil {
			return nil, err
		}
	}
	if c.state == nil {
		c.state = state.New(c.src)
	}
	if c.state.Permission == nil {
		c.state.Permission = permission.NewContext(permission.ModeDefault)
	}
	if c.react.InterruptionMessage == "" {
		c.react.InterruptionMessage = DefaultInterruptionMessage
	}
	a := &Agent{
		name: name, prompt: c.systemPrompt, model: m, toolkit: c.toolkit, st: c.state,
		engine: permission.NewEngine(c.state.Permission),
		react:  c.react, modelC: c.modelCfg, ctxCfg: c.context, inject: c.injection,
		mws: mws, src: c.src, defaultSrc: c.src == stamp.Default, log: c.logger, preempt: c.preempt, now: c.now,
		runner: tool.Runner{Middlewares: c.toolMWs, Stamp: c.src, Grace: c.grace, Logger: c.logger},
	}
	return a, nil
}

// Name returns the agent's name.
func (a *Agent) Name() string { return a.name }

// State returns the agent's state. Read or change it only between replies.
func (a *Agent) State() *state.AgentState { return a.st }

// Toolkit returns the agent's toolkit.
func (a *Agent) Toolkit() *tool.Toolkit { return a.toolkit }

// Permissions returns the agent's permission engine (it works on
// State().Permission).
func (a *Agent) Permissions() *permission.Engine { return a.engine }

// Observe validates messages and appends them to the context without
// replying.
func (a *Agent) Observe(msgs ...*message.Msg) error {
	if !a.busy.CompareAndSwap(false, true) {
		return ErrBusy
	}
	defer a.busy.Store(false)
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
	// OutcomeNothing: nothing happened (a user interrupt sent to an idle
	// agent); there is no message.
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
	// content order: state "asking" (answer with a USER_CONFIRM_RESULT) or
	// "submitted" (answer with an EXTERNAL_EXECUTION_RESULT).
	Pending []*block.ToolCall
}

// ReplyOption configures one reply.
type ReplyOption func(*replyOptions)

type replyOptions struct {
	schema json.RawMessage
	result *Result
}

// WithStructuredSchema asks for a structured final output validated
// against schema (a JSON Schema object).
func WithStructuredSchema(schema json.RawMessage) ReplyOption {
	return func(o *replyOptions) { o.schema = schema }
}

// WithResult makes Stream fill *r once the stream ends.
func WithResult(r *Result) ReplyOption { return func(o *replyOptions) { o.result = r } }

// Stream runs one reply and streams its events. input is one of:
// *message.Msg, []*message.Msg (new messages start a new reply), nil
// (continue from the context), *event.UserConfirmResult or
// *event.ExternalExecutionResult (resume a parked reply),
// *event.UserInterrupt (abandon a parked reply). An invalid input or resume
// is an *InputError before any event, with the state unchanged.
//
// Cancelling ctx interrupts the reply: unfinished tool calls get
// interrupted results, REPLY_END(interrupted) is the last event and the
// stream ends normally. Stopping the iteration early abandons the reply
// where it is (running tools are cancelled; the state stays resumable).
func (a *Agent) Stream(ctx context.Context, input any, opts ...ReplyOption) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		var ro replyOptions
		for _, o := range opts {
			o(&ro)
		}
		if !a.busy.CompareAndSwap(false, true) {
			yield(nil, ErrBusy)
			return
		}
		defer a.busy.Store(false)
		a.endSeen = false
		res := &Result{Outcome: OutcomeNothing}
		in := ReplyInput{Input: input, StructuredSchema: ro.schema}
		h := a.replyChain(func(ctx context.Context, in ReplyInput) iter.Seq2[Item, error] {
			return func(y func(Item, error) bool) {
				r := &run{a: a, ctx: ctx, yield: y, res: res}
				r.reply(in)
			}
		})
		defer func() {
			if ro.result != nil {
				*ro.result = *res
			}
		}()
		for it, err := range h(ctx, in) {
			if err != nil {
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
		if res.Msg == nil {
			res.Outcome = OutcomeNothing
		}
	}
}

// Reply runs one reply (see Stream) and returns its result once it ends.
// A reply that produced no message (a user interrupt on an idle agent)
// returns ErrNoFinalMessage. An interrupted reply returns its result, and
// ctx's error too when ReActConfig.InterruptionReturnsError is set.
func (a *Agent) Reply(ctx context.Context, input any, opts ...ReplyOption) (*Result, error) {
	var res Result
	opts = append(opts, WithResult(&res))
	var err error
	for _, e := range a.Stream(ctx, input, opts...) {
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
