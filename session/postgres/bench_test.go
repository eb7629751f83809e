package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

// BenchmarkAppendNotify: commits per second of notifying event batches,
// the ceiling README "How far one database goes" describes. writers
// goroutines, each a run of its own session (its own lease and pooled
// connection), append batches of 4 events of about 200 bytes with
// AppendRun, each its own transaction with its pg_notify, while a
// listener (a replica's) takes the notices; b.N batches in all, timed
// until the last notice has arrived.
func BenchmarkAppendNotify(b *testing.B) {
	for _, writers := range []int{1, 4, 16, 64} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			u := postgrestest.Schema(b)
			sep := "?"
			if strings.Contains(u, "?") {
				sep = "&"
			}
			s, err := Open(b.Context(), Config{URL: u + sep + fmt.Sprintf("pool_max_conns=%d", writers+2)})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := b.Context()
			type writer struct {
				k session.Key
				l session.Lease
			}
			ws := make([]writer, writers)
			for i := range ws {
				rec, err := s.CreateSession(ctx, session.NewSession{UserID: "u", AgentID: "a"})
				if err != nil {
					b.Fatal(err)
				}
				k := session.Key{UserID: "u", SessionID: rec.ID}
				run, err := s.BeginRun(ctx, k, session.RunBegin{Owner: "bench", TTL: time.Hour, Input: json.RawMessage(`[{"role":"user","content":"hi"}]`)})
				if err != nil {
					b.Fatal(err)
				}
				ws[i] = writer{k, run.Lease}
			}
			ev := json.RawMessage(`{"type":"TEXT_BLOCK_DELTA","id":"0123456789abcdef0123456789abcdef","created_at":"2026-12-03T12:00:00.000000","metadata":{},"reply_id":"0123456789abcdef0123456789abcdef","block_id":"b1","delta":"a few words of a reply "}`)
			batch := session.RunAppend{Events: []json.RawMessage{ev, ev, ev, ev}}
			var (
				notices  atomic.Int64
				all      = make(chan struct{})
				want     atomic.Int64
				listenCx context.Context
				stop     context.CancelFunc
			)
			want.Store(-1)
			listenCx, stop = context.WithCancel(ctx)
			listening := make(chan struct{})
			var once sync.Once
			done := make(chan error, 1)
			go func() {
				done <- s.Listen(listenCx, func(n session.Notice) {
					if n.Kind == session.NoticeListening {
						once.Do(func() { close(listening) })
					}
					if n.Kind == session.NoticeAppended && notices.Add(1) == want.Load() {
						close(all)
					}
				})
			}()
			<-listening
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			want.Store(int64(b.N))
			for _, w := range ws {
				wg.Go(func() {
					for next.Add(1) <= int64(b.N) {
						if _, err := s.AppendRun(ctx, w.k, w.l, batch); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			if !b.Failed() {
				<-all
			}
			elapsed := time.Since(start)
			b.StopTimer()
			stop()
			<-done
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "commits/s")
			b.ReportMetric(float64(4*b.N)/elapsed.Seconds(), "events/s")
		})
	}
}
