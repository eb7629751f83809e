package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/demo"
	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/provider"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/postgres"
	"github.com/agentscope-go/agentscope/session/sqlite"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
	"github.com/agentscope-go/agentscope/tool/builtin"
)

func init() {
	register("serve", command{
		Summary: "serve agents over HTTP + SSE with durable sessions (SQLite by default, or Postgres)",
		Usage:   "[--addr HOST:PORT] [--db PATH|postgres://…] [--token TOKEN] [--model URI] [--system PROMPT] [--name NAME] [--tools SET] [--mcp SPEC]... [--mcp-timeout DURATION] [--lease DURATION] [-v]",
		Run:     runServe,
	})
}

// demoAgentID is the id of the agent served without --model.
const demoAgentID = "demo"

// runServe serves the API of package server until SIGINT or SIGTERM.
//
// Without --model (and $AGENTSCOPE_MODEL) it serves the keyless demo
// agent: the rule-based demo model with its tools, one of which
// (save_note) asks the user before it runs, so a reply parks and resumes.
// A listen address that is not loopback requires a token (--token or
// $AGENTSCOPE_TOKEN). On a signal the running replies are interrupted
// properly, their state saved; parked replies stay parked in the store.
func runServe(ctx context.Context, inv *invocation) int {
	fs := inv.Flags(commands[inv.Name])
	addr := fs.String("addr", "127.0.0.1:8080", "listen `address`")
	dbURL := fs.String("db", "./agentscope.db", "the store: a SQLite file `path`, or a postgres:// URL")
	token := fs.String("token", os.Getenv("AGENTSCOPE_TOKEN"), "bearer `token` every request must carry (default $AGENTSCOPE_TOKEN); required off loopback")
	uri := fs.String("model", os.Getenv("AGENTSCOPE_MODEL"), "the model `URI`, e.g. openai:gpt-4.1 (default $AGENTSCOPE_MODEL; none: the keyless demo agent)")
	baseURL := fs.String("base-url", "", "override the provider's API `URL`")
	system := fs.String("system", "", "the system `prompt`")
	name := fs.String("name", "assistant", "the agent's `name`")
	tools := fs.String("tools", "demo", "tool `set`: \"demo\" (calculate, get_time, save_note, wait), \"builtin\" (Bash, Read, Write, Edit, Glob, Grep) or \"none\"")
	lease := fs.Duration("lease", 30*time.Second, "how long a run's lease lasts without renewal; a crashed run is closed about this long after it died (`duration`)")
	verbose := fs.Bool("v", false, "log debug messages")
	var mcpSpecs specList
	fs.Var(&mcpSpecs, "mcp", "add the tools of an MCP server to the agent (repeatable): a command line or a URL, optionally prefixed `NAME=`")
	mcpTimeout := mcpTimeoutFlag(fs)
	if code, done := parseFlags(fs, inv); done {
		return code
	}
	if fs.NArg() > 0 {
		inv.Errorf("unexpected arguments %q", fs.Args())
		return exitUsage
	}
	if !isLoopback(*addr) && *token == "" {
		inv.Errorf("listening on %s (not loopback) requires a token: --token or AGENTSCOPE_TOKEN", *addr)
		return exitUsage
	}
	if *tools != "demo" && *tools != "builtin" && *tools != "none" {
		inv.Errorf("unknown tool set %q (want demo, builtin or none)", *tools)
		return exitUsage
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(inv.Stderr, &slog.HandlerOptions{Level: level}))

	clients, closeMCP, err := connectMCP(ctx, mcpSetup{Specs: mcpSpecs, CallTimeout: *mcpTimeout, Logger: logger, Warnf: inv.Errorf})
	if err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	defer closeMCP()
	spec, err := serveAgent(*uri, *baseURL, *system, *name, *tools, logger, clients...)
	if err != nil {
		printError(inv, err)
		return exitUsage
	}
	store, err := openStore(ctx, *dbURL)
	if err != nil {
		inv.Errorf("open %s: %v", *dbURL, err)
		return exitFailure
	}
	defer store.Close()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	host, _ := os.Hostname()
	srv, err := server.New(server.Config{
		Store: store, Agents: []server.Agent{spec}, Token: *token,
		// The owner is this host and port: a restarted server takes its
		// own unexpired leases back at once, and no two live processes
		// share one.
		Owner:    "serve@" + host + "/" + ln.Addr().String(),
		LeaseTTL: *lease, Version: strings.TrimPrefix(versionLine(version, debug.ReadBuildInfo), "agentscope "), Logger: logger,
	})
	if err != nil {
		ln.Close()
		inv.Errorf("%v", err)
		return exitFailure
	}
	// The agent as an MCP server at /mcp, behind the same token.
	mcpSrv, err := agentMCPServer(spec, *name, "", logger)
	if err != nil {
		srv.Close()
		ln.Close()
		inv.Errorf("%v", err)
		return exitFailure
	}
	mcpH, stopMCP := mcpHTTPHandler(mcpSrv, *token)
	defer stopMCP()
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpH)
	mux.Handle("/", srv)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	what := "agent " + spec.ID + " (" + spec.Description + ")"
	fmt.Fprintf(inv.Stderr, "agentscope serve: listening on http://%s, store %s, %s\n", ln.Addr(), *dbURL, what)

	select {
	case err := <-served:
		srv.Close()
		inv.Errorf("%v", err)
		return exitFailure
	case <-ctx.Done():
	}
	fmt.Fprintln(inv.Stderr, "agentscope serve: shutting down: interrupting running replies")
	stopMCP()
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code := exitOK
	// The API first: it interrupts the runs and ends the SSE streams, which
	// the HTTP server would otherwise wait for.
	if err := srv.Shutdown(sctx); err != nil {
		inv.Errorf("shutdown: %v", err)
		code = exitFailure
	}
	if err := hs.Shutdown(sctx); err != nil {
		inv.Errorf("shutdown: %v", err)
		code = exitFailure
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		inv.Errorf("%v", err)
		code = exitFailure
	}
	return code
}

