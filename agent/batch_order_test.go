package agent_test

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

// toolScript is a tool of a concurrent batch: waits[i] is how long it
// waits before chunk i, waits[len-1] before it returns (0: no wait;
// yieldNow: agent.Yield, asyncio.sleep(0)). A plain tool has one chunk, a
// streaming tool several.
type toolScript struct {
	name  string
	waits []time.Duration
}

// yieldNow is a segment that yields without waiting (asyncio.sleep(0)).
const yieldNow time.Duration = -1

func (s toolScript) chunks() int { return len(s.waits) - 1 }

// body is the tool in plain Go: time.Sleep, agent.Yield and yields,
// nothing else.
func (s toolScript) body() tool.CallFunc {
	pause := func(ctx context.Context, w time.Duration) {
		if w == yieldNow {
			agent.Yield(ctx)
			return
		}
		time.Sleep(w)
	}
	return func(ctx context.Context, _ map[string]any) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) {
			for i := range s.chunks() {
				pause(ctx, s.waits[i])
				if !yield(tool.Text(fmt.Sprintf("%s.%d", s.name, i)), nil) {
					return
				}
			}
			pause(ctx, s.waits[s.chunks()])
		}
	}
}

// asyncioOrder is the reference's order for the batch: asyncio.gather over
// one task per call, one thread. The tasks start in call order; a task runs
// until it awaits; an awaiting task joins the back of the ready queue when
// its wait ends; events come out as they are produced. Since the engine
// reads a Go tool's wait by its silence, each wait w is played as p of
// work holding the loop and then a wait for the rest (w > p); p → 0 is the
// reference's order itself. ends are the moments the waits end. ok is
// false when two moments coincide (a wait ending together with another,
// or with the end of a p): the order is then up to the clock, in the
// reference as here.
func asyncioOrder(calls []toolScript, p time.Duration) (order []string, ends []time.Duration, ok bool) {
	type timer struct {
		at   time.Duration
		task int
	}
	type task struct {
		started bool
		k       int  // the next chunk (chunks(): the return)
		waited  bool // the wait before k is over
	}
	var (
		now    time.Duration
		ready  []int
		timers []timer
		tasks  = make([]task, len(calls))
		seen   = map[time.Duration]bool{}
	)
	ok = true
	mark := func(t time.Duration) {
		if seen[t] {
			ok = false
		}
		seen[t] = true
	}
	run := func(i int) {
		s, ts, id := calls[i], &tasks[i], fmt.Sprintf("c%d", i)
		if !ts.started {
			ts.started = true
			order = append(order, "START("+id+")")
		}
		for {
			if s.waits[ts.k] == yieldNow && !ts.waited {
				// asyncio.sleep(0): to the back of the ready queue now,
				// ahead of the timers that end later.
				ts.waited = true
				ready = append(ready, i)
				return
			}
			if w := s.waits[ts.k]; w > 0 && !ts.waited {
				// Await: p of work, then the rest of the wait off the loop.
				ts.waited = true
				timers = append(timers, timer{now + w, i})
				ends = append(ends, now+w)
				mark(now + w)
				if p > 0 {
					now += p
					mark(now)
				}
				return
			}
			ts.waited = false
			if ts.k == s.chunks() {
				order = append(order, "END("+id+")")
				return
			}
			order = append(order, fmt.Sprintf("DELTA(%s:%s.%d)", id, s.name, ts.k))
			ts.k++
		}
	}
	for i := range calls {
		ready = append(ready, i)
	}
	for len(ready) > 0 || len(timers) > 0 {
		slices.SortFunc(timers, func(a, b timer) int { return int(a.at - b.at) })
		if len(ready) == 0 {
			now = max(now, timers[0].at)
		}
		for len(timers) > 0 && timers[0].at <= now {
			ready = append(ready, timers[0].task)
			timers = timers[1:]
		}
		i := ready[0]
		ready = ready[1:]
		run(i)
	}
	return order, ends, ok
}

