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
// names: the first page, one in the middle and the last, each reached by
// cursor (the next_cursor of the page before, found by paging through
// once) and by offset. The sessions are made through the store (a run
// would add a state, which a listing never reads: the status is a
// column), eight at a time.
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
	type list struct {
		Sessions   []json.RawMessage
		Total      int
		NextCursor string `json:"next_cursor"`
	}
	get := func(b *testing.B, q string) list {
		var l list
		if r := e.do("GET", q, user, ""); r.code != 200 || json.Unmarshal([]byte(r.body), &l) != nil {
			b.Fatalf("%s: %d %s", q, r.code, r.body)
		}
		return l
	}
	pages := []int{1, n / 200, n / 100}
	cursors := map[int]string{} // the cursor that reaches each page
	for p, c := 1, ""; p <= pages[2]; p++ {
		cursors[p] = c
		q := "/sessions/?limit=100"
		if c != "" {
			q += "&cursor=" + c
		}
		c = get(b, q).NextCursor
	}
	for _, page := range pages {
		for _, by := range []string{"cursor", "offset"} {
			q := fmt.Sprintf("/sessions/?limit=100&offset=%d", (page-1)*100)
			if by == "cursor" {
				q = "/sessions/?limit=100"
				if c := cursors[page]; c != "" {
					q += "&cursor=" + c
				}
			}
			b.Run(fmt.Sprintf("page=%d/%s", page, by), func(b *testing.B) {
				for b.Loop() {
					r := e.do("GET", q, user, "")
					if r.code != 200 {
						b.Fatal(r.body)
					}
				}
				if l := get(b, q); len(l.Sessions) != 100 || l.Total != n || (l.NextCursor == "") != (page == pages[2]) {
					b.Fatalf("page %d: %d sessions of %d, next %q", page, len(l.Sessions), l.Total, l.NextCursor)
				}
			})
		}
	}
}
