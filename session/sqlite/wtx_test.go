package sqlite

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/session"
)

// A context cancelled while BEGIN IMMEDIATE runs can make the driver
// report the context's error for a BEGIN that took effect: the writer
// connection must not be left inside that transaction, or every later
// write fails ("cannot start a transaction within a transaction").
func TestCancelDuringBeginLeavesNoTransaction(t *testing.T) {
	s, err := Open(t.Context(), Config{Path: filepath.Join(t.TempDir(), "test.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	noop := func(*wtx) error { return nil }
	cancelled := 0
	for i := 0; i < 3000; i++ {
		ctx, cancel := context.WithCancel(t.Context())
		started := make(chan struct{})
		go func() {
			<-started
			cancel()
		}()
		close(started)
		if err := s.write(ctx, noop); err != nil {
			cancelled++
		}
		cancel()
		if err := s.write(t.Context(), noop); err != nil {
			t.Fatalf("round %d (%d cancelled before): a write after a cancelled one failed: %v", i, cancelled, err)
		}
	}
	t.Logf("%d of 3000 writes cancelled", cancelled)
}

// A panic inside a write transaction rolls it back and frees the writer.
func TestPanicInWriteFreesWriter(t *testing.T) {
	s, err := Open(t.Context(), Config{Path: filepath.Join(t.TempDir(), "test.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("no panic")
			}
		}()
		_ = s.write(t.Context(), func(*wtx) error { panic("boom") })
	}()
	// Bounded so that a writer never freed fails the test, not hangs it.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := s.write(ctx, func(*wtx) error { return nil }); err != nil {
		t.Fatalf("a write after a panicked one: %v", err)
	}
}

// Close gives the writer connection up for good, its prepared statements
// included: SQLite keeps a connection with an unfinalized statement open
// (its files, and its write lock when a transaction is open) after it is
// closed. Close waits for a run's start still open; once that is rolled
// back the next store on the file writes at once; the last store closed
// leaves no WAL.
func TestCloseGivesBackWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	s, err := Open(t.Context(), Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	k := newSession(t, s)
	_, op, err := s.OpenRun(t.Context(), k, session.RunBegin{Owner: "o", TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	// Close waits for the open start, rolled back meanwhile.
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	if err := op.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	// A short busy timeout: a write lock still held fails the open's
	// migrations' BEGIN quickly rather than after the default 5 s.
	s2, err := Open(t.Context(), Config{Path: path, BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("open after a Close with a run's start open: %v", err)
	}
	got, err := s2.GetSession(t.Context(), k)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != session.StatusIdle {
		t.Errorf("status %q after Close rolled the start back, want idle", got.Status)
	}
	if _, err := s2.BeginRun(t.Context(), k, session.RunBegin{Owner: "o", TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the WAL after the last Close: %v, want it checkpointed and removed", err)
	}
}

// Close while writers are at work: each of them ends with an error once
// the store is closed (none waits for ever for the writer), and Close
// itself returns.
func TestCloseDuringWrites(t *testing.T) {
	s, err := Open(t.Context(), Config{Path: filepath.Join(t.TempDir(), "test.db")})
	if err != nil {
		t.Fatal(err)
	}
	k := newSession(t, s)
	const writers = 4
	var wrote atomic.Int64
	errs := make(chan error, writers)
	for range writers {
		go func() {
			for {
				r, op, err := s.OpenRun(t.Context(), k, session.RunBegin{Owner: "o", TTL: time.Hour})
				if err == nil {
					if _, err = op.Commit(t.Context(), session.RunAppend{}); err == nil {
						_, err = s.FinishRun(t.Context(), k, r.Lease, session.RunEnd{Status: session.StatusIdle})
					}
				}
				if err != nil && !errors.Is(err, session.ErrLeased) {
					errs <- err
					return
				}
				wrote.Add(1)
			}
		}()
	}
	for wrote.Load() < 20 {
		runtime.Gosched()
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for range writers {
		if err := <-errs; err == nil {
			t.Error("a writer ended without an error")
		}
	}
}
