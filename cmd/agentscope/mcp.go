package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

// specList collects the repeatable --mcp flag, checking each spec as it
// is given.
type specList []string

func (s *specList) String() string { return strings.Join(*s, ", ") }

func (s *specList) Set(v string) error {
	if _, err := mcp.ParseSpec(v); err != nil {
		return err
	}
	*s = append(*s, v)
	return nil
}

// modeFlag is --permission-mode: one of the reference's five mode names.
type modeFlag struct{ mode permission.Mode }

func (m *modeFlag) String() string { return string(m.mode) }

func (m *modeFlag) Set(v string) error {
	mode, err := permission.ParseMode(v)
	if err != nil {
		return fmt.Errorf("want one of default, accept_edits, explore, bypass, dont_ask: %w", err)
	}
	m.mode = mode
	return nil
}

// defaultMCPTimeout is --mcp-timeout's default. The reference names no
// bound for an MCP call; a tool that needs longer (a long build, a
// crawl) is given more with the flag, while a server that hangs cannot
// hold a reply, and in serve the session's lease, for ever.
const defaultMCPTimeout = 5 * time.Minute

// mcpTimeoutFlag defines --mcp-timeout on fs.
func mcpTimeoutFlag(fs *flag.FlagSet) *time.Duration {
	return fs.Duration("mcp-timeout", defaultMCPTimeout,
		"bound on each MCP tool call (`duration`; 0: none); a call that takes longer is an error result")
}

// mcpSetup is what the MCP servers of a command are connected with.
type mcpSetup struct {
	// Specs are the servers, as --mcp takes them.
	Specs []string
	// CallTimeout bounds each tool call (0: no bound but the reply's own;
	// --mcp-timeout, default defaultMCPTimeout).
	CallTimeout time.Duration
	// Logger receives the clients' warnings (a lost connection, a failed
	// refresh).
	Logger *slog.Logger
	// Warnf is told which tools were left out for an unusable input
	// schema (the command's inv.Errorf, so the user sees them whatever
	// the log level; nil: the Logger, as warnings).
	Warnf func(format string, args ...any)
}

// connectMCP connects the servers of s and reports the tools each left
// out. A server that fails to start is an error naming it; close stops
// every server started.
func connectMCP(ctx context.Context, s mcpSetup) (clients []*mcp.Client, close func(), err error) {
	close = func() {
		for _, c := range clients {
			c.Close()
		}
	}
	if s.CallTimeout < 0 {
		return nil, nil, fmt.Errorf("--mcp-timeout must not be negative, got %v", s.CallTimeout)
	}
	names := map[string]string{}
	for _, spec := range s.Specs {
		cfg, err := mcp.ParseSpec(spec)
		if err != nil {
			close()
			return nil, nil, err
		}
		cfg.Logger, cfg.CallTimeout = s.Logger, s.CallTimeout
		c, err := mcp.Connect(ctx, cfg)
		if err != nil {
			close()
			return nil, nil, err
		}
		clients = append(clients, c)
		if prev, dup := names[c.Name()]; dup {
			close()
			return nil, nil, fmt.Errorf("--mcp %q and --mcp %q are both named %q: name one with NAME=", prev, spec, c.Name())
		}
		names[c.Name()] = spec
		for _, err := range c.Rejected() {
			if s.Warnf != nil {
				s.Warnf("MCP server %q: a tool is left out: %v", c.Name(), err)
			} else if s.Logger != nil {
				s.Logger.Warn("MCP server: a tool is left out", "server", c.Name(), "error", err)
			}
		}
	}
	return clients, close, nil
}

// mountMCP connects the servers of s and mounts their tools in tk's basic
// group. The middlewares keep them current for each model call of an
// agent on tk.
func mountMCP(ctx context.Context, tk *tool.Toolkit, s mcpSetup) (mws []agent.Middleware, close func(), err error) {
	clients, close, err := connectMCP(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range clients {
		if err := c.Mount(tk, ""); err != nil {
			close()
			return nil, nil, fmt.Errorf("MCP server %q: %w", c.Name(), err)
		}
		mws = append(mws, c.Middleware())
	}
	return mws, close, nil
}
