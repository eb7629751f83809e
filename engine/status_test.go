package engine_test

import (
	"context"
	"sync"
	"testing"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/session"
)

// legacyStore shows the sessions in forget as a database migrated to the
// status column shows its rows that had a state: status unknown, until
// FillStatus stores one. It counts the state loads.
type legacyStore struct {
	session.Store
	mu     sync.Mutex
	forget map[string]bool
	loads  int
}

func (l *legacyStore) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.loads
}

func (l *legacyStore) mask(rec session.Record) session.Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.forget[rec.ID] {
		rec.Status = session.StatusUnknown
	}
	return rec
}

func (l *legacyStore) GetSession(ctx context.Context, k session.Key) (session.Record, error) {
	rec, err := l.Store.GetSession(ctx, k)
	return l.mask(rec), err
}

func (l *legacyStore) ListSessions(ctx context.Context, q session.ListQuery) ([]session.Record, int, error) {
	recs, n, err := l.Store.ListSessions(ctx, q)
	for i := range recs {
		recs[i] = l.mask(recs[i])
	}
	return recs, n, err
}

func (l *legacyStore) FillStatus(ctx context.Context, k session.Key, s session.Status) error {
	l.mu.Lock()
	delete(l.forget, k.SessionID)
	l.mu.Unlock()
	// The row the memory store holds has the run's status already: a fill
	// changes nothing there, as on a row whose status a run stored.
	return l.Store.FillStatus(ctx, k, s)
}

func (l *legacyStore) LoadState(ctx context.Context, k session.Key) (session.State, error) {
	l.mu.Lock()
	l.loads++
	l.mu.Unlock()
	return l.Store.LoadState(ctx, k)
}

// A session whose status the store does not know (a row from before the
// status column) has it derived from its state once, as the engine did
// before the column, and filled in: the next reads load no state.
func TestStatusOfARowFromBeforeTheColumn(t *testing.T) {
	legacy := &legacyStore{forget: map[string]bool{}}
	r := newRig(t, []scripted.Turn{noteTurn}, func(c *engine.Config) { legacy.Store = c.Store; c.Store = legacy })
	ctx := context.Background()
	k := r.session()
	feed, err := r.eng.Follow(ctx, k, engine.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()
	if _, err := r.eng.Start(ctx, k, "a1", userText("note milk")); err != nil {
		t.Fatal(err)
	}
	newReader(feed).until(t, event.TypeRequireUserConfirm)
	if st, _ := r.eng.Status(ctx, k); st != session.StatusAwaitingPermission {
		t.Fatalf("status %s", st)
	}
	legacy.mu.Lock()
	legacy.forget[k.SessionID], legacy.loads = true, 0
	legacy.mu.Unlock()

	infos, _, err := r.eng.Sessions(ctx, session.ListQuery{UserID: k.UserID})
	if err != nil || len(infos) != 1 || infos[0].Status != session.StatusAwaitingPermission {
		t.Fatalf("Sessions: %+v, %v", infos, err)
	}
	for range 3 {
		if st, err := r.eng.Status(ctx, k); err != nil || st != session.StatusAwaitingPermission {
			t.Fatalf("Status: %s, %v", st, err)
		}
		if _, _, err := r.eng.Sessions(ctx, session.ListQuery{UserID: k.UserID}); err != nil {
			t.Fatal(err)
		}
	}
	if legacy.loads != 1 {
		t.Errorf("%d state loads for one unknown status, want 1", legacy.loads)
	}
}

// A feed hands over the session as it read it once subscribed, and
// StatusOf judges that record without reading the store again: a
// transport checks a session and starts its run on one read.
func TestFeedSessionAndStatusOf(t *testing.T) {
	counting := &legacyStore{forget: map[string]bool{}}
	r := newRig(t, []scripted.Turn{noteTurn}, func(c *engine.Config) { counting.Store = c.Store; c.Store = counting })
	ctx := context.Background()
	k := r.session()
	feed, err := r.eng.Follow(ctx, k, engine.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	if rec := feed.Session(); rec.ID != k.SessionID || rec.UserID != k.UserID || rec.AgentID != "a1" || rec.LastSeq != 0 {
		t.Fatalf("before a run: %+v", rec)
	}
	if _, err := r.eng.Start(ctx, k, "a1", userText("note milk")); err != nil {
		t.Fatal(err)
	}
	newReader(feed).until(t, event.TypeRequireUserConfirm)
	feed.Close()

	again, err := r.eng.Follow(ctx, k, engine.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	rec := again.Session()
	want, err := r.eng.Session(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	if rec.LastSeq == 0 || rec.LastSeq != want.LastSeq || rec.Status != session.StatusAwaitingPermission {
		t.Fatalf("after parking: feed has %+v, the store %+v", rec, want)
	}
	counting.mu.Lock()
	counting.loads = 0
	counting.mu.Unlock()
	if st, err := r.eng.StatusOf(ctx, rec); err != nil || st != session.StatusAwaitingPermission {
		t.Fatalf("StatusOf: %s, %v", st, err)
	}
	if n := counting.count(); n != 0 {
		t.Errorf("StatusOf of a stored status loaded the state %d times", n)
	}
	// A row the store cannot vouch for is derived once, as Status does.
	counting.mu.Lock()
	counting.forget[k.SessionID] = true
	counting.mu.Unlock()
	rec.Status = session.StatusUnknown
	if st, err := r.eng.StatusOf(ctx, rec); err != nil || st != session.StatusAwaitingPermission || counting.count() != 1 {
		t.Fatalf("StatusOf of an unknown status: %s, %v, %d loads", st, err, counting.count())
	}
}
