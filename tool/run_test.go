package tool_test

import (
	"bytes"
	"context"
	"errors"
	"iter"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/tool"
)

func body(f func(ctx context.Context, yield func(tool.Chunk, error) bool)) tool.CallFunc {
	return func(ctx context.Context, _ map[string]any) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) { f(ctx, yield) }
	}
}

type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.b.Write(p) }
func (l *logBuf) String() string              { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func TestRunTurnsPanicsIntoErrorResults(t *testing.T) {
	var logs logBuf
	r := &tool.Runner{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	p := must(t)(tool.New("p", "d", emptySchema, body(func(_ context.Context, yield func(tool.Chunk, error) bool) {
		if yield(tool.Text("before"), nil) {
			panic("boom")
		}
	})))
	got := collect(r.Run(context.Background(), p, nil))
	if len(got) != 2 || texts(got)[1] != "panic: boom" || got[1].State != block.ResultError {
		t.Fatalf("chunks %q", texts(got))
	}
	if !strings.Contains(logs.String(), "tool panicked") || !strings.Contains(logs.String(), "run_test.go") {
		t.Fatalf("panic not logged with its stack: %s", logs.String())
	}
	// A panicking middleware and a panic inside Func are handled the same.
	mw := func(context.Context, tool.Tool, map[string]any, tool.Handler) iter.Seq2[tool.Chunk, error] {
		panic(errors.New("mw exploded"))
	}
	res := r.Collect(context.Background(), "c", streaming(t, 1), nil)
	if res.State != block.ResultSuccess {
		t.Fatal(res.AppendJSON(nil))
	}
	res = (&tool.Runner{Middlewares: []tool.Middleware{mw}, Logger: r.Logger}).Collect(context.Background(), "c", streaming(t, 1), nil)
	if res.State != block.ResultError || textOf(res.Content[0]) != "panic: mw exploded" {
		t.Fatal(res.AppendJSON(nil))
	}
	f := must(t)(tool.Func("f", "d", func(context.Context, struct{}) (string, error) {
		var m map[string]int
		m["x"] = 1 // nil map write
		return "", nil
	}))
	res = r.Collect(context.Background(), "c", f, nil)
	if res.State != block.ResultError || !strings.HasPrefix(textOf(res.Content[0]), "panic: assignment to entry in nil map") {
		t.Fatal(res.AppendJSON(nil))
	}
}

// A tool that honours ctx: the chunks before the cancellation, then the
// interrupted result; the tool's goroutine is gone when Run returns.
func TestRunCancellationWithCooperativeTool(t *testing.T) {
	var exited sync.WaitGroup
	exited.Add(1)
	coop := must(t)(tool.New("coop", "d", emptySchema, body(func(ctx context.Context, yield func(tool.Chunk, error) bool) {
		defer exited.Done()
		if !yield(tool.Text("first"), nil) {
			return
		}
		<-ctx.Done()
		yield(tool.Chunk{}, ctx.Err())
	})))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &tool.Runner{Grace: time.Hour} // a cooperative tool never needs the grace
	var got []tool.Chunk
	for c := range r.Run(ctx, coop, nil) {
		got = append(got, c)
		cancel()
	}
	if len(got) != 2 || texts(got)[0] != "first" || texts(got)[1] != tool.InterruptedText || got[1].State != block.ResultInterrupted {
		t.Fatalf("chunks %q", texts(got))
	}
	exited.Wait() // returned already: Run waited for it
	resp := tool.NewResponse("c", nil)
	for _, c := range got {
		_ = resp.Append(c)
	}
	if resp.State != block.ResultInterrupted || textOf(resp.Content[0]) != "first"+tool.InterruptedText {
		t.Fatalf("response %s", resp.AppendJSON(nil))
	}
}

// A tool that ignores ctx cannot hang the caller: Run returns with the
// interrupted result while the tool is still blocked, and what the tool
// produces later is discarded.
func TestRunAbandonsToolThatIgnoresCancellation(t *testing.T) {
	release := make(chan struct{})
	late := make(chan bool, 1)
	stubborn := must(t)(tool.New("stubborn", "d", emptySchema, body(func(_ context.Context, yield func(tool.Chunk, error) bool) {
		if !yield(tool.Text("first"), nil) {
			return
		}
		<-release // ignores ctx
		late <- yield(tool.Text("late"), nil)
	})))
	var logs logBuf
	r := &tool.Runner{Grace: time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	for c := range r.Run(ctx, stubborn, nil) {
		got = append(got, texts([]tool.Chunk{c})...)
		cancel()
	}
	// Reaching this line while the tool is still blocked is the point.
	if len(got) != 2 || got[1] != tool.InterruptedText {
		t.Fatalf("chunks %q", got)
	}
	if !strings.Contains(logs.String(), "abandoning") {
		t.Fatalf("abandonment not logged: %s", logs.String())
	}
	close(release)
	if <-late {
		t.Fatal("a chunk produced after abandonment was accepted")
	}
	// TestMain's leak check confirms the goroutine then exits.
}

// Cancelled while the tool is blocked before its first chunk.
func TestRunCancelledBeforeFirstChunk(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	blocked := must(t)(tool.New("blocked", "d", emptySchema, body(func(_ context.Context, yield func(tool.Chunk, error) bool) {
		close(started)
		<-release
		yield(tool.Text("never seen"), nil)
	})))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	got := collect((&tool.Runner{Grace: time.Millisecond, Logger: slog.New(slog.DiscardHandler)}).Run(ctx, blocked, nil))
	if len(got) != 1 || got[0].State != block.ResultInterrupted {
		t.Fatalf("chunks %q", texts(got))
	}
	close(release)
}

func TestRunWithDoneContextDoesNotCallTheTool(t *testing.T) {
	called := false
	tl := must(t)(tool.New("t", "d", emptySchema, body(func(context.Context, func(tool.Chunk, error) bool) { called = true })))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := collect(tool.Run(ctx, tl, nil))
	if called || len(got) != 1 || got[0].State != block.ResultInterrupted {
		t.Fatalf("called=%v chunks %q", called, texts(got))
	}
}

// Breaking out of the loop stops the tool like a cancellation.
func TestRunStopsToolWhenCallerStops(t *testing.T) {
	stopped := make(chan error, 1)
	endless := must(t)(tool.New("endless", "d", emptySchema, body(func(ctx context.Context, yield func(tool.Chunk, error) bool) {
		for yield(tool.Text("x"), nil) {
		}
		stopped <- ctx.Err()
	})))
	n := 0
	for range tool.Run(context.Background(), endless, nil) {
		if n++; n == 3 {
			break
		}
	}
	select {
	case <-stopped: // the tool saw its yield return false and returned
	default:
		t.Fatal("Run returned before the tool stopped")
	}
}

func TestRunErrorKinds(t *testing.T) {
	// The tool's own cancellation of a sub-context is an error, not an
	// interruption: only the caller's ctx interrupts.
	own := must(t)(tool.New("own", "d", emptySchema, body(func(_ context.Context, yield func(tool.Chunk, error) bool) {
		yield(tool.Chunk{}, context.Canceled)
	})))
	res := (&tool.Runner{}).Collect(context.Background(), "c", own, nil)
	if res.State != block.ResultError || textOf(res.Content[0]) != "context canceled" {
		t.Fatal(res.AppendJSON(nil))
	}
	ext := must(t)(tool.New("ext", "d", emptySchema, nil, tool.External()))
	res = (&tool.Runner{}).Collect(context.Background(), "c", ext, nil)
	if res.State != block.ResultError || textOf(res.Content[0]) != "ext is an external tool and should not be called directly" {
		t.Fatal(res.AppendJSON(nil))
	}
	for _, err := range ext.Call(context.Background(), nil) {
		if !errors.Is(err, tool.ErrExternal) {
			t.Fatalf("external Call: %v", err)
		}
	}
	if _, err := tool.New("nobody", "d", emptySchema, nil); err == nil {
		t.Fatal("a local tool without a body was accepted")
	}
}

func TestRunStampsIDs(t *testing.T) {
	tl := must(t)(tool.New("t", "d", emptySchema, chunks(
		tool.Text("a"),
		tool.Chunk{ID: "mine", Content: []block.Block{&block.Text{ID: "b1", Text: "b"}}},
	)))
	got := collect((&tool.Runner{Stamp: seqStamp()}).Run(context.Background(), tl, nil))
	if got[0].ID == "" || got[0].Content[0].BlockID() == "" || got[0].Content[0].(*block.Text).CreatedAt == "" {
		t.Fatalf("not stamped: %s", got[0].AppendJSON(nil))
	}
	if got[1].ID != "mine" || got[1].Content[0].BlockID() != "b1" {
		t.Fatalf("given ids replaced: %s", got[1].AppendJSON(nil))
	}
}

// A chunk that cannot be folded ends the call with an error, as in the
// reference.
func TestCollectMergeFailure(t *testing.T) {
	u, _ := block.NewURL("image/png", "https://example.com/a.png")
	tl := must(t)(tool.New("t", "d", emptySchema, chunks(
		tool.Chunk{Content: []block.Block{&block.Data{ID: "u", Source: u}}},
		tool.Chunk{Content: []block.Block{&block.Data{ID: "u", Source: u}}},
		tool.Text("never folded"),
	)))
	res := (&tool.Runner{}).Collect(context.Background(), "c", tl, nil)
	if res.State != block.ResultError || len(res.Content) != 2 || !strings.Contains(textOf(res.Content[1]), "URL source") {
		t.Fatal(string(res.AppendJSON(nil)))
	}
}

// Runs on many goroutines share one Runner (run with -race).
func TestRunConcurrently(t *testing.T) {
	r := &tool.Runner{Stamp: seqStamp()}
	add := funcTools(t)["add_numbers"]
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			res := r.Collect(context.Background(), "c", add, map[string]any{"a": float64(i), "b": 1.0})
			if res.State != block.ResultSuccess {
				t.Error(string(res.AppendJSON(nil)))
			}
		})
	}
	wg.Wait()
}
