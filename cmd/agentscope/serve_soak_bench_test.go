package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/session/postgres/postgrestest"
)

// textModel is an OpenAI-compatible model that answers every request at
// once with a short text in a few chunks: the replicas' work, not the
// model's, is what the benchmark below times.
func textModel(b *testing.B) string {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i, word := range strings.Fields("Hello there, this is a reply of a few words.") {
			role := ""
			if i == 0 {
				role = `"role":"assistant",`
			}
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{%s\"content\":%q}}]}\n\n", role, word+" ")
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	b.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// BenchmarkReplicasRuns: runs per second and the time to the first event
// with one and with two built `agentscope serve` replicas on one
// PostgreSQL database: 16 clients, each with a session of its own and its
// stream open, post a chat to a replica at random (its stream on a
// replica at random too) and wait for the reply's REPLY_END before the
// next. Reported: runs/s over the whole loop, p50/p99 from the POST to
// the run's first frame on the stream, and the CPU time per run of the
// replicas, of the PostgreSQL server (postmaster and backends) and of
// this process (the clients and the model), and their sum.
func BenchmarkReplicasRuns(b *testing.B) {
	bin := buildBinary(b)
	llm := textModel(b)
	for _, replicas := range []int{1, 2} {
		b.Run(fmt.Sprintf("replicas=%d", replicas), func(b *testing.B) {
			db := postgrestest.Schema(b)
			var c soakCluster
			c.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			meter := cpuMeter{pg: postmaster(b, db)}
			for i := range 2 {
				if i < replicas {
					addr := freeAddr(b)
					s := startServe(b, bin, addr, db, "--replica", fmt.Sprint("r", i), "--id", "bench", "--model", "openai-compatible:m@"+llm, "--tools", "none")
					meter.serves = append(meter.serves, s.cmd.Process.Pid)
					c.addrs[i] = addr
				} else {
					c.addrs[i] = c.addrs[0]
				}
			}
			const clients = 16
			ctx := context.Background()
			type client struct {
				sid string
				f   *follower
			}
			cs := make([]client, clients)
			for i := range cs {
				code, body, err := c.do(ctx, "POST", "/sessions/", `{"agent_id":"bench"}`)
				var created struct {
					SessionID string `json:"session_id"`
				}
				if err != nil || code != 201 || json.Unmarshal([]byte(body), &created) != nil {
					b.Fatalf("create: %d %s %v", code, body, err)
				}
				cs[i] = client{created.SessionID, c.follow(ctx, created.SessionID)}
			}
			in, _ := json.Marshal(message.UserText("newcomer", "hi"))
			var (
				mu    sync.Mutex
				first []time.Duration
				wg    sync.WaitGroup
			)
			work := make(chan struct{}, clients)
			b.ResetTimer()
			cpu0 := meter.read(b)
			start := time.Now()
			for _, cl := range cs {
				wg.Go(func() {
					for range work {
						seen := cl.f.last()
						t0 := time.Now()
						if code, body, err := c.do(ctx, "POST", "/chat/", fmt.Sprintf(`{"agent_id":"bench","session_id":%q,"input":%s}`, cl.sid, in)); err != nil || code != 200 {
							panic(fmt.Sprintf("chat: %d %s %v", code, body, err))
						}
						if _, err := cl.f.await(ctx, func(fs []sseFrame) (sseFrame, bool) { return sseFrame{}, len(fs) > int(seen) }); err != nil {
							panic(err)
						}
						d := time.Since(t0)
						if _, err := cl.f.await(ctx, func(fs []sseFrame) (sseFrame, bool) {
							for _, fr := range fs[seen:] {
								if fr.ev.Type() == event.TypeReplyEnd {
									return fr, true
								}
							}
							return sseFrame{}, false
						}); err != nil {
							panic(err)
						}
						mu.Lock()
						first = append(first, d)
						mu.Unlock()
					}
				})
			}
			for range b.N {
				work <- struct{}{}
			}
			close(work)
			wg.Wait()
			elapsed := time.Since(start)
			cpu1 := meter.read(b)
			b.StopTimer()
			for _, cl := range cs {
				cl.f.stop()
				<-cl.f.done
			}
			slices.Sort(first)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "runs/s")
			b.ReportMetric(float64(first[len(first)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(first[len(first)*99/100].Microseconds())/1000, "p99-ms")
			// CPU per run, whatever the cores: when it does not grow with
			// the replicas, the runs/s a second replica adds is bounded
			// by the cores it is given, not by the replicas' sharing.
			perRun := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
			serve, pg, self := cpu1.serve-cpu0.serve, cpu1.pg-cpu0.pg, cpu1.self-cpu0.self
			b.ReportMetric(perRun(serve+pg+self), "cpu-ms/run")
			b.ReportMetric(perRun(serve), "serve-cpu-ms/run")
			b.ReportMetric(perRun(pg), "pg-cpu-ms/run")
			b.ReportMetric(perRun(self), "client-cpu-ms/run")
		})
	}
}
