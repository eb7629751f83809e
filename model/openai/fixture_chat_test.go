package openai_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/openai"
)

var weatherTool = model.ToolSchema{
	Name:        "weather",
	Description: "Get weather information for a location",
	Parameters:  json.RawMessage(`{"properties":{"location":{"description":"the city","type":"string"}},"required":["location"],"type":"object"}`),
}

func numberTool(name, desc string) model.ToolSchema {
	return model.ToolSchema{
		Name: name, Description: desc,
		Parameters: json.RawMessage(`{"properties":{"a":{"description":"first number","type":"integer"},"b":{"description":"second number","type":"integer"}},"required":["a","b"],"type":"object"}`),
	}
}

// wantCall is an expected tool call in the accumulated reply.
type wantCall struct{ id, name, input string }

// chatFixture is one recorded Chat Completions call.
type chatFixture struct {
	name       string
	opts       []openai.Option
	model      string
	system     string
	user       string
	tools      []model.ToolSchema
	extra      map[string]any
	boundaries func() []string // expected block sequence (ids from the fixed stamp)
	thinking   string
	text       string
	calls      []wantCall
	usage      message.Usage
	results    map[string]string // tool results for next_request
	// nextPatch adjusts the recorded next request where the recording
	// client did something we deliberately do not reproduce (see uses).
	nextPatch func(t *testing.T, want any)
}

func chatFixtures() []chatFixture {
	return []chatFixture{{
		name:   "openai_chat_stream_parallel_tool_calls",
		model:  "gpt-4o",
		system: "You are a helpful assistant. Always use both add and multiply at the same time.",
		user:   "Add and multiply the number 2 and 3",
		tools:  []model.ToolSchema{numberTool("add", "Add two numbers"), numberTool("multiply", "Multiply two numbers")},
		// The recording client sent max_tokens to OpenAI; our OpenAI profile
		// maps WithMaxTokens to max_completion_tokens, so the key is passed
		// through Request.Extra to reproduce the request verbatim.
		extra: map[string]any{"max_tokens": 4000},
		boundaries: func() []string {
			return []string{"tool_call:call_ehIWdjL1abZk1h8FWGLQ0Hie", "tool_call:call_fBSgA47J5VeONggizTIvl7AH"}
		},
		calls: []wantCall{
			{"call_ehIWdjL1abZk1h8FWGLQ0Hie", "add", `{"a": 2, "b": 3}`},
			{"call_fBSgA47J5VeONggizTIvl7AH", "multiply", `{"a": 2, "b": 3}`},
		},
		usage:   message.Usage{InputTokens: 106, OutputTokens: 50},
		results: map[string]string{"call_ehIWdjL1abZk1h8FWGLQ0Hie": "5", "call_fBSgA47J5VeONggizTIvl7AH": "6"},
	}, {
		name:   "openai_compat_llamacpp_stream_reasoning_tool_call",
		opts:   []openai.Option{openai.WithProfile(openai.ProfileCompatible), openai.WithReasoningEffort("high")},
		model:  "openai/gpt-oss-20b",
		system: "You are a helpful assistant",
		user:   "What's the weather in Florence, Italy?",
		tools:  []model.ToolSchema{weatherTool},
		boundaries: func() []string {
			return []string{"thinking:" + id(1), "tool_call:1wNpqrejg1FCTjf6xq8JRCGKgWZO74AL"}
		},
		thinking: `We need to call function 'weather' with location "Florence, Italy".`,
		calls:    []wantCall{{"1wNpqrejg1FCTjf6xq8JRCGKgWZO74AL", "weather", `{"location":"Florence, Italy"}`}},
		usage:    message.Usage{InputTokens: 139, OutputTokens: 42},
		results:  map[string]string{"1wNpqrejg1FCTjf6xq8JRCGKgWZO74AL": "40 C"},
	}, {
		name:   "openai_compat_kimi_stream_reasoning_tool_call",
		opts:   []openai.Option{openai.WithProfile(openai.ProfileMoonshot)},
		model:  "moonshotai/kimi-k2.5",
		system: "You are a helpful assistant",
		user:   "What's the weather in Florence, Italy?",
		tools:  []model.ToolSchema{weatherTool},
		boundaries: func() []string {
			// The chunk id changes mid-stream and text resumes after the
			// call: text stays one block (one id for the call).
			return []string{"thinking:" + id(1), "text:" + id(2), "tool_call:functions.weather:0", "text:" + id(2)}
		},
		thinking: `I need to get the weather information for Florence, Italy. I'll call the weather function with "Florence" as the location parameter. `,
		text:     "   ",
		calls:    []wantCall{{"functions.weather:0", "weather", `{"location": "Florence"}`}},
		usage:    message.Usage{InputTokens: 76, OutputTokens: 47, CacheInputTokens: 64},
		results:  map[string]string{"functions.weather:0": "40 C"},
		nextPatch: func(t *testing.T, want any) {
			// The stream carried three single-space text deltas (two before
			// the tool call, one after); the recording client echoed " ".
			// We keep the text the model produced, "   ".
			msg := want.(map[string]any)["messages"].([]any)[2].(map[string]any)
			if msg["content"] != " " {
				t.Fatalf("fixture changed: assistant content %q", msg["content"])
			}
			msg["content"] = "   "
		},
	}, {
		name:   "openai_compat_glm_stream_reasoning_tool_call",
		opts:   []openai.Option{openai.WithProfile(openai.ProfileCompatible), openai.WithReasoningEffort("high")},
		model:  "glm-4.7-flash",
		system: "You are a helpful assistant",
		user:   "What's the weather in Florence, Italy?",
		tools:  []model.ToolSchema{weatherTool},
		boundaries: func() []string {
			return []string{"thinking:" + id(1), "text:" + id(2), "tool_call:call_330c741a86144cb7a385bc6d"}
		},
		thinking: `The user is asking about the weather in Florence, Italy. I have a weather function available that can get weather information for a location. The required parameter is "location" which should be a city name. The user specified "Florence, Italy" so I should use "Florence" as the location parameter.`,
		text:     "I'll check the weather in Florence, Italy for you.",
		calls:    []wantCall{{"call_330c741a86144cb7a385bc6d", "weather", `{"location":"Florence"}`}},
		// Usage rides on the finish_reason chunk here (no separate chunk).
		usage: message.Usage{InputTokens: 173, OutputTokens: 87, CacheInputTokens: 172},
	}}
}

