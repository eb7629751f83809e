package gemini

import (
	"encoding/json"
	"testing"

	"pgregory.net/rapid"

	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
)

// Whatever shape the history has: function calls only in model contents,
// and each run of them answered by the very next content, which holds the
// same number of function responses and nothing else; no empty parts;
// object args.
func TestFormatInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		msgs := wiretest.History(t)
		b, err := New("g").RequestBody(&model.Request{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		var req struct {
			Contents []struct {
				Role  string
				Parts []map[string]json.RawMessage
			}
		}
		if err := json.Unmarshal(b, &req); err != nil {
			t.Fatal(err)
		}
		for i, c := range req.Contents {
			if len(c.Parts) == 0 {
				t.Fatalf("content %d is empty", i)
			}
			calls, responses := 0, 0
			for _, p := range c.Parts {
				switch {
				case p["functionCall"] != nil:
					var fc struct{ Args json.RawMessage }
					json.Unmarshal(p["functionCall"], &fc)
					if c.Role != "model" || len(fc.Args) == 0 || fc.Args[0] != '{' {
						t.Fatalf("bad functionCall %s in %s content", p["functionCall"], c.Role)
					}
					calls++
				case p["functionResponse"] != nil:
					if c.Role != "user" {
						t.Fatalf("functionResponse in a %s content", c.Role)
					}
					responses++
				case p["text"] != nil:
					var s string
					json.Unmarshal(p["text"], &s)
					if s == "" && p["thoughtSignature"] == nil {
						t.Fatalf("empty text part in content %d", i)
					}
				case p["inlineData"] == nil && p["fileData"] == nil:
					t.Fatalf("empty part %v", p)
				}
			}
			if responses > 0 && responses != len(c.Parts) {
				t.Fatalf("content %d mixes function responses with other parts", i)
			}
			if calls > 0 {
				next := 0
				if i+1 < len(req.Contents) {
					for _, p := range req.Contents[i+1].Parts {
						if p["functionResponse"] != nil {
							next++
						}
					}
				}
				if next != calls {
					t.Fatalf("content %d has %d calls, the next %d responses", i, calls, next)
				}
			}
		}
	})
}
