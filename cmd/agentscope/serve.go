package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/agentscope-go/agentscope/engine"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/server/a2a"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/postgres"
	"github.com/agentscope-go/agentscope/session/sqlite"
	"github.com/agentscope-go/agentscope/web"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func init() {
	register("serve", command{
		Summary: "serve agents over HTTP + SSE with durable sessions (SQLite by default, or Postgres)",
		Usage:   "[--addr HOST:PORT] [--db PATH|postgres://…] [--token TOKEN] [--replica ID] [--lease DURATION] [--drain DURATION] [--mcp-timeout DURATION] [--allow-host NAME]... [--read-timeout DURATION] [--idle-timeout DURATION] [-v] [--config FILE | [--id ID] [--model URI] [--base-url URL] [--system PROMPT] [--name NAME] [--tools SET|NAMES] [--mcp SPEC]... [--a2a NAME=URL]... [--permission-mode MODE] [--max-iters N]] [--sandbox MODE [--sandbox-network]]",
		Run:     runServe,
	})
}

// demoAgentID is the id of the agent served without --model.
const demoAgentID = "demo"

// runServe serves the API of package server until SIGINT or SIGTERM.
//
// The agents come from --config FILE (a JSON file of agents, see
// agentSpec) or from the agent flags, never both. Without either a model
// (--model, $AGENTSCOPE_MODEL) or a file it serves the keyless demo agent:
// the rule-based demo model with its tools, one of which (save_note) asks
// the user before it runs, so a reply parks and resumes. A listen address
// that is not loopback requires a token (--token or $AGENTSCOPE_TOKEN). On
// a signal the running replies are interrupted properly, their state
// saved; parked replies stay parked in the store. Before that it drains
// for up to --drain: it takes no new runs or streams and lets the running
// replies finish on their own.
func runServe(ctx context.Context, inv *invocation) int {
	// The package initialisers leave about 3 MB of garbage (most of it
	// the schema validator compiling its metaschemas) and under 1 MB
	// live: collected and given back now, before start-up builds the
	// server's long-lived state, that state is not scattered among dead
	// objects over pages that then stay resident (0.3-0.5 MB at start,
	// BENCHMARKS.md, memory at start, stop 30), and start-up does not
	// reach the first collection's trigger with deep stacks to scan.
	debug.FreeOSMemory()
	fs := inv.Flags(commands[inv.Name])
	addr := fs.String("addr", "127.0.0.1:8080", "listen `address`")
	dbURL := fs.String("db", "./agentscope.db", "the store: a SQLite file `path`, or a postgres:// URL")
	token := fs.String("token", os.Getenv("AGENTSCOPE_TOKEN"), "bearer `token` every request must carry (default $AGENTSCOPE_TOKEN); required off loopback")
	replica := fs.String("replica", "", "this server's lease owner `ID`, kept across restarts and unique among the live servers on the store (default serve@HOST/ADDR); a restart closes the runs its previous incarnation left at once")
	lease := fs.Duration("lease", 30*time.Second, "how long a run's lease lasts without renewal; another replica closes a crashed run about this long after it died (`duration`)")
	drain := fs.Duration("drain", 10*time.Second, "on SIGTERM, how long the runs in progress may take to finish on their own, while new runs and streams are refused (503) and /ready says 503, before they are interrupted; a second signal ends it at once (`duration`)")
	verbose := fs.Bool("v", false, "log debug messages")
	config := fs.String("config", "", "serve the agents of this JSON `file` (see examples/agents.json) instead of the agent flags")
	var flagSpec agentSpec
	fs.StringVar(&flagSpec.ID, "id", "", "the agent's `ID` (default demo for the demo model, else default)")
	uri := fs.String("model", os.Getenv("AGENTSCOPE_MODEL"), "the model `URI`, e.g. openai:gpt-4.1 (default $AGENTSCOPE_MODEL; none: the keyless demo agent)")
	fs.StringVar(&flagSpec.BaseURL, "base-url", "", "override the provider's API `URL`")
	fs.StringVar(&flagSpec.SystemPrompt, "system", "", "the system `prompt`")
	fs.StringVar(&flagSpec.Name, "name", "assistant", "the agent's `name`")
	tools := fs.String("tools", "demo", toolsUsage)
	fs.StringVar(&flagSpec.PermissionMode, "permission-mode", "", "the permission `mode`: default, accept_edits, explore (read-only), bypass or dont_ask (never ask)")
	fs.IntVar(&flagSpec.MaxIters, "max-iters", 0, "the reasoning-acting rounds of a reply (`N`; 0: the agent's default)")
	var mcpSpecs specList
	fs.Var(&mcpSpecs, "mcp", "add the tools of an MCP server to the agent (repeatable): a command line or a URL, optionally prefixed `NAME=`")
	a2aSpecs := a2aFlag(fs, "")
	mcpTimeout := mcpTimeoutFlag(fs)
	sandbox := sandboxFlags(fs, "", "; with --config, for every agent with Bash that names no sandbox")
	listen := addListenFlags(fs, "")
	if code, done := parseFlags(fs, inv); done {
		return code
	}
	if fs.NArg() > 0 {
		inv.Errorf("unexpected arguments %q", fs.Args())
		return exitUsage
	}
	if err := listen.check(); err != nil {
		inv.Errorf("%v", err)
		return exitUsage
	}
	if !isLoopback(*addr) && *token == "" {
		inv.Errorf("listening on %s (not loopback) requires a token: --token or AGENTSCOPE_TOKEN", *addr)
		return exitUsage
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(inv.Stderr, &slog.HandlerOptions{Level: level}))
	stopTracing, err := startTracing(ctx, logger)
	if err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	// Deferred first, so it runs last: the spans of the replies that
	// Shutdown interrupts are flushed too.
	defer func() {
		if err := stopTracing(); err != nil {
			inv.Errorf("%v", err)
		}
	}()

	var specs []agentSpec
	where := func(int) string { return "--" }
	if *config != "" {
		var agentFlags []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "id", "model", "base-url", "system", "name", "tools", "permission-mode", "max-iters", "mcp", "a2a":
				agentFlags = append(agentFlags, "--"+f.Name)
			}
		})
		if len(agentFlags) > 0 {
			inv.Errorf("--config and %s both set the agents: give one or the other", strings.Join(agentFlags, ", "))
			return exitUsage
		}
		var err error
		if specs, err = readAgentFile(*config); err != nil {
			inv.Errorf("--config %v", err)
			return exitUsage
		}
		where = func(i int) string { return fmt.Sprintf("--config %s: agents[%d].", *config, i) }
	} else {
		flagSpec.Model = *uri
		flagSpec.Tools, _ = json.Marshal(*tools)
		flagSpec.MCP = mcpSpecs
		flagSpec.A2A = *a2aSpecs
		if err := flagSpec.check(); err != nil {
			inv.Errorf("--%v", strings.Replace(strings.Replace(err.Error(), "permission_mode", "permission-mode", 1), "max_iters", "max-iters", 1))
			return exitUsage
		}
		specs = []agentSpec{flagSpec}
	}
	if err := sandbox.applyTo(specs); err != nil {
		inv.Errorf("%v", err)
		return exitUsage
	}
	protectStore(specs, *dbURL)
	agents, closeMCP, err := buildAgents(ctx, specs, where, mcpSetup{CallTimeout: *mcpTimeout, Logger: logger, Warnf: inv.Errorf}, logger)
	if err != nil {
		inv.Errorf("%v", err)
		return exitUsage
	}
	defer closeMCP()
	spec := agents[0]
	store, err := openStore(ctx, *dbURL)
	if err != nil {
		inv.Errorf("%s", openStoreError(*dbURL, err))
		return exitFailure
	}
	defer store.Close()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	owner := *replica
	if owner == "" {
		// This host and port: stable across restarts, and no two live
		// processes share one (the port is bound), so a restarted server
		// closes its previous incarnation's runs at once.
		host, _ := os.Hostname()
		owner = "serve@" + host + "/" + ln.Addr().String()
	}
	srv, err := server.New(server.Config{
		Engine: engine.Config{Store: store, Agents: agents, Owner: owner, LeaseTTL: *lease},
		Token:  *token, Version: strings.TrimPrefix(versionLine(version, debug.ReadBuildInfo), "agentscope "), Logger: logger,
	})
	if err != nil {
		ln.Close()
		inv.Errorf("%v", err)
		return exitFailure
	}
	// The first agent as an MCP server at /mcp, behind the same token,
	// built on the first request to /mcp: its tool's schemas, inferred by
	// reflection, and the SDK's tables were 0.4 MB at start of a server
	// that may never be asked over MCP (BENCHMARKS.md, memory at start,
	// stop 30). Building fails only without NewAgent, which is given.
	mcpSrv := sync.OnceValue(func() *sdk.Server {
		s, err := agentMCPServer(spec, spec.Name, "", logger)
		if err != nil {
			logger.Error("the MCP server", "err", err)
			return nil
		}
		return s
	})
	mcpH, stopMCP := mcpHTTPHandler(mcpSrv, *token)
	defer stopMCP()
	// Every agent over A2A, on the same engine and behind the same token.
	a2aH, err := a2a.New(a2a.Config{Engine: srv.Engine(), Token: *token, Version: strings.TrimPrefix(versionLine(version, debug.ReadBuildInfo), "agentscope "), Logger: logger})
	if err != nil {
		srv.Close()
		ln.Close()
		inv.Errorf("%v", err)
		return exitFailure
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpH)
	// The web UI on its own paths only, so every other path stays the
	// API's, its 404s and 405s included.
	ui := web.Handler()
	mux.Handle("GET /{$}", ui)
	mux.Handle("GET /ui/", ui)
	mux.Handle("/a2a/", a2aH)
	mux.Handle("/.well-known/agent-card.json", a2aH)
	mux.Handle("/", srv)
	hs := listen.httpServer(mux, *addr, logger)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	var what []string
	for _, a := range agents {
		what = append(what, "agent "+a.ID+" ("+a.Description+")")
	}
	fmt.Fprintf(inv.Stderr, "agentscope serve: listening on http://%s, store %s, %s\n", ln.Addr(), postgres.Redact(*dbURL), strings.Join(what, ", "))
	// Start-up (migrations, agent assembly, schema compilation) leaves
	// garbage the scavenger would give back only slowly: a server that
	// then idles should not hold it.
	debug.FreeOSMemory()

	select {
	case err := <-served:
		srv.Close()
		inv.Errorf("%v", err)
		return exitFailure
	case <-ctx.Done():
	}
	// Draining: no new runs or streams here (a load balancer sends them
	// to another replica, /ready says so), the runs in progress finish on
	// their own within --drain; a second signal ends the wait.
	if *drain > 0 {
		fmt.Fprintf(inv.Stderr, "agentscope serve: draining: no new runs, waiting up to %v for the running replies\n", *drain)
		again := make(chan os.Signal, 1)
		signal.Notify(again, os.Interrupt, syscall.SIGTERM)
		dctx, stopDrain := context.WithTimeout(context.Background(), *drain)
		go func() {
			select {
			case <-again:
				stopDrain()
			case <-dctx.Done():
			}
		}()
		srv.Drain(dctx)
		stopDrain()
		signal.Stop(again)
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

// openStore opens the store of --db. Print db, and its errors, only
// through postgres.Redact or openStoreError: a postgres:// URL may hold a
// password.
func openStore(ctx context.Context, db string) (session.Store, error) {
	if strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") {
		return postgres.Open(ctx, postgres.Config{URL: db})
	}
	return sqlite.Open(ctx, sqlite.Config{Path: db})
}

