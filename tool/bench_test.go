package tool_test

import (
	"context"
	"fmt"
	"iter"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/tool"
)

// BenchmarkFuncCall is one tool call as the agent makes it: resolve, parse
// and validate the arguments, run the Func tool (decode into its struct,
// convert the result), fold the response.
func BenchmarkFuncCall(b *testing.B) {
	add, err := tool.Func("add_numbers", "Add two numbers together.",
		func(_ context.Context, in addArgs) (string, error) {
			return fmt.Sprintf("Result: %d", in.A+in.B), nil
		})
	if err != nil {
		b.Fatal(err)
	}
	tk, _ := tool.NewToolkit([]tool.Tool{add})
	call := &block.ToolCall{ID: "call_1", Name: "add_numbers", Input: `{"a": 3, "b": 5}`}
	r := &tool.Runner{}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		t, input, err := tk.Prepare(call, nil)
		if err != nil {
			b.Fatal(err)
		}
		res := r.Collect(ctx, call.ID, t, input)
		if res.State != block.ResultSuccess {
			b.Fatal(res.State)
		}
	}
}

// BenchmarkPrepare isolates argument parsing and validation.
func BenchmarkPrepare(b *testing.B) {
	add, _ := tool.Func("add_numbers", "Add.", func(_ context.Context, in addArgs) (string, error) { return "", nil })
	tk, _ := tool.NewToolkit([]tool.Tool{add})
	call := &block.ToolCall{ID: "call_1", Name: "add_numbers", Input: `{"a": 3, "b": 5}`}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := tk.Prepare(call, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunFunc isolates running a Func tool and folding its result.
func BenchmarkRunFunc(b *testing.B) {
	add, _ := tool.Func("add_numbers", "Add.", func(_ context.Context, in addArgs) (string, error) { return "ok", nil })
	input := map[string]any{"a": 3.0, "b": 5.0}
	r := &tool.Runner{}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res := r.Collect(ctx, "call_1", add, input)
		if res.State != block.ResultSuccess {
			b.Fatal(res.State)
		}
	}
}

// BenchmarkRunRaw isolates Run's own machinery with a tool that yields one
// prepared chunk.
func BenchmarkRunRaw(b *testing.B) {
	tl, _ := tool.New("raw", "d", emptySchema, func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) { yield(tool.Chunk{ID: "x"}, nil) }
	})
	r := &tool.Runner{}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for range r.Run(ctx, tl, nil) {
		}
	}
}

// BenchmarkNewToolkit builds a toolkit of the demo-sized set of tools, as
// a server does for every run: with the schemas cached after the first.
func BenchmarkNewToolkit(b *testing.B) {
	var ts []tool.Tool
	for i := range 6 {
		t, err := tool.Func(fmt.Sprintf("t%d", i), "A tool.", func(ctx context.Context, in struct {
			Path  string `json:"path"`
			Limit int    `json:"limit,omitempty"`
		}) (string, error) {
			return "", nil
		})
		if err != nil {
			b.Fatal(err)
		}
		ts = append(ts, t)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tool.NewToolkit(ts); err != nil {
			b.Fatal(err)
		}
	}
}
