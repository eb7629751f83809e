package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentscope-go/agentscope/engine"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/internal/bearer"
	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/permission"
)

func init() {
	register("mcp", command{
		Summary: "serve an agent as an MCP server (stdio, or streamable HTTP with --http) whose tool \"ask\" sends it a message",
		Usage:   "[--model URI] [--system PROMPT] [--name NAME] [--tools SET] [--mcp SPEC]... [--mcp-timeout DURATION] [--a2a NAME=URL]... [--permission-mode MODE] [--sandbox MODE [--sandbox-network]] [--http HOST:PORT [--token TOKEN] [--allow-host NAME]... [--read-timeout DURATION] [--idle-timeout DURATION]] [-v]",
		Run:     runMCP,
	})
}

// runMCP serves one agent as an MCP server: over stdio (the protocol on
// stdin and stdout, logs on stderr) until stdin closes, or over streamable
// HTTP at /mcp with --http until SIGINT or SIGTERM. Without --model (and
// $AGENTSCOPE_MODEL) the agent is the keyless demo agent. Each tool call
// is one reply of a fresh agent; a reply that would ask the user ends the
// call with a tool error naming the calls, unless --permission-mode lets
// the agent run unattended (bypass, dont_ask).
func runMCP(ctx context.Context, inv *invocation) int {
	fs := inv.Flags(commands[inv.Name])
	uri := fs.String("model", os.Getenv("AGENTSCOPE_MODEL"), "the model `URI` (default $AGENTSCOPE_MODEL; none: the keyless demo agent)")
	baseURL := fs.String("base-url", "", "override the provider's API `URL`")
	system := fs.String("system", "", "the system `prompt`")
	name := fs.String("name", "assistant", "the agent's `name`")
	tools := fs.String("tools", "demo", toolsUsage)
	httpAddr := fs.String("http", "", "serve streamable HTTP at http://`HOST:PORT`/mcp instead of stdio")
	token := fs.String("token", os.Getenv("AGENTSCOPE_TOKEN"), "with --http: the bearer `token` every request must carry (default $AGENTSCOPE_TOKEN); required off loopback")
	verbose := fs.Bool("v", false, "log debug messages (to stderr)")
	var mcpSpecs specList
	fs.Var(&mcpSpecs, "mcp", "add the tools of an MCP server to the agent (repeatable): a command line or a URL, optionally prefixed `NAME=`")
	a2aSpecs := a2aFlag(fs, "")
	mcpTimeout := mcpTimeoutFlag(fs)
	var mode modeFlag
	fs.Var(&mode, "permission-mode", "the agent's permission `mode`: default, accept_edits, explore, bypass or dont_ask")
	sandbox := sandboxFlags(fs, "", "")
	listen := addListenFlags(fs, "with --http: ")
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
	if _, err := expandTools([]string{*tools}, true); err != nil {
		inv.Errorf("--tools: %v", err)
		return exitUsage
	}
	if *httpAddr != "" && !isLoopback(*httpAddr) && *token == "" {
		inv.Errorf("listening on %s (not loopback) requires a token: --token or AGENTSCOPE_TOKEN", *httpAddr)
		return exitUsage
	}
	level := slog.LevelWarn
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
	remotes, err := connectA2A(ctx, *a2aSpecs, func(int) string { return "--a2a " })
	if err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	s, err := flagAgentSpec(*uri, *baseURL, *system, *name, *tools, sandbox, remotes)
	if err != nil {
		printError(inv, err)
		return exitUsage
	}
	removeOffload, err := privateOffload(&s)
	if err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	defer removeOffload()
	spec, err := s.build(logger, clients...)
	if err != nil {
		printError(inv, err)
		return exitUsage
	}
	srv, err := agentMCPServer(spec, *name, mode.mode, logger)
	if err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	if *httpAddr == "" {
		t := &sdk.IOTransport{Reader: io.NopCloser(inv.Stdin), Writer: nopWriteCloser{inv.Stdout}}
		if err := srv.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			inv.Errorf("%v", err)
			return exitFailure
		}
		return exitOK
	}
	return serveMCPHTTP(ctx, inv, srv, *httpAddr, *token, listen, logger)
}

// agentMCPServer serves the agent of spec as an MCP server, one fresh
// agent per tool call, in mode ("": the default mode).
func agentMCPServer(spec engine.Agent, name string, mode permission.Mode, logger *slog.Logger) (*sdk.Server, error) {
	return mcp.NewServer(mcp.ServerConfig{
		Name:        "agentscope",
		Description: "Send a message to the agent " + name + " (" + spec.Description + ") and get its reply.",
		Logger:      logger,
		NewAgent: func() (*agent.Agent, error) {
			a, err := spec.New(nil)
			if err == nil && mode != "" {
				err = a.Permissions().SetMode(mode)
			}
			return a, err
		},
	})
}

// mcpSessionIdle is how long an MCP session over HTTP may stay idle
// (a variable so a test may shorten it).
var mcpSessionIdle = 30 * time.Minute

// mcpHTTPHandler is the streamable-HTTP handler of the server srv returns
// (called for each request; nil answers 400) behind the bearer token; stop
// ends its requests (the streams an HTTP server's Shutdown would otherwise
// wait for), interrupting their replies. Serve it only through
// listenFlags.httpServer, which checks the Host header.
func mcpHTTPHandler(srv func() *sdk.Server, token string) (h http.Handler, stop func()) {
	base, stop := context.WithCancel(context.Background())
	// The SDK's own Host check is off: the listener's (server.HostCheck)
	// covers every route, /mcp among them, with one rule and one answer.
	// The SDK's would refuse, on a listener off loopback, a request that
	// came over the loopback interface under another name (a proxy on the
	// same host), which serve's API answers; a token guards those.
	// An idle MCP session is closed after mcpSessionIdle: a client that
	// opens sessions and walks away may not hold them for ever.
	inner := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv() }, &sdk.StreamableHTTPOptions{DisableLocalhostProtection: true, SessionTimeout: mcpSessionIdle})
	return requireToken(token, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		unhook := context.AfterFunc(base, cancel)
		defer unhook()
		inner.ServeHTTP(w, r.WithContext(ctx))
	})), stop
}

func serveMCPHTTP(ctx context.Context, inv *invocation, srv *sdk.Server, addr, token string, listen *listenFlags, logger *slog.Logger) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	h, stop := mcpHTTPHandler(func() *sdk.Server { return srv }, token)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := listen.httpServer(mux, addr, logger)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	fmt.Fprintf(inv.Stderr, "agentscope mcp: listening on http://%s/mcp\n", ln.Addr())
	select {
	case err := <-served:
		stop()
		inv.Errorf("%v", err)
		return exitFailure
	case <-ctx.Done():
	}
	stop()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	code := exitOK
	if err := hs.Shutdown(sctx); err != nil {
		inv.Errorf("shutdown: %v", err)
		code = exitFailure
	}
	<-served
	return code
}

// requireToken answers 401 to a request without the bearer token ("": no
// token required).
func requireToken(token string, h http.Handler) http.Handler {
	if token == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !bearer.Match(r.Header.Get("Authorization"), token) {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
