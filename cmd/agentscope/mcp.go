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

// mountMCP connects the --mcp servers and mounts their tools in tk's
// basic group. A server that fails to start is an error naming it; close
// stops every server started.
func mountMCP(ctx context.Context, tk *tool.Toolkit, specs []string, logger *slog.Logger) (close func(), err error) {
	var clients []*mcp.Client
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
			return nil, err
		}
		cfg.Logger = logger
		c, err := mcp.Connect(ctx, cfg)
		if err != nil {
			close()
			return nil, err
		}
		clients = append(clients, c)
		if prev, dup := names[c.Name()]; dup {
			close()
			return nil, fmt.Errorf("--mcp %q and --mcp %q are both named %q: name one with NAME=", prev, s, c.Name())
		}
		names[c.Name()] = s
		if err := c.Mount(tk, ""); err != nil {
			close()
			return nil, fmt.Errorf("--mcp %q: %w", s, err)
		}
	}
	return close, nil
}
