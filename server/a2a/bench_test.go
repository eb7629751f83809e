package a2a_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server/a2a"
)

// BenchmarkStreamFirstEvent: SendStreamingMessage → its first response
// (the working task) over HTTP on SQLite, timed as the native API's
// BenchmarkChatFirstEvent and BenchmarkAGUIFirstEvent (package server)
// time theirs: the request made before the clock starts, the clock stopped
// when the first data line arrives. "existing-context" sends into a
// context (session) made beforehand, as the native benchmark chats on a
// session made beforehand; "new-context" lets the message make one, which
// is one more write transaction before the run.
func BenchmarkStreamFirstEvent(b *testing.B) {
	for _, fresh := range []bool{true, false} {
		name := "existing-context"
		if fresh {
			name = "new-context"
		}
		b.Run(name, func(b *testing.B) {
			turns := make([]scripted.Turn, b.N)
			for i := range turns {
				turns[i] = scripted.Stream(scripted.Text("Hi."))
			}
			e := newEnv(b, turns, "")
			ds := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				msg := userMessage(fmt.Sprint("m", i), text("hi"))
				if !fresh {
					rec, err := e.srv.Engine().CreateSession(context.Background(), engine.NewSession{UserID: user, AgentID: "a1"})
					if err != nil {
						b.Fatal(err)
					}
					msg.ContextID = rec.ID
				}
				p, err := json.Marshal(a2a.SendMessageRequest{Message: msg})
				if err != nil {
					b.Fatal(err)
				}
				req, _ := http.NewRequest("POST", e.hs.URL+"/a2a/a1", strings.NewReader(`{"jsonrpc":"2.0","id":"s1","method":"SendStreamingMessage","params":`+string(p)+`}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("A2A-Version", "1.0")
				req.Header.Set("X-User-ID", user)
				b.StartTimer()
				t0 := time.Now()
				res, err := e.hs.Client().Do(req)
				if err != nil || res.StatusCode != 200 {
					b.Fatalf("send: %v %v", err, res)
				}
				br := bufio.NewReaderSize(res.Body, 64<<10)
				var first []byte
				for {
					line, err := br.ReadSlice('\n')
					if err != nil {
						b.Fatalf("no response: %v", err)
					}
					if data, ok := strings.CutPrefix(string(line), "data: "); ok {
						first = []byte(data)
						break
					}
				}
				t1 := time.Now()
				b.StopTimer()
				ds = append(ds, t1.Sub(t0))
				// What was timed must be the task, working.
				var r a2a.Response
				if err := json.Unmarshal(first, &r); err != nil || r.Error != nil {
					b.Fatalf("first response %s: %v", first, err)
				}
				var sr a2a.StreamResponse
				if err := json.Unmarshal(r.Result, &sr); err != nil || sr.Task == nil {
					b.Fatalf("first response is not a task: %s (%v)", first, err)
				}
				if _, err := io.Copy(io.Discard, br); err != nil {
					b.Fatal(err)
				}
				res.Body.Close()
				b.StartTimer()
			}
			b.StopTimer()
			slices.Sort(ds)
			at := func(q float64) float64 { return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) }
			b.ReportMetric(at(0.50), "p50-µs")
			b.ReportMetric(at(0.99), "p99-µs")
			b.ReportMetric(0, "ns/op")
		})
	}
}
