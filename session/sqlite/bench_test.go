package sqlite

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/sessiontest"
)

func BenchmarkStore(b *testing.B) {
	sessiontest.Bench(b, func(b *testing.B) session.Store {
		s, err := Open(b.Context(), Config{Path: filepath.Join(b.TempDir(), "bench.db")})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}

// BenchmarkRunStart: a run's start on a new session, to its first batch
// stored: BeginRun then AppendRun (two commits) against OpenRun and its
// Commit (one).
func BenchmarkRunStart(b *testing.B) {
	input := json.RawMessage(`{"role":"user","name":"me","content":[{"type":"text","text":"hi"}]}`)
	first := json.RawMessage(`{"id":"6f1c0d4b8e2a4c1f9b7d3e5a0c2f4e6a","created_at":"2026-03-04T05:06:07.123456","type":"REPLY_START","session_id":"s","reply_id":"r","name":"assistant","role":"assistant"}`)
	batch := session.RunAppend{Messages: []session.Message{{ID: "u", JSON: input}}, Events: []json.RawMessage{first}}
	for _, mode := range []string{"BeginAppend", "Open"} {
		b.Run(mode, func(b *testing.B) {
			s, err := Open(b.Context(), Config{Path: filepath.Join(b.TempDir(), "bench.db")})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			begin := session.RunBegin{Owner: "bench", TTL: time.Minute, Input: input}
			for b.Loop() {
				b.StopTimer()
				r, err := s.CreateSession(b.Context(), session.NewSession{UserID: "bench", AgentID: "a"})
				if err != nil {
					b.Fatal(err)
				}
				k := session.Key{UserID: "bench", SessionID: r.ID}
				b.StartTimer()
				var rs session.Run
				if mode == "Open" {
					var op session.Opening
					if rs, op, err = s.OpenRun(b.Context(), k, begin); err == nil {
						_, err = op.Commit(b.Context(), batch)
					}
				} else if rs, err = s.BeginRun(b.Context(), k, begin); err == nil {
					_, err = s.AppendRun(b.Context(), k, rs.Lease, batch)
				}
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if _, err := s.FinishRun(b.Context(), k, rs.Lease, session.RunEnd{Done: []int64{rs.Input.ID}, Status: session.StatusIdle}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
