package sqlite

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/session"
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
	s.Close()
	s, err = Open(t.Context(), Config{Path: path})
	if err != nil {
		t.Fatalf("second open: %v", err)
	}
	defer s.Close()
	if v := versions(t, s); len(v) != 3 || v[0] != 1 || v[1] != 2 || v[2] != 3 {
		t.Errorf("schema_migrations after two opens: %v", v)
	}
	if _, err := s.GetSession(t.Context(), session.Key{UserID: "u", SessionID: rec.ID}); err != nil {
		t.Errorf("session lost across reopen: %v", err)
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

	s, err := Open(t.Context(), Config{Path: path})
	if err != nil {
		t.Fatalf("open at latest: %v", err)
	}
	defer s.Close()
	if v := versions(t, s); len(v) != 3 {
		t.Errorf("versions after migration: %v", v)
	}
	l, err := s.AcquireLease(t.Context(), k, "o", time.Minute)
	if err != nil || l.Epoch != 1 {
		t.Errorf("lease on a migrated session: %+v, %v", l, err)
	}
	first, err := s.AppendEvents(t.Context(), k, []json.RawMessage{json.RawMessage(`{"n":2}`)})
	if err != nil || first != 2 {
		t.Errorf("append after migration: first %d, %v", first, err)
	}
	if _, err := s.EnqueueInput(t.Context(), k, json.RawMessage(`[]`)); err != nil {
		t.Errorf("enqueue after migration: %v", err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	s, err := Open(t.Context(), Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(t.Context(), `INSERT INTO schema_migrations VALUES (99, '0099_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
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
	for _, db := range []*sql.DB{s.w, s.r} {
		var mode string
		var fk, sync, busy int
		if err := db.QueryRowContext(t.Context(), `SELECT * FROM pragma_journal_mode, pragma_foreign_keys, pragma_synchronous, pragma_busy_timeout`).Scan(&mode, &fk, &sync, &busy); err != nil {
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
	_, err1 := s.SaveState(ctx, k, 0, json.RawMessage(`{}`))
	err2 := s.UpsertMessages(ctx, k, []session.Message{{ID: "m", JSON: json.RawMessage(`{}`)}})
	_, err3 := s.AppendEvents(ctx, k, []json.RawMessage{json.RawMessage(`{}`)})
	_, err4 := s.EnqueueInput(ctx, k, json.RawMessage(`{}`))
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		t.Fatal(err)
	}
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
				if _, err := s.AppendEvents(t.Context(), k, evs); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	var leaseErrs [2]error
	wg.Go(func() { _, leaseErrs[0] = a.AcquireLease(t.Context(), k, "a", time.Minute) })
	wg.Go(func() { _, leaseErrs[1] = b.AcquireLease(t.Context(), k, "b", time.Minute) })
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
// version 3: its leases are found by owner, and agents can be stored.
func TestMigrateFromVersion2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v2.db")
	old, err := open(t.Context(), Config{Path: path}, 2)
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

	s, err := Open(t.Context(), Config{Path: path})
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
