package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/model/scripted"
)

// benchStream is a light SSE client: it notes when the first frame
// arrives, counts frames, and reports once a frame of type end arrives.
type benchStream struct {
	first  chan time.Time
	ended  chan int // frames read up to the end frame
	cancel context.CancelFunc
	done   chan struct{}
}

func (e *env) benchStream(b *testing.B, sid, end string) *benchStream {
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", e.hs.URL+"/sessions/"+sid+"/stream", nil)
	req.Header.Set("X-User-ID", user)
	res, err := e.hs.Client().Do(req)
	if err != nil || res.StatusCode != 200 {
		b.Fatalf("stream: %v %v", err, res)
	}
	s := &benchStream{first: make(chan time.Time, 1), ended: make(chan int, 1), cancel: cancel, done: make(chan struct{})}
	marker := `"type":"` + end + `"`
	go func() {
		defer close(s.done)
		defer res.Body.Close()
		br := bufio.NewReaderSize(res.Body, 64<<10)
		n := 0
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(line) > 6 && string(line[:6]) == "data: " {
				if n == 0 {
					s.first <- time.Now()
				}
				n++
				if strings.Contains(string(line), marker) {
					s.ended <- n
					n = 0
				}
			}
		}
	}()
	return s
}

func (s *benchStream) close() { s.cancel(); <-s.done }

func percentiles(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	at := func(q float64) float64 { return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) }
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkChatFirstEvent: POST /chat/ → the first SSE event (REPLY_START)
// on a client already connected, over HTTP on SQLite, each time on a fresh
// session.
func BenchmarkChatFirstEvent(b *testing.B) {
	e := newEnv(b, nil, nil)
	body := func(sid string) string {
		return fmt.Sprintf(`{"agent_id":"a1","session_id":%q,"input":%s}`, sid, userMsg("hi"))
	}
	var ds []time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		sid := e.createSession()
		s := e.benchStream(b, sid, "REPLY_END")
		e.model.Append(scripted.Stream(scripted.Text("Hi.")))
		b.StartTimer()
		t0 := time.Now()
		r := e.do("POST", "/chat/", user, body(sid))
		if r.code != 200 {
			b.Fatal(r.body)
		}
		t1 := <-s.first
		b.StopTimer()
		ds = append(ds, t1.Sub(t0))
		<-s.ended
		s.close()
		b.StartTimer()
	}
	b.StopTimer()
	percentiles(b, ds)
}

// BenchmarkResume: POST /chat/ with the confirmation of a parked reply →
// the first SSE event of the continuation, on SQLite.
func BenchmarkResume(b *testing.B) {
	e := newEnv(b, nil, nil)
	var ds []time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		sid := e.createSession()
		s := e.benchStream(b, sid, "REQUIRE_USER_CONFIRM")
		e.model.Append(noteTurn, doneTurn)
		if r := e.chat(sid, userMsg("note")); r.code != 200 {
			b.Fatal(r.body)
		}
		<-s.first
		<-s.ended
		s.close()
		confirm := confirmJSON(b, e, sid, true)
		s = e.benchStream(b, sid, "REPLY_END")
		b.StartTimer()
		t0 := time.Now()
		r := e.chat(sid, confirm)
		if r.code != 200 {
			b.Fatalf("confirm: %d %s", r.code, r.body)
		}
		t1 := <-s.first
		b.StopTimer()
		ds = append(ds, t1.Sub(t0))
		<-s.ended
		s.close()
		b.StartTimer()
	}
	b.StopTimer()
	percentiles(b, ds)
}

// BenchmarkStreamEvents: one run streaming 2,000 text chunks (2,007
// events) to 1 and to 100 SSE clients of its session: events/s per client
// and in all, from POST /chat/ until every client has the REPLY_END.
func BenchmarkStreamEvents(b *testing.B) {
	const chunks = 2000
	steps := make([]scripted.Step, chunks)
	for i := range steps {
		steps[i] = scripted.Text("tok ")
	}
	turn := scripted.Stream(steps...)
	for _, clients := range []int{1, 100} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			e := newEnv(b, nil, nil)
			var total time.Duration
			events := 0
			for range b.N {
				b.StopTimer()
				sid := e.createSession()
				ss := make([]*benchStream, clients)
				for i := range ss {
					ss[i] = e.benchStream(b, sid, "REPLY_END")
				}
				e.model.Append(turn)
				b.StartTimer()
				t0 := time.Now()
				if r := e.chat(sid, userMsg("go")); r.code != 200 {
					b.Fatal(r.body)
				}
				for _, s := range ss {
					events = <-s.ended
				}
				total += time.Since(t0)
				b.StopTimer()
				for _, s := range ss {
					s.close()
				}
				b.StartTimer()
			}
			b.StopTimer()
			perClient := float64(events*b.N) / total.Seconds()
			b.ReportMetric(perClient, "events/s/client")
			b.ReportMetric(perClient*float64(clients), "events/s")
			b.ReportMetric(float64(events), "events/run")
		})
	}
}

