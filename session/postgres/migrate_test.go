package postgres

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/postgres/postgrestest"
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
	if v := versions(t, stores[0]); len(v) != 3 || v[0] != 1 || v[1] != 2 || v[2] != 3 {
		t.Errorf("schema_migrations: %v", v)
	}
	again, err := Open(t.Context(), Config{URL: url})
	if err != nil {
		t.Fatalf("open again: %v", err)
	}
	defer again.Close()
	if v := versions(t, again); len(v) != 3 {
		t.Errorf("schema_migrations after another open: %v", v)
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
	rec, err := old.CreateSession(t.Context(), session.NewSession{UserID: "u", AgentID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	k := session.Key{UserID: "u", SessionID: rec.ID}
	if _, err := old.AppendEvents(t.Context(), k, []json.RawMessage{json.RawMessage(`{"n":1}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := old.AcquireLease(t.Context(), k, "o", time.Minute); err == nil {
		t.Fatal("a version-1 schema has lease columns")
	}
	old.Close()

	s, err := Open(t.Context(), Config{URL: url})
	if err != nil {
		t.Fatalf("open at latest: %v", err)
	}
	defer s.Close()
	if v := versions(t, s); len(v) != 3 {
		t.Errorf("versions after migration: %v", v)
	}
	if l, err := s.AcquireLease(t.Context(), k, "o", time.Minute); err != nil || l.Epoch != 1 {
		t.Errorf("lease on a migrated session: %+v, %v", l, err)
	}
	if first, err := s.AppendEvents(t.Context(), k, []json.RawMessage{json.RawMessage(`{"n":2}`)}); err != nil || first != 2 {
		t.Errorf("append after migration: first %d, %v", first, err)
	}
	if _, err := s.EnqueueInput(t.Context(), k, json.RawMessage(`[]`)); err != nil {
		t.Errorf("enqueue after migration: %v", err)
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

// Two replicas (two pools) appending to one session and racing for its
// lease see one gapless sequence and one winner.
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
				if _, err := s.AppendEvents(t.Context(), k, evs); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	var leaseErrs [2]error
	wg.Go(func() { _, leaseErrs[0] = a.AcquireLease(t.Context(), k, "replica-a", time.Minute) })
	wg.Go(func() { _, leaseErrs[1] = b.AcquireLease(t.Context(), k, "replica-b", time.Minute) })
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
	_, err1 := s.SaveState(ctx, k, 0, json.RawMessage(`{}`))
	err2 := s.UpsertMessages(ctx, k, []session.Message{{ID: "m", JSON: json.RawMessage(`{}`)}})
	_, err3 := s.AppendEvents(ctx, k, []json.RawMessage{json.RawMessage(`{}`)})
	_, err4 := s.EnqueueInput(ctx, k, json.RawMessage(`{}`))
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		t.Fatal(err)
	}
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
// version 3: its leases are found by owner, and agents can be stored.
func TestMigrateFromVersion2(t *testing.T) {
	t.Parallel()
	url := postgrestest.Schema(t)
	old, err := open(t.Context(), Config{URL: url}, 2)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := old.CreateSession(t.Context(), session.NewSession{UserID: "u", AgentID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	k := session.Key{UserID: "u", SessionID: rec.ID}
	if _, err := old.AcquireLease(t.Context(), k, "o", time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := old.CreateAgent(t.Context(), "u", nil); err == nil {
		t.Fatal("a version-2 schema has an agents table")
	}
	old.Close()

	s, err := Open(t.Context(), Config{URL: url})
	if err != nil {
		t.Fatalf("open at latest: %v", err)
	}
	defer s.Close()
	if v := versions(t, s); len(v) != 3 {
		t.Errorf("versions after migration: %v", v)
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
		_, err1 := s.SaveState(ctx, k, 0, json.RawMessage(`{}`))
		err2 := s.UpsertMessages(ctx, k, []session.Message{{ID: "m", JSON: json.RawMessage(`{}`)}})
		_, err3 := s.AppendEvents(ctx, k, []json.RawMessage{json.RawMessage(`{}`)})
		_, err4 := s.EnqueueInput(ctx, k, json.RawMessage(`{}`))
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			t.Fatal(err)
		}
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
