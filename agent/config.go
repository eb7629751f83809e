package agent

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// Config is everything an Agent is built from. Only Name and Model are
// required: every other zero value means the reference's default, given
// with each field.
type Config struct {
	// Name is the agent's name: it authors the agent's messages and tells
	// its tool calls apart from other agents' in a shared context.
	Name string
	// Model answers the reasoning steps.
	Model model.ChatModel

	// SystemPrompt is the system message of every model call ("" sends an
	// empty one, like the reference).
	SystemPrompt string
	// Toolkit holds the tools the model may call (nil: an empty toolkit).
	// The agent mounts and unmounts its structured-output tool in it, like
	// the reference, so give each agent its own.
	Toolkit *tool.Toolkit
	// State is the state to resume from (nil: a fresh one). The agent works
	// on it in place; read it through Agent.State while replies may run.
	State *state.AgentState

	// MaxIters is the number of reasoning-acting rounds before a reply
	// stops with EXCEED_MAX_ITERS (0: 50).
	MaxIters int
	// StructuredOutputGraceIters are the extra rounds, with the tool choice
	// forced, granted when a structured output is still missing at MaxIters
	// (0: 5).
	StructuredOutputGraceIters int
	// InterruptionMessage is the text of the message that ends an
	// interrupted reply ("": DefaultInterruptionMessage).
	InterruptionMessage string
	// InterruptionReturnsError makes a reply interrupted by its context end
	// with the context's error after its REPLY_END and final message, so
	// Reply returns both. It applies wherever the cancellation lands — the
	// reference raises only when it lands outside the model stream and the
	// tools (conformance/DEVIATIONS.md, D7). A user interrupt of a parked
	// reply (Agent.Interrupt) never returns an error.
	InterruptionReturnsError bool

	// ModelRetries is how many times a failed model call is retried on the
	// same model (0: none). Only the call is retried: a stream that breaks
	// after its first chunk is a *StreamError.
	ModelRetries int
	// FallbackModel is tried, with the same retries, once Model failed
	// every attempt (nil: none).
	FallbackModel model.ChatModel

	// RuntimeState configures the runtime-state hint injected before model
	// calls; its zero value is the reference's (on, in UTC).
	RuntimeState RuntimeStateConfig
	// Context configures tool-result truncation, image eviction and
	// context compression; its zero value is the reference's (all on).
	Context ContextConfig

	// Middleware wraps the steps of every reply. Middleware[0] is the
	// outermost layer of each onion and the first system-prompt transform.
	Middleware []Middleware
	// ToolMiddleware wraps every tool call, outside the tools' own.
	ToolMiddleware []tool.Middleware

	// Stamp is the source of ids and timestamps (nil: stamp.Default).
	Stamp stamp.Source
	// Logger receives the agent's warnings (nil: slog.Default(), so they
	// are not lost; use slog.New(slog.DiscardHandler) to silence them).
	Logger *slog.Logger
	// ToolGrace is how long a cancelled tool may take to return before it
	// is abandoned (0: tool.DefaultGrace; negative is rejected by New).
	ToolGrace time.Duration
	// Preemption is how long a tool of a concurrent batch may take to
	// produce its next chunk (or return) before it counts as waiting and
	// its siblings run (0: 20ms; negative is rejected by New). Only the
	// order of events depends on it.
	Preemption time.Duration
	// Now is the clock of the runtime-state injection (nil: time.Now).
	Now func() time.Time
}

// DefaultInterruptionMessage is the text of the message that ends an
// interrupted reply.
const DefaultInterruptionMessage = pycompat.InterruptionMessage

// The reference defaults of Config.
const (
	defaultMaxIters   = 50
	defaultGraceIters = 5
)

// RuntimeStateConfig controls the runtime-state hint (the reference's
// InjectionConfig): before a model call the agent appends a hint with the
// current time when the last one is older than TimeInterval, and a tasks
// reminder while tasks are open. The zero value is the reference's
// configuration.
type RuntimeStateConfig struct {
	// Disabled turns the injection off.
	Disabled bool
	// Timezone is an IANA zone name ("": "UTC"; an unknown name falls back
	// to UTC but is still reported as configured, like the reference).
	Timezone string
	// TimeFormat is a strftime format ("": "%Y-%m-%dT%H:%M:%S").
	TimeFormat string
	// TimeInterval is how long an injected time stays current (0: 30
	// minutes; negative: none, the time is due again as soon as the clock
	// has moved on — the reference's time_interval 0).
	TimeInterval time.Duration
	// Template wraps the fields; it must contain "{runtime_state}"
	// ("": DefaultInjectionTemplate).
	Template string
	// Source is the hint's source label ("": DefaultInjectionSource).
	Source string
	// TaskToolNames suppress the tasks reminder once one of them was
	// called (nil: TaskCreate, TaskGet, TaskList and TaskUpdate; an empty
	// non-nil slice: none).
	TaskToolNames []string
	// ExtraFields are appended, in order, to an injection that fires.
	ExtraFields []Field
	// ContextBufferRatio: at the first step of a reply, the context's
	// size is reported once it passes (Context.TriggerRatio −
	// ContextBufferRatio) × Context.ContextSize, so the model knows a
	// compression is near (0: 0.2; negative: 0, i.e. always reported;
	// must be below the trigger ratio).
	ContextBufferRatio float64
	// NoHintEvent keeps the hint out of the stream (it is still stored in
	// the context and sent to the model); by default a HINT_BLOCK event
	// announces it.
	NoHintEvent bool
}

