package openai_test

import (
	"testing"

	"github.com/agentscope-go/agentscope/internal/mockllm"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/openai"
)

// TestMockLLMAdapter talks to the real third-party server: a streamed echo,
// and a whole (stream:false) response carrying a tool call, which is the
// only way mock-llm returns calls.
func TestMockLLMAdapter(t *testing.T) {
	base := mockllm.URL(t) + "/v1"
	m := openai.New("mock-model", openai.WithProfile(openai.ProfileCompatible), openai.WithBaseURL(base))
	r := drain(t, m.Stream(ctx(t), &model.Request{Messages: []*message.Msg{message.UserText("", "streaming through mock-llm works")}}))
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.chunks < 2 {
		t.Errorf("%d chunks: the echo should stream in pieces", r.chunks)
	}
	checkContent(t, r.acc.Content(), "", "streaming through mock-llm works", nil)

	whole := openai.New("mock-model", openai.WithProfile(openai.ProfileCompatible), openai.WithBaseURL(base), openai.WithStream(false))
	r = drain(t, whole.Stream(ctx(t), &model.Request{
		Messages: []*message.Msg{message.UserText("", "what is the "+mockllm.WeatherPhrase+" in Paris?")},
		Tools:    []model.ToolSchema{weatherTool},
	}))
	if r.err != nil {
		t.Fatal(r.err)
	}
	checkContent(t, r.acc.Content(), "", "", []wantCall{{"call_e2e_weather", "get_weather", `{"city":"Paris"}`}})
	if u := r.acc.Usage(); u == nil || *u != (message.Usage{InputTokens: 21, OutputTokens: 9}) {
		t.Errorf("usage %+v", u)
	}
}
