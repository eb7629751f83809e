package engine_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/memory"
	"github.com/agentscope-go/agentscope/state"
)

// beginSpy is a store that records what each BeginRun knew and got.
type beginSpy struct {
	session.Store
	mu    sync.Mutex
	begun []spied
}

type spied struct {
	known, version int64
	sentJSON       bool
}

func (s *beginSpy) BeginRun(ctx context.Context, k session.Key, b session.RunBegin) (session.Run, error) {
	r, err := s.Store.BeginRun(ctx, k, b)
	s.mu.Lock()
	s.begun = append(s.begun, spied{known: b.Known, version: r.State.Version, sentJSON: r.State.JSON != nil})
	s.mu.Unlock()
	return r, err
}

func (s *beginSpy) last() spied {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.begun[len(s.begun)-1]
}

// replica is an engine on a shared store, on a model that replies "ok"
// to everything.
func replica(t *testing.T, store session.Store, owner string) (*engine.Engine, *scripted.Model) {
	t.Helper()
	var turns []scripted.Turn
	for range 16 {
		turns = append(turns, scripted.Stream(scripted.Text("ok")))
	}
	m := scripted.New("scripted", turns, scripted.WithRecording())
	eng, err := engine.New(engine.Config{Store: store, Owner: owner, Logger: slog.New(slog.DiscardHandler), Agents: []engine.Agent{{
		ID: "a1", Name: "assistant", New: func(st *state.AgentState) (*agent.Agent, error) {
			return agent.New(agent.Config{Name: "assistant", Model: m, State: st, RuntimeState: agent.RuntimeStateConfig{Disabled: true}, Logger: slog.New(slog.DiscardHandler)})
		},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Shutdown(context.Background()) })
	return eng, m
}

// reply runs one reply of text on eng and waits for its end.
func reply(t *testing.T, eng *engine.Engine, k session.Key, text string) {
	t.Helper()
	run, err := eng.Start(context.Background(), k, "a1", engine.Messages(message.UserText(user, text)))
	if err != nil {
		t.Fatal(err)
	}
	<-run.Done()
}

// lastCall is what the model was sent last.
func lastCall(t *testing.T, m *scripted.Model) string {
	t.Helper()
	calls := m.Calls()
	if len(calls) == 0 {
		t.Fatal("the model was not called")
	}
	return string(calls[len(calls)-1].Messages)
}

// A long session's next run starts from the state its last run left,
// which the store then does not send again; a state another engine
// changed meanwhile, or a session deleted and made again under the same
// id, is read from the store: the model always sees what is stored.
func TestKeptStateIsCheckedByVersion(t *testing.T) {
	spy := &beginSpy{Store: memory.New(memory.Config{})}
	a, am := replica(t, spy, "a")
	b, _ := replica(t, spy, "b")
	ctx := context.Background()
	k := session.Key{UserID: user, SessionID: "long"}
	if _, err := a.CreateSession(ctx, engine.NewSession{ID: k.SessionID, UserID: user, AgentID: "a1"}); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a long message ", 2000) // some 30 KB of state

	reply(t, a, k, long)
	reply(t, a, k, "second")
	if got := spy.last(); got.known == 0 || got.known != got.version || got.sentJSON {
		t.Fatalf("the second run on a: %+v, want its kept version and no state sent", got)
	}
	if call := lastCall(t, am); !strings.Contains(call, "a long message") || !strings.Contains(call, "second") {
		t.Fatalf("the model lost the session's start: %.200s", call)
	}

	// Another engine runs the session: a's kept state is stale.
	reply(t, b, k, "from b")
	reply(t, a, k, "third")
	if got := spy.last(); got.known == 0 || got.known == got.version || !got.sentJSON {
		t.Fatalf("a's run after b's: %+v, want the moved state sent", got)
	}
	if call := lastCall(t, am); !strings.Contains(call, "from b") || !strings.Contains(call, "third") {
		t.Fatalf("a's model does not see b's turn: %.300s", call)
	}

	// Deleted and made again under the same id, by b, run as often as
	// a ran it: the version a kept comes round again, for another
	// session.
	reply(t, a, k, "fourth")
	kept := spy.last()
	if err := b.DeleteSession(ctx, k); err != nil {
		t.Fatal(err)
	}
	if _, err := b.CreateSession(ctx, engine.NewSession{ID: k.SessionID, UserID: user, AgentID: "a1"}); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		st, err := spy.LoadState(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		if st.Version == kept.version+1 {
			break
		}
		if i > 10 {
			t.Fatalf("the new session's version %d never reached %d", st.Version, kept.version+1)
		}
		reply(t, b, k, "new session "+long[:20])
	}
	reply(t, a, k, "fifth")
	if got := spy.last(); got.known != got.version || got.sentJSON {
		t.Fatalf("the store should have matched the version a kept: %+v", got)
	}
	call := lastCall(t, am)
	if strings.Contains(call, "fourth") || !strings.Contains(call, "new session") || !strings.Contains(call, "fifth") {
		t.Fatalf("a's model sees the deleted session's turns, or not the new one's: %.300s", call)
	}
	var ended int
	f, err := a.Follow(ctx, k, engine.After(0))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for page, err := range f.Replay(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			if strings.Contains(string(e.JSON), `"type":"`+string(event.TypeReplyEnd)+`"`) {
				ended++
			}
		}
	}
	if ended == 0 {
		t.Fatal("the new session's log holds no reply")
	}
}
