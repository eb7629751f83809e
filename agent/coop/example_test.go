package coop_test

import (
	"context"
	"fmt"
	"time"

	"github.com/agentscope-go/agentscope/agent/coop"
)

// Two calls of one batch: the first waits through Sleep, so the second's
// items come in between; the stream order is that of the reference's
// asyncio tasks.
func ExampleBatch() {
	b := coop.New[string](context.Background(), 0)
	b.Go(func(ctx context.Context, w *coop.Worker[string]) error {
		w.Emit("slow: start")
		w.EnterTool()
		_ = coop.Sleep(w.ToolContext(), 10*time.Millisecond)
		w.LeaveTool()
		w.Emit("slow: done")
		return nil
	})
	b.Go(func(ctx context.Context, w *coop.Worker[string]) error {
		w.Emit("fast: start")
		w.Emit("fast: done")
		return nil
	})
	_ = b.Drain(func(s string) bool { fmt.Println(s); return true })
	// Output:
	// slow: start
	// fast: start
	// fast: done
	// slow: done
}