// batchOrder runs the batch through the agent on synctest's clock and
// returns its tool-result events.
func batchOrder(t *testing.T, calls []toolScript, p time.Duration) []string {
	t.Helper()
	var got []string
	synctest.Test(t, func(t *testing.T) {
		var tools []tool.Tool
		var steps []scripted.Step
		for i, s := range calls {
			tools = append(tools, makeTool(t, toolSpec{name: s.name, concurrent: true, body: s.body()}))
			steps = append(steps, scripted.ToolCall(fmt.Sprintf("c%d", i), s.name, `{}`))
		}
		a, _ := newAgent(t, []scripted.Turn{scripted.Reply(steps...), scripted.Reply(scripted.Text("done"))}, tools,
			preemption(p))
		r := mustReply(t, a, user("go"))
		for _, e := range r.events {
			switch e := e.(type) {
			case *event.ToolResultStart:
				got = append(got, "START("+e.ToolCallID+")")
			case *event.ToolResultTextDelta:
				got = append(got, "DELTA("+e.ToolCallID+":"+e.Delta+")")
			case *event.ToolResultEnd:
				got = append(got, "END("+e.ToolCallID+")")
			}
		}
	})
	return got
}

// The events of a concurrent batch come out in the reference's order for
// any batch size and any mix of plain and streaming tools, waiting or not
// before each chunk and before returning. The tools are plain Go.
func TestConcurrentBatchOrder(t *testing.T) {
	for _, p := range []time.Duration{20 * time.Millisecond, time.Millisecond} { // the default, and a short one
		t.Run(p.String(), func(t *testing.T) { testBatchOrder(t, p) })
	}
}

func testBatchOrder(t *testing.T, p time.Duration) {
	rng := rand.New(rand.NewPCG(7, uint64(p)))
	// A quarter of the segments do not wait, a quarter yield without
	// waiting (asyncio.sleep(0)); the others wait longer than p, to the
	// microsecond, so that moments rarely coincide.
	wait := func() time.Duration {
		switch rng.IntN(4) {
		case 0:
			return 0
		case 1:
			return yieldNow
		}
		return p + time.Duration(1+rng.IntN(200_000))*time.Microsecond
	}
	cases, kept := 0, 0
	for n := 1; n <= 8; n++ {
		for mix := range 1 << n { // bit i set: call i streams
			for variant := range 2 {
				cases++
				calls := make([]toolScript, n)
				for i := range calls {
					chunks := 1
					if mix&(1<<i) != 0 {
						chunks = 2 + rng.IntN(3)
					}
					s := toolScript{name: fmt.Sprintf("t%d", i)}
					for range chunks + 1 {
						s.waits = append(s.waits, wait())
					}
					calls[i] = s
				}
				want, _, ok := asyncioOrder(calls, p)
				if !ok {
					continue // two moments coincide: no single right order
				}
				kept++
				got := batchOrder(t, calls, p)
				if !slices.Equal(got, want) {
					t.Fatalf("n=%d mix=%b variant=%d %v\n got: %v\nwant: %v", n, mix, variant, calls, got, want)
				}

			}
		}
	}
	t.Logf("%d of %d generated batches checked (the others have coinciding moments)", kept, cases)
	if kept < cases*3/4 {
		t.Fatalf("only %d of %d generated batches had a single right order", kept, cases)
	}
}

// The documented shortcut: when the reference's waits end further apart
// than p times the number of waits in the batch, the order is the
// reference's own (the model with p = 0), not only its p-shifted variant.
func TestConcurrentBatchOrderFarApartWaits(t *testing.T) {
	const p = 20 * time.Millisecond
	rng := rand.New(rand.NewPCG(11, 3))
	// Sparse, widely spread waits (synctest's clock makes long ones free).
	wait := func() time.Duration {
		if rng.IntN(2) == 0 {
			return 0
		}
		return p + time.Duration(1+rng.IntN(10_000))*time.Millisecond
	}
	checked := 0
	for attempt := 0; checked < 100 && attempt < 20_000; attempt++ {
		calls := make([]toolScript, 1+rng.IntN(6))
		for i := range calls {
			s := toolScript{name: fmt.Sprintf("t%d", i)}
			for range 2 + rng.IntN(3)*rng.IntN(2) { // plain (one chunk) or streaming
				s.waits = append(s.waits, wait())
			}
			calls[i] = s
		}
		ref, ends, ok := asyncioOrder(calls, 0)
		if !ok || !spreadOver(ends, time.Duration(len(ends))*p) {
			continue
		}
		checked++
		if got := batchOrder(t, calls, p); !slices.Equal(got, ref) {
			t.Fatalf("%v: the waits end more than %d×p apart, yet\n got: %v\nwant: %v", calls, len(ends), got, ref)
		}
	}
	if checked < 100 {
		t.Fatalf("only %d generated batches had their waits end far enough apart", checked)
	}
}

