package postgres

import (
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/postgres/postgrestest"
	"github.com/agentscope-go/agentscope/session/sessiontest"
)

func TestMain(m *testing.M) { postgrestest.Main(m) }

func openTest(t *testing.T, now func() time.Time) *Store {
	t.Helper()
	s, err := Open(t.Context(), Config{URL: postgrestest.Schema(t), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T, now func() time.Time) session.Store { return openTest(t, now) })
}