// BenchmarkParkedSessionMemory parks 500 replies on SQLite, each on its
// own session, and reports how much the Go heap and the process's
// resident memory grew per parked reply (after a GC, all runs ended).
// Run it with -benchtime 1x: each iteration parks another 500.
func BenchmarkParkedSessionMemory(b *testing.B) {
	const n = 500
	e := newEnv(b, nil, nil)
	measure := func() (heap, rss float64) {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		statm, err := os.ReadFile("/proc/self/statm")
		if err != nil {
			b.Fatal(err)
		}
		var size, resident float64
		fmt.Sscan(string(statm), &size, &resident)
		return float64(ms.HeapAlloc), resident * float64(os.Getpagesize())
	}
	park := func(count int) {
		for range count {
			sid := e.createSession()
			e.model.Append(noteTurn)
			if r := e.chat(sid, userMsg("note")); r.code != 200 {
				b.Fatal(r.body)
			}
			e.waitStatus(sid, "awaiting_permission")
		}
	}
	park(50) // warm up the pools, caches and connections
	b.ResetTimer()
	var heap, rss float64
	for range b.N {
		h0, r0 := measure()
		park(n)
		h1, r1 := measure()
		heap += (h1 - h0) / n
		rss += (r1 - r0) / n
	}
	b.ReportMetric(heap/float64(b.N), "heap-B/parked")
	b.ReportMetric(rss/float64(b.N), "rss-B/parked")
}

// BenchmarkWSChatFirstEvent: a chat frame on GET /sessions/{id}/ws → the
// first event frame (REPLY_START) on the same socket, on SQLite, each
// time on a fresh session: the WebSocket beside BenchmarkChatFirstEvent's
// POST + SSE.
func BenchmarkWSChatFirstEvent(b *testing.B) {
	e := newEnv(b, nil, nil)
	var ds []time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		sid := e.createSession()
		w := e.openWS(sid, "")
		e.model.Append(scripted.Stream(scripted.Text("Hi.")))
		frame := wsChat(fmt.Sprint(i), userMsg("hi"))
		b.StartTimer()
		t0 := time.Now()
		w.send(frame)
		// Timed to the frame's arrival, as benchStream times the native
		// stream's: not the test client's decoding of it.
		first := w.next()
		b.StopTimer()
		ds = append(ds, first.at.Sub(t0))
		w.until("REPLY_END")
		if r := w.reply(); r.Status != 200 {
			b.Fatalf("chat frame: %+v", r)
		}
		w.close()
		b.StartTimer()
	}
	b.StopTimer()
	percentiles(b, ds)
}

// BenchmarkAGUIFirstEvent: POST /agui/{agent} → the first AG-UI event
// (RUN_STARTED, written once the run's first event is logged) on the
// response's own stream, over HTTP on SQLite; then the run is read to its
// end outside the timer. new-thread includes creating the session the
// threadId names, as a client's first run of a thread does;
// existing-thread runs on a session created beforehand, the case
// BenchmarkChatFirstEvent measures for POST /chat/.
func BenchmarkAGUIFirstEvent(b *testing.B) {
	for _, fresh := range []bool{true, false} {
		name := "existing-thread"
		if fresh {
			name = "new-thread"
		}
		b.Run(name, func(b *testing.B) {
			e := newEnv(b, nil, nil)
			var ds []time.Duration
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				thread := fmt.Sprintf("bench-%d", i)
				if !fresh {
					if _, err := e.srv.Engine().CreateSession(context.Background(), engine.NewSession{ID: thread, UserID: user, AgentID: "a1"}); err != nil {
						b.Fatal(err)
					}
				}
				e.model.Append(scripted.Stream(scripted.Text("Hi.")))
				req, _ := http.NewRequest("POST", e.hs.URL+"/agui/a1", strings.NewReader(aguiInput(thread, "run", []map[string]any{aguiUser("m", "hi")})))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-User-ID", user)
				b.StartTimer()
				t0 := time.Now()
				res, err := e.hs.Client().Do(req)
				if err != nil || res.StatusCode != 200 {
					b.Fatalf("run: %v %v", err, res)
				}
				br := bufio.NewReaderSize(res.Body, 64<<10)
				for {
					line, err := br.ReadSlice('\n')
					if err != nil {
						b.Fatalf("no event: %v", err)
					}
					if strings.HasPrefix(string(line), "data: ") {
						break
					}
				}
				t1 := time.Now()
				b.StopTimer()
				ds = append(ds, t1.Sub(t0))
				if _, err := io.Copy(io.Discard, br); err != nil {
					b.Fatal(err)
				}
				res.Body.Close()
				b.StartTimer()
			}
			b.StopTimer()
			percentiles(b, ds)
		})
	}
}
