package model_test

import (
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/stamp"
)

// Reading the content mid-stream gives what arrived so far; a string read
// then never changes as more fragments arrive, also when fragments of two
// blocks interleave.
func TestAccumulatorReadMidStream(t *testing.T) {
	acc := model.NewAccumulator(&stamp.Fixed{Time: "t"})
	var want strings.Builder
	var seen []string
	var wantSeen []string
	for i := range 200 {
		frag := strings.Repeat(string(rune('a'+i%26)), i%7+1)
		want.WriteString(frag)
		parts := []model.Part{{Kind: model.PartText, ID: "t", Text: frag}}
		if i%3 == 0 {
			parts = append(parts, model.Part{Kind: model.PartToolCall, ID: "c", Name: "f", Text: "x"})
		}
		if err := acc.Add(model.Chunk{Parts: parts}); err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 {
			seen = append(seen, acc.Content()[0].(*block.Text).Text)
			wantSeen = append(wantSeen, want.String())
		}
		if i%11 == 0 {
			if c := acc.ToolCall("c"); c == nil || c.Input != strings.Repeat("x", i/3+1) {
				t.Fatalf("chunk %d: tool call %+v", i, c)
			}
		}
	}
	if got := acc.Content()[0].(*block.Text).Text; got != want.String() {
		t.Fatalf("text %q, want %q", got, want.String())
	}
	for i := range seen {
		if seen[i] != wantSeen[i] {
			t.Fatalf("read %d changed to %q, was %q", i, seen[i], wantSeen[i])
		}
	}
}
