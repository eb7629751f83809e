package engine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/memory"
	"github.com/agentscope-go/agentscope/state"
)

// bus carries notices between the notifying stores of one test, as a
// database's LISTEN/NOTIFY does between processes; a listener can be made
// deaf (its notices dropped, as while its connection is down).
type bus struct {
	mu        sync.Mutex
	listeners map[*busListener]struct{}
}

type busListener struct {
	name string
	ch   chan session.Notice
	deaf bool
}

func (b *bus) send(n session.Notice) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for l := range b.listeners {
		if !l.deaf {
			l.ch <- n
		}
	}
}

// deafen drops name's notices until hear.
func (b *bus) deafen(name string, deaf bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for l := range b.listeners {
		if l.name == name {
			l.deaf = deaf
			if !deaf {
				// Reconnected: it says so, as Listen does.
				l.ch <- session.Notice{Kind: session.NoticeLost}
				l.ch <- session.Notice{Kind: session.NoticeListening}
			}
		}
	}
}

// notifying is a store of one "process" on the bus: its writes announce
// themselves once they are stored, as the PostgreSQL store's do at commit.
type notifying struct {
	session.Store
	bus  *bus
	name string
}

func (s *notifying) AppendRun(ctx context.Context, k session.Key, l session.Lease, a session.RunAppend) (int64, error) {
	first, err := s.Store.AppendRun(ctx, k, l, a)
	if err == nil && len(a.Events) > 0 {
		s.bus.send(session.Notice{Kind: session.NoticeAppended, Key: session.Key{SessionID: k.SessionID}, Seq: first + int64(len(a.Events)) - 1})
	}
	return first, err
}

func (s *notifying) FinishRun(ctx context.Context, k session.Key, l session.Lease, e session.RunEnd) (session.RunWritten, error) {
	w, err := s.Store.FinishRun(ctx, k, l, e)
	if err == nil && len(e.Events) > 0 {
		s.bus.send(session.Notice{Kind: session.NoticeAppended, Key: session.Key{SessionID: k.SessionID}, Seq: w.First + int64(len(e.Events)) - 1})
	}
	return w, err
}

func (s *notifying) Listen(ctx context.Context, deliver func(session.Notice)) error {
	l := &busListener{name: s.name, ch: make(chan session.Notice, 1024)}
	s.bus.mu.Lock()
	s.bus.listeners[l] = struct{}{}
	s.bus.mu.Unlock()
	defer func() {
		s.bus.mu.Lock()
		delete(s.bus.listeners, l)
		s.bus.mu.Unlock()
	}()
	deliver(session.Notice{Kind: session.NoticeListening})
	for {
		select {
		case n := <-l.ch:
			deliver(n)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (s *notifying) Notify(ctx context.Context, n session.Notice) error {
	s.bus.send(n)
	return nil
}

var _ session.Notifier = (*notifying)(nil)

// Two engines on one store with a notice bus: B follows what A runs, and
// when B's notices are lost (its listener down while A ran a reply), B's
// followers read the log again once it listens and miss nothing.
func TestFollowerRereadsAfterLostNotices(t *testing.T) {
	inner := memory.New(memory.Config{})
	b := &bus{listeners: map[*busListener]struct{}{}}
	m := scripted.New("scripted", []scripted.Turn{textTurn, textTurn})
	var a, bb *rig
	a = newRig(t, nil, func(cfg *engine.Config) {
		cfg.Store, cfg.Owner = &notifying{Store: inner, bus: b, name: "A"}, "A"
		cfg.Agents[0].New = sharedModel(func() *rig { return a }, m)
	})
	bb = newRig(t, nil, func(cfg *engine.Config) {
		cfg.Store, cfg.Owner = &notifying{Store: inner, bus: b, name: "B"}, "B"
	})
	k := a.session()
	ctx := context.Background()
	feed, err := bb.eng.Follow(ctx, k, engine.After(0))
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()
	rd := newReader(feed)
	if _, err := a.eng.Start(ctx, k, "a1", userText("hi")); err != nil {
		t.Fatal(err)
	}
	first := rd.until(t, event.TypeReplyEnd)
	waitIdle(t, a.eng, k)

	// B's hub may still be reading the log on the first reply's last
	// notice (a read that would find the next reply too): let it end.
	time.Sleep(50 * time.Millisecond)
	b.deafen("B", true)
	if _, err := a.eng.Start(ctx, k, "a1", userText("again")); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, a.eng, k)
	// What the live queue holds now is the first reply again (given live
	// after the replay had it), which Take drops.
	quiet := time.After(100 * time.Millisecond)
	for done := false; !done; {
		select {
		case batch := <-feed.Live():
			if got := feed.Take(batch); len(got) > 0 {
				t.Fatalf("B got %d new events with its notices lost: %d..%d", len(got), got[0].Seq, got[len(got)-1].Seq)
			}
		case <-quiet:
			done = true
		}
	}
	b.deafen("B", false)
	second := rd.until(t, event.TypeReplyEnd)
	if second[0].Type() != event.TypeReplyStart || len(second) != len(first) {
		t.Fatalf("after listening again: %d events from %s, want %d from REPLY_START", len(second), second[0].Type(), len(first))
	}
	if feed.Last() != 2*int64(len(first)) {
		t.Fatalf("the feed is at %d, want %d", feed.Last(), 2*len(first))
	}
}

// sharedModel builds the rig's agent on m.
func sharedModel(r func() *rig, m *scripted.Model) func(st *state.AgentState) (*agent.Agent, error) {
	return func(st *state.AgentState) (*agent.Agent, error) { return r().agent(m, st) }
}

// waitIdle polls until the session's status is idle.
func waitIdle(t *testing.T, e *engine.Engine, k session.Key) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := e.Status(context.Background(), k)
		if err != nil {
			t.Fatal(err)
		}
		if st == session.StatusIdle {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("status %s", st)
		}
		time.Sleep(time.Millisecond)
	}
}
