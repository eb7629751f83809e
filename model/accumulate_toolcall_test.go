package model

import (
	"testing"

	"github.com/agentscope-go/agentscope/stamp"
)

// ToolCall finds a call by its id (not a text block of the same id), with
// the name of its first fragment and the input so far.
func TestAccumulatorToolCall(t *testing.T) {
	acc := NewAccumulator(&stamp.Fixed{Time: "t"})
	if c := acc.ToolCall("c1"); c != nil {
		t.Fatalf("empty accumulator: %+v", c)
	}
	for _, c := range []Chunk{
		{Parts: []Part{{Kind: PartText, ID: "c1", Text: "text"}, {Kind: PartToolCall, ID: "c1", Name: "f", Text: `{"a":`}}},
		{Parts: []Part{{Kind: PartToolCall, ID: "c1", Text: `1}`}}},
	} {
		if err := acc.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	c := acc.ToolCall("c1")
	if c == nil || c.Name != "f" || c.Input != `{"a":1}` {
		t.Fatalf("got %+v", c)
	}
	if acc.ToolCall("c2") != nil {
		t.Fatal("unknown id found")
	}
}
