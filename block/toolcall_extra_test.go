package block

import (
	"encoding/json"
	"strings"
	"testing"
)

// ToolCall.Extra carries provider fields in memory only: the block's JSON
// must stay the reference's, and a clone must not share the slice.
func TestToolCallExtraStaysOffTheWire(t *testing.T) {
	b := &ToolCall{ID: "c1", Name: "f", Input: "{}", CreatedAt: "t",
		Extra: []Extra{{Key: "thought_signature", Value: json.RawMessage(`"c2ln"`)}}}
	js := string(b.AppendJSON(nil))
	if strings.Contains(js, "thought_signature") || strings.Contains(js, "c2ln") {
		t.Fatalf("extra leaked into JSON: %s", js)
	}
	want := `{"type":"tool_call","id":"c1","name":"f","input":"{}","state":"pending","suggested_rules":[],"created_at":"t","finished_at":null}`
	if js != want {
		t.Fatalf("json\n got %s\nwant %s", js, want)
	}
	if got := b.GetString("thought_signature"); got != "c2ln" {
		t.Fatalf("GetString = %q", got)
	}
	c := b.CloneBlock().(*ToolCall)
	c.Extra[0].Value = json.RawMessage(`"x"`)
	if b.GetString("thought_signature") != "c2ln" {
		t.Fatal("clone shares Extra with the original")
	}
	var back ToolCall
	if err := json.Unmarshal([]byte(js), &back); err != nil {
		t.Fatal(err)
	}
	if back.Extra != nil {
		t.Fatalf("extra read from JSON: %v", back.Extra)
	}
}
