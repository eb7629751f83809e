package coop

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

// tool runs body on its own goroutine, like tool.Runner does, and streams
// what it sends (kept in lockstep with the worker, as the agent does).
// Breaking out of the loop cancels the body.
func tool(ctx context.Context, body func(ctx context.Context, send func(string) bool)) iter.Seq[string] {
	return func(yield func(string) bool) {
		ctx, cancel := context.WithCancel(ctx)
		ch := make(chan string)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer close(ch)
			seq := func(y func(string, error) bool) { body(ctx, func(s string) bool { return y(s, nil) }) }
			for c := range Lockstep(ctx, seq) {
				select {
				case ch <- c:
				case <-stop:
					return
				}
			}
		}()
		defer func() { cancel(); close(stop); <-done }()
		for s := range ch {
			if !yield(s) {
				return
			}
		}
	}
}

// call is a worker that emits start, runs body as its tool (emitting each
// chunk), then emits end.
func call(name string, body func(ctx context.Context, send func(string) bool)) func(context.Context, *Worker[string]) error {
	return func(ctx context.Context, w *Worker[string]) error {
		w.Emit(name + ":start")
		w.EnterTool()
		for c := range tool(w.ToolContext(), body) {
			if !w.LeaveTool() {
				return nil
			}
			w.Emit(name + ":" + c)
			w.EnterTool()
		}
		if !w.LeaveTool() {
			return nil
		}
		w.Emit(name + ":end")
		return nil
	}
}

func instant(chunks ...string) func(context.Context, func(string) bool) {
	return func(_ context.Context, send func(string) bool) {
		for _, c := range chunks {
			send(c)
		}
	}
}

func drain(t *testing.T, b *Batch[string]) []string {
	t.Helper()
	var got []string
	if err := b.Drain(func(s string) bool { got = append(got, s); return true }); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestInstantCallsKeepCallOrder(t *testing.T) {
	defer goleak.VerifyNone(t)
	for range 50 {
		b := New[string](context.Background(), time.Second)
		b.Go(call("a", instant("1", "2")))
		b.Go(call("b", instant("1")))
		b.Go(call("c", instant()))
		got := drain(t, b)
		want := []string{"a:start", "a:1", "a:2", "a:end", "b:start", "b:1", "b:end", "c:start", "c:end"}
		if !slices.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	}
}

// wait is how plain Go tools wait here: time.Sleep, unaware of the
// scheduler (the tests run in synctest bubbles, whose clock advances only
// when every goroutine is blocked, so the order does not depend on how
// busy the machine is).
func wait(d time.Duration) { time.Sleep(d) }

const p = 20 * time.Millisecond // the preemption period of the tests

// A wait between chunks lets the ready siblings run first (the reference's
// parallel_concurrent_tools trace, whose streamer awaits between chunks).
func TestWaitYieldsToSiblings(t *testing.T) {
	defer goleak.VerifyNone(t)
	synctest.Test(t, func(t *testing.T) {
		streamer := func(_ context.Context, send func(string) bool) {
			for i, c := range []string{"alpha", "beta", "gamma"} {
				if i > 0 {
					wait(3 * p)
				}
				send(c)
			}
		}
		b := New[string](context.Background(), p)
		b.Go(call("s", streamer))
		b.Go(call("e", instant("x")))
		got := drain(t, b)
		want := []string{"s:start", "s:alpha", "e:start", "e:x", "e:end", "s:beta", "s:gamma", "s:end"}
		if !slices.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	})
}

// Calls resume in the order their waits end, whatever the call order; a
// wait before the first chunk and one before the return count alike.
func TestCallsResumeWhenTheirWaitsEnd(t *testing.T) {
	defer goleak.VerifyNone(t)
	synctest.Test(t, func(t *testing.T) {
		b := New[string](context.Background(), p)
		b.Go(call("a", func(_ context.Context, send func(string) bool) { wait(9 * p); send("1") }))
		b.Go(call("b", func(_ context.Context, send func(string) bool) { wait(4 * p); send("1"); wait(7 * p) }))
		b.Go(call("c", instant("1")))
		got := drain(t, b)
		// b's first chunk at 4p+p (it started after a was preempted), a's
		// at 9p, b's return at 12p.
		want := []string{"a:start", "b:start", "c:start", "c:1", "c:end", "b:1", "a:1", "a:end", "b:end"}
		if !slices.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	})
}

// A wait shorter than the preemption period counts as work: the call keeps
// the turn (this is the documented limit of reading blocking by silence).
func TestShortWaitKeepsTheTurn(t *testing.T) {
	defer goleak.VerifyNone(t)
	synctest.Test(t, func(t *testing.T) {
		b := New[string](context.Background(), p)
		b.Go(call("a", func(_ context.Context, send func(string) bool) { send("1"); wait(p / 2); send("2") }))
		b.Go(call("b", instant("1")))
		got := drain(t, b)
		want := []string{"a:start", "a:1", "a:2", "a:end", "b:start", "b:1", "b:end"}
		if !slices.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	})
}

// Computation that does not block keeps the turn however long it takes on
// the clock of a bubble (where only blocking lets time pass); outside one,
// a segment longer than the period would be preempted.
func TestBusyToolKeepsTheTurn(t *testing.T) {
	defer goleak.VerifyNone(t)
	synctest.Test(t, func(t *testing.T) {
		busy := func(_ context.Context, send func(string) bool) {
			n := 0
			for i := range 200000 {
				n += i % 7
			}
			send(strconv.Itoa(n % 10))
		}
		b := New[string](context.Background(), p)
		b.Go(call("a", busy))
		b.Go(call("b", instant("1")))
		got := drain(t, b)
		if len(got) != 6 || !strings.HasPrefix(got[1], "a:") || got[2] != "a:end" || got[3] != "b:start" {
			t.Fatalf("got %v", got)
		}
	})
}

func sleeper(ctx context.Context, send func(string) bool) {
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case <-t.C:
		send("slept")
	case <-ctx.Done():
		send("interrupted")
	}
}

