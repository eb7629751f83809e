package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/agentscope-go/agentscope/session"
)

// scaleSessions is how many sessions BenchmarkListSessionsScale lists
// (AGENTSCOPE_BENCH_SCALE_SESSIONS overrides the 100,000).
func scaleSessions() int {
	if n, err := strconv.Atoi(os.Getenv("AGENTSCOPE_BENCH_SCALE_SESSIONS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

// BenchmarkListSessionsScale: GET /sessions/?limit=100 on a user with
// 100,000 sessions (issue 21's size), on the store AGENTSCOPE_SERVER_STORE
// names: the first page, one in the middle and the last. The sessions are
// made through the store (a run would add a state, which a listing never
// reads: the status is a column), eight at a time.
func BenchmarkListSessionsScale(b *testing.B) {
	e := newEnv(b, nil, nil)
	n := scaleSessions()
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for range next {
				if _, err := e.store.CreateSession(context.Background(), session.NewSession{UserID: user, AgentID: "a1", Config: json.RawMessage(`{}`)}); err != nil {
					panic(err)
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, page := range []int{1, n / 200, n / 100} {
		b.Run(fmt.Sprintf("page=%d", page), func(b *testing.B) {
			q := fmt.Sprintf("/sessions/?limit=100&offset=%d", (page-1)*100)
			for b.Loop() {
				r := e.do("GET", q, user, "")
				if r.code != 200 {
					b.Fatal(r.body)
				}
			}
			var list struct {
				Sessions []json.RawMessage
				Total    int
			}
			if r := e.do("GET", q, user, ""); json.Unmarshal([]byte(r.body), &list) != nil || len(list.Sessions) != 100 || list.Total != n {
				b.Fatalf("page %d: %d sessions of %d", page, len(list.Sessions), list.Total)
			}
		})
	}
}
