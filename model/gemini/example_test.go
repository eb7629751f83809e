package gemini_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/gemini"
)

// A stand-in for generativelanguage.googleapis.com: a thought summary,
// then a function call carrying its thought signature.
const answer = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"The user wants the time.\",\"thought\":true}]},\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":20,\"totalTokenCount\":31}}\r\n\r\n" +
	"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"fc1\",\"name\":\"clock\",\"args\":{}},\"thoughtSignature\":\"c2lnbmF0dXJl\"}]},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":20,\"totalTokenCount\":40}}\r\n\r\n"

func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, answer)
	}))
	defer srv.Close()

	m := gemini.New("gemini-3-pro-preview",
		gemini.WithAPIKey("AIza…"),
		gemini.WithBaseURL(srv.URL), // omit for the Gemini API
		gemini.WithThinkingLevel("HIGH"),
	)
	req := &model.Request{
		Messages: []*message.Msg{message.UserText("user", "What time is it?")},
		Tools:    []model.ToolSchema{{Name: "clock", Description: "Tell the time"}},
	}
	acc := model.NewAccumulator(nil)
	for chunk, err := range m.Stream(context.Background(), req) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		for _, p := range chunk.Parts {
			fmt.Printf("%s %q\n", p.Kind, p.Text)
		}
		acc.Add(chunk)
	}
	// The reply, kept with its signature, is what the next request echoes.
	u := acc.Usage()
	fmt.Printf("%d blocks; %d in, %d out\n", len(acc.Content()), u.InputTokens, u.OutputTokens)
	// Output:
	// thinking "The user wants the time."
	// tool_call "{}"
	// 2 blocks; 20 in, 20 out
}