// Field is one extra runtime-state field, rendered as <Key>Value</Key>.
type Field struct {
	Key   string
	Value any
}

// Injection texts of the reference.
const (
	DefaultInjectionTemplate = pycompat.InjectionTemplate
	DefaultInjectionSource   = pycompat.InjectionSource
)

// ErrConfig is wrapped by the configuration errors New returns.
var ErrConfig = errors.New("invalid agent configuration")

func configErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
}

// withDefaults validates c and fills in the defaults of its zero values
// (everything except Toolkit and State, which New builds).
func (c Config) withDefaults() (Config, error) {
	switch {
	case c.Name == "":
		return c, configErr("a name is required")
	case c.Model == nil:
		return c, configErr("a model is required")
	case c.MaxIters < 0:
		return c, configErr("MaxIters must be >= 0, got %d", c.MaxIters)
	case c.StructuredOutputGraceIters < 0:
		return c, configErr("StructuredOutputGraceIters must be >= 0, got %d", c.StructuredOutputGraceIters)
	case c.ModelRetries < 0:
		return c, configErr("ModelRetries must be >= 0, got %d", c.ModelRetries)
	case c.ToolGrace < 0:
		return c, configErr("ToolGrace must be >= 0, got %s", c.ToolGrace)
	case c.Preemption < 0:
		return c, configErr("Preemption must be >= 0, got %s", c.Preemption)
	}
	for i, mw := range c.Middleware {
		if mw.isZero() {
			return c, configErr("middleware %d (%s) sets no hook", i, mw.label(i))
		}
	}
	if c.MaxIters == 0 {
		c.MaxIters = defaultMaxIters
	}
	if c.StructuredOutputGraceIters == 0 {
		c.StructuredOutputGraceIters = defaultGraceIters
	}
	if c.InterruptionMessage == "" {
		c.InterruptionMessage = DefaultInterruptionMessage
	}
	if c.Stamp == nil {
		c.Stamp = stamp.Default
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	rs, err := c.RuntimeState.withDefaults()
	if err != nil {
		return c, err
	}
	c.RuntimeState = rs
	cc, err := c.Context.validate(c.Model)
	if err != nil {
		return c, err
	}
	c.Context = cc
	if !rs.Disabled && rs.ContextBufferRatio >= cc.TriggerRatio {
		return c, configErr("The 'context_buffer_ratio' of the injection config must be smaller than the 'trigger_ratio' of the context config, so that the context length is injected before the compression, got %v and %v.", rs.ContextBufferRatio, cc.TriggerRatio)
	}
	return c, nil
}

func (ic RuntimeStateConfig) withDefaults() (RuntimeStateConfig, error) {
	if ic.Timezone == "" {
		ic.Timezone = "UTC"
	}
	if ic.TimeFormat == "" {
		ic.TimeFormat = "%Y-%m-%dT%H:%M:%S"
	}
	switch {
	case ic.TimeInterval == 0:
		ic.TimeInterval = 30 * time.Minute
	case ic.TimeInterval < 0:
		ic.TimeInterval = 0
	}
	if ic.Template == "" {
		ic.Template = DefaultInjectionTemplate
	} else if !strings.Contains(ic.Template, "{runtime_state}") {
		return ic, configErr("the runtime-state template must contain {runtime_state}")
	}
	if ic.Source == "" {
		ic.Source = DefaultInjectionSource
	}
	switch {
	case ic.ContextBufferRatio == 0:
		ic.ContextBufferRatio = 0.2
	case ic.ContextBufferRatio < 0:
		ic.ContextBufferRatio = 0
	case ic.ContextBufferRatio > 1:
		return ic, configErr("RuntimeState.ContextBufferRatio must be at most 1, got %v", ic.ContextBufferRatio)
	}
	if ic.TaskToolNames == nil {
		ic.TaskToolNames = []string{"TaskCreate", "TaskGet", "TaskList", "TaskUpdate"}
	}
	return ic, nil
}
