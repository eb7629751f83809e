package ollama

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
	"github.com/agentscope-go/agentscope/stamp"
)

// benchDecode measures stream parsing alone (no HTTP): ns and allocations
// per NDJSON line of body.
func benchDecode(b *testing.B, body []byte) {
	lines := bytes.Count(body, []byte("\n"))
	src := &stamp.Fixed{Time: "t"}
	ids := func() string { return "call" }
	var ms0, ms1 runtime.MemStats
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	runtime.ReadMemStats(&ms0)
	for b.Loop() {
		decode(bytes.NewReader(body), src, ids, func(model.Chunk, error) bool { return true })
	}
	runtime.ReadMemStats(&ms1)
	n := float64(b.N * lines)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/chunk")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/n, "allocs/chunk")
}

func BenchmarkDecodeFixtureToolCall(b *testing.B) {
	benchDecode(b, wiretest.Wire(b, "ollama_chat_stream_tool_call.ndjson"))
}

func BenchmarkDecodeText1000(b *testing.B) {
	var lines []string
	for i := range 1000 {
		lines = append(lines, msgLine(fmt.Sprintf(`"content":"word %d "`, i)))
	}
	benchDecode(b, ndjson(append(lines, doneLine)...))
}
