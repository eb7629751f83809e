package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

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

// connectMCP connects the --mcp servers. A server that fails to start is
// an error naming it; close stops every server started.
func connectMCP(ctx context.Context, specs []string, logger *slog.Logger) (clients []*mcp.Client, close func(), err error) {
	close = func() {
		for _, c := range clients {
			c.Close()
		}
	}
	names := map[string]string{}
	for _, s := range specs {
		cfg, err := mcp.ParseSpec(s)
		if err != nil {
			close()
			return nil, nil, err
		}
		cfg.Logger = logger
		c, err := mcp.Connect(ctx, cfg)
		if err != nil {
			close()
			return nil, nil, err
		}
		clients = append(clients, c)
		if prev, dup := names[c.Name()]; dup {
			close()
			return nil, nil, fmt.Errorf("--mcp %q and --mcp %q are both named %q: name one with NAME=", prev, s, c.Name())
		}
		names[c.Name()] = s
	}
	return clients, close, nil
}

// mountMCP connects the --mcp servers and mounts their tools in tk's
// basic group, kept current while the command runs.
func mountMCP(ctx context.Context, tk *tool.Toolkit, specs []string, logger *slog.Logger) (close func(), err error) {
	clients, close, err := connectMCP(ctx, specs, logger)
	if err != nil {
		return nil, err
	}
	for _, c := range clients {
		if err := c.Mount(tk, ""); err != nil {
			close()
			return nil, fmt.Errorf("MCP server %q: %w", c.Name(), err)
		}
	}
	return close, nil
}
