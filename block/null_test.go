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

// NullString works with encoding/json in both directions: null and ""
// stay apart, and omitzero leaves out only null.
func TestNullStringEncodingJSON(t *testing.T) {
	type rec struct {
		A block.NullString `json:"a"`
		B block.NullString `json:"b,omitzero"`
	}
	cases := []struct {
		in   string
		want rec
		out  string
	}{
		{`{"a":"x","b":"y"}`, rec{block.Some("x"), block.Some("y")}, `{"a":"x","b":"y"}`},
		{`{"a":"","b":""}`, rec{block.Some(""), block.Some("")}, `{"a":"","b":""}`},
		{`{"a":null,"b":null}`, rec{}, `{"a":null}`},
		{`{}`, rec{}, `{"a":null}`},
		{`{"a":"\u00e9\n"}`, rec{A: block.Some("é\n")}, `{"a":"é\n"}`},
	}
	for _, c := range cases {
		// Start from non-zero values where the input sets both fields:
		// null must reset them.
		got := rec{}
		if strings.Contains(c.in, `"b"`) {
			got = rec{block.Some("old"), block.Some("old")}
		}
		if err := json.Unmarshal([]byte(c.in), &got); err != nil || got != c.want {
			t.Errorf("Unmarshal %s: %+v, %v; want %+v", c.in, got, err, c.want)
		}
		b, err := json.Marshal(got)
		if err != nil || string(b) != c.out {
			t.Errorf("Marshal %+v: %s, %v; want %s", got, b, err, c.out)
		}
	}
	for _, bad := range []string{`{"a":1}`, `{"a":true}`, `{"a":["x"]}`} {
		var r rec
		if err := json.Unmarshal([]byte(bad), &r); err == nil {
			t.Errorf("Unmarshal %s: no error", bad)
		}
	}
}
