package agent_test

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

// Concurrent batches of plain Go tools that sleep (context-aware or not),
// stream with pauses or return at once, cancelled at random points or not at all: every reply
// ends, every tool call gets a result, nothing leaks.
func TestConcurrentBatchStress(t *testing.T) {
	defer goleak.VerifyNone(t)
	mixed := makeTool(t, toolSpec{name: "mixed", concurrent: true, body: func(ctx context.Context, in map[string]any) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) {
			kind, _ := in["input"].(string)
			switch kind {
			case "sleep":
				if err := sleepCtx(ctx, time.Duration(rand.IntN(3))*time.Millisecond); err != nil {
					yield(tool.Chunk{}, err)
					return
				}
			case "stream":
				for i := range 3 {
					if sleepCtx(ctx, time.Duration(rand.IntN(2))*time.Millisecond) != nil || !yield(tool.Text(fmt.Sprint(i)), nil) {
						return
					}
				}
			case "block":
				time.Sleep(2 * time.Millisecond)
			}
			yield(tool.Text(kind), nil)
		}
	}})
	kinds := []string{"sleep", "stream", "block", "now"}
	for round := range 40 {
		var calls []scripted.Step
		n := 2 + rand.IntN(6)
		for i := range n {
			calls = append(calls, scripted.ToolCall(fmt.Sprintf("c%d", i), "mixed", `{"input": "`+kinds[rand.IntN(len(kinds))]+`"}`))
		}
		a, _ := newAgent(t, []scripted.Turn{scripted.Reply(calls...), scripted.Reply(scripted.Text("done"))}, []tool.Tool{mixed},
			preemption(time.Millisecond))
		cancelAt := -1
		if round%2 == 1 {
			cancelAt = 3 + rand.IntN(2*n)
		}
		seen := 0
		r := cancelAfter(t, a, user("go"), func(event.Event) bool { seen++; return seen == cancelAt })
		if r.err != nil {
			t.Fatalf("round %d: %v", round, r.err)
		}
		if r.res.Outcome != agent.OutcomeCompleted && r.res.Outcome != agent.OutcomeInterrupted {
			t.Fatalf("round %d: outcome %s", round, r.res.Outcome)
		}
		results := map[string]bool{}
		for _, b := range stateOf(t, a).Tail().Content {
			if res, ok := b.(*block.ToolResult); ok {
				if results[res.ID] {
					t.Fatalf("round %d: two results for %s", round, res.ID)
				}
				results[res.ID] = true
			}
		}
		for i := range n {
			if !results[fmt.Sprintf("c%d", i)] {
				t.Fatalf("round %d: c%d has no result (%s)", round, i, r.kinds())
			}
		}
	}
}
