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

// DefaultInterruptionMessage is the text of the fallback message that ends
// an interrupted reply.
const DefaultInterruptionMessage = pycompat.InterruptionMessage

// ReActConfig bounds and words the loop (the reference's ReActConfig).
type ReActConfig struct {
	// MaxIters is the number of reasoning-acting rounds before the reply
	// stops with EXCEED_MAX_ITERS (default 50).
	MaxIters int
	// StructuredOutputGraceIters are extra rounds granted, with the tool
	// choice forced, when a structured output is still missing at MaxIters
	// (default 5, must be > 0).
	StructuredOutputGraceIters int
	// StopOnReject is declared by the reference but has no effect there
	// either; it is kept for configuration compatibility.
	StopOnReject bool
	// InterruptionMessage is the fallback message's text.
	InterruptionMessage string
	// InterruptionReturnsError makes an interrupted reply end with the
	// context's error after its REPLY_END and fallback message (the
	// reference's interruption_raise_cancelled_error).
	InterruptionReturnsError bool
}

// DefaultReActConfig returns the reference defaults.
func DefaultReActConfig() ReActConfig {
	return ReActConfig{MaxIters: 50, StructuredOutputGraceIters: 5, InterruptionMessage: DefaultInterruptionMessage}
}

// ModelConfig governs model calls.
type ModelConfig struct {
	// MaxRetries is how many times a failed call is retried on the same
	// model (default 0). Only the call is retried: a stream that breaks
	// after its first chunk is an error.
	MaxRetries int
	// Fallback is tried (with the same retries) once the primary model
	// failed every attempt.
	Fallback model.ChatModel
}

// ContextConfig holds the reference's context-size settings. They are
// validated like the reference's, but this engine does not compress
// context yet: a reply's history is handed to the model whole.
type ContextConfig struct {
	TriggerRatio    float64 // (0, 0.9], default 0.8
	ReserveRatio    float64 // (0, 0.9), default 0.1
	ToolResultLimit int     // default 50000
	MaxImageNum     int     // default 5
}

// DefaultContextConfig returns the reference defaults.
func DefaultContextConfig() ContextConfig {
	return ContextConfig{TriggerRatio: 0.8, ReserveRatio: 0.1, ToolResultLimit: 50000, MaxImageNum: 5}
}

// Field is one extra runtime-state field (kept in order).
type Field struct {
	Key   string
	Value any
}

// InjectionConfig controls the runtime-state hint injected before model
// calls (the reference's InjectionConfig).
type InjectionConfig struct {
	// InjectRuntimeState turns the injection on (default true).
	InjectRuntimeState bool
	// Timezone is an IANA zone name (default "UTC"; unknown names fall back
	// to UTC but are still reported as configured).
	Timezone string
	// TimeFormat is a strftime format (default "%Y-%m-%dT%H:%M:%S").
	TimeFormat string
	// TimeInterval is how many hours may pass before the time is injected
	// again (default 0.5).
	TimeInterval float64
	// ContextBufferRatio is validated against ContextConfig.TriggerRatio.
	ContextBufferRatio float64
	// Template must contain "{runtime_state}".
	Template string
	// Source is the hint's source label.
	Source string
	// TaskToolNames suppress the tasks reminder once one of them was called.
	TaskToolNames []string
	// ExtraFields are appended to an injection that fires.
	ExtraFields []Field
	// EmitHintEvent emits a HINT_BLOCK event for the injected hint.
	EmitHintEvent bool
}

// Injection texts of the reference.
const (
	DefaultInjectionTemplate = pycompat.InjectionTemplate
	DefaultInjectionSource   = pycompat.InjectionSource
)

// DefaultInjectionConfig returns the reference defaults.
func DefaultInjectionConfig() InjectionConfig {
	return InjectionConfig{
		InjectRuntimeState: true,
		Timezone:           "UTC",
		TimeFormat:         "%Y-%m-%dT%H:%M:%S",
		TimeInterval:       0.5,
		ContextBufferRatio: 0.2,
		Template:           DefaultInjectionTemplate,
		Source:             DefaultInjectionSource,
		TaskToolNames:      []string{"TaskCreate", "TaskGet", "TaskList", "TaskUpdate"},
		EmitHintEvent:      true,
	}
}

// ErrConfig is wrapped by configuration errors returned by New.
var ErrConfig = errors.New("invalid agent configuration")

func configErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
}

