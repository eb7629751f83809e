package gemini

import (
	"bytes"
	"fmt"
	"log/slog"
	"runtime"
	"testing"

	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
	"github.com/agentscope-go/agentscope/stamp"
)

// benchDecode measures stream parsing alone (no HTTP): ns and allocations
// per SSE chunk of body.
func benchDecode(b *testing.B, body []byte) {
	events := bytes.Count(body, []byte("data: "))
	src := &stamp.Fixed{Time: "t"}
	ids := func() string { return "call" }
	var ms0, ms1 runtime.MemStats
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	runtime.ReadMemStats(&ms0)
	for b.Loop() {
		decode(bytes.NewReader(body), src, ids, slog.Default(), func(model.Chunk, error) bool { return true })
	}
	runtime.ReadMemStats(&ms1)
	n := float64(b.N * events)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/chunk")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/n, "allocs/chunk")
}

func BenchmarkDecodeFixtureTextTrailingSignature(b *testing.B) {
	benchDecode(b, wiretest.Wire(b, "gemini3_stream_text_trailing_signature.sse"))
}

func BenchmarkDecodeText1000(b *testing.B) {
	var chunks []string
	for i := range 1000 {
		chunks = append(chunks, chunkJSON(fmt.Sprintf(`{"text":"word %d "}`, i), "", 10, 10+i))
	}
	chunks = append(chunks, chunkJSON(`{"text":"end"}`, "STOP", 10, 1011))
	benchDecode(b, sse(chunks...))
}
