package agui_test

import (
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/server/agui"
)

// The cost of the AG-UI translation per event, for the events a reply is
// mostly made of: a streamed token, and a tool result's text delta (a
// CUSTOM, the native event inside).
func BenchmarkTranslate(b *testing.B) {
	token := &event.TextBlockDelta{Base: event.Base{ID: "e1", CreatedAt: "2026-08-22T09:14:04.514079"}, ReplyID: "bb467d73dedc490b9f7beab116fc4d7a", BlockID: "9df13bdd539543f4bcc9bd96bed5135d", Delta: "the files here; "}
	result := &event.ToolResultTextDelta{Base: event.Base{ID: "e2", CreatedAt: "2026-08-22T09:14:04.514079"}, ReplyID: "bb467d73dedc490b9f7beab116fc4d7a", ToolCallID: "call_0a1b2c", Delta: "-rw-r--r-- 1 friday staff 1024 Aug 22 09:14 notes.md\n"}
	end := &event.ToolResultEnd{ReplyID: "bb467d73dedc490b9f7beab116fc4d7a", ToolCallID: "call_0a1b2c", State: block.ResultSuccess}
	for _, c := range []struct {
		name   string
		events []event.Event
	}{{"token", []event.Event{token}}, {"tool-result", []event.Event{result, end}}} {
		b.Run("stream/"+c.name, func(b *testing.B) {
			conv := agui.NewConverter()
			buf := make([]byte, 0, 4096)
			b.ReportAllocs()
			for b.Loop() {
				for _, e := range c.events {
					buf = conv.Append(buf[:0], e)
				}
			}
		})
		b.Run("run/"+c.name, func(b *testing.B) {
			run := agui.NewRun("t", "r")
			buf := make([]byte, 0, 4096)
			run.Append(buf, &event.TextBlockStart{ReplyID: token.ReplyID, BlockID: token.BlockID})
			b.ReportAllocs()
			for b.Loop() {
				for _, e := range c.events {
					buf = run.Append(buf[:0], e)
				}
			}
		})
	}
}
