package block_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
)

// TestNullAndEmptyRoundTrip: every nullable string field keeps null as
// null and "" as "" through a decode and an encode (issue 7: "" used to
// come back as null).
func TestNullAndEmptyRoundTrip(t *testing.T) {
	lines := []string{
		`{"type":"text","text":"t","id":"i","created_at":"C","finished_at":""}`,
		`{"type":"thinking","thinking":"t","id":"i","created_at":"C","finished_at":""}`,
		`{"type":"data","id":"i","source":{"type":"base64","data":"","media_type":"image/png"},"name":"","created_at":"C","finished_at":""}`,
		`{"type":"hint","hint":"h","id":"i","source":"","created_at":"C","finished_at":""}`,
		`{"type":"tool_call","id":"c","name":"Bash","input":"{}","state":"pending","suggested_rules":[{"tool_name":"Bash","rule_content":"","behavior":"allow","source":"suggested"}],"created_at":"C","finished_at":""}`,
		`{"type":"tool_result","id":"c","name":"Bash","output":"o","state":"success","metadata":{},"created_at":"C","finished_at":""}`,
	}
	for _, empty := range lines {
		null := strings.ReplaceAll(strings.ReplaceAll(empty, `:""}`, `:null}`), `:"",`, `:null,`)
		if strings.Contains(empty, `"data":""`) {
			null = strings.Replace(null, `"data":null`, `"data":""`, 1) // base64 data is not nullable
		}
		for _, in := range []string{empty, null} {
			b, err := block.Decode([]byte(in))
			if err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			if got := string(b.AppendJSON(nil)); got != in {
				t.Errorf("round trip\n got %s\nwant %s", got, in)
			}
		}
	}
}

func TestNullString(t *testing.T) {
	var null block.NullString
	if null.Valid || null.Or("d") != "d" || string(null.AppendJSON(nil)) != "null" {
		t.Fatalf("zero NullString: %+v", null)
	}
	e := block.Some("")
	if !e.Valid || e.Or("d") != "" || string(e.AppendJSON(nil)) != `""` || e == null {
		t.Fatalf("Some(\"\"): %+v", e)
	}
	if b, _ := json.Marshal(struct{ S block.NullString }{block.Some(`a"b`)}); string(b) != `{"S":"a\"b"}` {
		t.Fatalf("MarshalJSON: %s", b)
	}
}
