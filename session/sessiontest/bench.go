package sessiontest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/session"
)

// Bench measures the store's hot paths on the backend open returns (a
// fresh store for each benchmark):
//
//   - AppendEvents/batch=N: one AppendRun of N events of about 200
//     bytes, the shape of a streamed text delta; reports events/s;
//   - ReadEvents: 100 events after a sequence in a log of 10,000 (an SSE
//     replay page);
//   - State: a run that saves a state of 50 messages (~25 KB), BeginRun
//     (which reads it back) then FinishRun;
//   - Lease: BeginRun then FinishRun with nothing to write;
//   - Run: the store's part of one short run as the server makes it:
//     BeginRun, the first AppendRun (input message and first event) and
//     FinishRun (state, reply, last event, input done, status, lease
//     freed).
func Bench(b *testing.B, open func(b *testing.B) session.Store) {
	for _, n := range []int{1, 64, 512} {
		b.Run(fmt.Sprintf("AppendEvents/batch=%d", n), func(b *testing.B) {
			s := open(b)
			k := benchSession(b, s)
			l := benchLease(b, s, k)
			batch := make([]json.RawMessage, n)
			for i := range batch {
				batch[i] = deltaEvent(i)
			}
			b.SetBytes(int64(n * len(batch[0])))
			b.ResetTimer()
			for b.Loop() {
				if _, err := s.AppendRun(b.Context(), k, l, session.RunAppend{Events: batch}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "events/s")
		})
	}
	b.Run("ReadEvents", func(b *testing.B) {
		s := open(b)
		k := benchSession(b, s)
		const total, page = 10_000, 100
		batch := make([]json.RawMessage, 500)
		for i := range batch {
			batch[i] = deltaEvent(i)
		}
		l := benchLease(b, s, k)
		for range total / len(batch) {
			if _, err := s.AppendRun(b.Context(), k, l, session.RunAppend{Events: batch}); err != nil {
				b.Fatal(err)
			}
		}
		i := 0
		for b.Loop() {
			after := int64(i*7919) % (total - page)
			i++
			evs, err := s.ReadEvents(b.Context(), k, after, page)
			if err != nil || len(evs) != page {
				b.Fatalf("read %d events: %v", len(evs), err)
			}
		}
		b.ReportMetric(float64(b.N*page)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("State", func(b *testing.B) {
		s := open(b)
		k := benchSession(b, s)
		st := stateOf(50)
		b.SetBytes(int64(len(st)))
		for b.Loop() {
			r, err := s.BeginRun(b.Context(), k, session.RunBegin{Owner: "bench", TTL: time.Minute})
			if err != nil {
				b.Fatal(err)
			}
			if r.State.Version > 0 && len(r.State.JSON) != len(st) {
				b.Fatalf("read back %d bytes", len(r.State.JSON))
			}
			if _, err := s.FinishRun(b.Context(), k, r.Lease, session.RunEnd{State: st, StateVersion: r.State.Version, Status: session.StatusIdle}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Lease", func(b *testing.B) {
		s := open(b)
		k := benchSession(b, s)
		for b.Loop() {
			r, err := s.BeginRun(b.Context(), k, session.RunBegin{Owner: "bench", TTL: time.Minute})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.FinishRun(b.Context(), k, r.Lease, session.RunEnd{Status: session.StatusIdle}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Run", func(b *testing.B) {
		s := open(b)
		k := benchSession(b, s)
		input := json.RawMessage(`[{"role":"user","content":[{"type":"text","text":"hi"}]}]`)
		user := []session.Message{{ID: "u", JSON: input[1 : len(input)-1]}}
		state := stateOf(2)
		for b.Loop() {
			rs, err := s.BeginRun(b.Context(), k, session.RunBegin{Owner: "bench", TTL: time.Minute, Input: input})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.AppendRun(b.Context(), k, rs.Lease, session.RunAppend{Messages: user, Events: []json.RawMessage{deltaEvent(0)}}); err != nil {
				b.Fatal(err)
			}
			if _, err := s.FinishRun(b.Context(), k, rs.Lease, session.RunEnd{State: state, StateVersion: rs.State.Version,
				Messages: []session.Message{{ID: "r", JSON: deltaEvent(1)}}, Events: []json.RawMessage{deltaEvent(2)},
				Done: []int64{rs.Input.ID}, Status: session.StatusIdle}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchLease begins a run on k, for the benchmarks that write under one.
func benchLease(b *testing.B, s session.Store, k session.Key) session.Lease {
	b.Helper()
	r, err := s.BeginRun(b.Context(), k, session.RunBegin{Owner: "bench", TTL: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	return r.Lease
}

func benchSession(b *testing.B, s session.Store) session.Key {
	b.Helper()
	r, err := s.CreateSession(b.Context(), session.NewSession{UserID: "bench", AgentID: "a"})
	if err != nil {
		b.Fatal(err)
	}
	return session.Key{UserID: "bench", SessionID: r.ID}
}

// deltaEvent is a TEXT_BLOCK_DELTA as the agent streams it (~200 bytes).
func deltaEvent(i int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"id":"%032x","created_at":"2026-03-04T05:06:07.123456","metadata":{},"type":"TEXT_BLOCK_DELTA","reply_id":"5d1c8a2f0b7e4c3a9f6e2d1b0a987654","block_id":"0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a59","delta":"token %05d "}`, i, i%100000))
}

// stateOf is an AgentState-shaped JSON with n messages in its context.
func stateOf(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"context":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		fmt.Fprintf(&b, `{"name":"%s","content":[{"type":"text","text":"%s","id":"%032x","created_at":"2026-03-04T05:06:07.123456","finished_at":null}],"role":"%s","id":"%032x","metadata":{},"created_at":"2026-03-04T05:06:07.123456","usage":null,"finished_at":null,"finished_reason":null,"structured_output":null,"error":null}`,
			role, strings.Repeat("lorem ipsum ", 12), i, role, i+1000)
	}
	b.WriteString(`],"summary":"","reply_context":{"reply_id":"","cur_iter":0},"permission_context":{},"tool_context":{"activated_groups":[]},"tasks_context":{"tasks":[]},"middle_context":{}}`)
	return json.RawMessage(b.String())
}
