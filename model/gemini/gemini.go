package gemini

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/transport"
	"github.com/agentscope-go/agentscope/stamp"
)

// Provider is the provider name used in errors and logs.
const Provider = "gemini"

// Defaults.
const (
	DefaultBaseURL = "https://generativelanguage.googleapis.com"
	DefaultRetries = 3
	// SkipSignatureValidator is the thoughtSignature Google documents for
	// function calls that have no signature of their own (see
	// WithSignatureFallback).
	SkipSignatureValidator = "skip_thought_signature_validator"
)

// Model is a Gemini chat model. It is safe for concurrent use.
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

	maxTokens       int
	temperature     *float64
	topP            *float64
	topK            *int
	thinkingBudget  *int
	thinkingLevel   string
	includeThoughts *bool
	sigFallback     string
}

// Option configures a Model.
type Option func(*Model)

// WithAPIKey sets the x-goog-api-key header. No environment variable is
// read: selecting credentials is the caller's job.
func WithAPIKey(key string) Option { return func(m *Model) { m.apiKey = key } }

// WithBaseURL replaces https://generativelanguage.googleapis.com. A
// trailing /v1beta is accepted and not doubled.
func WithBaseURL(u string) Option {
	return func(m *Model) { m.baseURL = strings.TrimSuffix(strings.TrimRight(u, "/"), "/v1beta") }
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
// on 429, 5xx and connection errors (default 3). Other 4xx are never
// retried (the reference retries 400s three times).
func WithRetries(n int) Option { return func(m *Model) { m.policy.MaxRetries = max(n, 0) } }

// WithBackoff sets the first backoff window and the cap on one wait
// (including a server's Retry-After). Defaults: 500ms and 30s.
func WithBackoff(base, maxDelay time.Duration) Option {
	return func(m *Model) { m.policy.BaseDelay, m.policy.MaxDelay = base, maxDelay }
}

// WithHeader adds a request header.
func WithHeader(key, value string) Option { return func(m *Model) { m.header.Add(key, value) } }

// WithStamp sets the source of the ids given to text, thinking and data
// blocks (default stamp.Default).
func WithStamp(src stamp.Source) Option { return func(m *Model) { m.src = src } }

// WithCallIDs sets the generator of ids for function calls the server sent
// without one (Gemini 2.5). The default is "call_" plus a random hex id;
// ids must be unique within a conversation, as tool results are matched
// to calls by id.
//
// next is called by every stream of the model; it must be safe for
// concurrent use when streams run at the same time.
func WithCallIDs(next func() string) Option { return func(m *Model) { m.callID = next } }

// WithMaxTokens sets generationConfig.maxOutputTokens.
func WithMaxTokens(n int) Option { return func(m *Model) { m.maxTokens = n } }

// WithTemperature sets generationConfig.temperature.
func WithTemperature(t float64) Option { return func(m *Model) { m.temperature = &t } }

// WithTopP sets generationConfig.topP.
func WithTopP(p float64) Option { return func(m *Model) { m.topP = &p } }

// WithTopK sets generationConfig.topK.
func WithTopK(k int) Option { return func(m *Model) { m.topK = &k } }

// WithThinkingBudget sets thinkingConfig.thinkingBudget (Gemini 2.5) and
// asks for thought summaries. -1 lets the model decide; 0 turns thinking
// off where the model allows it (2.5-pro does not).
func WithThinkingBudget(tokens int) Option {
	return func(m *Model) { m.thinkingBudget = &tokens }
}

// WithThinkingLevel sets thinkingConfig.thinkingLevel (Gemini 3: "LOW",
// "HIGH", …) and asks for thought summaries.
func WithThinkingLevel(level string) Option { return func(m *Model) { m.thinkingLevel = level } }

// WithThoughtSummaries sets thinkingConfig.includeThoughts explicitly (it
// defaults to true once a budget or level is set).
func WithThoughtSummaries(on bool) Option { return func(m *Model) { m.includeThoughts = &on } }

// WithSignatureFallback sets the thoughtSignature sent on the first
// function call of a model turn that has none, e.g. SkipSignatureValidator
// for Gemini 3 when a history was restored from JSON (block JSON does not
// carry a tool call's signature) or came from another model. Off by
// default: a real signature is always preferred.
func WithSignatureFallback(sig string) Option { return func(m *Model) { m.sigFallback = sig } }

// New returns a model for the named Gemini model, e.g. "gemini-2.5-flash".
func New(name string, opts ...Option) *Model {
	m := &Model{
		model:   strings.TrimPrefix(name, "models/"),
		baseURL: DefaultBaseURL,
		header:  make(http.Header),
		src:     stamp.Default,
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
// 1,048,576 by default, the reference's).
func (m *Model) ContextSize() int {
	if m.contextSize > 0 {
		return m.contextSize
	}
	return 1048576
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
		if m.apiKey != "" {
			h.Set("x-goog-api-key", m.apiKey)
		}
		u := m.baseURL + "/v1beta/models/" + url.PathEscape(m.model) + ":streamGenerateContent?alt=sse"
		resp, err := transport.Do(ctx, m.client, transport.Request{Provider: Provider, URL: u, Header: h, Body: body}, m.policy)
		if err != nil {
			yield(model.Chunk{}, refine(err))
			return
		}
		defer resp.Body.Close()
		decode(resp.Body, m.src, m.callID, m.log(), yield)
	}
}

// refine corrects the one classification the status gets wrong: Gemini
// answers an invalid API key with 400 INVALID_ARGUMENT.
func refine(err error) error {
	var me *model.Error
	if errors.As(err, &me) && me.Status == http.StatusBadRequest &&
		(strings.Contains(me.Message, "API key not valid") || strings.Contains(me.Message, "API_KEY_INVALID")) {
		me.Type = event.ErrAuthentication
	}
	return err
}

func invalid(msg string, err error) *model.Error {
	return &model.Error{Type: event.ErrInvalidRequest, Provider: Provider, Message: msg, Err: err}
}
