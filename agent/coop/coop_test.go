package coop

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"
	"testing"
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

// A pause between chunks lets the ready siblings run first (the reference's
// parallel_concurrent_tools trace).
func TestPauseYieldsToSiblings(t *testing.T) {
	defer goleak.VerifyNone(t)
	streamer := func(ctx context.Context, send func(string) bool) {
		for i, c := range []string{"alpha", "beta", "gamma"} {
			if i > 0 {
				if Sleep(ctx, 0) != nil {
					return
				}
			}
			send(c)
		}
	}
	for range 50 {
		b := New[string](context.Background(), time.Second)
		b.Go(call("s", streamer))
		b.Go(call("e", instant("x")))
		got := drain(t, b)
		want := []string{"s:start", "s:alpha", "e:start", "e:x", "e:end", "s:beta", "s:gamma", "s:end"}
		if !slices.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	}
}

// Cancelling while every call sleeps: items already emitted are delivered,
// then the calls report in call order.
func TestCancelInCallOrder(t *testing.T) {
	defer goleak.VerifyNone(t)
	sleeper := func(ctx context.Context, send func(string) bool) {
		if err := Sleep(ctx, 10*time.Second); err != nil {
			send("interrupted")
			return
		}
		send("slept")
	}
	for range 30 {
		ctx, cancel := context.WithCancel(context.Background())
		b := New[string](ctx, time.Second)
		b.Go(call("a", sleeper))
		b.Go(call("b", sleeper))
		var got []string
		err := b.Drain(func(s string) bool {
			got = append(got, s)
			if s == "a:start" {
				cancel()
			}
			return true
		})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"a:start", "b:start", "a:interrupted", "a:end", "b:interrupted", "b:end"}
		if !slices.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	}
}

// A tool that blocks without announcing it is preempted: its sibling runs
// meanwhile and finishes first.
func TestUnannouncedBlockIsPreempted(t *testing.T) {
	defer goleak.VerifyNone(t)
	blocker := func(ctx context.Context, send func(string) bool) {
		time.Sleep(150 * time.Millisecond) // ignores the scheduler
		send("late")
	}
	b := New[string](context.Background(), 5*time.Millisecond)
	b.Go(call("slow", blocker))
	b.Go(call("fast", instant("x")))
	start := time.Now()
	got := drain(t, b)
	want := []string{"slow:start", "fast:start", "fast:x", "fast:end", "slow:late", "slow:end"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("batch took %v", el)
	}
}

// Stopping the consumer cancels the calls and leaves no goroutine behind.
func TestConsumerBreakCancels(t *testing.T) {
	defer goleak.VerifyNone(t)
	sleeper := func(ctx context.Context, send func(string) bool) {
		_ = Sleep(ctx, 10*time.Second)
		send("after")
	}
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
	if el := time.Since(start); el > time.Second {
		t.Fatalf("break took %v", el)
	}
}

func TestWorkerErrorsAndPanicsAreJoined(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := New[string](context.Background(), time.Second)
	boom := errors.New("boom")
	b.Go(func(context.Context, *Worker[string]) error { return boom })
	b.Go(func(context.Context, *Worker[string]) error { panic("kaput") })
	b.Go(call("ok", instant("1")))
	var got []string
	err := b.Drain(func(s string) bool { got = append(got, s); return true })
	if !errors.Is(err, boom) || !errors.Is(err, ErrPanicked) || !strings.Contains(err.Error(), "kaput") {
		t.Fatalf("err = %v", err)
	}
	if !slices.Equal(got, []string{"ok:start", "ok:1", "ok:end"}) {
		t.Fatalf("got %v", got)
	}
}

func TestSleepOutsideBatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	if err := Sleep(ctx, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	cancel()
	// A pending cancellation is reported even for a zero-length sleep.
	if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	done := Block(ctx)
	done()
}

func TestBlockPassesTheTurn(t *testing.T) {
	defer goleak.VerifyNone(t)
	gate := make(chan struct{})
	waiter := func(ctx context.Context, send func(string) bool) {
		done := Block(ctx)
		<-gate
		done()
		send("released")
	}
	opener := func(ctx context.Context, send func(string) bool) {
		close(gate)
		send("opened")
	}
	b := New[string](context.Background(), time.Hour)
	b.Go(call("w", waiter))
	b.Go(call("o", opener))
	got := drain(t, b)
	want := []string{"w:start", "o:start", "o:opened", "o:end", "w:released", "w:end"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

// A deferred cancellation lands at the next Sleep (even a zero one), or
// after the grace period for code that never waits.
func TestDeferCancel(t *testing.T) {
	defer goleak.VerifyNone(t)
	parent, cancel := context.WithCancel(context.Background())
	ctx, stop := DeferCancel(parent, time.Hour)
	cancel()
	if ctx.Err() != nil {
		t.Fatal("cancelled before the holder waited")
	}
	if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) || ctx.Err() == nil {
		t.Fatalf("Sleep: %v", err)
	}
	stop()

	parent, cancel = context.WithCancel(context.Background())
	ctx, stop = DeferCancel(parent, time.Hour)
	time.AfterFunc(10*time.Millisecond, cancel)
	start := time.Now()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Fatalf("Sleep during cancel: %v after %v", err, time.Since(start))
	}
	stop()

	parent, cancel = context.WithCancel(context.Background())
	ctx, stop = DeferCancel(parent, 20*time.Millisecond)
	cancel()
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("grace never expired")
	}
	stop()

	// Stopped before the parent is cancelled: nothing is left behind.
	parent, cancel = context.WithCancel(context.Background())
	_, stop = DeferCancel(parent, time.Hour)
	stop()
	cancel()
}
