package gemini

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
	"github.com/agentscope-go/agentscope/stamp"
)

func FuzzDecode(f *testing.F) {
	for _, n := range []string{"gemini25_stream_parallel_function_calls", "gemini25_stream_thought_then_function_call",
		"gemini3_stream_function_call_id_and_signature", "gemini3_stream_text_trailing_signature"} {
		f.Add(wiretest.Wire(f, n+".sse"))
	}
	f.Add(sse(chunkJSON(`{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},{"text":"a","thoughtSignature":"s"}`, "STOP", 1, 2)))
	f.Add(sse(`{"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED"}}`))
	src := &stamp.Fixed{Time: "t"}
	f.Fuzz(func(t *testing.T, body []byte) {
		wiretest.CheckDecode(t, func(yield func(model.Chunk, error) bool) {
			decode(bytes.NewReader(body), src, func() string { return "call" }, slog.New(slog.DiscardHandler), yield)
		})
	})
}
