package ollama

import (
	"bytes"
	"testing"

	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
	"github.com/agentscope-go/agentscope/stamp"
)

func FuzzDecode(f *testing.F) {
	f.Add(wiretest.Wire(f, "ollama_chat_stream_tool_call.ndjson"))
	f.Add(ndjson(msgLine(`"content":"","thinking":"t"`), msgLine(`"content":"x","tool_calls":[{"function":{"name":"f","arguments":"{\"a\":1}"}}]`), doneLine))
	f.Add(ndjson(`{"error":"boom"}`))
	src := &stamp.Fixed{Time: "t"}
	f.Fuzz(func(t *testing.T, body []byte) {
		wiretest.CheckDecode(t, func(yield func(model.Chunk, error) bool) {
			decode(bytes.NewReader(body), src, func() string { return "call" }, yield)
		})
	})
}
