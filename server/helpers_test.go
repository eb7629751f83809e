package server_test

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
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/server/api"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/postgres"
	"github.com/agentscope-go/agentscope/session/postgres/postgrestest"
	"github.com/agentscope-go/agentscope/session/sqlite"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

const user = "alice"

// env is a server on a real SQLite file behind a real HTTP listener, with
// an agent on a scripted model and two tools: save_note (asks first) and
// wait (runs until cancelled).
type env struct {
	t     testing.TB
	store session.Store
	srv   *server.Server
	hs    *httptest.Server
	model *scripted.Model
	notes atomic.Int32 // save_note runs
	// waiting gets a value each time the wait tool starts.
	waiting chan struct{}
}

// storeEnv names the store the tests and benchmarks of this package run
// on: unset or "sqlite", a file in t.TempDir(); "postgres", a schema of
// the PostgreSQL postgrestest gives (the one AGENTSCOPE_TEST_POSTGRES_URL
// names, or a private one started for the test binary).
const storeEnv = "AGENTSCOPE_SERVER_STORE"

func openStore(t testing.TB) session.Store {
	t.Helper()
	var (
		st  session.Store
		err error
	)
	switch v := os.Getenv(storeEnv); v {
	case "", "sqlite":
		st, err = sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(t.TempDir(), "test.db")})
	case "postgres":
		st, err = postgres.Open(context.Background(), postgres.Config{URL: postgrestest.Schema(t)})
	default:
		t.Fatalf("%s=%q: want sqlite or postgres", storeEnv, v)
	}
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func newEnv(t testing.TB, turns []scripted.Turn, edit func(*server.Config)) *env {
	t.Helper()
	return newEnvOn(t, openStore(t), scripted.New("scripted", turns), edit)
}

// newEnvOn is newEnv on the store st (closed with the env) and the model
// m (which several envs may share).
func newEnvOn(t testing.TB, st session.Store, m *scripted.Model, edit func(*server.Config)) *env {
	t.Helper()
	e := &env{t: t, store: st, model: m, waiting: make(chan struct{}, 16)}
	cfg := server.Config{Engine: engine.Config{Store: st, Agents: []engine.Agent{{ID: "a1", Name: "assistant", Description: "test agent", New: e.newAgent, Derive: e.deriveAgent}}},
		Heartbeat: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)}
	if edit != nil {
		edit(&cfg)
	}
	var err error
	e.srv, err = server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.hs = httptest.NewServer(e.srv)
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

func (e *env) newAgent(st *state.AgentState) (*agent.Agent, error) {
	return e.deriveAgent(st, engine.Overrides{})
}

// deriveAgent is the test agent with a user's agent's settings.
func (e *env) deriveAgent(st *state.AgentState, o engine.Overrides) (*agent.Agent, error) {
	note, err := tool.Func("save_note", "Save a note.", func(ctx context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		e.notes.Add(1)
		return "saved: " + in.Text, nil
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
	tk, err := tool.NewToolkit([]tool.Tool{note, wait})
	if err != nil {
		return nil, err
	}
	name := "assistant"
	if o.Name != "" {
		name = o.Name
	}
	return agent.New(agent.Config{Name: name, Model: e.model, Toolkit: tk, State: st, SystemPrompt: o.SystemPrompt, MaxIters: o.MaxIters,
		RuntimeState: agent.RuntimeStateConfig{Disabled: true}, Logger: slog.New(slog.DiscardHandler)})
}

// response is one HTTP answer.
type response struct {
	code int
	body string
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(r.body), &v); err != nil {
		t.Fatalf("body %q: %v", r.body, err)
	}
	return v
}

// do sends one request as user u (no X-User-ID header when u is "-").
func (e *env) do(method, path, u, body string, hdr ...string) response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.hs.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if u != "-" {
		req.Header.Set("X-User-ID", u)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := e.hs.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{res.StatusCode, string(b)}
}

func (e *env) createSession() string {
	e.t.Helper()
	r := e.do("POST", "/sessions/", user, `{"agent_id":"a1"}`)
	if r.code != 201 {
		e.t.Fatalf("create session: %d %s", r.code, r.body)
	}
	return r.json(e.t)["session_id"].(string)
}

func (e *env) chat(sid, input string) response {
	e.t.Helper()
	return e.do("POST", "/chat/", user, fmt.Sprintf(`{"agent_id":"a1","session_id":%q,"input":%s}`, sid, input))
}

func userMsg(text string) string {
	return fmt.Sprintf(`{"name":"user","role":"user","content":[{"type":"text","text":%q}]}`, text)
}

func (e *env) status(sid string) string {
	e.t.Helper()
	r := e.do("GET", "/sessions/"+sid+"/status?agent_id="+e.agentOf(sid), user, "")
	if r.code != 200 {
		e.t.Fatalf("status: %d %s", r.code, r.body)
	}
	return r.json(e.t)["status"].(string)
}

// agentOf is the agent of the user's session sid, as GET /sessions/
// lists it ("a1" when it is not listed), for the routes that want it.
func (e *env) agentOf(sid string) string {
	e.t.Helper()
	r := e.do("GET", "/sessions/", user, "")
	var l api.SessionList
	if err := json.Unmarshal([]byte(r.body), &l); err == nil {
		for _, s := range l.Sessions {
			if s.Session.ID == sid {
				return s.Session.AgentID
			}
		}
	}
	return "a1"
}

// sseEvent is one SSE frame.
type sseEvent struct {
	seq int64
	ev  event.Event
	raw string
}

// stream is one open SSE connection.
type stream struct {
	t      testing.TB
	res    *http.Response
	events chan sseEvent
	beats  atomic.Int32
	done   chan struct{}
	cancel context.CancelFunc
}

// openStream connects to the session's stream; hdr are extra headers.
func (e *env) openStream(sid, query string, hdr ...string) *stream {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", e.hs.URL+"/sessions/"+sid+"/stream"+query, nil)
	req.Header.Set("X-User-ID", user)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := e.hs.Client().Do(req)
	if err != nil {
		cancel()
		e.t.Fatal(err)
	}
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		cancel()
		e.t.Fatalf("stream: %d %s", res.StatusCode, b)
	}
	s := &stream{t: e.t, res: res, events: make(chan sseEvent, 1<<16), done: make(chan struct{}), cancel: cancel}
	go s.read()
	e.t.Cleanup(s.close)
	return s
}

