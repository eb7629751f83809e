package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMain makes the test binary adk-go's server when started so, as the
// program itself is (servers.go's startADK runs os.Executable).
func TestMain(m *testing.M) {
	if addr := os.Getenv(adkEnv); addr != "" {
		if err := serveADK(addr); err != nil {
			fmt.Fprintln(os.Stderr, "adk-go:", err)
			os.Exit(1)
		}
		return
	}
	os.Exit(m.Run())
}

// TestSmoke builds agentscope serve from this checkout and runs every
// measurement small on it and on adk-go's server. Each target checks
// what it read as it goes (every event of each reply, in order: ids one
// after another on ours, the chunks making the aggregate on adk-go's;
// every client of a fan-out reading the same count), so a wrong or
// missing event fails here; the test then checks the numbers came out
// and the report holds them.
func TestSmoke(t *testing.T) {
	cfg := config{Rounds: 2, N: 5, Words: 300, StreamRuns: 2, Clients: 5, FanRuns: 2, Warm: 2, Parked: 5, Replies: 12}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var out, log bytes.Buffer
	if err := run(ctx, cfg, "../..", "", "", &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	report := out.String()
	for _, want := range []string{"agentscope, SQLite", "adk-go v2.2.0, in memory", "POST → first event", "confirm → first event", "events/s in all, one reply to 5 clients", "— (no fan-out)", "1–2: "} {
		if !strings.Contains(report, want) {
			t.Errorf("the report has no %q:\n%s", want, report)
		}
	}
	t.Logf("\n%s", report)
}

// TestMeasureChecks runs measure on a fake target to see that the numbers
// land where the report reads them.
func TestMeasureChecks(t *testing.T) {
	cfg := config{Rounds: 2, N: 3, Words: 10, StreamRuns: 2, Clients: 4, FanRuns: 1, Warm: 1, Parked: 2, Replies: 6}
	f := &fake{pid: os.Getpid()}
	res, err := measure(context.Background(), cfg, []target{f}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if len(r.first) != 6 || len(r.firstRound) != 2 || len(r.resume) != 6 || len(r.rate1) != 4 || len(r.rateN) != 2 || len(r.long) != 6 {
		t.Fatalf("counts: %d %d %d %d %d %d", len(r.first), len(r.firstRound), len(r.resume), len(r.rate1), len(r.rateN), len(r.long))
	}
	if f.resumed != 6 || f.parked != 6+1+2 {
		t.Fatalf("resumed %d, parked %d", f.resumed, f.parked)
	}
	// 10 events in 10 ms to each of 4 clients: 1,000 and 4,000 events/s.
	if r.rate1[0] != 1000 || r.rateN[0] != 4000 || r.events1 != 10 {
		t.Fatalf("rates %v %v, events %d", r.rate1, r.rateN, r.events1)
	}
	if n, head, tail := window(r.long); n != 1 || head != time.Millisecond || tail != 6*time.Millisecond {
		t.Fatalf("window %d %v %v", n, head, tail)
	}
	if f.clients != 4 || f.prompt != strings.TrimSpace(strings.Repeat("word ", 10)) {
		t.Fatalf("stream asked for %d clients, prompt %q", f.clients, f.prompt)
	}
}

type fake struct {
	pid             int
	parked, resumed int
	clients         int
	prompt          string
}

func (f *fake) name() string   { return "fake" }
func (f *fake) serverPID() int { return f.pid }
func (f *fake) fanOut() bool   { return true }
func (f *fake) firstEvent(context.Context) (time.Duration, error) {
	return time.Millisecond, nil
}
func (f *fake) park(context.Context) (parked, error) { f.parked++; return f.parked, nil }
func (f *fake) resume(_ context.Context, p parked) (time.Duration, error) {
	f.resumed++
	return time.Duration(p.(int)) * time.Millisecond, nil
}
func (f *fake) stream(_ context.Context, prompt string, clients int) (int, time.Duration, error) {
	f.clients = max(f.clients, clients)
	f.prompt = prompt
	return 10, 10 * time.Millisecond, nil
}
func (f *fake) longSession(_ context.Context, n int) ([]time.Duration, error) {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(i+1) * time.Millisecond
	}
	return out, nil
}