// isLoopback reports whether addr listens on loopback only.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func openStore(ctx context.Context, db string) (session.Store, error) {
	if strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") {
		return postgres.Open(ctx, postgres.Config{URL: db})
	}
	return sqlite.Open(ctx, sqlite.Config{Path: db})
}

// serveAgent is the agent the server offers: on the model of uri, or the
// demo agent when uri is empty. The model and the MCP servers are shared;
// each run gets a fresh toolkit, with the servers' tools as they are when
// it starts.
func serveAgent(uri, baseURL, system, name, tools string, logger *slog.Logger, servers ...*mcp.Client) (server.Agent, error) {
	var m model.ChatModel
	spec := server.Agent{ID: "default", Name: name}
	if uri == "" || uri == demo.Name {
		m = demo.New(demo.WithDelay(15 * time.Millisecond))
		spec.ID = demoAgentID
		spec.Description = "DEMO: the keyless rule-based demo model, not a real LLM; start with --model URI for one"
	} else {
		opts := []provider.Option{provider.WithLogger(logger)}
		if baseURL != "" {
			opts = append(opts, provider.WithBaseURL(baseURL))
		}
		var err error
		if m, err = provider.New(uri, opts...); err != nil {
			return spec, err
		}
		spec.Description = "model " + uri
	}
	spec.New = func(st *state.AgentState) (*agent.Agent, error) {
		var ts []tool.Tool
		if tools == "demo" {
			var err error
			if ts, err = demo.Tools(nil); err != nil {
				return nil, err
			}
			note, err := demo.SaveNote(nil)
			if err != nil {
				return nil, err
			}
			wait, err := demo.Wait()
			if err != nil {
				return nil, err
			}
			ts = append(ts, note, wait)
		}
		if tools == "builtin" {
			ts = builtin.Tools(builtin.Config{})
		}
		for _, c := range servers {
			ts = append(ts, c.Tools()...)
		}
		tk, err := tool.NewToolkit(ts)
		if err != nil {
			return nil, err
		}
		return agent.New(agent.Config{Name: name, Model: m, SystemPrompt: system, Toolkit: tk, State: st, Logger: logger})
	}
	return spec, nil
}
