package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"
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
