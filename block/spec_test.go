package block_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/internal/wire"
)

// specFences returns the bodies of the ```json fences in the section of
// core-spec.md whose heading line starts with heading; the section ends at
// the next heading of the same or a higher level.
func specFences(t *testing.T, heading string) []string {
	t.Helper()
	data, err := os.ReadFile(fixture.Path(t, "spec", "core-spec.md"))
	if err != nil {
		t.Fatal(err)
	}
	level := strings.IndexFunc(heading, func(r rune) bool { return r != '#' })
	var (
		fences          []string
		in, inFence, ok bool
		cur             strings.Builder
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !inFence && strings.HasPrefix(line, "#") {
			l := strings.IndexFunc(line, func(r rune) bool { return r != '#' })
			if in && l <= level {
				break
			}
			if strings.HasPrefix(line, heading) {
				in, ok = true, true
			}
			continue
		}
		switch {
		case !in:
		case !inFence && strings.HasPrefix(line, "```json"):
			inFence = true
			cur.Reset()
		case inFence && strings.HasPrefix(line, "```"):
			inFence = false
			fences = append(fences, cur.String())
		case inFence:
			cur.WriteString(line)
			cur.WriteByte('\n')
		}
	}
	if !ok {
		t.Fatalf("core-spec.md: no heading %q", heading)
	}
	return fences
}

// TestSpecBlocksByteExact decodes every one-line example of core-spec §1.2
// (the six blocks, both data sources, both tool-result output forms, and
// the permission rule) and re-encodes it byte for byte.
func TestSpecBlocksByteExact(t *testing.T) {
	var lines []string
	for _, f := range specFences(t, "### 1.2") {
		for _, l := range strings.Split(f, "\n") {
			if strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
		}
	}
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