// Cancelling while every call waits: items already emitted are delivered,
// then the calls report in call order.
func TestCancelInCallOrder(t *testing.T) {
	defer goleak.VerifyNone(t)
	for range 10 {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b := New[string](ctx, p)
			b.Go(call("a", sleeper))
			b.Go(call("b", sleeper))
			b.Go(call("c", sleeper))
			var got []string
			err := b.Drain(func(s string) bool {
				got = append(got, s)
				if s == "c:start" {
					cancel()
				}
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"a:start", "b:start", "c:start", "a:interrupted", "a:end", "b:interrupted", "b:end", "c:interrupted", "c:end"}
			if !slices.Equal(got, want) {
				t.Fatalf("got %v\nwant %v", got, want)
			}
		})
	}
}

// The same on the real clock, with the tools' waits ending in reverse call
// order while they are cancelled.
func TestCancelInCallOrderRealClock(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := New[string](ctx, 5*time.Millisecond)
	b.Go(call("a", sleeper))
	b.Go(call("b", sleeper))
	var got []string
	err := b.Drain(func(s string) bool {
		got = append(got, s)
		if s == "b:start" {
			cancel()
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a:start", "b:start", "a:interrupted", "a:end", "b:interrupted", "b:end"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

// Stopping the consumer cancels the calls and leaves no goroutine behind.
func TestConsumerBreakCancels(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := New[string](context.Background(), time.Second)
	b.Go(call("a", sleeper))
	b.Go(call("b", sleeper))
	var got []string
	start := time.Now()
	err := b.Drain(func(s string) bool { got = append(got, s); return false })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"a:start"}) {
		t.Fatalf("got %v", got)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("break took %v", el)
	}
}

func TestWorkerErrorsAreJoined(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := New[string](context.Background(), time.Second)
	boom, bang := errors.New("boom"), errors.New("bang")
	b.Go(func(context.Context, *Worker[string]) error { return boom })
	b.Go(func(context.Context, *Worker[string]) error { return bang })
	b.Go(call("ok", instant("1")))
	var got []string
	err := b.Drain(func(s string) bool { got = append(got, s); return true })
	if !errors.Is(err, boom) || !errors.Is(err, bang) {
		t.Fatalf("err = %v", err)
	}
	if !slices.Equal(got, []string{"ok:start", "ok:1", "ok:end"}) {
		t.Fatalf("got %v", got)
	}
}

// A deferred cancellation lands grace after the parent's, or when the
// context is released.
func TestDeferCancel(t *testing.T) {
	defer goleak.VerifyNone(t)
	synctest.Test(t, func(t *testing.T) {
		parent, cancel := context.WithCancel(context.Background())
		ctx, stop := DeferCancel(parent, p)
		cancel()
		synctest.Wait()
		if ctx.Err() != nil {
			t.Fatal("cancelled at once")
		}
		start := time.Now()
		<-ctx.Done()
		if el := time.Since(start); el != p {
			t.Fatalf("cancelled after %v, want %v", el, p)
		}
		stop()

		// Released before the parent is cancelled: nothing is left behind.
		parent, cancel = context.WithCancel(context.Background())
		ctx, stop = DeferCancel(parent, time.Hour)
		stop()
		if ctx.Err() == nil {
			t.Fatal("stop did not release the context")
		}
		cancel()
	})
}

// A tool stays paused after each chunk until its worker asks for the next
// one, as an async generator does at its yield: while the worker emits a
// chunk's items, the tool has not gone on to its next segment.
func TestToolWaitsForItsWorker(t *testing.T) {
	defer goleak.VerifyNone(t)
	var progressed atomic.Int32 // chunks the tool has gone past
	body := func(_ context.Context, send func(string) bool) {
		for i := range 5 {
			if !send(strconv.Itoa(i)) {
				return
			}
			progressed.Store(int32(i + 1))
		}
	}
	b := New[string](context.Background(), time.Second)
	b.Go(func(ctx context.Context, w *Worker[string]) error {
		w.EnterTool()
		i := 0
		for c := range tool(w.ToolContext(), body) {
			if !w.LeaveTool() {
				return nil
			}
			time.Sleep(time.Millisecond) // room for a tool running ahead
			if got := progressed.Load(); got != int32(i) {
				return fmt.Errorf("at chunk %s the tool had gone past %d chunks", c, got)
			}
			w.Emit(c)
			i++
			w.EnterTool()
		}
		w.LeaveTool()
		return nil
	})
	if got := drain(t, b); !slices.Equal(got, []string{"0", "1", "2", "3", "4"}) {
		t.Fatalf("got %v", got)
	}
}
