package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/postgres/postgrestest"
	"github.com/agentscope-go/agentscope/stamp"
)

// listener runs s.Listen for the test and collects what it delivers.
type listener struct {
	ch   chan session.Notice
	stop func()
}

func listen(t *testing.T, s *Store) *listener {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := &listener{ch: make(chan session.Notice, 1024)}
	var wg sync.WaitGroup
	wg.Add(1)
	var err error
	go func() {
		defer wg.Done()
		err = s.Listen(ctx, func(n session.Notice) { l.ch <- n })
	}()
	l.stop = func() {
		cancel()
		wg.Wait()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Listen returned %v, want the context's error", err)
		}
	}
	t.Cleanup(l.stop)
	if n := l.next(t); n.Kind != session.NoticeListening {
		t.Fatalf("first notice %+v, want listening", n)
	}
	return l
}

// next is the next notice about sid (or about listening), skipping other
// tests' (the channel is the database's, shared by every schema).
func (l *listener) next(t *testing.T, sid ...string) session.Notice {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case n := <-l.ch:
			if len(sid) == 0 || n.Key.SessionID == sid[0] || n.Kind == session.NoticeListening || n.Kind == session.NoticeLost {
				return n
			}
		case <-timeout:
			t.Fatal("no notice within 10s")
		}
	}
}

// none fails if a notice about sid arrives within d.
func (l *listener) none(t *testing.T, sid string, d time.Duration) {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case n := <-l.ch:
			if n.Key.SessionID == sid {
				t.Fatalf("unexpected notice %+v", n)
			}
		case <-timeout:
			return
		}
	}
}

