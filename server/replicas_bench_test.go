package server_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/session"
)

// BenchmarkReplicasFirstEvent: POST /chat/ to replica A → the first SSE
// event on a client connected to A (same) or to B (across), two servers
// on one PostgreSQL database, each time on a fresh session. Across, the
// event reaches B by NOTIFY at the append's commit and one read of the log.
func BenchmarkReplicasFirstEvent(b *testing.B) {
	for _, across := range []bool{false, true} {
		name := "same"
		if across {
			name = "across"
		}
		b.Run(name, func(b *testing.B) {
			a, rb := newReplicas(b, nil, nil)
			follow := a
			if across {
				follow = rb
			}
			var ds []time.Duration
			for b.Loop() {
				sid := a.createSession()
				s := follow.benchStream(b, sid, "REPLY_END")
				a.model.Append(scripted.Stream(scripted.Text("Hi.")))
				t0 := time.Now()
				if r := a.chat(sid, userMsg("hi")); r.code != 200 {
					b.Fatal(r.body)
				}
				ds = append(ds, (<-s.first).Sub(t0))
				<-s.ended
				s.close()
			}
			percentiles(b, ds)
		})
	}
}

// BenchmarkNotifyLatency: one event appended to a session's log on
// PostgreSQL (AppendRun, its own transaction) → the frame on an SSE client
// of the other replica: the commit, the NOTIFY to B's listener, B's read
// of the log and the frame written.
func BenchmarkNotifyLatency(b *testing.B) {
	a, rb := newReplicas(b, nil, nil)
	sid := a.createSession()
	k := session.Key{UserID: user, SessionID: sid}
	ctx := context.Background()
	run, err := a.store.BeginRun(ctx, k, session.RunBegin{Owner: "bench", TTL: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	s := rb.benchStream(b, sid, "TICK")
	defer s.close()
	ev := []json.RawMessage{json.RawMessage(`{"type":"TICK"}`)}
	var ds []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := a.store.AppendRun(ctx, k, run.Lease, session.RunAppend{Events: ev}); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, (<-s.first).Sub(t0))
		<-s.ended
	}
	percentiles(b, ds)
}
