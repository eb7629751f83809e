package ollama

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
)

var weatherTool = model.ToolSchema{Name: "get_weather", Description: "Get the weather in a given city",
	Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"The city to get the weather for"}},"required":["city"]}`)}

func bodyOf(t *testing.T, m *Model, req *model.Request) []byte {
	t.Helper()
	b, err := m.RequestBody(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFixtureStreamToolCall(t *testing.T) {
	const name = "ollama_chat_stream_tool_call"
	srv := wiretest.NewServer(t, wiretest.Body("application/x-ndjson", wiretest.Wire(t, name+".ndjson")))
	n := 0
	m := New("llama3.2", WithBaseURL(srv.URL), WithCallIDs(func() string { n++; return "call_" + string(rune('0'+n)) }))
	req := &model.Request{Messages: []*message.Msg{message.UserText("user", "what is the weather in tokyo?")}, Tools: []model.ToolSchema{weatherTool}}
	chunks, err := wiretest.Collect(m.Stream(context.Background(), req))
	if err != nil {
		t.Fatal(err)
	}
	sent := srv.Requests()
	if len(sent) != 1 || sent[0].Path != "/api/chat" {
		t.Fatalf("requests %+v", sent)
	}
	wiretest.EqualJSON(t, sent[0].Body, wiretest.Wire(t, name+".request.json"))

	// The call arrives whole with an object for arguments and no id; the
	// token counts only on done:true.
	if len(chunks) != 2 || len(chunks[0].Parts) != 1 || chunks[0].Usage != nil {
		t.Fatalf("chunks %+v", chunks)
	}
	p := chunks[0].Parts[0]
	if p.Kind != model.PartToolCall || p.ID != "call_1" || p.Name != "get_weather" || p.Text != `{"city":"Tokyo"}` {
		t.Fatalf("part %+v", p)
	}
	acc := wiretest.Accumulate(t, chunks)
	if u := acc.Usage(); *u != (message.Usage{InputTokens: 169, OutputTokens: 15}) {
		t.Fatalf("usage %+v", u)
	}

	// The next turn echoes the call on an assistant message and answers it
	// with a role:"tool" message naming the tool.
	reply, _ := message.AssistantMsg("assistant", append(acc.Content(),
		&block.ToolResult{ID: "call_1", Name: "get_weather", Output: block.PlainBody("22 degrees celsius"), State: block.ResultSuccess}))
	req.Messages = append(req.Messages, reply)
	var got struct{ Messages json.RawMessage }
	json.Unmarshal(bodyOf(t, m, req), &got)
	wiretest.EqualJSON(t, got.Messages, []byte(`[{"role":"user","content":"what is the weather in tokyo?"},
	  {"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Tokyo"}}}]},
	  {"role":"tool","content":"22 degrees celsius","tool_name":"get_weather"}]`))
}

// The documented history request. It was recorded with "stream": false
// (a non-streaming call); the adapter always streams, so that one key is
// compared separately.
func TestFixtureToolResultHistory(t *testing.T) {
	reply, _ := message.AssistantMsg("assistant", []block.Block{
		&block.ToolCall{ID: "call_x", Name: "get_weather", Input: `{"city": "Toronto"}`},
		&block.ToolResult{ID: "call_x", Name: "get_weather", Output: block.BlocksBody(block.NewText("11 degrees celsius")), State: block.ResultSuccess},
	})
	req := &model.Request{Messages: []*message.Msg{message.UserText("user", "what is the weather in Toronto?"), reply}, Tools: []model.ToolSchema{weatherTool}}
	got, err := fixture.Parse(bodyOf(t, New("llama3.2"), req))
	if err != nil {
		t.Fatal(err)
	}
	g := got.(map[string]any)
	if g["stream"] != true {
		t.Fatalf("stream = %v", g["stream"])
	}
	g["stream"] = false
	b, _ := json.Marshal(g)
	wiretest.EqualJSON(t, b, wiretest.Wire(t, "ollama_chat_tool_result_history.request.json"))
}
