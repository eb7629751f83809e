package anthropic

import (
	"encoding/json"
	"testing"

	"pgregory.net/rapid"

	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
)

// Whatever shape the history has, the request keeps the API's rules:
// roles alternate, tool_use only in assistant turns and tool_result only in
// user turns and first there, every tool_use answered in the next turn, no
// empty text or tool_result content, object inputs, only signed thinking.
func TestFormatInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		msgs := wiretest.History(t)
		b, err := New("m", WithThinking(1024)).RequestBody(&model.Request{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		var req struct {
			Messages []struct {
				Role    string
				Content []map[string]json.RawMessage
			}
		}
		if err := json.Unmarshal(b, &req); err != nil {
			t.Fatal(err)
		}
		for i, m := range req.Messages {
			if i > 0 && req.Messages[i-1].Role == m.Role {
				t.Fatalf("messages %d and %d are both %s", i-1, i, m.Role)
			}
			if len(m.Content) == 0 {
				t.Fatalf("message %d is empty", i)
			}
			seenOther := false
			for _, c := range m.Content {
				var typ string
				json.Unmarshal(c["type"], &typ)
				switch typ {
				case "text":
					var s string
					json.Unmarshal(c["text"], &s)
					if s == "" {
						t.Fatalf("empty text in message %d", i)
					}
				case "thinking":
					var sig string
					json.Unmarshal(c["signature"], &sig)
					if sig == "" || m.Role != "assistant" {
						t.Fatalf("unsigned or misplaced thinking in message %d", i)
					}
				case "tool_use":
					if m.Role != "assistant" || len(c["input"]) == 0 || c["input"][0] != '{' {
						t.Fatalf("bad tool_use %s in %s message", c["input"], m.Role)
					}
					var id string
					json.Unmarshal(c["id"], &id)
					if !answered(req.Messages, i, id) {
						t.Fatalf("tool_use %s not answered in the next message", id)
					}
				case "tool_result":
					var content []any
					json.Unmarshal(c["content"], &content)
					if m.Role != "user" || seenOther || len(content) == 0 {
						t.Fatalf("bad tool_result in message %d (role %s, after other content %v)", i, m.Role, seenOther)
					}
				}
				if typ != "tool_result" {
					seenOther = true
				}
			}
		}
	})
}

func answered(msgs []struct {
	Role    string
	Content []map[string]json.RawMessage
}, i int, id string) bool {
	if i+1 >= len(msgs) {
		return false
	}
	for _, c := range msgs[i+1].Content {
		var got string
		json.Unmarshal(c["tool_use_id"], &got)
		if got == id {
			return true
		}
	}
	return false
}