func (s *stream) read() {
	defer close(s.done)
	defer close(s.events)
	br := bufio.NewReader(s.res.Body)
	var seq int64 = -1
	var data string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if data != "" {
				ev, err := event.Decode([]byte(data))
				if err != nil {
					panic(fmt.Sprintf("bad event %s: %v", data, err))
				}
				s.events <- sseEvent{seq, ev, data}
			}
			seq, data = -1, ""
		case line == ":":
			s.beats.Add(1)
		case strings.HasPrefix(line, "id: "):
			seq, _ = strconv.ParseInt(line[4:], 10, 64)
		case strings.HasPrefix(line, "data: "):
			data = line[6:]
		}
	}
}

func (s *stream) close() {
	s.cancel()
	s.res.Body.Close()
	<-s.done
}

// next returns the next event, failing after a timeout.
func (s *stream) next() sseEvent {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			s.t.Fatal("stream closed")
		}
		return ev
	case <-time.After(10 * time.Second):
		s.t.Fatal("no event within 10s")
	}
	return sseEvent{}
}

// until reads events up to and including the first of type t.
func (s *stream) until(t event.Type) []sseEvent {
	s.t.Helper()
	var out []sseEvent
	for {
		ev := s.next()
		out = append(out, ev)
		if ev.ev.Type() == t {
			return out
		}
	}
}

func types(evs []sseEvent) string {
	var b []string
	for _, e := range evs {
		b = append(b, string(e.ev.Type()))
	}
	return strings.Join(b, " ")
}

// checkSeqs fails unless the sequences run from first without a gap.
func checkSeqs(t testing.TB, evs []sseEvent, first int64) {
	t.Helper()
	for i, e := range evs {
		if e.seq != first+int64(i) {
			t.Fatalf("event %d (%s) has seq %d, want %d", i, e.ev.Type(), e.seq, first+int64(i))
		}
	}
}

// snapshot is what a refused request must leave unchanged.
type snapshot struct {
	lastSeq  int64
	version  int64
	messages int
	status   string
	// record is the session's name and config as stored.
	record string
}

func (e *env) snap(sid string) snapshot {
	e.t.Helper()
	k := session.Key{UserID: user, SessionID: sid}
	ctx := context.Background()
	last, err := e.store.LastSeq(ctx, k)
	if err != nil {
		e.t.Fatal(err)
	}
	st, err := e.store.LoadState(ctx, k)
	if err != nil {
		e.t.Fatal(err)
	}
	page, err := e.store.ListMessages(ctx, k, session.MessageQuery{Limit: 1000})
	if err != nil {
		e.t.Fatal(err)
	}
	rec, err := e.store.GetSession(ctx, k)
	if err != nil {
		e.t.Fatal(err)
	}
	return snapshot{last, st.Version, len(page.Messages), e.status(sid), rec.Name + " " + string(rec.Config)}
}

// waitStatus polls the status until it is want.
func (e *env) waitStatus(sid, want string) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := e.status(sid)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("status %s, want %s", got, want)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

var _ = sync.Mutex{}

// leaseOf is the lease of k as stored (on the session's row).
func leaseOf(ctx context.Context, st session.Store, k session.Key) (session.Lease, error) {
	rec, err := st.GetSession(ctx, k)
	return rec.Lease, err
}

// deadRunOf leaves the store as a run of owner that died would: its lease
// (for ttl), its input (a user message list or a resume event, input)
// claimed, events logged (none: it died before its first).
func deadRunOf(t testing.TB, st session.Store, k session.Key, owner string, ttl time.Duration, input string, evs []event.Event) {
	t.Helper()
	ctx := context.Background()
	// The run is begun on a long lease and dies (its lease shortened to
	// ttl) only once its events are in: on a loaded machine the append
	// could come after a short lease expired, and a rescue in between.
	run, err := st.BeginRun(ctx, k, session.RunBegin{Owner: owner, TTL: time.Hour, Input: json.RawMessage(input)})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) > 0 {
		var batch []json.RawMessage
		for _, ev := range evs {
			event.Stamp(ev, nil)
			batch = append(batch, event.Marshal(ev))
		}
		if _, err := st.AppendRun(ctx, k, run.Lease, session.RunAppend{Events: batch}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.RenewRun(ctx, k, run.Lease, ttl); err != nil {
		t.Fatal(err)
	}
}

// checkInterruptedEnd checks that a reply's events, to its REPLY_END,
// answered its last tool call as interrupted and ended interrupted.
func checkInterruptedEnd(t *testing.T, evs []sseEvent) {
	t.Helper()
	var res *event.ToolResultEnd
	for _, ev := range evs {
		if r, ok := ev.ev.(*event.ToolResultEnd); ok {
			res = r
		}
	}
	if res == nil || res.State != block.ResultInterrupted {
		t.Fatalf("tool result %+v in %s", res, types(evs))
	}
	if end, ok := evs[len(evs)-1].ev.(*event.ReplyEnd); !ok || end.FinishedReason != event.ReplyInterrupted {
		t.Fatalf("end %s", types(evs[len(evs)-1:]))
	}
}
