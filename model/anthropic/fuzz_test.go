package anthropic

import (
	"bytes"
	"testing"

	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
	"github.com/agentscope-go/agentscope/stamp"
)

func FuzzDecode(f *testing.F) {
	f.Add(wiretest.Wire(f, "anthropic_messages_stream_thinking_tool_use.sse"))
	f.Add(wiretest.Wire(f, "anthropic_messages_stream_parallel_tool_use.sse"))
	f.Add(okBody)
	f.Add(sse(evStart, `{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"x"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}`,
		`{"type":"error","error":{"type":"api_error","message":"m"}}`))
	src := &stamp.Fixed{Time: "t"}
	f.Fuzz(func(t *testing.T, body []byte) {
		wiretest.CheckDecode(t, func(yield func(model.Chunk, error) bool) { decode(bytes.NewReader(body), src, yield) })
	})
}
