package sqlite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/sessiontest"
)

func TestContract(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T, now func() time.Time) session.Store {
		s, err := Open(t.Context(), Config{Path: filepath.Join(t.TempDir(), "test.db"), Now: now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// The opened runs, whose start commits with their first batch.
func TestRunOpener(t *testing.T) {
	sessiontest.RunOpener(t, func(t *testing.T, now func() time.Time) session.Store {
		s, err := Open(t.Context(), Config{Path: filepath.Join(t.TempDir(), "test.db"), Now: now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// The store's own checkpoints copy the WAL into the database file while it
// is open (commits never do: the writer's automatic checkpoint is off).
func TestCheckpoints(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	s, err := Open(t.Context(), Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	k := newSession(t, s)
	run, err := s.BeginRun(t.Context(), k, session.RunBegin{Owner: "o", TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	before := size()
	ev := json.RawMessage(`{"pad":"` + strings.Repeat("x", 2000) + `"}`)
	for range checkpointCommits {
		if _, err := s.AppendRun(t.Context(), k, run.Lease, session.RunAppend{Events: []json.RawMessage{ev}}); err != nil {
			t.Fatal(err)
		}
	}
	// 256 commits of 2 KB: about 500 KB in the WAL, until a checkpoint
	// copies it into the file.
	for deadline := time.Now().Add(30 * time.Second); size() < before+256*2000; {
		if time.Now().After(deadline) {
			t.Fatalf("no checkpoint: the file is %d bytes, was %d", size(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
