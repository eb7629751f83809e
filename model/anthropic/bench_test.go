package anthropic

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
	"github.com/agentscope-go/agentscope/stamp"
)

// benchDecode measures stream parsing alone (no HTTP): ns and allocations
// per SSE event of body.
func benchDecode(b *testing.B, body []byte) {
	events := bytes.Count(body, []byte("\ndata: ")) + bytes.Count(body[:6], []byte("data: "))
	src := &stamp.Fixed{Time: "t"}
	var ms0, ms1 runtime.MemStats
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	runtime.ReadMemStats(&ms0)
	for b.Loop() {
		decode(bytes.NewReader(body), src, func(model.Chunk, error) bool { return true })
	}
	runtime.ReadMemStats(&ms1)
	n := float64(b.N * events)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/chunk")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/n, "allocs/chunk")
}

func BenchmarkDecodeFixtureThinkingToolUse(b *testing.B) {
	benchDecode(b, wiretest.Wire(b, "anthropic_messages_stream_thinking_tool_use.sse"))
}

func BenchmarkDecodeText1000(b *testing.B) {
	ev := []string{evStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`}
	for i := range 1000 {
		ev = append(ev, fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word %d "}}`, i))
	}
	ev = append(ev, `{"type":"content_block_stop","index":0}`, `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1000}}`, evStop)
	body := sse(ev...)
	if !strings.HasPrefix(string(body), "event: ") {
		b.Fatal("bad body")
	}
	benchDecode(b, body)
}
