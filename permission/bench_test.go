package permission_test

import (
	"context"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/permission"
)

// The agent checks every tool call; these are the two common paths of a
// generic tool: read-only fast path, and an allow rule learned earlier.
func BenchmarkCheck(b *testing.B) {
	ctx := context.Background()
	in := map[string]any{"input": "x"}
	b.Run("read-only", func(b *testing.B) {
		e := permission.NewEngine(nil)
		tool := permission.Defaults{ToolName: "t", IsReadOnly: true}
		b.ReportAllocs()
		for b.Loop() {
			e.Check(ctx, tool, in)
		}
	})
	b.Run("allow-rule", func(b *testing.B) {
		e := engineWith(permission.ModeDefault, rule("t", "", block.Allow))
		tool := permission.Defaults{ToolName: "t"}
		b.ReportAllocs()
		for b.Loop() {
			e.Check(ctx, tool, in)
		}
	})
	b.Run("ask", func(b *testing.B) {
		e := permission.NewEngine(nil)
		tool := permission.Defaults{ToolName: "t"}
		b.ReportAllocs()
		for b.Loop() {
			e.Check(ctx, tool, in)
		}
	})
}
