package agent_test

import (
	"context"
	"fmt"
	"iter"
	"testing"

	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

// BenchmarkBatch is one reply whose model calls 4 concurrency-safe tools
// at once, each streaming 3 chunks without waiting, then answers: the cost
// of running a concurrent batch in the reference's order.
func BenchmarkBatch(b *testing.B) {
	streamer := makeTool(b, toolSpec{name: "streamer", concurrent: true, body: func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) {
			for i := range 3 {
				if !yield(tool.Text(fmt.Sprint(i)), nil) {
					return
				}
			}
		}
	}})
	var calls []scripted.Step
	for i := range 4 {
		calls = append(calls, scripted.ToolCall(fmt.Sprintf("c%d", i), "streamer", `{}`))
	}
	runReplies(b, []scripted.Turn{scripted.Reply(calls...), textTurn(1)}, []tool.Tool{streamer}, nil)
}
