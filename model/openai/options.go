package openai

import (
	"context"
	"log/slog"
	"maps"
	"net/http"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/transport"
	"github.com/agentscope-go/agentscope/stamp"
)

// Option configures a Chat or Responses model.
type Option func(*config)

type config struct {
	profile      Profile
	apiKey       string
	baseURL      string
	client       *http.Client
	header       http.Header
	policy       transport.Policy
	src          stamp.Source
	stream       bool
	maxTokens    int
	temperature  *float64
	topP         *float64
	effort       string
	thinking     *bool
	budget       int
	parallel     *bool
	strict       *bool
	voice        string
	echo         *ReasoningEcho
	extraBody    map[string]any
	inputTypes   []string
	fetch        func(ctx context.Context, url string) ([]byte, string, error)
	store        *bool
	encrypted    bool
	summary      string
	systemRole   string
	providerName string
	contextSize  int
}

func newConfig(p Profile, opts []Option) *config {
	c := &config{
		profile: p,
		header:  http.Header{},
		policy:  transport.Policy{MaxRetries: 3},
		src:     stamp.Default,
		stream:  true,
	}
	for _, o := range opts {
		o(c)
	}
	if c.baseURL == "" {
		c.baseURL = c.profile.BaseURL
	}
	c.baseURL = strings.TrimRight(c.baseURL, "/")
	c.client = transport.Client(c.client, c.policy.Timeouts)
	if c.inputTypes == nil {
		c.inputTypes = c.profile.InputTypes
	}
	if c.fetch == nil {
		c.fetch = func(ctx context.Context, u string) ([]byte, string, error) {
			return fetchURL(ctx, c.client, u)
		}
	}
	return c
}

func (c *config) provider() string {
	if c.providerName != "" {
		return c.providerName
	}
	return c.profile.name()
}

// log is the caller's logger, or slog.Default() as it is at the time of
// the call.
func (c *config) log() *slog.Logger {
	if c.policy.Logger != nil {
		return c.policy.Logger
	}
	return slog.Default()
}

func (c *config) echoRule() ReasoningEcho {
	if c.echo != nil {
		return *c.echo
	}
	return c.profile.Echo
}

func (c *config) requestHeader() http.Header {
	h := c.header.Clone()
	h.Set("Content-Type", "application/json")
	if c.stream {
		h.Set("Accept", "text/event-stream")
	}
	if c.apiKey != "" {
		h.Set("Authorization", "Bearer "+c.apiKey)
	}
	return h
}

// WithProfile selects the provider profile (Chat Completions only; the
// default is ProfileOpenAI).
func WithProfile(p Profile) Option { return func(c *config) { c.profile = p } }

// WithAPIKey sets the bearer token. The adapter never reads the
// environment; model/provider does that.
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey = key } }

// WithBaseURL overrides the profile's API root, e.g.
// "http://127.0.0.1:8000/v1" (without /chat/completions).
func WithBaseURL(u string) Option { return func(c *config) { c.baseURL = u } }

// WithHTTPClient sets the client used for calls and media downloads
// (default: a shared client whose dialer honours Timeouts.Connect). The
// client is used as given; the first-byte and idle timeouts still apply.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.client = hc } }

// WithTimeouts bounds connecting, the wait for the response headers and
// the silence between chunks (zero fields: model.DefaultConnectTimeout, …;
// negative: no limit). A call that times out fails as a connection error.
func WithTimeouts(t model.Timeouts) Option { return func(c *config) { c.policy.Timeouts = t } }

// WithLogger sets the logger for retry warnings and formatting notices
// (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.policy.Logger = l } }

// WithHeader adds a request header (e.g. OpenAI-Organization, OpenAI-Project).
func WithHeader(key, value string) Option {
	return func(c *config) { c.header.Add(key, value) }
}

// WithOrganization sets the OpenAI-Organization header.
func WithOrganization(org string) Option { return WithHeader("OpenAI-Organization", org) }

// WithMaxRetries sets how many times a call is retried before its first
// byte (429, 5xx and connection errors; default 3). Mid-stream errors are
// never retried.
func WithMaxRetries(n int) Option { return func(c *config) { c.policy.MaxRetries = max(n, 0) } }

// WithRetryDelay sets the first backoff window and the cap on one wait
// (Retry-After included). Backoff is exponential with full jitter.
func WithRetryDelay(base, maxDelay time.Duration) Option {
	return func(c *config) { c.policy.BaseDelay, c.policy.MaxDelay = base, maxDelay }
}

