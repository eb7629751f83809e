package postgres

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/postgres/postgrestest"
	"github.com/agentscope-go/agentscope/session/sessiontest"
)

func versions(t *testing.T, s *Store) []int {
	t.Helper()
	rows, err := s.pool.Query(t.Context(), `SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// Replicas starting at once on an empty database migrate it once.
func TestOpenConcurrently(t *testing.T) {
	t.Parallel()
	url := postgrestest.Schema(t)
	const n = 4
	stores := make([]*Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = Open(t.Context(), Config{URL: url}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	if v := versions(t, stores[0]); !slices.Equal(v, []int{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Errorf("schema_migrations: %v", v)
	}
	again, err := Open(t.Context(), Config{URL: url})
	if err != nil {
		t.Fatalf("open again: %v", err)
	}
	defer again.Close()
	if v := versions(t, again); len(v) != 8 {
		t.Errorf("schema_migrations after another open: %v", v)
	}
}

// oldSession inserts a session as an older build did, with the columns of
// version 1 only, and returns its key and row number.
func oldSession(t *testing.T, s *Store, id string) (session.Key, int64) {
	t.Helper()
	var n int64
	err := s.pool.QueryRow(t.Context(), `INSERT INTO sessions (id, user_id, agent_id, name, config, created_at, updated_at)
		VALUES ($1, 'u', 'a', '', '{}', now(), now()) RETURNING n`, id).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return session.Key{UserID: "u", SessionID: id}, n
}

func exec(t *testing.T, s *Store, q string, args ...any) {
	t.Helper()
	if _, err := s.pool.Exec(t.Context(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// A database left at version 1 by an older build is brought to the latest
// version by Open, keeping its data.
func TestMigrateFromVersion1(t *testing.T) {
	t.Parallel()
	url := postgrestest.Schema(t)
	old, err := open(t.Context(), Config{URL: url}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v := versions(t, old); len(v) != 1 {
		t.Fatalf("old database at versions %v", v)
	}
	k, n := oldSession(t, old, "s1")
	exec(t, old, `INSERT INTO events (session_n, seq, data) VALUES ($1, 1, '{"n":1}')`, n)
	exec(t, old, `UPDATE sessions SET last_seq = 1 WHERE n = $1`, n)
	if _, err := old.BeginRun(t.Context(), k, session.RunBegin{Owner: "o", TTL: time.Minute}); err == nil {
		t.Fatal("a version-1 schema has lease columns")
	}
	old.Close()

	s, err := Open(t.Context(), Config{URL: url})
	if err != nil {
		t.Fatalf("open at latest: %v", err)
	}
	defer s.Close()
	if v := versions(t, s); len(v) != 8 {
		t.Errorf("versions after migration: %v", v)
	}
	if rec, err := s.GetSession(t.Context(), k); err != nil || rec.Status != session.StatusIdle {
		t.Errorf("a migrated session without state: %+v, %v", rec, err)
	}
	r, err := s.BeginRun(t.Context(), k, session.RunBegin{Owner: "o", TTL: time.Minute, Input: json.RawMessage(`[]`)})
	if err != nil || r.Lease.Epoch != 1 || r.Input.ID == 0 {
		t.Errorf("a run on a migrated session: %+v, %v", r, err)
	}
	if first, err := s.AppendRun(t.Context(), k, r.Lease, session.RunAppend{Events: []json.RawMessage{json.RawMessage(`{"n":2}`)}}); err != nil || first != 2 {
		t.Errorf("append after migration: first %d, %v", first, err)
	}
}

// Version 4 adds the status column, computed for the rows already there:
// a leased session is running (whatever its run's fate, its end or the
// rescue's sets it right), one without a state idle, one with a state
// unknown until its engine fills it in (FillStatus), once: a status a run
// stored is never overwritten by a fill.
func TestMigrateStatus(t *testing.T) {
	t.Parallel()
	url := postgrestest.Schema(t)
	old, err := open(t.Context(), Config{URL: url}, 3)
	if err != nil {
		t.Fatal(err)
	}
	idle, _ := oldSession(t, old, "idle")
	parked, pn := oldSession(t, old, "parked")
	exec(t, old, `INSERT INTO states (session_n, version, data) VALUES ($1, 3, '{"context":[]}')`, pn)
	running, rn := oldSession(t, old, "running")
	exec(t, old, `INSERT INTO states (session_n, version, data) VALUES ($1, 1, '{"context":[]}')`, rn)
	exec(t, old, `UPDATE sessions SET lease_owner = 'o', lease_expires = now() + interval '1 hour', lease_epoch = 4 WHERE n = $1`, rn)
	old.Close()

	s, err := Open(t.Context(), Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	statusOf := func(k session.Key) session.Status {
		t.Helper()
		rec, err := s.GetSession(t.Context(), k)
		if err != nil {
			t.Fatal(err)
		}
		return rec.Status
	}
	for k, want := range map[session.Key]session.Status{idle: session.StatusIdle, parked: session.StatusUnknown, running: session.StatusRunning} {
		if got := statusOf(k); got != want {
			t.Errorf("%s migrated as %q, want %q", k.SessionID, got, want)
		}
	}
	if err := s.FillStatus(t.Context(), parked, session.StatusAwaitingPermission); err != nil {
		t.Fatal(err)
	}
	if err := s.FillStatus(t.Context(), parked, session.StatusIdle); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(parked); got != session.StatusAwaitingPermission {
		t.Errorf("filled %q, want the first fill's awaiting_permission", got)
	}
	if err := s.FillStatus(t.Context(), running, session.StatusIdle); err != nil || statusOf(running) != session.StatusRunning {
		t.Errorf("a fill overwrote a leased session's status: %v", err)
	}
	l := session.Lease{Owner: "o", Epoch: 4}
	if _, err := s.FinishRun(t.Context(), running, l, session.RunEnd{State: json.RawMessage(`{"v":2}`), StateVersion: 1, Status: session.StatusAwaitingExternalResult}); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(running); got != session.StatusAwaitingExternalResult {
		t.Errorf("after the run's end: %q", got)
	}
	exec(t, s, `UPDATE sessions SET status = 'running' WHERE id = 'idle'`)
	if err := s.FillStatus(t.Context(), idle, session.StatusIdle); err != nil || statusOf(idle) != session.StatusIdle {
		t.Errorf("running without a lease not filled: %q, %v", statusOf(idle), err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	t.Parallel()
	url := postgrestest.Schema(t)
	s, err := Open(t.Context(), Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(t.Context(), `INSERT INTO schema_migrations (version, name) VALUES (99, '0099_future.sql')`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err := Open(t.Context(), Config{URL: url}); err == nil {
		s.Close()
		t.Fatal("opened a database migrated by a newer build")
	}
}

func TestBadConfig(t *testing.T) {
	for _, cfg := range []Config{{}, {URL: "postgres://%zz"}} {
		if _, err := Open(t.Context(), cfg); !errors.Is(err, session.ErrInvalid) {
			t.Errorf("Open(%+v): %v, want ErrInvalid", cfg, err)
		}
	}
}

// Two replicas (two pools) appending under one run's lease see one
// gapless sequence; racing for another session's lease, one winner.
func TestReplicas(t *testing.T) {
	t.Parallel()
	url := postgrestest.Schema(t)
	a, err := Open(t.Context(), Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(t.Context(), Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rec, err := a.CreateSession(t.Context(), session.NewSession{UserID: "u", AgentID: "x"})
	if err != nil {
		t.Fatal(err)
	}
	k := session.Key{UserID: "u", SessionID: rec.ID}
	run, err := a.BeginRun(t.Context(), k, session.RunBegin{Owner: "replica-a", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	rec2, err := a.CreateSession(t.Context(), session.NewSession{UserID: "u", AgentID: "x"})
	if err != nil {
		t.Fatal(err)
	}
	k2 := session.Key{UserID: "u", SessionID: rec2.ID}
	const perReplica, batch = 40, 8
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for w := range 4 {
		s := a
		if w%2 == 1 {
			s = b
		}
		wg.Go(func() {
			for i := range perReplica / 4 {
				evs := make([]json.RawMessage, batch)
				for j := range evs {
					evs[j] = json.RawMessage(fmt.Sprintf(`{"w":%d,"i":%d,"j":%d}`, w, i, j))
				}
				if _, err := s.AppendRun(t.Context(), k, run.Lease, session.RunAppend{Events: evs}); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	var leaseErrs [2]error
	wg.Go(func() {
		_, leaseErrs[0] = a.BeginRun(t.Context(), k2, session.RunBegin{Owner: "replica-a", TTL: time.Minute})
	})
	wg.Go(func() {
		_, leaseErrs[1] = b.BeginRun(t.Context(), k2, session.RunBegin{Owner: "replica-b", TTL: time.Minute})
	})
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if (leaseErrs[0] == nil) == (leaseErrs[1] == nil) {
		t.Errorf("lease race: %v / %v, want exactly one winner", leaseErrs[0], leaseErrs[1])
	}
	evs, err := b.ReadEvents(t.Context(), k, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != perReplica*batch {
		t.Fatalf("%d events, want %d", len(evs), perReplica*batch)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has sequence %d", i, e.Seq)
		}
	}
}

// populate writes a row of k in each table: a state, a message, an event
// and an input left pending.
func populate(t *testing.T, s *Store, k session.Key) {
	t.Helper()
	ctx := t.Context()
	r, err := s.BeginRun(ctx, k, session.RunBegin{Owner: "o", TTL: time.Minute, Input: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	_, err1 := s.AppendRun(ctx, k, r.Lease, session.RunAppend{Messages: []session.Message{{ID: "m", JSON: json.RawMessage(`{}`)}}})
	_, err2 := s.FinishRun(ctx, k, r.Lease, session.RunEnd{State: json.RawMessage(`{}`), Events: []json.RawMessage{json.RawMessage(`{}`)}, Status: session.StatusIdle})
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
}

// Deleting a session leaves no row of it in any table.
func TestDeleteLeavesNoRows(t *testing.T) {
	t.Parallel()
	s := openTest(t, nil)
	ctx := t.Context()
	rec, err := s.CreateSession(ctx, session.NewSession{UserID: "u", AgentID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	k := session.Key{UserID: "u", SessionID: rec.ID}
	populate(t, s, k)
	count := func() int {
		var n int
		if err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM states) +
			(SELECT count(*) FROM messages) + (SELECT count(*) FROM events) + (SELECT count(*) FROM inputs)`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 5 {
		t.Fatalf("%d rows before delete, want 5", n)
	}
	if err := s.DeleteSession(ctx, k); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Errorf("%d rows left after delete", n)
	}
}

