package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/agentscope-go/agentscope/engine"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/session/postgres"
	"github.com/agentscope-go/agentscope/stamp"
)

// handlerTransport is an http.RoundTripper that serves each request with
// an http.Handler in this process: no socket, no listener, nothing another
// local user could connect to. `agentscope chat` without --server talks to
// its own server.Server through it, so the chat is the same client code
// either way. A response body streams as the handler writes (an SSE
// stream included); closing it cancels the request's context, as a
// client hanging up would.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	in := req.Clone(ctx)
	if in.Body == nil {
		in.Body = http.NoBody
	}
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = "127.0.0.1:0"
	pr, pw := io.Pipe()
	w := &pipeWriter{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	go func() { // owned by the response: ends when the handler returns, which closing the body brings about
		defer w.finish()
		t.h.ServeHTTP(w, in)
	}()
	select {
	case <-w.ready:
	case <-ctx.Done():
		cancel()
		pr.Close()
		return nil, ctx.Err()
	}
	return &http.Response{
		Status: http.StatusText(w.code), StatusCode: w.code, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: w.sent, Body: &cancelBody{r: pr, cancel: cancel}, ContentLength: -1, Request: req,
	}, nil
}

// pipeWriter is the handler's side of a response: the status and headers
// go out at the first WriteHeader or Write, the body through a pipe the
// client reads. The pipe has no buffer, so a write returns once the client
// has read it: Flush has nothing to do.
type pipeWriter struct {
	header http.Header
	pw     *io.PipeWriter
	once   sync.Once
	ready  chan struct{} // closed once code and sent are set
	code   int
	sent   http.Header
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(code int) {
	w.once.Do(func() {
		w.code, w.sent = code, w.header.Clone()
		close(w.ready)
	})
}

func (w *pipeWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.pw.Write(p)
}

func (w *pipeWriter) Flush() {}

// finish ends the response when the handler returns.
func (w *pipeWriter) finish() {
	w.WriteHeader(http.StatusOK)
	w.pw.Close()
}

// cancelBody is a response body whose Close hangs up: the handler's
// context ends and its next write fails.
type cancelBody struct {
	r      *io.PipeReader
	cancel context.CancelFunc
}

func (b *cancelBody) Read(p []byte) (int, error) { return b.r.Read(p) }

func (b *cancelBody) Close() error {
	b.cancel()
	return b.r.Close()
}

// inProcessLease is the lease of an in-process chat's runs: short, since
// a chat killed mid-run without a stable owner (see chatOwner) leaves a
// lease another process must wait out.
const inProcessLease = 5 * time.Second

// chatOwner is the lease owner of an in-process chat on the store db. A
// chat has no address to make its owner stable across restarts, as
// serve's is, so it takes one of a few lock slots per store and host
// (lockOwner): a chat restarted after it died takes its slot again and
// closes its dead runs at once, and two live chats never share an owner.
// Without a lock it is a fresh id; release is then a no-op.
func chatOwner(db string) (owner string, release func()) {
	host, _ := os.Hostname()
	// Redacted: the key's hash names lock files and, in the owner, the
	// store's leases, where a hash of a password could be guessed at
	// offline; and a password does not tell one database from another.
	key := postgres.Redact(db)
	if !strings.HasPrefix(db, "postgres://") && !strings.HasPrefix(db, "postgresql://") {
		if abs, err := filepath.Abs(db); err == nil {
			key = abs
		}
	}
	if cache, err := os.UserCacheDir(); err == nil {
		sum := sha256.Sum256([]byte(host + "\x00" + key))
		if owner, release, ok := lockOwner(filepath.Join(cache, "agentscope", "chat-owners"), host, hex.EncodeToString(sum[:8])); ok {
			return owner, release
		}
	}
	return "chat@" + host + "/" + stamp.Default.NewID(), func() {}
}

// startInProcess opens the store, builds the agents (their Bash
// sandboxed by sandbox, as serve's --sandbox does) and starts the server
// of a chat without --server, and points cfg at it. stop shuts it all down
// (a running reply is interrupted properly, a parked one stays parked);
// nil stop means it failed, and code is the exit status.
func startInProcess(ctx context.Context, inv *invocation, cfg *chatConfig, db, config, uri string, remote []string, sandbox *sandboxOpts) (stop func(), code int) {
	logger := slog.New(slog.NewTextHandler(inv.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	specs := []agentSpec{{Model: uri, Tools: json.RawMessage(`"demo"`), A2A: remote}}
	where := func(int) string { return "--" }
	if config != "" {
		var err error
		if specs, err = readAgentFile(config); err != nil {
			inv.Errorf("--config %v", err)
			return nil, exitUsage
		}
		where = func(i int) string { return fmt.Sprintf("--config %s: agents[%d].", config, i) }
	}
	if err := sandbox.applyTo(specs); err != nil {
		inv.Errorf("%v", err)
		return nil, exitUsage
	}
	protectStore(specs, db)
	agents, closeMCP, err := buildAgents(ctx, specs, where, mcpSetup{CallTimeout: defaultMCPTimeout, Logger: logger, Warnf: inv.Errorf}, logger)
	if err != nil {
		inv.Errorf("%v", err)
		return nil, exitUsage
	}
	store, err := openStore(ctx, db)
	if err != nil {
		closeMCP()
		inv.Errorf("%s", openStoreError(db, err))
		return nil, exitFailure
	}
	owner, releaseOwner := chatOwner(db)
	srv, err := server.New(server.Config{Engine: engine.Config{Store: store, Agents: agents, Owner: owner, LeaseTTL: inProcessLease}, Logger: logger})
	if err != nil {
		releaseOwner()
		store.Close()
		closeMCP()
		inv.Errorf("%v", err)
		return nil, exitFailure
	}
	cfg.Server, cfg.Token, cfg.Transport = "http://in-process", "", handlerTransport{srv}
	cfg.Validate = toolValidator(agents)
	if cfg.Agent == "" {
		cfg.Agent = agents[0].ID
	}
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			inv.Errorf("shutdown: %v", err)
		}
		store.Close()
		releaseOwner()
		closeMCP()
	}, exitOK
}
