package mcp

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/internal/childenv"
)

// Config describes one MCP server. Exactly one of Command and URL is set;
// every other zero value is a documented default.
type Config struct {
	// Name is the server's name in its tools' names ("": the name the
	// server reports in its handshake, serverInfo.name). Either way it is
	// sanitized like the tool names.
	Name string

	// Command starts a stdio server; Args are its arguments.
	Command string
	Args    []string
	// Env is the child's environment beyond the minimal one every stdio
	// server gets (HOME, LOGNAME, PATH, SHELL, TERM, USER, LANG, LC_ALL,
	// LC_CTYPE, TZ and TMPDIR, those the parent has set): KEY=VALUE
	// entries, later ones winning (nil: the minimal environment only).
	// Nothing else of the parent's environment, its API keys included,
	// reaches the child.
	Env []string
	// Dir is the child's working directory ("": the current one).
	Dir string

	// URL is the endpoint of an HTTP server: streamable HTTP, or legacy
	// SSE when its path ends in "/sse" or "/messages/".
	URL string
	// Headers are sent with every HTTP request.
	Headers map[string]string
	// Timeout bounds the wait for each HTTP response's headers (0: 30s).
	// Streams that follow the headers are not cut by it.
	Timeout time.Duration

	// StartTimeout bounds starting the server, the handshake and the
	// first tools listing, and each later listing (0: 30s).
	StartTimeout time.Duration
	// CallTimeout bounds each tool call (0: no bound but the caller's
	// context). A call that exceeds it is an error result.
	CallTimeout time.Duration
	// ReconnectBackoff is the wait after a failed reconnection before the
	// next attempt; it doubles with each further failure up to 30s (0:
	// 250ms). The first reconnection after a drop is tried at once.
	ReconnectBackoff time.Duration

	// Logger receives the client's warnings (nil: slog.Default()).
	Logger *slog.Logger
}

// ErrConfig is wrapped by the errors of an unusable Config.
var ErrConfig = errors.New("invalid MCP server configuration")

const (
	defaultTimeout      = 30 * time.Second
	defaultStartTimeout = 30 * time.Second
	defaultBackoff      = 250 * time.Millisecond
	maxBackoff          = 30 * time.Second
)

func (c Config) withDefaults() (Config, error) {
	switch {
	case c.Command == "" && c.URL == "":
		return c, fmt.Errorf("%w: set Command or URL", ErrConfig)
	case c.Command != "" && c.URL != "":
		return c, fmt.Errorf("%w: set only one of Command (%q) and URL (%q)", ErrConfig, c.Command, c.URL)
	}
	if c.URL != "" {
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("%w: URL %q is not an http(s) URL", ErrConfig, c.URL)
		}
	}
	if _, err := childenv.Environ(c.Env); err != nil {
		return c, fmt.Errorf("%w: Env: %v", ErrConfig, err)
	}
	if c.Timeout <= 0 {
		c.Timeout = defaultTimeout
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = defaultStartTimeout
	}
	if c.ReconnectBackoff <= 0 {
		c.ReconnectBackoff = defaultBackoff
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, nil
}

// legacySSE reports whether the URL selects the legacy SSE transport, by
// the reference's rule: a path ending in "/sse" or "/messages/".
func legacySSE(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	return strings.HasSuffix(u.Path, "/sse") || strings.HasSuffix(u.Path, "/messages/")
}

// target names the server in errors: its command line or its URL.
func (c Config) target() string {
	if c.URL != "" {
		return c.URL
	}
	return strings.Join(append([]string{c.Command}, c.Args...), " ")
}

// Sanitize replaces every character outside [a-zA-Z0-9_-] with "x", the
// reference's rule for the server and tool parts of an MCP tool's name.
func Sanitize(s string) string {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			out = append(out, byte(r))
		default:
			out = append(out, 'x')
		}
	}
	return string(out)
}

// ToolName is the agent-side name of the server's tool: mcp__{server}__{tool},
// both parts sanitized.
func ToolName(server, tool string) string {
	return "mcp__" + Sanitize(server) + "__" + Sanitize(tool)
}