// serveAgent is the agent the server offers, from serve's agent flags: on
// the model of uri, or the demo agent when uri is empty. tools is a set or
// a comma list of tool names; sandbox is --sandbox (nil: none).
func serveAgent(uri, baseURL, system, name, tools string, sandbox *sandboxOpts, logger *slog.Logger, servers ...*mcp.Client) (engine.Agent, error) {
	return serveAgentWith(uri, baseURL, system, name, tools, sandbox, nil, logger, servers...)
}

// serveAgentWith is serveAgent with the remote agents of --a2a as tools.
func serveAgentWith(uri, baseURL, system, name, tools string, sandbox *sandboxOpts, remotes []remoteAgent, logger *slog.Logger, servers ...*mcp.Client) (engine.Agent, error) {
	s, err := flagAgentSpec(uri, baseURL, system, name, tools, sandbox, remotes)
	if err != nil {
		return engine.Agent{}, err
	}
	return s.build(logger, servers...)
}

// flagAgentSpec is the agent of the agent flags, not built yet.
func flagAgentSpec(uri, baseURL, system, name, tools string, sandbox *sandboxOpts, remotes []remoteAgent) (agentSpec, error) {
	s := agentSpec{Model: uri, BaseURL: baseURL, SystemPrompt: system, Name: name, remotes: remotes}
	s.Tools, _ = json.Marshal(tools)
	if sandbox != nil {
		specs := []agentSpec{s}
		if err := sandbox.applyTo(specs); err != nil {
			return agentSpec{}, err
		}
		s = specs[0]
	}
	return s, nil
}

// openStoreError is the message of openStore's error for db, without
// db's passwords: those of a Postgres error are gone already (postgres.Open
// takes them out), and db itself, wherever the error quotes it (a SQLite
// error quotes the path), is shown redacted.
func openStoreError(db string, err error) string {
	shown := postgres.Redact(db)
	return "open " + shown + ": " + strings.ReplaceAll(err.Error(), db, shown)
}
