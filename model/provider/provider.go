package provider

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model"
)

// Errors wrapped by the *model.Error (type setup) that New returns, for
// errors.Is.
var (
	ErrBadURI        = errors.New("bad model URI")
	ErrUnknownScheme = errors.New("unknown model provider")
	ErrNoAPIKey      = errors.New("no API key")
)

// Spec is what a Factory builds a model from: the parsed URI and the
// caller's overrides.
type Spec struct {
	Scheme  string // "openai"
	Model   string // "gpt-4.1"; may hold ':' ("qwen3:8b")
	BaseURL string // from "model@https://…" or WithBaseURL; "" = the provider default
	APIKey  string // from WithAPIKey; "" = look in the environment (Key)
	// HTTPClient is the client to call with (nil = the adapter's own,
	// whose dialer honours Timeouts.Connect).
	HTTPClient *http.Client
	// Timeouts bound each call's phases (zero fields = model's defaults).
	Timeouts model.Timeouts
	// Logger receives the adapter's warnings, retries included (nil =
	// slog.Default()).
	Logger *slog.Logger
	getenv func(string) string
}

// Env reads an environment variable (through WithEnv when given).
func (s Spec) Env(name string) string {
	if s.getenv != nil {
		return s.getenv(name)
	}
	return os.Getenv(name)
}

// Key returns the API key: the explicit one, else the first non-empty of
// the environment variables. With required set, a missing key is an
// error naming the variables to set.
func (s Spec) Key(required bool, envs ...string) (string, error) {
	if s.APIKey != "" {
		return s.APIKey, nil
	}
	for _, e := range envs {
		if v := strings.TrimSpace(s.Env(e)); v != "" {
			return v, nil
		}
	}
	if !required {
		return "", nil
	}
	return "", setupError(fmt.Errorf("%w for %q: set %s", ErrNoAPIKey, s.Scheme, strings.Join(envs, " or ")))
}

// Factory builds a model for a parsed URI.
type Factory func(s Spec) (model.ChatModel, error)

var (
	mu        sync.RWMutex
	factories = map[string]Factory{}
)

// Register makes a scheme available to New. Registering a scheme twice
// replaces the earlier factory (so an application can swap a built-in).
func Register(scheme string, f Factory) {
	if scheme == "" || f == nil {
		panic("provider.Register: empty scheme or nil factory")
	}
	mu.Lock()
	defer mu.Unlock()
	factories[strings.ToLower(scheme)] = f
}

// Schemes lists the registered schemes, sorted.
func Schemes() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(factories))
	for s := range factories {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Option adjusts how New builds a model.
type Option func(*Spec)

// WithBaseURL overrides the provider's API root (the --base-url flag); it
// wins over a base URL given in the URI.
func WithBaseURL(u string) Option { return func(s *Spec) { s.BaseURL = u } }

// WithAPIKey sets the API key instead of reading the environment.
func WithAPIKey(key string) Option { return func(s *Spec) { s.APIKey = key } }

// WithEnv replaces os.Getenv for key lookups (tests, sandboxes).
func WithEnv(getenv func(string) string) Option { return func(s *Spec) { s.getenv = getenv } }

// WithHTTPClient sets the HTTP client the model calls with.
func WithHTTPClient(c *http.Client) Option { return func(s *Spec) { s.HTTPClient = c } }

// WithTimeouts sets the connect, first-byte and idle timeouts of the
// model's calls (the CLI's --timeout); zero fields keep the defaults.
func WithTimeouts(t model.Timeouts) Option { return func(s *Spec) { s.Timeouts = t } }

// WithLogger sets the logger for the model's warnings, retries included.
func WithLogger(l *slog.Logger) Option { return func(s *Spec) { s.Logger = l } }

// Parse splits a model URI "scheme:model[@base-url]". The scheme is
// everything before the first ':'; a base URL is introduced by the last
// "@http://" or "@https://", so model names keep their own ':' and '@'.
func Parse(uri string) (Spec, error) {
	scheme, rest, ok := strings.Cut(strings.TrimSpace(uri), ":")
	if m, hasDefault := defaultModels[strings.ToLower(scheme)]; !ok && hasDefault {
		rest, ok = m, true
	}
	if !ok || scheme == "" || rest == "" {
		return Spec{}, setupError(fmt.Errorf("%w %q: want provider:model, e.g. openai:gpt-4.1 or openai-compatible:qwen3@http://localhost:8000/v1", ErrBadURI, uri))
	}
	s := Spec{Scheme: strings.ToLower(scheme), Model: rest}
	at := max(strings.LastIndex(rest, "@http://"), strings.LastIndex(rest, "@https://"))
	if at >= 0 {
		s.Model, s.BaseURL = rest[:at], rest[at+1:]
		if u, err := url.Parse(s.BaseURL); err != nil || u.Host == "" {
			return Spec{}, setupError(fmt.Errorf("%w %q: base URL %q is not a URL", ErrBadURI, uri, s.BaseURL))
		}
	}
	if at < 0 {
		if i := strings.LastIndexByte(rest, '@'); i >= 0 && looksLikeHost(rest[i+1:]) {
			base := rest[i+1:]
			if _, after, ok := strings.Cut(base, "://"); ok {
				base = after
			}
			if base == "" {
				base = "localhost:8000/v1"
			}
			return Spec{}, setupError(fmt.Errorf("%w %q: the base URL after '@' must start with http:// or https://, e.g. %s:%s@http://%s",
				ErrBadURI, uri, s.Scheme, rest[:i], base))
		}
	}
	if s.Model == "" {
		return Spec{}, setupError(fmt.Errorf("%w %q: no model name", ErrBadURI, uri))
	}
	return s, nil
}

// looksLikeHost tells a base URL without its http:// ("localhost:8000/v1",
// "ftp://h", "") from the '@' some model names hold ("claude@2025").
func looksLikeHost(s string) bool {
	hostport, _, _ := strings.Cut(s, "/")
	switch {
	case s == "", strings.Contains(s, "://"), strings.HasPrefix(s, "localhost"):
		return true
	}
	_, port, err := net.SplitHostPort(hostport)
	return err == nil && port != "" && strings.Trim(port, "0123456789") == ""
}

// New builds the model a URI names, e.g. "openai:gpt-4.1",
// "anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-flash", "ollama:qwen3",
// "openai-compatible:qwen3@http://localhost:8000/v1". API keys come from
// the provider's usual environment variable unless WithAPIKey is given.
// Every error is a *model.Error of type setup.
func New(uri string, opts ...Option) (model.ChatModel, error) {
	s, err := Parse(uri)
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(&s)
	}
	mu.RLock()
	f, ok := factories[s.Scheme]
	mu.RUnlock()
	if !ok {
		return nil, setupError(fmt.Errorf("%w %q (known: %s)", ErrUnknownScheme, s.Scheme, strings.Join(Schemes(), ", ")))
	}
	m, err := f(s)
	if err != nil {
		var me *model.Error
		if errors.As(err, &me) {
			return nil, err
		}
		return nil, setupError(err)
	}
	return m, nil
}

func setupError(err error) error {
	return &model.Error{Type: event.ErrSetup, Message: err.Error(), Err: err}
}

func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}
