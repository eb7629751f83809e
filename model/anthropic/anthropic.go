package anthropic

import (
	"context"
	"iter"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/transport"
	"github.com/agentscope-go/agentscope/stamp"
)

// Provider is the provider name used in errors and logs.
const Provider = "anthropic"

// Defaults.
const (
	DefaultBaseURL   = "https://api.anthropic.com"
	DefaultMaxTokens = 8192 // the API requires max_tokens; the reference's default
	DefaultRetries   = 3
	APIVersion       = "2023-06-01"
)

// Model is an Anthropic chat model. It is safe for concurrent use.
type Model struct {
	contextSize int
	model       string
	apiKey      string
	baseURL     string
	client      *http.Client
	policy      transport.Policy
	header      http.Header
	src         stamp.Source
	maxTokens   int

	thinkingMode    string // "", "enabled", "adaptive", "disabled"
	thinkingBudget  int
	thinkingDisplay string
	effort          string
	temperature     *float64
	topP            *float64
	topK            *int
	serialTools     bool // disable_parallel_tool_use
}

// Option configures a Model.
type Option func(*Model)

// WithAPIKey sets the x-api-key header. No environment variable is read:
// selecting credentials is the caller's job.
func WithAPIKey(key string) Option { return func(m *Model) { m.apiKey = key } }

// WithBaseURL replaces https://api.anthropic.com (a proxy, a test server).
// A trailing /v1 is accepted and not doubled: requests go to {root}/v1/messages.
func WithBaseURL(u string) Option {
	return func(m *Model) { m.baseURL = strings.TrimSuffix(strings.TrimRight(u, "/"), "/v1") }
}

// WithHTTPClient sets the client used for calls (default: a shared client
// whose dialer honours Timeouts.Connect). The client is used as given; the
// first-byte and idle timeouts still apply.
func WithHTTPClient(c *http.Client) Option { return func(m *Model) { m.client = c } }

// WithTimeouts bounds connecting, the wait for the response headers and
// the silence between chunks (zero fields: model.DefaultConnectTimeout, …;
// negative: no limit). A call that times out fails as a connection error.
func WithTimeouts(t model.Timeouts) Option { return func(m *Model) { m.policy.Timeouts = t } }

// WithLogger sets the logger for retry warnings and formatting notices
// (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(m *Model) { m.policy.Logger = l } }

// WithRetries sets how many times a call is retried before its first byte
// on 429, 5xx and connection errors (default 3).
func WithRetries(n int) Option { return func(m *Model) { m.policy.MaxRetries = max(n, 0) } }

// WithBackoff sets the first backoff window and the cap on one wait
// (including a server's Retry-After). Defaults: 500ms and 30s.
func WithBackoff(base, maxDelay time.Duration) Option {
	return func(m *Model) { m.policy.BaseDelay, m.policy.MaxDelay = base, maxDelay }
}

// WithHeader adds a request header, e.g. "anthropic-beta".
func WithHeader(key, value string) Option {
	return func(m *Model) { m.header.Add(key, value) }
}

// WithStamp sets the source of the ids given to text and thinking blocks
// (default stamp.Default); tests use a deterministic one.
func WithStamp(src stamp.Source) Option { return func(m *Model) { m.src = src } }

// WithMaxTokens sets max_tokens (default 8192).
func WithMaxTokens(n int) Option { return func(m *Model) { m.maxTokens = n } }

// WithThinking enables extended thinking with the given budget_tokens; 0
// means half of max_tokens. When the budget reaches max_tokens, max_tokens
// is raised to budget+1024, as the API requires it to be larger.
func WithThinking(budget int) Option {
	return func(m *Model) { m.thinkingMode, m.thinkingBudget = "enabled", budget }
}

// WithAdaptiveThinking lets the model decide how much to think
// ({"type":"adaptive"}, for the models that support it).
func WithAdaptiveThinking() Option { return func(m *Model) { m.thinkingMode = "adaptive" } }

// WithoutThinking sends {"type":"disabled"} explicitly.
func WithoutThinking() Option { return func(m *Model) { m.thinkingMode = "disabled" } }

// WithThinkingDisplay sets thinking.display ("summarized" or "omitted").
func WithThinkingDisplay(d string) Option { return func(m *Model) { m.thinkingDisplay = d } }

// WithEffort sets output_config.effort ("low" … "max").
func WithEffort(e string) Option { return func(m *Model) { m.effort = e } }

// WithTemperature sets temperature.
func WithTemperature(t float64) Option { return func(m *Model) { m.temperature = &t } }

// WithTopP sets top_p.
func WithTopP(p float64) Option { return func(m *Model) { m.topP = &p } }

// WithTopK sets top_k.
func WithTopK(k int) Option { return func(m *Model) { m.topK = &k } }

// WithParallelToolCalls allows (default) or forbids several tool calls in
// one reply (tool_choice.disable_parallel_tool_use).
func WithParallelToolCalls(on bool) Option { return func(m *Model) { m.serialTools = !on } }

// New returns a model for the named Anthropic model, e.g.
// "claude-sonnet-4-20250514".
func New(name string, opts ...Option) *Model {
	m := &Model{
		model:     name,
		baseURL:   DefaultBaseURL,
		header:    make(http.Header),
		src:       stamp.Default,
		maxTokens: DefaultMaxTokens,
		policy:    transport.Policy{MaxRetries: DefaultRetries},
	}
	for _, o := range opts {
		o(m)
	}
	m.client = transport.Client(m.client, m.policy.Timeouts)
	if m.src == nil {
		m.src = stamp.Default
	}
	return m
}

// log is the caller's logger, or slog.Default() as it is at the time of
// the call.
func (m *Model) log() *slog.Logger {
	if m.policy.Logger != nil {
		return m.policy.Logger
	}
	return slog.Default()
}

// Name returns the model's name.
func (m *Model) Name() string { return m.model }

// ContextSize is the context window the agent assumes (WithContextSize;
// 200,000 by default, the reference's).
func (m *Model) ContextSize() int {
	if m.contextSize > 0 {
		return m.contextSize
	}
	return 200000
}

// WithContextSize sets the context window in tokens the agent assumes
// (its compression threshold is a share of it); n ≤ 0 keeps the default.
func WithContextSize(n int) Option { return func(m *Model) { m.contextSize = max(n, 0) } }

// Stream makes one streaming call. Formatting problems and HTTP failures
// are yielded as a *model.Error before any chunk; see the package
// documentation for what happens after the first chunk.
func (m *Model) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		body, err := m.RequestBody(req)
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		h := m.header.Clone()
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "text/event-stream")
		h.Set("anthropic-version", APIVersion)
		if m.apiKey != "" {
			h.Set("x-api-key", m.apiKey)
		}
		resp, err := transport.Do(ctx, m.client, transport.Request{
			Provider: Provider, URL: m.baseURL + "/v1/messages", Header: h, Body: body,
		}, m.policy)
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		defer resp.Body.Close()
		decode(resp.Body, m.src, yield)
	}
}

func invalid(msg string, err error) *model.Error {
	return &model.Error{Type: event.ErrInvalidRequest, Provider: Provider, Message: msg, Err: err}
}