// A database at version 2 (sessions with leases, no agents) is brought to
// the latest: its leases are found by owner, and agents can be stored.
func TestMigrateFromVersion2(t *testing.T) {
	t.Parallel()
	url := postgrestest.Schema(t)
	old, err := open(t.Context(), Config{URL: url}, 2)
	if err != nil {
		t.Fatal(err)
	}
	k, n := oldSession(t, old, "s2")
	exec(t, old, `UPDATE sessions SET lease_owner = 'o', lease_expires = now() + interval '1 minute', lease_epoch = 1 WHERE n = $1`, n)
	if _, err := old.CreateAgent(t.Context(), "u", nil); err == nil {
		t.Fatal("a version-2 schema has an agents table")
	}
	old.Close()

	s, err := Open(t.Context(), Config{URL: url})
	if err != nil {
		t.Fatalf("open at latest: %v", err)
	}
	defer s.Close()
	if v := versions(t, s); len(v) != 8 {
		t.Errorf("versions after migration: %v", v)
	}
	if rec, err := s.GetSession(t.Context(), k); err != nil || rec.Status != session.StatusRunning {
		t.Errorf("a migrated leased session: %+v, %v", rec, err)
	}
	if keys, err := s.HeldBy(t.Context(), "o", 10); err != nil || len(keys) != 1 || keys[0] != k {
		t.Errorf("HeldBy on a migrated database: %v, %v", keys, err)
	}
	if _, err := s.CreateAgent(t.Context(), "u", json.RawMessage(`{"name":"x"}`)); err != nil {
		t.Errorf("CreateAgent after migration: %v", err)
	}
}

