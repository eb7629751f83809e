package tool_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/tool"
)

// recorder logs middleware events.
type recorder struct {
	mu  sync.Mutex
	log []string
}

func (r *recorder) add(s string) { r.mu.Lock(); r.log = append(r.log, s); r.mu.Unlock() }

func (r *recorder) logging(name string) tool.Middleware {
	return func(ctx context.Context, t tool.Tool, input map[string]any, next tool.Handler) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) {
			r.add(name + "-pre")
			for c, err := range next(ctx, input) {
				if !yield(c, err) {
					return
				}
			}
			r.add(name + "-post")
		}
	}
}

// nonStreaming answers "call() kwargs=<sorted input>".
func nonStreaming(t *testing.T, calls *int, mws ...tool.Middleware) tool.Tool {
	return must(t)(tool.New("non_streaming_tool", "d", emptySchema,
		func(_ context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) {
				*calls++
				var parts []string
				for _, k := range slices.Sorted(maps.Keys(input)) {
					parts = append(parts, fmt.Sprintf("'%s': '%v'", k, input[k]))
				}
				yield(tool.Text("call() kwargs={"+strings.Join(parts, ", ")+"}"), nil)
			}
		}, tool.WithMiddleware(mws...)))
}

func streaming(t *testing.T, n int, mws ...tool.Middleware) tool.Tool {
	return must(t)(tool.New("streaming_tool", "d", emptySchema,
		func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) {
				for i := range n {
					if !yield(tool.Text(fmt.Sprintf("chunk-%d", i)), nil) {
						return
					}
				}
			}
		}, tool.WithMiddleware(mws...)))
}

func callTexts(t *testing.T, tl tool.Tool, input map[string]any) ([]string, error) {
	t.Helper()
	var out []string
	for c, err := range tl.Call(context.Background(), input) {
		if err != nil {
			return out, err
		}
		out = append(out, texts([]tool.Chunk{c})...)
	}
	return out, nil
}

// TK-19..TK-23.
func TestToolMiddlewareOnion(t *testing.T) {
	var calls int
	got, err := callTexts(t, nonStreaming(t, &calls), map[string]any{})
	if err != nil || !slices.Equal(got, []string{"call() kwargs={}"}) {
		t.Fatalf("TK-19: %q %v", got, err)
	}
	got, _ = callTexts(t, streaming(t, 3), nil)
	if !slices.Equal(got, []string{"chunk-0", "chunk-1", "chunk-2"}) {
		t.Fatalf("TK-20: %q", got)
	}

	var r recorder
	got, _ = callTexts(t, nonStreaming(t, &calls, r.logging("outer"), r.logging("inner")), map[string]any{})
	if len(got) != 1 || !slices.Equal(r.log, []string{"outer-pre", "inner-pre", "inner-post", "outer-post"}) {
		t.Fatalf("TK-21: %q %v", got, r.log)
	}
	r = recorder{}
	_, _ = callTexts(t, nonStreaming(t, &calls, r.logging("only")), map[string]any{})
	if !slices.Equal(r.log, []string{"only-pre", "only-post"}) {
		t.Fatalf("TK-22: %v", r.log)
	}
	r = recorder{}
	got, _ = callTexts(t, streaming(t, 3, r.logging("mw")), nil)
	if len(got) != 3 || !slices.Equal(r.log, []string{"mw-pre", "mw-post"}) {
		t.Fatalf("TK-23: %q %v", got, r.log)
	}
}

