package sqlite

import (
	"path/filepath"
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
