package server_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/model/scripted"
)

// benchSessions is how many sessions BenchmarkListSessions lists
// (AGENTSCOPE_BENCH_SESSIONS overrides the 10,000).
func benchSessions() int {
	if n, err := strconv.Atoi(os.Getenv("AGENTSCOPE_BENCH_SESSIONS")); err == nil && n > 0 {
		return n
	}
	return 10_000
}

// BenchmarkListSessions: GET /sessions/ on a user with 10,000 sessions,
// each with one finished reply (so each has a state): a page of 100, all
// of them, and GET …/status of one. What it measures is the cost of a
// session's status in a listing: before the status column, each listed
// session's state was loaded and decoded.
func BenchmarkListSessions(b *testing.B) {
	e := newEnv(b, nil, nil)
	n := benchSessions()
	sids := make([]string, n)
	for i := range sids {
		sids[i] = e.createSession()
	}
	e.model.Append(func() []scripted.Turn {
		ts := make([]scripted.Turn, n)
		for i := range ts {
			ts[i] = scripted.Stream(scripted.Text("Hello there, this is a reply of a few words."))
		}
		return ts
	}()...)
	var wg sync.WaitGroup
	work := make(chan string)
	for range 8 {
		wg.Go(func() {
			for sid := range work {
				if r := e.chat(sid, userMsg("hi")); r.code != 200 {
					panic(r.body)
				}
			}
		})
	}
	for _, sid := range sids {
		work <- sid
	}
	close(work)
	wg.Wait()
	for _, sid := range sids {
		idle(b, e, sid)
	}
	for _, q := range []string{"?limit=100", ""} {
		name := "page=100"
		if q == "" {
			name = fmt.Sprintf("all=%d", n)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if r := e.do("GET", "/sessions/"+q, user, ""); r.code != 200 {
					b.Fatal(r.body)
				}
			}
		})
	}
	b.Run("status", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			if r := e.do("GET", "/sessions/"+sids[i%n]+"/status?agent_id=a1", user, ""); r.code != 200 {
				b.Fatal(r.body)
			}
		}
	})
}

// BenchmarkChatFirstEventLongSession: POST /chat/ → the first SSE event
// on a session that already has 200 replies (a state of 400 messages),
// the start of a run on a long session.
func BenchmarkChatFirstEventLongSession(b *testing.B) {
	e := newEnv(b, nil, nil)
	sid := e.createSession()
	for range 200 {
		e.model.Append(scripted.Stream(scripted.Text("Hello there, this is a reply of a few words, and then a few more.")))
		if r := e.chat(sid, userMsg("hi, what about this?")); r.code != 200 {
			b.Fatal(r.body)
		}
		idle(b, e, sid)
	}
	body := fmt.Sprintf(`{"agent_id":"a1","session_id":%q,"input":%s}`, sid, userMsg("hi"))
	var ds []time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		s := e.benchStream(b, sid, "REPLY_END")
		e.model.Append(scripted.Stream(scripted.Text("Hi.")))
		b.StartTimer()
		t0 := time.Now()
		if r := e.do("POST", "/chat/", user, body); r.code != 200 {
			b.Fatal(r.body)
		}
		t1 := <-s.first
		b.StopTimer()
		ds = append(ds, t1.Sub(t0))
		<-s.ended
		s.close()
		idle(b, e, sid)
		b.StartTimer()
	}
	b.StopTimer()
	percentiles(b, ds)
}

// idle waits until sid's status is idle (e.waitStatus lists every session
// to find the agent of one, which is quadratic here).
func idle(b *testing.B, e *env, sid string) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := e.do("GET", "/sessions/"+sid+"/status?agent_id=a1", user, "")
		if r.code == 200 && strings.Contains(r.body, `"idle"`) {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("status %d %s", r.code, r.body)
		}
		time.Sleep(time.Millisecond)
	}
}
