package sessiontest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/session"
)

// RunOpener runs the contract of session.RunOpener against a backend that
// has it (a backend without it fails): an opened run is BeginRun's, its
// commit stores the start and the first batch together, and nothing of it
// is stored before, after a rollback or after a failed commit.
func RunOpener(t *testing.T, open New) {
	tests := []struct {
		name string
		fn   func(*testing.T, *env, session.RunOpener)
	}{
		{"Commit", testOpenCommit},
		{"Rollback", testOpenRollback},
		{"FailedCommit", testOpenFailedCommit},
		{"AsBeginRun", testOpenAsBegin},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := NewClock()
			s := open(t, clock.Now)
			o, ok := s.(session.RunOpener)
			if !ok {
				t.Fatalf("%T is not a session.RunOpener", s)
			}
			tc.fn(t, &env{s: s, clock: clock, ctx: t.Context()}, o)
		})
	}
}

// untouched checks that k is as a session that never ran is: idle, free,
// no events, no messages, no pending input, and free to begin.
func untouched(t *testing.T, e *env, k session.Key) {
	t.Helper()
	rec, err := e.s.GetSession(e.ctx, k)
	must(t, "GetSession", err)
	if rec.Status != session.StatusIdle || rec.Lease.Owner != "" || rec.LastSeq != 0 {
		t.Fatalf("record %+v: want idle, free, no events", rec)
	}
	if n, err := e.s.PendingInputs(e.ctx, k); err != nil || n != 0 {
		t.Fatalf("PendingInputs = %d, %v; want 0", n, err)
	}
	if p, err := e.s.ListMessages(e.ctx, k, session.MessageQuery{Limit: 10}); err != nil || len(p.Messages) != 0 {
		t.Fatalf("ListMessages = %d, %v; want none", len(p.Messages), err)
	}
	r := e.begin(t, k, "other", time.Minute, "")
	if r.Lease.Epoch != 1 || len(r.Leftovers) != 0 {
		t.Fatalf("a later run: %+v; want epoch 1, no leftovers", r)
	}
	e.finish(t, k, r.Lease)
}

func testOpenCommit(t *testing.T, e *env, o session.RunOpener) {
	k := e.create(t, "u", "a")
	r, op, err := o.OpenRun(e.ctx, k, session.RunBegin{Owner: "me", TTL: time.Minute, Input: json.RawMessage(`{"in":1}`)})
	must(t, "OpenRun", err)
	if r.AgentID != "a" || string(r.Config) != `{"model":"demo"}` || r.Lease.Owner != "me" || r.Lease.Epoch != 1 || r.Input.ID == 0 || r.Input.Attempts != 1 {
		t.Fatalf("OpenRun = %+v", r)
	}
	first, err := op.Commit(e.ctx, session.RunAppend{Messages: []session.Message{msg("m1", "hi")}, Events: []json.RawMessage{json.RawMessage(`{"e":1}`), json.RawMessage(`{"e":2}`)}})
	must(t, "Commit", err)
	if first != 1 {
		t.Fatalf("Commit: first %d, want 1", first)
	}
	rec, err := e.s.GetSession(e.ctx, k)
	must(t, "GetSession", err)
	if rec.Status != session.StatusRunning || rec.Lease.Owner != "me" || rec.Lease.Epoch != 1 || rec.LastSeq != 2 || rec.RunSeq != 0 {
		t.Fatalf("record after Commit %+v", rec)
	}
	evs, err := e.s.ReadEvents(e.ctx, k, 0, 10)
	must(t, "ReadEvents", err)
	if len(evs) != 2 || string(evs[1].JSON) != `{"e":2}` {
		t.Fatalf("events %+v", evs)
	}
	if p, err := e.s.ListMessages(e.ctx, k, session.MessageQuery{Limit: 10}); err != nil || len(p.Messages) != 1 {
		t.Fatalf("ListMessages = %+v, %v", p, err)
	}
	// The run holds the session, and writes under its lease as any.
	_, err = e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: "other", TTL: time.Minute})
	wantErr(t, "BeginRun of another owner", err, session.ErrLeased)
	if _, err := e.appendEvents(k, r.Lease, json.RawMessage(`{"e":3}`)); err != nil {
		t.Fatalf("AppendRun after Commit: %v", err)
	}
	e.finish(t, k, r.Lease, r.Input.ID)
	if n, err := e.s.PendingInputs(e.ctx, k); err != nil || n != 0 {
		t.Fatalf("PendingInputs = %d, %v", n, err)
	}
	// An empty commit stores the start alone.
	r, op, err = o.OpenRun(e.ctx, k, session.RunBegin{Owner: "me", TTL: time.Minute})
	must(t, "OpenRun", err)
	if first, err := op.Commit(e.ctx, session.RunAppend{}); err != nil || first != 0 {
		t.Fatalf("empty Commit = %d, %v", first, err)
	}
	if rec, err := e.s.GetSession(e.ctx, k); err != nil || rec.Lease.Epoch != 2 || rec.RunSeq != 3 || rec.Status != session.StatusRunning {
		t.Fatalf("record after an empty Commit %+v, %v", rec, err)
	}
	if _, err := op.Commit(e.ctx, session.RunAppend{}); err == nil {
		t.Fatal("a second Commit succeeded")
	}
	e.finish(t, k, r.Lease)
}