func TestChatFixtures(t *testing.T) {
	for _, fx := range chatFixtures() {
		t.Run(fx.name, func(t *testing.T) {
			srv := replay(t, fx.name+".sse")
			opts := append([]openai.Option{
				openai.WithBaseURL(srv.URL), openai.WithAPIKey("sk-test"),
				openai.WithStrictTools(false), openai.WithStamp(fixedStamp()),
			}, fx.opts...)
			m := openai.New(fx.model, opts...)
			history := []*message.Msg{message.SystemText("", fx.system), message.UserText("", fx.user)}
			req := &model.Request{
				Messages: history, Tools: fx.tools,
				ToolChoice: &model.ToolChoice{Mode: model.ChoiceAuto}, Extra: fx.extra,
			}
			r := drain(t, m.Stream(ctx(t), req))
			if r.err != nil {
				t.Fatalf("stream error after %d chunks: %v", r.errAt, r.err)
			}

			// The request we sent is the recorded one.
			if srv.requests() != 1 || srv.paths[0] != "/chat/completions" {
				t.Fatalf("requests %d, paths %v", srv.requests(), srv.paths)
			}
			if got := srv.headers[0].Get("Authorization"); got != "Bearer sk-test" {
				t.Errorf("Authorization = %q", got)
			}
			sameJSON(t, "request", srv.body(0), parseJSON(t, readWire(t, fx.name+".request.json")))

			// Block boundaries, assembled content, usage.
			if got, want := r.boundaries(), fx.boundaries(); !slices.Equal(got, want) {
				t.Errorf("boundaries\n got %q\nwant %q", got, want)
			}
			checkContent(t, r.acc.Content(), fx.thinking, fx.text, fx.calls)
			if u := r.acc.Usage(); u == nil || *u != fx.usage {
				t.Errorf("usage = %+v, want %+v", u, fx.usage)
			}

			// Formatting the reply back (with its tool results, as the agent
			// stores them: in the same assistant Msg) gives the next request.
			nextFile := fx.name + ".next_request.json"
			if fx.results == nil {
				return
			}
			reply := replyWithResults(t, r.acc.Content(), fx.results)
			req.Messages = append(history, reply)
			body, err := m.Body(ctx(t), req)
			if err != nil {
				t.Fatal(err)
			}
			want := parseJSON(t, readWire(t, nextFile))
			if fx.nextPatch != nil {
				fx.nextPatch(t, want)
			}
			sameJSON(t, "next request", body, want)
		})
	}
}

// replyWithResults is the assistant Msg the agent would hold after acting:
// the model's blocks, then one result per call in call order.
func replyWithResults(t *testing.T, content []block.Block, results map[string]string) *message.Msg {
	t.Helper()
	blocks := slices.Clone(content)
	for _, b := range content {
		if c, ok := b.(*block.ToolCall); ok {
			out, ok := results[c.ID]
			if !ok {
				t.Fatalf("no result for call %s", c.ID)
			}
			blocks = append(blocks, &block.ToolResult{ID: c.ID, Name: c.Name, Output: block.PlainBody(out), State: block.ResultSuccess})
		}
	}
	m, err := message.AssistantMsg("", blocks)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func checkContent(t *testing.T, content []block.Block, thinking, text string, calls []wantCall) {
	t.Helper()
	var gotThinking, gotText string
	var gotCalls []wantCall
	for _, b := range content {
		switch b := b.(type) {
		case *block.Thinking:
			gotThinking += b.Thinking
		case *block.Text:
			gotText += b.Text
		case *block.ToolCall:
			gotCalls = append(gotCalls, wantCall{b.ID, b.Name, b.Input})
		default:
			t.Errorf("unexpected block %T", b)
		}
	}
	if gotThinking != thinking {
		t.Errorf("thinking = %q, want %q", gotThinking, thinking)
	}
	if gotText != text {
		t.Errorf("text = %q, want %q", gotText, text)
	}
	if !slices.Equal(gotCalls, calls) {
		t.Errorf("calls = %q, want %q", gotCalls, calls)
	}
}
