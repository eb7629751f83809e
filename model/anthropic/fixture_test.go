package anthropic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
	"github.com/agentscope-go/agentscope/stamp"
)

var (
	weatherTool = model.ToolSchema{Name: "weather", Description: "Get weather information for a location",
		Parameters: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string","description":"the city"}},"required":["location"]}`)}
	addTool = model.ToolSchema{Name: "add", Description: "Add two numbers",
		Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer","description":"first number"},"b":{"type":"integer","description":"second number"}},"required":["a","b"]}`)}
	mulTool = model.ToolSchema{Name: "multiply", Description: "Multiply two numbers",
		Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer","description":"first number"},"b":{"type":"integer","description":"second number"}},"required":["a","b"]}`)}
	auto = &model.ToolChoice{Mode: model.ChoiceAuto}
)

// replay serves a recorded stream and returns the chunks, the accumulated
// reply and the request the adapter sent.
func replay(t *testing.T, name string, m func(base string) *Model, req *model.Request) ([]model.Chunk, *model.Accumulator, wiretest.Request) {
	t.Helper()
	srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", wiretest.Wire(t, name+".sse")))
	chunks, err := wiretest.Collect(m(srv.URL).Stream(context.Background(), req))
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	return chunks, wiretest.Accumulate(t, chunks), reqs[0]
}

func resultBlock(id, name, text string) *block.ToolResult {
	return &block.ToolResult{ID: id, Name: name, Output: block.BlocksBody(block.NewText(text)), State: block.ResultSuccess}
}

func TestFixtureThinkingToolUse(t *testing.T) {
	const name = "anthropic_messages_stream_thinking_tool_use"
	newModel := func(base string) *Model {
		return New("claude-sonnet-4-20250514", WithBaseURL(base), WithAPIKey("sk-test"),
			WithMaxTokens(4096), WithThinking(4000), WithStamp(stamp.NewSequence(time.Unix(0, 0))))
	}
	sys := message.SystemText("system", "You are a helpful assistant")
	user := message.UserText("user", "What's the weather in Florence, Italy?")
	req := &model.Request{Messages: []*message.Msg{sys, user}, Tools: []model.ToolSchema{weatherTool}, ToolChoice: auto}

	chunks, acc, sent := replay(t, name, newModel, req)

	// The request: path, headers, and the recorded body.
	if sent.Path != "/v1/messages" || sent.Header.Get("x-api-key") != "sk-test" || sent.Header.Get("anthropic-version") != APIVersion {
		t.Fatalf("request %s headers %v", sent.Path, sent.Header)
	}
	wiretest.EqualJSON(t, sent.Body, wiretest.Wire(t, name+".request.json"))

	// Block boundaries: one thinking id, then the tool call; the name comes
	// first, alone; the signature arrives as an extra on the thinking id;
	// the empty input_json_delta and empty thinking_delta are absorbed.
	var kinds []string
	var thinkingIDs = map[string]bool{}
	var args []string
	for _, c := range chunks {
		for _, p := range c.Parts {
			switch p.Kind {
			case model.PartThinking:
				thinkingIDs[p.ID] = true
				if p.Text == "" && len(p.Extra) == 0 {
					t.Errorf("empty thinking part")
				}
			case model.PartToolCall:
				if p.ID != "toolu_01Js4AMfx5qpTLhwTusnvT68" {
					t.Errorf("tool id %q", p.ID)
				}
				if p.Name != "" {
					kinds = append(kinds, "start:"+p.Name)
				} else {
					args = append(args, p.Text)
				}
			}
		}
	}
	if len(thinkingIDs) != 1 || len(kinds) != 1 || kinds[0] != "start:weather" {
		t.Fatalf("thinking ids %v, tool starts %v", thinkingIDs, kinds)
	}
	if strings.Join(args, "") != `{"location": "Florence, Italy"}` || args[0] != `{"` {
		t.Fatalf("argument fragments %q", args)
	}
	// Usage: message_start, then the cumulative message_delta (last wins).
	first, last := chunks[0].Usage, acc.Usage()
	if first == nil || first.InputTokens != 424 || first.OutputTokens != 5 {
		t.Fatalf("first usage %+v", first)
	}
	if *last != (message.Usage{InputTokens: 424, OutputTokens: 119}) {
		t.Fatalf("final usage %+v", last)
	}

	// The next turn: the reply rebuilt by the accumulator plus the tool
	// result formats into the recorded next request, signature included.
	content := append(acc.Content(), resultBlock("toolu_01Js4AMfx5qpTLhwTusnvT68", "weather", "40 C"))
	reply, err := message.AssistantMsg("assistant", content)
	if err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, reply)
	body, err := newModel("http://unused").RequestBody(req)
	if err != nil {
		t.Fatal(err)
	}
	wiretest.EqualJSON(t, body, wiretest.Wire(t, name+".next_request.json"))
}

func TestFixtureParallelToolUse(t *testing.T) {
	const name = "anthropic_messages_stream_parallel_tool_use"
	newModel := func(base string) *Model {
		return New("claude-sonnet-4-20250514", WithBaseURL(base), WithMaxTokens(4000))
	}
	sys := message.SystemText("system", "You are a helpful assistant. Always use both add and multiply at the same time.")
	user := message.UserText("user", "Add and multiply the number 2 and 3")
	req := &model.Request{Messages: []*message.Msg{sys, user}, Tools: []model.ToolSchema{addTool, mulTool}, ToolChoice: auto}

	chunks, acc, sent := replay(t, name, newModel, req)
	wiretest.EqualJSON(t, sent.Body, wiretest.Wire(t, name+".request.json"))

	// Text, then two calls each with its own id and name.
	content := acc.Content()
	if len(content) != 3 {
		t.Fatalf("%d blocks", len(content))
	}
	txt, a, b := content[0].(*block.Text), content[1].(*block.ToolCall), content[2].(*block.ToolCall)
	if txt.Text != "I'll add and multiply the numbers 2 and 3 for you." {
		t.Fatalf("text %q", txt.Text)
	}
	if a.ID != "toolu_01UYxUYC2zRPY8wiutnF48eP" || a.Name != "add" || a.Input != `{"a": 2, "b": 3}` ||
		b.ID != "toolu_01VaRx1jpWCvPhi7L4kywAcd" || b.Name != "multiply" || b.Input != `{"a": 2, "b": 3}` {
		t.Fatalf("calls %+v %+v", a, b)
	}
	if u := acc.Usage(); *u != (message.Usage{InputTokens: 502, OutputTokens: 137}) {
		t.Fatalf("usage %+v", u)
	}
	_ = chunks

	// Both results go back in one user message.
	content = append(content, resultBlock(a.ID, "add", "5"), resultBlock(b.ID, "multiply", "6"))
	reply, _ := message.AssistantMsg("assistant", content)
	req.Messages = append(req.Messages, reply)
	body, err := newModel("http://unused").RequestBody(req)
	if err != nil {
		t.Fatal(err)
	}
	wiretest.EqualJSON(t, body, wiretest.Wire(t, name+".next_request.json"))
}
