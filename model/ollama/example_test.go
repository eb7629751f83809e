package ollama_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/ollama"
)

// A stand-in for a local Ollama server answering with a tool call.
const answer = `{"model":"llama3.2","created_at":"2025-07-07T20:22:19Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Tokyo"}}}]},"done":false}
{"model":"llama3.2","created_at":"2025-07-07T20:22:19Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"prompt_eval_count":169,"eval_count":15}
`

func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		fmt.Fprint(w, answer)
	}))
	defer srv.Close()

	m := ollama.New("llama3.2",
		ollama.WithBaseURL(srv.URL), // omit for http://localhost:11434
		ollama.WithKeepAlive("10m"),
		ollama.WithCallIDs(func() string { return "call_1" }),
	)
	req := &model.Request{
		Messages: []*message.Msg{message.UserText("user", "What is the weather in Tokyo?")},
		Tools: []model.ToolSchema{{Name: "get_weather", Description: "Get the weather in a city",
			Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}},
	}
	acc := model.NewAccumulator(nil)
	for chunk, err := range m.Stream(context.Background(), req) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		for _, p := range chunk.Parts {
			fmt.Println(p.Kind, p.ID, p.Name, p.Text)
		}
		acc.Add(chunk)
	}
	u := acc.Usage()
	fmt.Printf("%d in, %d out\n", u.InputTokens, u.OutputTokens)
	// Output:
	// tool_call call_1 get_weather {"city":"Tokyo"}
	// 169 in, 15 out
}
