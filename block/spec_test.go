package block_test

import (
	"encoding/json"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/internal/wire"
)

// TestSpecBlocksByteExact decodes every one-line example of core-spec §1.2
// (the six blocks, both data sources, both tool-result output forms, and
// the permission rule) and re-encodes it byte for byte.
func TestSpecBlocksByteExact(t *testing.T) {
	lines := fixture.Lines(fixture.SpecFences(t, "### 1.2"))
	if len(lines) != 9 {
		t.Fatalf("§1.2: want 9 examples, got %d", len(lines))
	}
	kinds := map[string]int{}
	for _, line := range lines {
		typ, err := wire.PeekType([]byte(line))
		if err != nil {
			// The one example without a "type" is the permission rule.
			kinds["permission_rule"]++
			t.Run("permission_rule", func(t *testing.T) {
				var r block.PermissionRule
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatal(err)
				}
				if got := string(r.AppendJSON(nil)); got != line {
					t.Fatalf("\n got: %s\nwant: %s", got, line)
				}
			})
			continue
		}
		kinds[typ]++
		t.Run(typ, func(t *testing.T) {
			b, err := block.Decode([]byte(line))
			if err != nil {
				t.Fatal(err)
			}
			if string(b.Kind()) != typ {
				t.Fatalf("kind %s, want %s", b.Kind(), typ)
			}
			if got := string(b.AppendJSON(nil)); got != line {
				t.Fatalf("AppendJSON\n got: %s\nwant: %s", got, line)
			}
			if got, _ := b.MarshalJSON(); string(got) != line {
				t.Fatalf("MarshalJSON\n got: %s\nwant: %s", got, line)
			}
			// A deep copy encodes the same.
			if got := string(b.CloneBlock().AppendJSON(nil)); got != line {
				t.Fatalf("clone\n got: %s\nwant: %s", got, line)
			}
		})
	}
	want := map[string]int{"text": 1, "thinking": 1, "data": 2, "hint": 1, "tool_call": 1, "tool_result": 2, "permission_rule": 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("§1.2: %d examples of %s, want %d", kinds[k], k, n)
		}
	}
}
