package ollama

import (
	"encoding/json"
	"testing"

	"pgregory.net/rapid"

	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
)

// Whatever shape the history has, an assistant message with tool calls is
// followed at once by one tool message per call, tool messages appear
// nowhere else, and arguments are objects.
func TestFormatInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b, err := New("m").RequestBody(&model.Request{Messages: wiretest.History(t)})
		if err != nil {
			t.Fatal(err)
		}
		var req struct {
			Messages []struct {
				Role      string
				Content   string
				Images    []string
				ToolCalls []struct {
					Function struct{ Arguments json.RawMessage }
				} `json:"tool_calls"`
			}
		}
		if err := json.Unmarshal(b, &req); err != nil {
			t.Fatal(err)
		}
		expect := 0 // tool messages still owed
		for i, m := range req.Messages {
			if m.Role == "tool" {
				if expect == 0 {
					t.Fatalf("message %d: a tool message not answering a call", i)
				}
				expect--
				continue
			}
			if expect != 0 {
				t.Fatalf("message %d (%s) comes while %d calls are unanswered", i, m.Role, expect)
			}
			if m.Content == "" && len(m.Images) == 0 && len(m.ToolCalls) == 0 {
				t.Fatalf("message %d is empty", i)
			}
			for _, c := range m.ToolCalls {
				if len(c.Function.Arguments) == 0 || c.Function.Arguments[0] != '{' {
					t.Fatalf("arguments %s", c.Function.Arguments)
				}
			}
			expect = len(m.ToolCalls)
		}
	})
}
