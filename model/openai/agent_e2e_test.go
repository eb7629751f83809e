package openai_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/mockllm"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/openai"
	"github.com/agentscope-go/agentscope/tool"
)

// TestMockLLMAgentToolCall drives a whole agent reply through model/openai
// against the real third-party server: the model calls get_weather, the
// agent runs it, formats the result back (assistant tool_calls + role
// "tool"), and the server's answer quotes the tool message it received.
func TestMockLLMAgentToolCall(t *testing.T) {
	base := mockllm.URL(t) + "/v1"
	// mock-llm streams only message.content, so tool calls come back in
	// whole (stream:false) responses.
	m := openai.New("mock-model", openai.WithProfile(openai.ProfileCompatible),
		openai.WithBaseURL(base), openai.WithStream(false))

	type weatherIn struct {
		City string `json:"city" description:"the city"`
	}
	var mu sync.Mutex
	var cities []string
	weather, err := tool.Func("get_weather", "Current weather for a city",
		func(ctx context.Context, in weatherIn) (string, error) {
			mu.Lock()
			cities = append(cities, in.City)
			mu.Unlock()
			return "21 C and sunny in " + in.City, nil
		},
		tool.WithReadOnlyCheck(func(map[string]any) bool { return true }))
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tool.NewToolkit([]tool.Tool{weather})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{Name: "Friday", Model: m, Toolkit: tk, SystemPrompt: "You answer weather questions."})
	if err != nil {
		t.Fatal(err)
	}

	var res agent.Result
	var types []string
	var calls []*event.ToolCallStart
	var end *event.ReplyEnd
	for ev, err := range a.Stream(t.Context(), []*message.Msg{message.UserText("user", "What is the "+mockllm.WeatherPhrase+" in Paris?")}, agent.WithResult(&res)) {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, string(ev.Type()))
		switch e := ev.(type) {
		case *event.ToolCallStart:
			calls = append(calls, e)
		case *event.ReplyEnd:
			end = e
		}
	}

	if !slices.Equal(cities, []string{"Paris"}) {
		t.Errorf("tool ran for %v", cities)
	}
	if len(calls) != 1 || calls[0].ToolCallID != "call_e2e_weather" || calls[0].ToolCallName != "get_weather" {
		t.Errorf("tool calls %+v", calls)
	}
	if n := countOf(types, "MODEL_CALL_START"); n != 2 {
		t.Errorf("%d model calls: %v", n, types)
	}
	if end == nil || end.FinishedReason != event.ReplyCompleted || res.Outcome != agent.OutcomeCompleted {
		t.Fatalf("reply ended %+v, outcome %q", end, res.Outcome)
	}
	// The answer quotes the tool message the server received, so the
	// result went back as role "tool" under the model's call id.
	text, _ := res.Msg.TextContent("")
	if want := "Tool call_e2e_weather answered for get_weather: 21 C and sunny in Paris"; !containsText(res.Msg, want) {
		t.Errorf("final text %q, want %q", text, want)
	}
	var results []*block.ToolResult
	st, err := a.State()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range st.Context[len(st.Context)-1].Content {
		if r, ok := b.(*block.ToolResult); ok {
			results = append(results, r)
		}
	}
	if len(results) != 1 || results[0].ID != "call_e2e_weather" || results[0].State != block.ResultSuccess {
		t.Errorf("stored results %+v", results)
	}
	if u := res.Msg.Usage; u == nil || u.InputTokens != 21+40 || u.OutputTokens != 9+12 {
		t.Errorf("usage %+v", u)
	}
}

func countOf(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}

func containsText(m *message.Msg, s string) bool {
	for _, b := range m.Content {
		if t, ok := b.(*block.Text); ok && t.Text == s {
			return true
		}
	}
	return false
}
