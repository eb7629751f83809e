package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"

	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
	"github.com/agentscope-go/agentscope/stamp"
)

// Whatever shape the history has, under every profile: an assistant
// message with tool calls is followed at once by one tool message per call
// (by id), tool messages appear nowhere else, no message is empty, and
// arguments are JSON objects.
func TestChatFormatInvariants(t *testing.T) {
	profiles := []Profile{ProfileOpenAI, ProfileCompatible, ProfileDeepSeek, ProfileMoonshot, ProfileDashScope, ProfileXAI}
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.SampledFrom(profiles).Draw(t, "profile")
		// No downloads in a property test: URL media stay references
		// (Moonshot would fetch them).
		p.InlineImageURLs = false
		b, err := New("m", WithProfile(p)).Body(context.Background(), &model.Request{Messages: wiretest.History(t)})
		if err != nil {
			t.Fatal(err)
		}
		var req struct {
			Messages []struct {
				Role       string          `json:"role"`
				Content    json.RawMessage `json:"content"`
				Reasoning  *string         `json:"reasoning_content"`
				ToolCallID string          `json:"tool_call_id"`
				ToolCalls  []struct {
					ID       string `json:"id"`
					Function struct {
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(b, &req); err != nil {
			t.Fatal(err)
		}
		owed := map[string]bool{}
		for i, m := range req.Messages {
			if m.Role == "tool" {
				if !owed[m.ToolCallID] {
					t.Fatalf("message %d: tool message for %q, which is not owed", i, m.ToolCallID)
				}
				delete(owed, m.ToolCallID)
				continue
			}
			if len(owed) != 0 {
				t.Fatalf("message %d (%s) comes while %d calls are unanswered", i, m.Role, len(owed))
			}
			empty := len(m.Content) == 0 || string(m.Content) == `""` || string(m.Content) == "[]"
			if empty && len(m.ToolCalls) == 0 && (m.Reasoning == nil || *m.Reasoning == "") {
				t.Fatalf("message %d is empty: %s", i, b)
			}
			for _, c := range m.ToolCalls {
				var obj map[string]any
				if err := json.Unmarshal([]byte(c.Function.Arguments), &obj); err != nil {
					t.Fatalf("arguments %q are not an object", c.Function.Arguments)
				}
				owed[c.ID] = true
			}
		}
	})
}

// The same for the Responses input: every function_call is answered by
// its function_call_output before any other item.
func TestResponsesFormatInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b, err := NewResponses("m").Body(context.Background(), &model.Request{Messages: wiretest.History(t)})
		if err != nil {
			t.Fatal(err)
		}
		var req struct {
			Input []struct {
				Type      string `json:"type"`
				Role      string `json:"role"`
				CallID    string `json:"call_id"`
				Arguments string `json:"arguments"`
			} `json:"input"`
		}
		if err := json.Unmarshal(b, &req); err != nil {
			t.Fatal(err)
		}
		owed := map[string]bool{}
		answering := false
		for i, it := range req.Input {
			switch it.Type {
			case "function_call":
				if answering && len(owed) > 0 {
					t.Fatalf("item %d: a call among unanswered results", i)
				}
				owed[it.CallID] = true
				var obj map[string]any
				if err := json.Unmarshal([]byte(it.Arguments), &obj); err != nil {
					t.Fatalf("arguments %q are not an object", it.Arguments)
				}
			case "function_call_output":
				if !owed[it.CallID] {
					t.Fatalf("item %d: output for %q, which is not owed", i, it.CallID)
				}
				delete(owed, it.CallID)
				answering = len(owed) > 0
			default:
				if len(owed) > 0 {
					t.Fatalf("item %d (%s %s) comes while %d calls are unanswered", i, it.Type, it.Role, len(owed))
				}
			}
		}
	})
}

func FuzzChatDecode(f *testing.F) {
	for _, name := range []string{
		"openai_chat_stream_parallel_tool_calls.sse", "openai_compat_kimi_stream_reasoning_tool_call.sse",
		"openai_compat_llamacpp_stream_reasoning_tool_call.sse",
	} {
		f.Add(wiretest.Wire(f, name))
	}
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"audio\":{\"data\":\"AAE=\"}}}]}\n\ndata: {\"error\":{\"code\":429}}\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":{\"a\":1}}}]}}]}\n\n"))
	src := &stamp.Fixed{Time: "t"}
	f.Fuzz(func(t *testing.T, body []byte) {
		wiretest.CheckDecode(t, func(yield func(model.Chunk, error) bool) {
			newChatDecoder("openai", src, true).stream(context.Background(), bytes.NewReader(body), yield)
		})
	})
}

func FuzzResponsesDecode(f *testing.F) {
	f.Add(wiretest.Wire(f, "openai_responses_stream_reasoning_function_call.sse"))
	f.Add([]byte("data: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"\",\"delta\":\"x\"}\n\n"))
	f.Add([]byte("data: {\"type\":\"response.reasoning_summary_text.delta\",\"item_id\":\"rs\",\"delta\":\"x\",\"summary_index\":3}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		wiretest.CheckDecode(t, func(yield func(model.Chunk, error) bool) {
			newRespDecoder("openai", &stamp.Fixed{Time: "t"}).stream(context.Background(), bytes.NewReader(body), yield)
		})
	})
}