// WithStamp sets the source of generated block and call ids.
func WithStamp(src stamp.Source) Option { return func(c *config) { c.src = src } }

// WithStream chooses streaming (the default) or one whole response per
// call; the whole response is still delivered as chunks.
func WithStream(on bool) Option { return func(c *config) { c.stream = on } }

// WithMaxTokens limits output tokens (sent as the profile's field, or
// max_output_tokens on the Responses API).
func WithMaxTokens(n int) Option { return func(c *config) { c.maxTokens = n } }

// WithTemperature sets temperature.
func WithTemperature(t float64) Option { return func(c *config) { c.temperature = &t } }

// WithTopP sets top_p.
func WithTopP(p float64) Option { return func(c *config) { c.topP = &p } }

// WithReasoningEffort sets reasoning_effort (reasoning.effort on the
// Responses API): none, minimal, low, medium, high, xhigh, max as the
// model supports.
func WithReasoningEffort(e string) Option { return func(c *config) { c.effort = e } }

// WithThinking switches thinking on or off the way the profile does it
// (thinking.type, enable_thinking, chat_template_kwargs). Unset, nothing
// is sent and the server default applies.
func WithThinking(on bool) Option { return func(c *config) { c.thinking = &on } }

// WithThinkingBudget sets DashScope's thinking_budget.
func WithThinkingBudget(tokens int) Option { return func(c *config) { c.budget = tokens } }

// WithParallelToolCalls sets parallel_tool_calls (sent only when false
// unless set explicitly).
func WithParallelToolCalls(on bool) Option { return func(c *config) { c.parallel = &on } }

// WithStrictTools sends "strict" on every tool schema.
func WithStrictTools(on bool) Option { return func(c *config) { c.strict = &on } }

// WithVoice asks for spoken output (modalities text+audio, PCM16 streamed
// back as one audio/wav data block).
func WithVoice(voice string) Option { return func(c *config) { c.voice = voice } }

// WithReasoningEcho overrides the profile's reasoning echo rule.
func WithReasoningEcho(e ReasoningEcho) Option { return func(c *config) { c.echo = &e } }

// WithExtraBody merges keys into every request body (after the adapter's
// own; Request.Extra is merged last). A nil value removes a key.
func WithExtraBody(extra map[string]any) Option {
	return func(c *config) {
		if c.extraBody == nil {
			c.extraBody = map[string]any{}
		}
		maps.Copy(c.extraBody, extra)
	}
}

// WithInputTypes overrides the media types (globs) the model accepts.
func WithInputTypes(types ...string) Option { return func(c *config) { c.inputTypes = types } }

// WithFetch replaces how URL and file:// media are downloaded when the
// wire needs inline bytes (audio, PDF, Moonshot images).
func WithFetch(f func(ctx context.Context, url string) (data []byte, mediaType string, err error)) Option {
	return func(c *config) { c.fetch = f }
}

// WithProviderName overrides the provider name used in errors.
func WithProviderName(name string) Option { return func(c *config) { c.providerName = name } }

// WithStore sets the Responses API "store" flag. With store false, reasoning
// items can only be replayed from their encrypted content
// (WithEncryptedReasoning); without it they are dropped from history.
func WithStore(on bool) Option { return func(c *config) { c.store = &on } }

// WithEncryptedReasoning asks the Responses API for
// reasoning.encrypted_content and replays it in history, which is what
// makes reasoning survive store=false (zero data retention).
func WithEncryptedReasoning() Option { return func(c *config) { c.encrypted = true } }

// WithReasoningSummary sets reasoning.summary on the Responses API
// ("auto", "concise", "detailed"); summaries stream as thinking.
func WithReasoningSummary(s string) Option { return func(c *config) { c.summary = s } }

// WithContextSize sets the context window in tokens the agent assumes
// (its compression threshold is a share of it); n ≤ 0 keeps the default:
// the profile's, else 128,000 for a Chat model and 200,000 for a
// Responses model, the reference's.
func WithContextSize(n int) Option { return func(c *config) { c.contextSize = max(n, 0) } }

// WithSystemRole sets the role system messages take on the Responses API
// ("developer" by default, or "system").
func WithSystemRole(role string) Option { return func(c *config) { c.systemRole = role } }
