package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/sessiontest"
)

func versions(t *testing.T, s *Store) []int {
	t.Helper()
	rows, err := s.r.QueryContext(t.Context(), `SELECT version FROM schema_migrations ORDER BY version`)
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

func TestOpenTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.db")
	s, err := Open(t.Context(), Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.CreateSession(t.Context(), session.NewSession{UserID: "u", AgentID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("a second close: %v", err)
	}
	s, err = Open(t.Context(), Config{Path: path})
	if err != nil {
		t.Fatalf("second open: %v", err)
	}
	defer s.Close()
	if v := versions(t, s); !slices.Equal(v, []int{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Errorf("schema_migrations after two opens: %v", v)
	}
	if _, err := s.GetSession(t.Context(), session.Key{UserID: "u", SessionID: rec.ID}); err != nil {
		t.Errorf("session lost across reopen: %v", err)
	}
}

// oldSession inserts a session as an older build did, with the columns of
// version 1 only, and returns its key and row number.
func oldSession(t *testing.T, s *Store, id string) (session.Key, int64) {
	t.Helper()
	var n int64
	err := s.write(t.Context(), func(tx *wtx) error {
		return tx.QueryRowContext(t.Context(), `INSERT INTO sessions (id, user_id, agent_id, name, config, created_at, updated_at)
		VALUES (?, 'u', 'a', '', '{}', 1, 1) RETURNING n`, id).Scan(&n)
	})
	if err != nil {
		t.Fatal(err)
	}
	return session.Key{UserID: "u", SessionID: id}, n
}

func exec(t *testing.T, s *Store, q string, args ...any) {
	t.Helper()
	err := s.write(t.Context(), func(tx *wtx) error {
		_, err := tx.ExecContext(t.Context(), q, args...)
		return err
	})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// A database left at version 1 (no leases, no inputs) by an older build is
// brought to the latest version by Open, keeping its data.
func TestMigrateFromVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := open(t.Context(), Config{Path: path}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v := versions(t, old); len(v) != 1 {
		t.Fatalf("old database at versions %v", v)
	}
	k, n := oldSession(t, old, "s1")
	exec(t, old, `INSERT INTO events (session_n, seq, data) VALUES (?, 1, '{"n":1}')`, n)
	exec(t, old, `UPDATE sessions SET last_seq = 1 WHERE n = ?`, n)
	if _, err := old.BeginRun(t.Context(), k, session.RunBegin{Owner: "o", TTL: time.Minute}); err == nil {
		t.Fatal("a version-1 schema has lease columns")
	}
	old.Close()

	s, err := Open(t.Context(), Config{Path: path})
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
	first, err := s.AppendRun(t.Context(), k, r.Lease, session.RunAppend{Events: []json.RawMessage{json.RawMessage(`{"n":2}`)}})
	if err != nil || first != 2 {
		t.Errorf("append after migration: first %d, %v", first, err)
	}
}

// Version 4 adds the status column, computed for the rows already there:
// a leased session is running (whatever its run's fate, its end or the
// rescue's sets it right), one without a state idle, one with a state
// unknown until its engine fills it in (FillStatus), once: a status a run
// stored is never overwritten by a fill.
func TestMigrateStatus(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v3.db")
	old, err := open(t.Context(), Config{Path: path}, 3)
	if err != nil {
		t.Fatal(err)
	}
	idle, _ := oldSession(t, old, "idle")
	parked, pn := oldSession(t, old, "parked")
	exec(t, old, `INSERT INTO states (session_n, version, data) VALUES (?, 3, '{"context":[]}')`, pn)
	running, rn := oldSession(t, old, "running")
	exec(t, old, `INSERT INTO states (session_n, version, data) VALUES (?, 1, '{"context":[]}')`, rn)
	exec(t, old, `UPDATE sessions SET lease_owner = 'o', lease_expires = ?, lease_epoch = 4 WHERE n = ?`, time.Now().Add(time.Hour).UnixMicro(), rn)
	old.Close()

	s, err := Open(t.Context(), Config{Path: path})
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
	list, _, err := s.ListSessions(t.Context(), session.ListQuery{UserID: "u"})
	if err != nil || len(list) != 3 {
		t.Fatalf("ListSessions: %v, %v", list, err)
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
	// The old build's run is still its lease's: it ends with the status
	// it leaves.
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
	// A session an old build left running with no lease (its end did not
	// know the column) is filled in as unknown.
	exec(t, s, `UPDATE sessions SET status = 'running' WHERE id = 'idle'`)
	if err := s.FillStatus(t.Context(), idle, session.StatusIdle); err != nil || statusOf(idle) != session.StatusIdle {
		t.Errorf("running without a lease not filled: %q, %v", statusOf(idle), err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	s, err := Open(t.Context(), Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	exec(t, s, `INSERT INTO schema_migrations VALUES (99, '0099_future.sql', 0)`)
	s.Close()
	if s, err := Open(t.Context(), Config{Path: path}); err == nil {
		s.Close()
		t.Fatal("opened a database migrated by a newer build")
	}
}

func TestBadPath(t *testing.T) {
	for _, p := range []string{"", ":memory:", "file:x.db"} {
		if _, err := Open(t.Context(), Config{Path: p}); !errors.Is(err, session.ErrInvalid) {
			t.Errorf("Open(%q): %v, want ErrInvalid", p, err)
		}
	}
	if _, err := Open(t.Context(), Config{Path: filepath.Join(t.TempDir(), "no", "such", "dir", "x.db")}); err == nil {
		t.Error("opened a file in a missing directory")
	}
}

func TestPragmas(t *testing.T) {
	s, err := Open(t.Context(), Config{Path: filepath.Join(t.TempDir(), "p.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The writer's connection is the store's (held from Open): read it
	// in a write transaction.
	writer := func(ctx context.Context, q string, args ...any) *sql.Row {
		var row *sql.Row
		s.write(ctx, func(tx *wtx) error { row = tx.QueryRowContext(ctx, q, args...); return nil })
		return row
	}
	for _, query := range []func(ctx context.Context, q string, args ...any) *sql.Row{writer, s.r.QueryRowContext} {
		var mode string
		var fk, sync, busy int
		if err := query(t.Context(), `SELECT * FROM pragma_journal_mode, pragma_foreign_keys, pragma_synchronous, pragma_busy_timeout`).Scan(&mode, &fk, &sync, &busy); err != nil {
			t.Fatal(err)
		}
		if mode != "wal" || fk != 1 || sync != 1 || busy != 5000 {
			t.Errorf("journal_mode %s, foreign_keys %d, synchronous %d, busy_timeout %d", mode, fk, sync, busy)
		}
	}
	if _, err := s.r.ExecContext(t.Context(), `DELETE FROM sessions`); err == nil {
		t.Error("a reader connection can write")
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
	s, err := Open(t.Context(), Config{Path: filepath.Join(t.TempDir(), "d.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	rec, err := s.CreateSession(ctx, session.NewSession{UserID: "u", AgentID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	k := session.Key{UserID: "u", SessionID: rec.ID}
	populate(t, s, k)
	count := func() int {
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM states) +
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

// Two stores on one file (two processes, say) write through SQLite's file
// lock and busy timeout: one gapless sequence, one lease winner.
func TestTwoStoresOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	a, err := Open(t.Context(), Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(t.Context(), Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rec, err := a.CreateSession(t.Context(), session.NewSession{UserID: "u", AgentID: "x"})
	if err != nil {
		t.Fatal(err)
	}
	k := session.Key{UserID: "u", SessionID: rec.ID}
	run, err := a.BeginRun(t.Context(), k, session.RunBegin{Owner: "a", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	rec2, err := a.CreateSession(t.Context(), session.NewSession{UserID: "u", AgentID: "x"})
	if err != nil {
		t.Fatal(err)
	}
	k2 := session.Key{UserID: "u", SessionID: rec2.ID}
	const rounds, batch = 20, 5
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for w := range 4 {
		s := a
		if w%2 == 1 {
			s = b
		}
		wg.Go(func() {
			for i := range rounds {
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
	wg.Go(func() { _, leaseErrs[0] = a.BeginRun(t.Context(), k2, session.RunBegin{Owner: "a", TTL: time.Minute}) })
	wg.Go(func() { _, leaseErrs[1] = b.BeginRun(t.Context(), k2, session.RunBegin{Owner: "b", TTL: time.Minute}) })
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
	if len(evs) != 4*rounds*batch {
		t.Fatalf("%d events, want %d", len(evs), 4*rounds*batch)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has sequence %d", i, e.Seq)
		}
	}
}

// A database at version 2 (sessions with leases, no agents) is brought to
// the latest: its leases are found by owner, and agents can be stored.
func TestMigrateFromVersion2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v2.db")
	old, err := open(t.Context(), Config{Path: path}, 2)
	if err != nil {
		t.Fatal(err)
	}
	k, n := oldSession(t, old, "s2")
	exec(t, old, `UPDATE sessions SET lease_owner = 'o', lease_expires = ?, lease_epoch = 1 WHERE n = ?`, time.Now().Add(time.Minute).UnixMicro(), n)
	if _, err := old.CreateAgent(t.Context(), "u", nil); err == nil {
		t.Fatal("a version-2 schema has an agents table")
	}
	old.Close()

	s, err := Open(t.Context(), Config{Path: path})
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

// Deleting an agent deletes its sessions' rows in every table.
func TestDeleteAgentLeavesNoRows(t *testing.T) {
	s, err := Open(t.Context(), Config{Path: filepath.Join(t.TempDir(), "d.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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
		populate(t, s, session.Key{UserID: "u", SessionID: rec.ID})
	}
	count := func() int {
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM agents) + (SELECT count(*) FROM sessions) + (SELECT count(*) FROM states) +
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
// from then on its triggers count every insert and delete, whichever
// statement makes it (a raw one included): the listing's total is that
// count, and it agrees with the rows at every step.
func TestMigrateSessionCounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v5.db")
	old, err := open(t.Context(), Config{Path: path}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"s1", "s2", "s3"} {
		oldSession(t, old, id)
	}
	exec(t, old, `UPDATE sessions SET agent_id = 'b' WHERE id = 's3'`)
	old.Close()

	s, err := Open(t.Context(), Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sessiontest.MigratedCounts(t, s, func(id string) { oldSession(t, s, id) },
		func(id string) { exec(t, s, `DELETE FROM sessions WHERE id = '`+id+`'`) })
}

// Version 8 replaces the two lease indexes by sessions_held: a session
// leased at version 7 is found by its owner after the migration, the
// lookup reads the new index (not the whole table), and the old indexes
// are gone.
func TestMigrateHeldIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v7.db")
	old, err := open(t.Context(), Config{Path: path}, 7)
	if err != nil {
		t.Fatal(err)
	}
	k, n := oldSession(t, old, "s1")
	oldSession(t, old, "s2")
	exec(t, old, `UPDATE sessions SET lease_owner = 'o', lease_expires = ?, lease_epoch = 1 WHERE n = ?`, time.Now().Add(time.Minute).UnixMicro(), n)
	old.Close()

	s, err := Open(t.Context(), Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if keys, err := s.HeldBy(t.Context(), "o", 10); err != nil || !slices.Equal(keys, []session.Key{k}) {
		t.Errorf("HeldBy after migration: %v, %v", keys, err)
	}
	if plan := queryPlan(t, s, d.Q.HeldBy, "o", 10); !slices.Contains(plan, "SEARCH sessions USING INDEX sessions_held (lease_owner=?)") {
		t.Errorf("HeldBy's plan: %q", plan)
	}
	var names []string
	rows, err := s.r.QueryContext(t.Context(), `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sessions' AND name LIKE 'sessions_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	rows.Close()
	if want := []string{"sessions_by_owner", "sessions_by_user", "sessions_held"}; !slices.Equal(names, want) {
		t.Errorf("the sessions' indexes: %v, want %v", names, want)
	}
}

// Version 8 also gives the inputs ids without AUTOINCREMENT (no
// sqlite_sequence row written by each): an input pending at version 7 is
// still the session's leftover after the migration, and a new input's id
// comes after it.
func TestMigrateInputIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v7.db")
	old, err := open(t.Context(), Config{Path: path}, 7)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := oldSession(t, old, "s1")
	r, err := old.BeginRun(t.Context(), k, session.RunBegin{Owner: "o", TTL: time.Minute, Input: json.RawMessage(`{"i":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	old.Close()

	s, err := Open(t.Context(), Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var seqRows int
	if err := s.r.QueryRowContext(t.Context(), `SELECT count(*) FROM sqlite_sequence WHERE name = 'inputs'`).Scan(&seqRows); err != nil || seqRows != 0 {
		t.Errorf("sqlite_sequence rows of inputs: %d, %v", seqRows, err)
	}
	// The same owner's next run (as after its restart) takes the pending
	// input as a leftover.
	r2, err := s.BeginRun(t.Context(), k, session.RunBegin{Owner: "o", TTL: time.Minute})
	if err != nil || len(r2.Leftovers) != 1 || r2.Leftovers[0].ID != r.Input.ID || string(r2.Leftovers[0].JSON) != `{"i":1}` {
		t.Fatalf("leftovers after migration: %+v, %v", r2.Leftovers, err)
	}
	if _, err := s.FinishRun(t.Context(), k, r2.Lease, session.RunEnd{Done: []int64{r.Input.ID}, Status: session.StatusIdle}); err != nil {
		t.Fatal(err)
	}
	r3, err := s.BeginRun(t.Context(), k, session.RunBegin{Owner: "o", TTL: time.Minute, Input: json.RawMessage(`{"i":2}`)})
	if err != nil || r3.Input.ID <= r.Input.ID || len(r3.Leftovers) != 0 {
		t.Errorf("a new input after migration: %+v, leftovers %+v, %v", r3.Input, r3.Leftovers, err)
	}
}

// The rescue's scan reads the partial indexes of the leased sessions and
// of the pending inputs, never the whole sessions table: it runs at every
// rescue interval of every process on the store.
func TestRecoverableReadsIndexes(t *testing.T) {
	s, err := Open(t.Context(), Config{Path: filepath.Join(t.TempDir(), "p.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	plan := queryPlan(t, s, d.Q.Recoverable, int64(1), 10)
	for _, want := range []string{"SCAN s USING INDEX sessions_held", "SCAN i USING COVERING INDEX inputs_pending"} {
		if !slices.Contains(plan, want) {
			t.Errorf("Recoverable's plan lacks %q: %q", want, plan)
		}
	}
	for _, step := range plan {
		if strings.HasPrefix(step, "SCAN s") && step != "SCAN s USING INDEX sessions_held" {
			t.Errorf("Recoverable scans the sessions: %q in %q", step, plan)
		}
	}
}

// queryPlan is SQLite's plan of q with args, a step's detail per line.
func queryPlan(t *testing.T, s *Store, q string, args ...any) []string {
	t.Helper()
	rows, err := s.r.QueryContext(t.Context(), `EXPLAIN QUERY PLAN `+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}

// newSession creates a session of user u, agent a, in s.
func newSession(t *testing.T, s *Store) session.Key {
	t.Helper()
	rec, err := s.CreateSession(t.Context(), session.NewSession{UserID: "u", AgentID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	return session.Key{UserID: "u", SessionID: rec.ID}
}
