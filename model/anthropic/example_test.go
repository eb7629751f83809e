package anthropic_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/anthropic"
)

// A stand-in for api.anthropic.com that streams a short answer.
const answer = `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":12,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":", world."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}

event: message_stop
data: {"type":"message_stop"}

`

func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, answer)
	}))
	defer srv.Close()

	m := anthropic.New("claude-sonnet-4-20250514",
		anthropic.WithAPIKey("sk-ant-…"),
		anthropic.WithBaseURL(srv.URL), // omit for api.anthropic.com
		anthropic.WithMaxTokens(1024),
	)
	req := &model.Request{Messages: []*message.Msg{
		message.SystemText("system", "You are terse."),
		message.UserText("user", "Say hello."),
	}}
	acc := model.NewAccumulator(nil)
	for chunk, err := range m.Stream(context.Background(), req) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		for _, p := range chunk.Parts {
			fmt.Print(p.Text) // text as it streams
		}
		acc.Add(chunk)
	}
	u := acc.Usage()
	fmt.Printf("\n%s: %d in, %d out\n", m.Name(), u.InputTokens, u.OutputTokens)
	// Output:
	// Hello, world.
	// claude-sonnet-4-20250514: 12 in, 5 out
}
