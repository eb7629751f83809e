package a2a_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/server/a2a"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/sqlite"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

const user = "alice"

// env is the native API and the A2A handler on one engine, on a real
// SQLite file behind a real HTTP listener, as agentscope serve mounts
// them; the agent plays a scripted model and has save_note (asks first),
// wait (runs until cancelled) and lookup (run by the client).
type env struct {
	t     testing.TB
	store session.Store
	srv   *server.Server
	hs    *httptest.Server
	notes atomic.Int32
	// waiting gets a value each time the wait or the gate tool starts.
	waiting chan struct{}
	// gate holds the gate tool until it is closed.
	gate  chan struct{}
	token string
}

func newEnv(t testing.TB, turns []scripted.Turn, token string) *env {
	t.Helper()
	st, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(t.TempDir(), "test.db")})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, store: st, waiting: make(chan struct{}, 16), gate: make(chan struct{}), token: token}
	m := scripted.New("scripted", turns)
	newAgent := func(s *state.AgentState) (*agent.Agent, error) { return e.agent(m, s) }
	e.srv, err = server.New(server.Config{Engine: engine.Config{Store: st, Agents: []engine.Agent{
		{ID: "a1", Name: "assistant", Description: "test agent", New: newAgent,
			Derive: func(s *state.AgentState, _ engine.Overrides) (*agent.Agent, error) { return e.agent(m, s) }},
		{ID: "a2", Name: "second", Description: "another agent", New: newAgent},
	}}, Token: token, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	h, err := a2a.New(a2a.Config{Engine: e.srv.Engine(), Token: token, Heartbeat: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/a2a/", h)
	mux.Handle("/.well-known/agent-card.json", h)
	mux.Handle("/", e.srv)
	e.hs = httptest.NewServer(mux)
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

func (e *env) agent(m *scripted.Model, st *state.AgentState) (*agent.Agent, error) {
	note, err := tool.Func("save_note", "Save a note.", func(ctx context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		e.notes.Add(1)
		return "saved: " + in.Text, nil
	})
	if err != nil {
		return nil, err
	}
	// A second tool that asks, so one batch can park on two asks.
	tag, err := tool.Func("tag", "Tag a note.", func(ctx context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		e.notes.Add(1)
		return "tagged: " + in.Text, nil
	})
	if err != nil {
		return nil, err
	}
	wait, err := tool.New("wait", "Wait until cancelled.", json.RawMessage(`{"type":"object","properties":{}}`),
		func(ctx context.Context, _ map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) {
				e.waiting <- struct{}{}
				<-ctx.Done()
				yield(tool.Chunk{}, ctx.Err())
			}
		}, tool.ReadOnly())
	if err != nil {
		return nil, err
	}
	gate, err := tool.Func("gate", "Wait until the test opens the gate.", func(ctx context.Context, _ struct{}) (string, error) {
		e.waiting <- struct{}{}
		select {
		case <-e.gate:
			return "open", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}, tool.ReadOnly())
	if err != nil {
		return nil, err
	}
	lookup, err := tool.New("lookup", "Look a key up (the client runs it).",
		json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}}}`), nil, tool.External(), tool.ReadOnly())
	if err != nil {
		return nil, err
	}
	tk, err := tool.NewToolkit([]tool.Tool{note, tag, wait, gate, lookup})
	if err != nil {
		return nil, err
	}
	return agent.New(agent.Config{Name: "assistant", Model: m, Toolkit: tk, State: st,
		RuntimeState: agent.RuntimeStateConfig{Disabled: true}, Logger: slog.New(slog.DiscardHandler)})
}

// rpcResult is one JSON-RPC answer over HTTP.
type rpcResult struct {
	status int
	resp   a2a.Response
	body   string
}

// post sends a raw body to path with the usual headers; hdr overrides
// them ("" deletes one).
func (e *env) post(path, body string, hdr ...string) rpcResult {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.hs.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("X-User-ID", user)
	if e.token != "" {
		req.Header.Set("Authorization", "Bearer "+e.token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	res, err := e.hs.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	out := rpcResult{status: res.StatusCode, body: string(b)}
	json.Unmarshal(b, &out.resp)
	return out
}

// call sends one method to agent a1 as user.
func (e *env) call(method string, params any, hdr ...string) rpcResult {
	e.t.Helper()
	p, _ := json.Marshal(params)
	return e.post("/a2a/a1", fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, p), hdr...)
}

// task decodes a result holding {"task": …} (SendMessage) or a task.
func (r rpcResult) task(t testing.TB) *a2a.Task {
	t.Helper()
	if r.resp.Error != nil || r.status != 200 {
		t.Fatalf("HTTP %d, error %+v: %s", r.status, r.resp.Error, r.body)
	}
	var wrapped a2a.SendMessageResponse
	if json.Unmarshal(r.resp.Result, &wrapped) == nil && wrapped.Task != nil {
		return wrapped.Task
	}
	var task a2a.Task
	if err := json.Unmarshal(r.resp.Result, &task); err != nil || task.ID == "" {
		t.Fatalf("no task in %s", r.body)
	}
	return &task
}

// code is the JSON-RPC error code of an answer (0: none).
func (r rpcResult) code() int {
	if r.resp.Error == nil {
		return 0
	}
	return r.resp.Error.Code
}

func text(s string) a2a.Part { return a2a.TextPart(s) }

func userMessage(id string, parts ...a2a.Part) *a2a.Message {
	return &a2a.Message{MessageID: id, Role: a2a.RoleUser, Parts: parts}
}

// streamCall opens a streaming method and returns its responses as they
// come.
func (e *env) streamCall(method string, params any) <-chan a2a.Response {
	e.t.Helper()
	p, _ := json.Marshal(params)
	req, _ := http.NewRequest("POST", e.hs.URL+"/a2a/a1", strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":"s1","method":%q,"params":%s}`, method, p)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("X-User-ID", user)
	res, err := e.hs.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		e.t.Fatalf("%s: %d %s %s", method, res.StatusCode, ct, b)
	}
	ch := make(chan a2a.Response, 1024)
	go func() {
		defer close(ch)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var r a2a.Response
				if err := json.Unmarshal([]byte(data), &r); err != nil {
					panic(fmt.Sprintf("bad frame %q: %v", data, err))
				}
				ch <- r
			}
		}
	}()
	e.t.Cleanup(func() { res.Body.Close() })
	return ch
}