// Deleting an agent deletes its sessions' rows in every table, the events
// (which have no foreign key) included.
func TestDeleteAgentLeavesNoRows(t *testing.T) {
	t.Parallel()
	s := openTest(t, nil)
	ctx := t.Context()
	a, err := s.CreateAgent(ctx, "u", nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		rec, err := s.CreateSession(ctx, session.NewSession{UserID: "u", AgentID: a.ID})
		if err != nil {
			t.Fatal(err)
		}
		k := session.Key{UserID: "u", SessionID: rec.ID}
		populate(t, s, k)
	}
	count := func() int {
		var n int
		if err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM agents) + (SELECT count(*) FROM sessions) + (SELECT count(*) FROM states) +
			(SELECT count(*) FROM messages) + (SELECT count(*) FROM events) + (SELECT count(*) FROM inputs)`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 11 {
		t.Fatalf("%d rows before delete, want 11", n)
	}
	if err := s.DeleteAgent(ctx, session.AgentKey{UserID: "u", AgentID: a.ID}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Errorf("%d rows left after delete", n)
	}
}

// Version 6 counts the sessions already there per user and agent, and
// from then on its trigger counts every insert and delete, whichever
// statement makes it (a raw one included): the listing's total is that
// count, and it agrees with the rows at every step.
func TestMigrateSessionCounts(t *testing.T) {
	t.Parallel()
	url := postgrestest.Schema(t)
	old, err := open(t.Context(), Config{URL: url}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"s1", "s2", "s3"} {
		oldSession(t, old, id)
	}
	exec(t, old, `UPDATE sessions SET agent_id = 'b' WHERE id = 's3'`)
	old.Close()

	s, err := Open(t.Context(), Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sessiontest.MigratedCounts(t, s, func(id string) { oldSession(t, s, id) },
		func(id string) { exec(t, s, `DELETE FROM sessions WHERE id = '`+id+`'`) })
}

// Version 8 replaces the two lease indexes by sessions_held: a session
// leased at version 7 is found by its owner after the migration, and the
// sessions' indexes are the new set.
func TestMigrateHeldIndex(t *testing.T) {
	t.Parallel()
	url := postgrestest.Schema(t)
	old, err := open(t.Context(), Config{URL: url}, 7)
	if err != nil {
		t.Fatal(err)
	}
	k, n := oldSession(t, old, "s1")
	oldSession(t, old, "s2")
	exec(t, old, `UPDATE sessions SET lease_owner = 'o', lease_expires = now() + interval '1 minute', lease_epoch = 1 WHERE n = $1`, n)
	old.Close()

	s, err := Open(t.Context(), Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if keys, err := s.HeldBy(t.Context(), "o", 10); err != nil || !slices.Equal(keys, []session.Key{k}) {
		t.Errorf("HeldBy after migration: %v, %v", keys, err)
	}
	rows, err := s.pool.Query(t.Context(), `SELECT indexname FROM pg_indexes
		WHERE schemaname = current_schema() AND tablename = 'sessions' AND indexname LIKE 'sessions_%' ORDER BY indexname`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	rows.Close()
	if want := []string{"sessions_by_owner", "sessions_by_user", "sessions_held", "sessions_id_key", "sessions_pkey"}; !slices.Equal(names, want) {
		t.Errorf("the sessions' indexes: %v, want %v", names, want)
	}
}
