package ollama

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
const Provider = "ollama"

// Defaults.
const (
	DefaultBaseURL = "http://localhost:11434"
	DefaultRetries = 3
)

// Model is an Ollama chat model. It is safe for concurrent use.
type Model struct {
	contextSize int
	model       string
	apiKey      string
	baseURL     string
	client      *http.Client
	policy      transport.Policy
	header      http.Header
	src         stamp.Source
	callID      func() string

	think     any // nil, bool or a level string
	options   map[string]any
	keepAlive string
	format    any
}

// Option configures a Model.
type Option func(*Model)

// WithBaseURL replaces http://localhost:11434 (no environment variable
// such as OLLAMA_HOST is read: that is the caller's job).
func WithBaseURL(u string) Option {
	return func(m *Model) { m.baseURL = strings.TrimRight(u, "/") }
}

// WithAPIKey sends "Authorization: Bearer key" (ollama.com, or a server
// behind an authenticating proxy).
func WithAPIKey(key string) Option { return func(m *Model) { m.apiKey = key } }

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

// WithBackoff sets the first backoff window and the cap on one wait.
// Defaults: 500ms and 30s.
func WithBackoff(base, maxDelay time.Duration) Option {
	return func(m *Model) { m.policy.BaseDelay, m.policy.MaxDelay = base, maxDelay }
}

// WithHeader adds a request header.
func WithHeader(key, value string) Option { return func(m *Model) { m.header.Add(key, value) } }

// WithStamp sets the source of the ids given to text and thinking blocks
// (default stamp.Default).
func WithStamp(src stamp.Source) Option { return func(m *Model) { m.src = src } }

// WithCallIDs sets the generator of ids for tool calls Ollama sent without
// one. The default is "call_" plus a random hex id.
//
// next is called by every stream of the model; it must be safe for
// concurrent use when streams run at the same time.
func WithCallIDs(next func() string) Option { return func(m *Model) { m.callID = next } }

// WithThink sets "think": true or false (models that think).
func WithThink(on bool) Option { return func(m *Model) { m.think = on } }

// WithThinkLevel sets "think" to a level ("low", "medium", "high") for the
// models that take one (gpt-oss).
func WithThinkLevel(level string) Option { return func(m *Model) { m.think = level } }

// WithOption sets one model option ("num_ctx", "seed", "top_p", …).
func WithOption(key string, value any) Option {
	return func(m *Model) { m.options[key] = value }
}

// WithMaxTokens sets options.num_predict.
func WithMaxTokens(n int) Option { return WithOption("num_predict", n) }

// WithTemperature sets options.temperature.
func WithTemperature(t float64) Option { return WithOption("temperature", t) }

// WithKeepAlive sets keep_alive ("5m", "1h", "-1" …): how long the server
// keeps the model loaded after the call.
func WithKeepAlive(d string) Option { return func(m *Model) { m.keepAlive = d } }

// WithFormat sets "format": "json" or a JSON schema for structured output.
func WithFormat(f any) Option { return func(m *Model) { m.format = f } }

// New returns a model for the named Ollama model, e.g. "qwen3" or
// "llama3.2".
func New(name string, opts ...Option) *Model {
	m := &Model{
		model:   name,
		baseURL: DefaultBaseURL,
		header:  make(http.Header),
		src:     stamp.Default,
		options: map[string]any{},
		policy:  transport.Policy{MaxRetries: DefaultRetries},
	}
	for _, o := range opts {
		o(m)
	}
	m.client = transport.Client(m.client, m.policy.Timeouts)
	if m.src == nil {
		m.src = stamp.Default
	}
	if m.callID == nil {
		src := m.src
		m.callID = func() string { return "call_" + src.NewID() }
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
// 32,768 by default, the reference's).
func (m *Model) ContextSize() int {
	if m.contextSize > 0 {
		return m.contextSize
	}
	return 32768
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
		h.Set("Accept", "application/x-ndjson")
		if m.apiKey != "" {
			h.Set("Authorization", "Bearer "+m.apiKey)
		}
		resp, err := transport.Do(ctx, m.client, transport.Request{
			Provider: Provider, URL: m.baseURL + "/api/chat", Header: h, Body: body,
		}, m.policy)
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		defer resp.Body.Close()
		decode(resp.Body, m.src, m.callID, yield)
	}
}

func invalid(msg string, err error) *model.Error {
	return &model.Error{Type: event.ErrInvalidRequest, Provider: Provider, Message: msg, Err: err}
}