func testOpenRollback(t *testing.T, e *env, o session.RunOpener) {
	k := e.create(t, "u", "a")
	_, op, err := o.OpenRun(e.ctx, k, session.RunBegin{Owner: "me", TTL: time.Minute, Input: json.RawMessage(`{"in":1}`)})
	must(t, "OpenRun", err)
	must(t, "Rollback", op.Rollback())
	untouched(t, e, k)
	// Other writes went on after it.
	k2 := e.create(t, "u", "a")
	untouched(t, e, k2)
}

func testOpenFailedCommit(t *testing.T, e *env, o session.RunOpener) {
	k := e.create(t, "u", "a")
	_, op, err := o.OpenRun(e.ctx, k, session.RunBegin{Owner: "me", TTL: time.Minute, Input: json.RawMessage(`{"in":1}`)})
	must(t, "OpenRun", err)
	_, err = op.Commit(e.ctx, session.RunAppend{Events: []json.RawMessage{json.RawMessage(`{"e":1}`), json.RawMessage(`{not json`)}})
	wantErr(t, "Commit of a bad event", err, session.ErrInvalid)
	untouched(t, e, k)
}

func testOpenAsBegin(t *testing.T, e *env, o session.RunOpener) {
	k := e.create(t, "u", "a")
	_, _, err := o.OpenRun(e.ctx, session.Key{UserID: "u", SessionID: "nope"}, session.RunBegin{Owner: "me", TTL: time.Minute})
	wantErr(t, "OpenRun of no session", err, session.ErrNotFound)
	_, _, err = o.OpenRun(e.ctx, session.Key{UserID: "v", SessionID: k.SessionID}, session.RunBegin{Owner: "me", TTL: time.Minute})
	wantErr(t, "OpenRun of another user's session", err, session.ErrNotFound)
	_, _, err = o.OpenRun(e.ctx, k, session.RunBegin{Owner: "me"})
	wantErr(t, "OpenRun without a TTL", err, session.ErrInvalid)
	// Another owner's live lease refuses it; the input of a dead run is a
	// leftover, claimed again.
	dead := e.begin(t, k, "dead", time.Minute, `{"in":"dead"}`)
	_, _, err = o.OpenRun(e.ctx, k, session.RunBegin{Owner: "me", TTL: time.Minute, Input: json.RawMessage(`{"in":2}`)})
	wantErr(t, "OpenRun under a live lease", err, session.ErrLeased)
	e.clock.Advance(2 * time.Minute)
	r, op, err := o.OpenRun(e.ctx, k, session.RunBegin{Owner: "me", TTL: time.Minute, Input: json.RawMessage(`{"in":2}`)})
	must(t, "OpenRun after the lease expired", err)
	if len(r.Leftovers) != 1 || r.Leftovers[0].ID != dead.Input.ID || r.Leftovers[0].Attempts != 2 || r.Input.ID != 0 || r.Lease.Epoch != 2 {
		t.Fatalf("OpenRun over a dead run = %+v", r)
	}
	_, err = op.Commit(e.ctx, session.RunAppend{})
	must(t, "Commit", err)
	e.finish(t, k, r.Lease, dead.Input.ID)
	// The state, left out at the version known, as BeginRun does.
	v, err := e.saveState(k, 0, json.RawMessage(`{"s":1}`))
	must(t, "saveState", err)
	r, op, err = o.OpenRun(e.ctx, k, session.RunBegin{Owner: "me", TTL: time.Minute, Known: v})
	must(t, "OpenRun", err)
	if r.State.Version != v || r.State.JSON != nil {
		t.Fatalf("OpenRun knowing the version: state %+v", r.State)
	}
	must(t, "Rollback", op.Rollback())
	r, op, err = o.OpenRun(e.ctx, k, session.RunBegin{Owner: "me", TTL: time.Minute})
	must(t, "OpenRun", err)
	if r.State.Version != v || string(r.State.JSON) != `{"s":1}` {
		t.Fatalf("OpenRun: state %+v", r.State)
	}
	must(t, "Rollback", op.Rollback())
}