// Two stores on one database (two replicas): the one listening hears of
// the other's appends once they are readable, of a deleted session, and
// of an interrupt; a write that did not commit, or wrote no events, sends
// nothing.
func TestNotices(t *testing.T) {
	u := postgrestest.Schema(t)
	a, err := Open(t.Context(), Config{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(t.Context(), Config{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	l := listen(t, b)
	ctx := t.Context()
	rec, err := a.CreateSession(ctx, session.NewSession{UserID: "u", AgentID: "x"})
	if err != nil {
		t.Fatal(err)
	}
	k := session.Key{UserID: "u", SessionID: rec.ID}
	run, err := a.BeginRun(ctx, k, session.RunBegin{Owner: "A", TTL: time.Minute, Input: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	ev := func(n int) []json.RawMessage {
		out := make([]json.RawMessage, n)
		for i := range out {
			out[i] = json.RawMessage(`{"i":1}`)
		}
		return out
	}
	if _, err := a.AppendRun(ctx, k, run.Lease, session.RunAppend{Events: ev(3)}); err != nil {
		t.Fatal(err)
	}
	n := l.next(t, rec.ID)
	if n.Kind != session.NoticeAppended || n.Seq != 3 || n.Key.UserID != "" {
		t.Fatalf("notice %+v, want appended up to 3", n)
	}
	// Delivered at commit: the events are there for b to read.
	if evs, err := b.ReadEvents(ctx, k, 0, 10); err != nil || len(evs) != 3 {
		t.Fatalf("b reads %d events, %v, on the notice", len(evs), err)
	}
	// Messages only: nothing to follow, no notice.
	if _, err := a.AppendRun(ctx, k, run.Lease, session.RunAppend{Messages: []session.Message{{ID: "m", JSON: json.RawMessage(`{}`)}}}); err != nil {
		t.Fatal(err)
	}
	// A finish that fails (a state version that is not current) rolls
	// its events back, and their notice with them.
	_, err = a.FinishRun(ctx, k, run.Lease, session.RunEnd{Events: ev(2), State: json.RawMessage(`{}`), StateVersion: 7, Status: session.StatusIdle})
	if !errors.Is(err, session.ErrConflict) {
		t.Fatalf("FinishRun over a wrong version: %v", err)
	}
	l.none(t, rec.ID, 200*time.Millisecond)
	if _, err := a.FinishRun(ctx, k, run.Lease, session.RunEnd{Events: ev(2), Done: []int64{run.Input.ID}, Status: session.StatusIdle}); err != nil {
		t.Fatal(err)
	}
	if n := l.next(t, rec.ID); n.Kind != session.NoticeAppended || n.Seq != 5 {
		t.Fatalf("notice %+v, want appended up to 5", n)
	}

	// An interrupt names its run; b hears its own too.
	in := session.Notice{Kind: session.NoticeInterrupt, Key: k, Lease: session.Lease{Owner: "A", Epoch: 4}}
	for _, s := range []*Store{a, b} {
		if err := s.Notify(ctx, in); err != nil {
			t.Fatal(err)
		}
		if n := l.next(t, rec.ID); n.Kind != in.Kind || n.Key != k || n.Lease.Owner != "A" || n.Lease.Epoch != 4 {
			t.Fatalf("notice %+v, want %+v", n, in)
		}
	}
	for _, bad := range []session.Notice{
		{Kind: session.NoticeAppended, Key: k, Seq: 1},
		{Kind: session.NoticeInterrupt, Key: session.Key{SessionID: rec.ID}, Lease: in.Lease},
		{Kind: session.NoticeInterrupt, Key: k},
		{Kind: session.NoticeInterrupt, Key: session.Key{UserID: strings.Repeat("u", 8000), SessionID: rec.ID}, Lease: in.Lease},
	} {
		if err := a.Notify(ctx, bad); !errors.Is(err, session.ErrInvalid) {
			t.Errorf("Notify(%.80v) = %v, want ErrInvalid", bad, err)
		}
	}

	if err := a.DeleteSession(ctx, k); err != nil {
		t.Fatal(err)
	}
	if n := l.next(t, rec.ID); n.Kind != session.NoticeDeleted {
		t.Fatalf("notice %+v, want deleted", n)
	}
	// Deleting an agent deletes its sessions: each is announced.
	ag, err := a.CreateAgent(ctx, "u", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range 2 {
		r, err := a.CreateSession(ctx, session.NewSession{UserID: "u", AgentID: ag.ID})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	if err := a.DeleteAgent(ctx, session.AgentKey{UserID: "u", AgentID: ag.ID}); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for len(got) < len(ids) {
		n := l.next(t)
		if n.Kind == session.NoticeDeleted && (n.Key.SessionID == ids[0] || n.Key.SessionID == ids[1]) {
			got[n.Key.SessionID] = true
		}
	}
}

// A listener whose connection is killed says so, reconnects and says it
// listens again; notices sent after that reach it.
func TestListenReconnects(t *testing.T) {
	base, err := url.Parse(postgrestest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	app := "listen-" + stamp.NewID()
	q := base.Query()
	q.Set("application_name", app)
	base.RawQuery = q.Encode()
	s, err := Open(t.Context(), Config{URL: base.String()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l := listen(t, s)
	var killed int
	if err := s.pool.QueryRow(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`, app).Scan(&killed); err != nil || killed != 1 {
		t.Fatalf("terminated %d listeners, %v", killed, err)
	}
	if n := l.next(t); n.Kind != session.NoticeLost || n.Err == nil {
		t.Fatalf("notice %+v, want lost with its error", n)
	}
	if n := l.next(t); n.Kind != session.NoticeListening {
		t.Fatalf("notice %+v, want listening", n)
	}
	k := session.Key{UserID: "u", SessionID: "s-" + stamp.NewID()}
	if err := s.Notify(t.Context(), session.Notice{Kind: session.NoticeInterrupt, Key: k, Lease: session.Lease{Owner: "o", Epoch: 1}}); err != nil {
		t.Fatal(err)
	}
	if n := l.next(t, k.SessionID); n.Kind != session.NoticeInterrupt {
		t.Fatalf("notice %+v after the reconnect", n)
	}
}