// The reference model itself, on the shared trace parallel_concurrent_tools
// (a streamer awaiting between its chunks beside an instant echo) and on
// hand-computed orders.
func TestAsyncioOrderModel(t *testing.T) {
	const p = 20 * time.Millisecond
	ms := time.Millisecond
	for _, tc := range []struct {
		calls []toolScript
		want  string
	}{
		{[]toolScript{{"s", []time.Duration{0, 100 * ms, 100 * ms, 0}}, {"e", []time.Duration{0, 0}}},
			"START(c0) DELTA(c0:s.0) START(c1) DELTA(c1:e.0) END(c1) DELTA(c0:s.1) DELTA(c0:s.2) END(c0)"},
		{[]toolScript{{"a", []time.Duration{0, 0, 0}}, {"b", []time.Duration{0, 0}}},
			"START(c0) DELTA(c0:a.0) DELTA(c0:a.1) END(c0) START(c1) DELTA(c1:b.0) END(c1)"},
		// asyncio.sleep(0) round-robins: eight calls, three of them
		// streaming with a yield between their chunks, the others plain.
		{[]toolScript{{"s", []time.Duration{0, yieldNow, 0}}, {"p", []time.Duration{0, 0}}, {"p", []time.Duration{0, 0}},
			{"s", []time.Duration{0, yieldNow, 0}}, {"p", []time.Duration{0, 0}}, {"p", []time.Duration{0, 0}},
			{"s", []time.Duration{0, yieldNow, 0}}, {"p", []time.Duration{0, 0}}},
			"START(c0) DELTA(c0:s.0) START(c1) DELTA(c1:p.0) END(c1) START(c2) DELTA(c2:p.0) END(c2) " +
				"START(c3) DELTA(c3:s.0) START(c4) DELTA(c4:p.0) END(c4) START(c5) DELTA(c5:p.0) END(c5) " +
				"START(c6) DELTA(c6:s.0) START(c7) DELTA(c7:p.0) END(c7) " +
				"DELTA(c0:s.1) END(c0) DELTA(c3:s.1) END(c3) DELTA(c6:s.1) END(c6)"},
		// a waits 90 from 0, b 40 from 20 (after a's p): b resumes at 60
		// and waits 70 more before returning (until 130, after a's 90).
		{[]toolScript{{"a", []time.Duration{90 * ms, 0}}, {"b", []time.Duration{40 * ms, 70 * ms}}},
			"START(c0) START(c1) DELTA(c1:b.0) DELTA(c0:a.0) END(c0) END(c1)"},
	} {
		got, _, ok := asyncioOrder(tc.calls, p)
		if !ok || strings.Join(got, " ") != tc.want {
			t.Fatalf("%v: ok=%v\n got: %s\nwant: %s", tc.calls, ok, strings.Join(got, " "), tc.want)
		}
		if got := batchOrder(t, tc.calls, p); strings.Join(got, " ") != tc.want {
			t.Fatalf("%v: the engine gives\n%s\nwant: %s", tc.calls, strings.Join(got, " "), tc.want)
		}
	}
}

// spreadOver reports whether the moments lie more than d apart.
func spreadOver(moments []time.Duration, d time.Duration) bool {
	m := slices.Sorted(slices.Values(moments))
	for i := 1; i < len(m); i++ {
		if m[i]-m[i-1] <= d {
			return false
		}
	}
	return true
}
