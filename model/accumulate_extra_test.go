package model

import (
	"encoding/json"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/stamp"
)

// Tool-call parts may carry provider extras (Gemini's thought_signature);
// the accumulator keeps them on the block, later values replacing earlier.
func TestAccumulatorKeepsToolCallExtra(t *testing.T) {
	acc := NewAccumulator(&stamp.Fixed{Time: "t"})
	sig := func(s string) []block.Extra {
		return []block.Extra{{Key: "thought_signature", Value: json.RawMessage(`"` + s + `"`)}}
	}
	for _, c := range []Chunk{
		{Parts: []Part{{Kind: PartToolCall, ID: "c1", Name: "f", Text: `{"a":`, Extra: sig("one")}}},
		{Parts: []Part{{Kind: PartToolCall, ID: "c1", Text: `1}`}}},
		{Parts: []Part{{Kind: PartToolCall, ID: "c2", Name: "g", Text: `{}`}}},
		{Parts: []Part{{Kind: PartToolCall, ID: "c1", Extra: sig("two")}}},
	} {
		if err := acc.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	got := acc.Content()
	if len(got) != 2 {
		t.Fatalf("%d blocks", len(got))
	}
	c1, c2 := got[0].(*block.ToolCall), got[1].(*block.ToolCall)
	if c1.Input != `{"a":1}` || c1.GetString("thought_signature") != "two" || len(c1.Extra) != 1 {
		t.Fatalf("c1 = %+v", c1)
	}
	if c2.Extra != nil {
		t.Fatalf("c2 extra = %v", c2.Extra)
	}
}