// TK-24: next receives exactly what the middleware passes.
func TestToolMiddlewareRewritesInput(t *testing.T) {
	inject := func(ctx context.Context, _ tool.Tool, input map[string]any, next tool.Handler) iter.Seq2[tool.Chunk, error] {
		in := maps.Clone(input)
		in["injected"] = "value"
		return next(ctx, in)
	}
	var calls int
	got, _ := callTexts(t, nonStreaming(t, &calls, inject), map[string]any{"original": "x"})
	if !slices.Equal(got, []string{"call() kwargs={'injected': 'value', 'original': 'x'}"}) {
		t.Fatalf("%q", got)
	}
	// Passing a different map drops what is not passed: no merging.
	replace := func(ctx context.Context, _ tool.Tool, _ map[string]any, next tool.Handler) iter.Seq2[tool.Chunk, error] {
		return next(ctx, map[string]any{"only": "this"})
	}
	got, _ = callTexts(t, nonStreaming(t, &calls, replace), map[string]any{"original": "x"})
	if !slices.Equal(got, []string{"call() kwargs={'only': 'this'}"}) {
		t.Fatalf("%q", got)
	}
}

// TK-25..TK-27.
func TestToolMiddlewareTransformShortCircuitFail(t *testing.T) {
	upper := func(ctx context.Context, _ tool.Tool, input map[string]any, next tool.Handler) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) {
			for c, err := range next(ctx, input) {
				if err == nil {
					c = tool.Text(strings.ToUpper(texts([]tool.Chunk{c})[0]))
				}
				if !yield(c, err) {
					return
				}
			}
		}
	}
	got, _ := callTexts(t, streaming(t, 2, upper), nil)
	if !slices.Equal(got, []string{"CHUNK-0", "CHUNK-1"}) {
		t.Fatalf("TK-25: %q", got)
	}

	short := func(context.Context, tool.Tool, map[string]any, tool.Handler) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) { yield(tool.Text("short-circuited"), nil) }
	}
	var calls int
	got, _ = callTexts(t, nonStreaming(t, &calls, short), nil)
	if calls != 0 || !slices.Equal(got, []string{"short-circuited"}) {
		t.Fatalf("TK-26: calls=%d %q", calls, got)
	}

	boom := errors.New("boom")
	failing := func(context.Context, tool.Tool, map[string]any, tool.Handler) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) { yield(tool.Chunk{}, boom) }
	}
	tl := nonStreaming(t, &calls, failing)
	if _, err := callTexts(t, tl, nil); !errors.Is(err, boom) {
		t.Fatalf("TK-27: %v", err)
	}
	// Through Run the failure becomes the error result.
	res := (&tool.Runner{}).Collect(context.Background(), "c", tl, nil)
	if res.State != block.ResultError || textOf(res.Content[0]) != "boom" {
		t.Fatalf("Run: %s", res.AppendJSON(nil))
	}
}

// Runner middlewares wrap the tool's own, first = outermost; Chain
// composes the same way.
func TestRunnerMiddlewaresOutsideToolMiddlewares(t *testing.T) {
	var r recorder
	var calls int
	tl := nonStreaming(t, &calls, r.logging("tool1"), r.logging("tool2"))
	run := &tool.Runner{Middlewares: []tool.Middleware{r.logging("run1"), r.logging("run2")}}
	if res := run.Collect(context.Background(), "c", tl, map[string]any{}); res.State != block.ResultSuccess {
		t.Fatal(res.AppendJSON(nil))
	}
	want := []string{"run1-pre", "run2-pre", "tool1-pre", "tool2-pre", "tool2-post", "tool1-post", "run2-post", "run1-post"}
	if !slices.Equal(r.log, want) {
		t.Fatalf("%v", r.log)
	}
	r = recorder{}
	for range tool.Chain(tl, r.logging("a"))(context.Background(), nil) {
	}
	if !slices.Equal(r.log, []string{"a-pre", "tool1-pre", "tool2-pre", "tool2-post", "tool1-post", "a-post"}) {
		t.Fatalf("Chain: %v", r.log)
	}
}

// The middleware sees the tool being called.
func TestMiddlewareSeesTool(t *testing.T) {
	var seen string
	mw := func(ctx context.Context, tl tool.Tool, input map[string]any, next tool.Handler) iter.Seq2[tool.Chunk, error] {
		seen = tl.Name()
		return next(ctx, input)
	}
	for range tool.Run(context.Background(), streaming(t, 1), nil, mw) {
	}
	if seen != "streaming_tool" {
		t.Fatalf("seen %q", seen)
	}
}
