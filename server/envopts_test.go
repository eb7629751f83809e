package server_test

import (
	"context"
	"encoding/json"
	"iter"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/session/sqlite"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// envOpts is what newEnvWith adds to newEnv's server.
type envOpts struct {
	turns []scripted.Turn
	edit  func(*server.Config)
	// external adds the tool "lookup", which the client runs
	// (tool.External): calling it parks the reply on
	// REQUIRE_EXTERNAL_EXECUTION.
	external bool
	// record makes the model record its requests (scripted.WithRecording).
	record bool
	// connBuffer, when set, is the kernel send buffer of every connection
	// the server accepts, so a client that stops reading holds up the
	// server's writes after a few KiB rather than after megabytes.
	connBuffer int
	// hosts, when not nil, puts the server behind server.HostCheck with
	// these hosts.
	hosts []string
	// readTimeout is the listener's http.Server.ReadTimeout.
	readTimeout time.Duration
}

// newEnvWith is newEnv with the options of o.
func newEnvWith(t testing.TB, o envOpts) *env {
	t.Helper()
	st, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(t.TempDir(), "test.db")})
	if err != nil {
		t.Fatal(err)
	}
	var mopts []scripted.Option
	if o.record {
		mopts = append(mopts, scripted.WithRecording())
	}
	e := &env{t: t, store: st, model: scripted.New("scripted", o.turns, mopts...), waiting: make(chan struct{}, 16)}
	build := e.newAgent
	if o.external {
		build = e.newExternalAgent
	}
	cfg := server.Config{Engine: engine.Config{Store: st, Agents: []engine.Agent{{ID: "a1", Name: "assistant", Description: "test agent", New: build}}},
		Heartbeat: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)}
	if o.edit != nil {
		o.edit(&cfg)
	}
	e.srv, err = server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = e.srv
	if o.hosts != nil {
		h = server.HostCheck(h, o.hosts...)
	}
	e.hs = httptest.NewUnstartedServer(h)
	e.hs.Config.ReadTimeout = o.readTimeout
	if o.connBuffer > 0 {
		e.hs.Config.ConnState = func(c net.Conn, s http.ConnState) {
			if tc, ok := c.(*net.TCPConn); ok && s == http.StateNew {
				if err := tc.SetWriteBuffer(o.connBuffer); err != nil {
					t.Error(err)
				}
			}
		}
	}
	e.hs.Start()
	t.Cleanup(func() {
		e.hs.CloseClientConnections()
		if err := e.srv.Close(); err != nil {
			t.Error(err)
		}
		e.hs.Close()
		st.Close()
	})
	return e
}

// newExternalAgent is the test agent with one tool, lookup, that the
// client executes.
func (e *env) newExternalAgent(st *state.AgentState) (*agent.Agent, error) {
	lookup, err := tool.New("lookup", "Look a value up (run by the client).", json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}}}`),
		func(ctx context.Context, _ map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) {
				e.t.Error("the server ran the external tool")
			}
		}, tool.External(), tool.ReadOnly())
	if err != nil {
		return nil, err
	}
	tk, err := tool.NewToolkit([]tool.Tool{lookup})
	if err != nil {
		return nil, err
	}
	return agent.New(agent.Config{Name: "assistant", Model: e.model, Toolkit: tk, State: st,
		RuntimeState: agent.RuntimeStateConfig{Disabled: true}, Logger: slog.New(slog.DiscardHandler)})
}