// drain reads a stream to its end, failing after 10s.
func drain(t testing.TB, ch <-chan a2a.Response) []a2a.StreamResponse {
	t.Helper()
	var out []a2a.StreamResponse
	timeout := time.After(10 * time.Second)
	for {
		select {
		case r, ok := <-ch:
			if !ok {
				return out
			}
			if r.Error != nil {
				t.Fatalf("stream error %+v", r.Error)
			}
			var sr a2a.StreamResponse
			if err := json.Unmarshal(r.Result, &sr); err != nil {
				t.Fatal(err)
			}
			out = append(out, sr)
		case <-timeout:
			t.Fatalf("stream not over within 10s; so far %d events", len(out))
		}
	}
}

// snapshot is what a refused request must leave unchanged: every
// session of the user, with its log, state and transcript.
type snapshot map[string][3]int64

func (e *env) snap() snapshot {
	e.t.Helper()
	ctx := context.Background()
	recs, _, err := e.store.ListSessions(ctx, session.ListQuery{UserID: user})
	if err != nil {
		e.t.Fatal(err)
	}
	out := snapshot{}
	for _, r := range recs {
		k := session.Key{UserID: user, SessionID: r.ID}
		last, _ := e.store.LastSeq(ctx, k)
		st, _ := e.store.LoadState(ctx, k)
		page, _ := e.store.ListMessages(ctx, k, session.MessageQuery{Limit: 1000})
		out[r.ID] = [3]int64{last, st.Version, int64(len(page.Messages))}
	}
	return out
}

func sessionKey(sid string) session.Key { return session.Key{UserID: user, SessionID: sid} }
