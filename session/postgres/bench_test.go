package postgres

import (
	"testing"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/postgres/postgrestest"
	"github.com/agentscope-go/agentscope/session/sessiontest"
)

func BenchmarkStore(b *testing.B) {
	sessiontest.Bench(b, func(b *testing.B) session.Store {
		s, err := Open(b.Context(), Config{URL: postgrestest.Schema(b)})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}
