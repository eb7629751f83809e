package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/openai"
)

// fakeServer stands in for api.openai.com (or any compatible server).
func fakeServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"Short answer.\"}}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\", world\"},\"finish_reason\":\"stop\"}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":5}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
}

func ExampleNew() {
	srv := fakeServer()
	defer srv.Close()

	// A local vLLM / llama.cpp server; for OpenAI itself use the default
	// profile and WithAPIKey.
	m := openai.New("qwen3-8b",
		openai.WithProfile(openai.ProfileCompatible),
		openai.WithBaseURL(srv.URL+"/v1"),
	)
	req := &model.Request{Messages: []*message.Msg{
		message.SystemText("system", "You are terse."),
		message.UserText("user", "Say hello."),
	}}
	for chunk, err := range m.Stream(context.Background(), req) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		for _, p := range chunk.Parts {
			fmt.Printf("%s %q\n", p.Kind, p.Text)
		}
		if chunk.Usage != nil {
			fmt.Println("usage:", chunk.Usage.InputTokens, chunk.Usage.OutputTokens)
		}
	}
	// Output:
	// thinking "Short answer."
	// text "Hello"
	// text ", world"
	// usage: 12 5
}

func ExampleNewResponses() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":\"weather\",\"arguments\":\"\"}}\n\n")
		fmt.Fprint(w, "event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_1\",\"delta\":\"{\\\"city\\\":\\\"Rome\\\"}\"}\n\n")
		fmt.Fprint(w, "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":30,\"output_tokens\":9}}}\n\n")
	}))
	defer srv.Close()

	// Zero data retention: nothing stored server-side, reasoning replayed
	// from its encrypted content.
	m := openai.NewResponses("o4-mini", openai.WithBaseURL(srv.URL+"/v1"),
		openai.WithStore(false), openai.WithEncryptedReasoning())
	acc := model.NewAccumulator(nil)
	for chunk, err := range m.Stream(context.Background(), &model.Request{
		Messages: []*message.Msg{message.UserText("user", "Weather in Rome?")},
		Tools:    []model.ToolSchema{{Name: "weather", Description: "Current weather"}},
	}) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		acc.Add(chunk)
	}
	for _, b := range acc.Content() {
		fmt.Println(string(b.Kind()), b.BlockID())
	}
	// Output:
	// tool_call call_1
}