func (c *config) validate() error {
	if c.react.StructuredOutputGraceIters <= 0 {
		return configErr("structured_output_grace_iters must be > 0, got %d", c.react.StructuredOutputGraceIters)
	}
	cc := c.context
	if cc.TriggerRatio <= 0 || cc.TriggerRatio > 0.9 {
		return configErr("trigger_ratio must be in (0, 0.9], got %v", cc.TriggerRatio)
	}
	if cc.ReserveRatio <= 0 || cc.ReserveRatio >= 0.9 {
		return configErr("reserve_ratio must be in (0, 0.9), got %v", cc.ReserveRatio)
	}
	if cc.ReserveRatio >= cc.TriggerRatio {
		return configErr("reserve_ratio (%v) must be smaller than trigger_ratio (%v)", cc.ReserveRatio, cc.TriggerRatio)
	}
	ic := c.injection
	if ic.ContextBufferRatio < 0 || ic.ContextBufferRatio > 1 {
		return configErr("context_buffer_ratio must be in [0, 1], got %v", ic.ContextBufferRatio)
	}
	if ic.InjectRuntimeState && ic.ContextBufferRatio >= cc.TriggerRatio {
		return configErr("context_buffer_ratio (%v) must be smaller than trigger_ratio (%v) while runtime-state injection is on", ic.ContextBufferRatio, cc.TriggerRatio)
	}
	if !strings.Contains(ic.Template, "{runtime_state}") {
		return configErr("the injection template must contain {runtime_state}")
	}
	if ic.TimeInterval < 0 {
		return configErr("time_interval must be >= 0")
	}
	if c.modelCfg.MaxRetries < 0 {
		return configErr("max_retries must be >= 0")
	}
	return nil
}

// config is everything New assembles.
type config struct {
	systemPrompt string
	toolkit      *tool.Toolkit
	state        *state.AgentState
	react        ReActConfig
	modelCfg     ModelConfig
	context      ContextConfig
	injection    InjectionConfig
	middlewares  []any
	toolMWs      []tool.Middleware
	src          stamp.Source
	logger       *slog.Logger
	grace        time.Duration
	preempt      time.Duration
	now          func() time.Time
}

// Option configures an Agent.
type Option func(*config)

// WithSystemPrompt sets the system prompt.
func WithSystemPrompt(p string) Option { return func(c *config) { c.systemPrompt = p } }

// WithToolkit sets the toolkit (default: an empty one). The agent mounts
// and unmounts its structured-output tool in it, like the reference.
func WithToolkit(tk *tool.Toolkit) Option { return func(c *config) { c.toolkit = tk } }

// WithState resumes from a saved state (default: a fresh one). The agent
// works on it in place.
func WithState(s *state.AgentState) Option { return func(c *config) { c.state = s } }

// WithReAct replaces the loop configuration.
func WithReAct(r ReActConfig) Option { return func(c *config) { c.react = r } }

// WithMaxIters sets ReActConfig.MaxIters.
func WithMaxIters(n int) Option { return func(c *config) { c.react.MaxIters = n } }

// WithModelConfig replaces the model-call configuration.
func WithModelConfig(m ModelConfig) Option { return func(c *config) { c.modelCfg = m } }

// WithContextConfig replaces the context configuration.
func WithContextConfig(cc ContextConfig) Option { return func(c *config) { c.context = cc } }

// WithInjection replaces the runtime-state injection configuration.
func WithInjection(ic InjectionConfig) Option { return func(c *config) { c.injection = ic } }

// WithoutInjection turns runtime-state injection off.
func WithoutInjection() Option { return func(c *config) { c.injection.InjectRuntimeState = false } }

// WithMiddleware appends middlewares; each must implement at least one of
// ReplyMiddleware, ReasoningMiddleware, ModelCallMiddleware,
// ActingMiddleware, PermissionMiddleware, SystemPromptMiddleware. The first
// one given is the outermost layer of every onion.
func WithMiddleware(mws ...any) Option {
	return func(c *config) { c.middlewares = append(c.middlewares, mws...) }
}

// WithToolMiddleware wraps every tool call (outside the tools' own).
func WithToolMiddleware(mws ...tool.Middleware) Option {
	return func(c *config) { c.toolMWs = append(c.toolMWs, mws...) }
}

// WithStamp sets the source of ids and timestamps (default stamp.Default).
func WithStamp(src stamp.Source) Option { return func(c *config) { c.src = src } }

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithToolGrace is how long a cancelled tool may take to return before it
// is abandoned (default tool.DefaultGrace).
func WithToolGrace(d time.Duration) Option { return func(c *config) { c.grace = d } }

// WithPreemption is how long a tool of a concurrent batch may block
// without going through coop.Sleep/Block before its siblings run anyway
// (default coop.DefaultPreempt).
func WithPreemption(d time.Duration) Option { return func(c *config) { c.preempt = d } }

// WithClock sets the clock of the runtime-state injection (default
// time.Now).
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }
