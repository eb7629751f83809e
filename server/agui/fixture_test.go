package agui_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/server/agui"
)

// aguiFixture is testdata/spec/fixtures/agui_protocol_test.json: cases
// transcribed from the reference's tests/agui_protocol_test.py.
type aguiFixture struct {
	Note        string           `json:"_note"`
	Cases       []map[string]any `json:"cases"`
	StreamCases []map[string]any `json:"stream_cases"`
}

// TestReferenceFixture converts every case of the fixture with a fresh
// Converter (the reference builds a new middleware per test) and checks
// what the case asserts, plus what the reference's camelCase test asserts
// of every output: no snake_case key outside value, and no null.
func TestReferenceFixture(t *testing.T) {
	var f aguiFixture
	fixture.Load(t, &f, "spec", "fixtures", "agui_protocol_test.json")
	if len(f.Cases) == 0 || len(f.StreamCases) == 0 {
		t.Fatal("the fixture has no cases")
	}
	for i, c := range f.Cases {
		t.Run(fmt.Sprintf("case%02d", i), func(t *testing.T) {
			var events []any
			var want map[string]any
			for k, v := range c {
				switch k {
				case "event":
					events = []any{v}
				case "sequence":
					events = v.([]any)
				case "expect", "expect_last":
					want = v.(map[string]any)
				case "absent_keys", "value_is_object", "expect_value", "value_has_keys":
				default:
					t.Fatalf("a case key this test does not know: %q", k)
				}
			}
			if len(events) == 0 || want == nil {
				t.Fatalf("case without events or expectation: %v", c)
			}
			conv := agui.NewConverter()
			var last []byte
			for _, raw := range events {
				data, _ := json.Marshal(raw)
				e, err := event.Decode(data)
				if err != nil {
					t.Fatalf("%s: %v", data, err)
				}
				last = conv.Append(nil, e)
				checkLine(t, last)
			}
			got := parseObject(t, last)
			t.Logf("%s", last)
			for k, w := range want {
				if !reflect.DeepEqual(got[k], w) {
					t.Errorf("%s = %v, want %v", k, got[k], w)
				}
			}
			for _, k := range asStrings(c["absent_keys"]) {
				if _, ok := got[k]; ok {
					t.Errorf("%s present, want it absent", k)
				}
			}
			if v, ok := c["value_is_object"]; ok && v == true {
				if _, ok := got["value"].(map[string]any); !ok {
					t.Errorf("value is %T, want an object", got["value"])
				}
			}
			if ev, ok := c["expect_value"].(map[string]any); ok {
				value, _ := got["value"].(map[string]any)
				for k, w := range ev {
					if !reflect.DeepEqual(value[k], w) {
						t.Errorf("value.%s = %v, want %v", k, value[k], w)
					}
				}
			}
			for _, k := range asStrings(c["value_has_keys"]) {
				value, _ := got["value"].(map[string]any)
				if _, ok := value[k]; !ok {
					t.Errorf("value has no %s", k)
				}
			}
		})
	}
	for i, c := range f.StreamCases {
		t.Run(fmt.Sprintf("stream%02d", i), func(t *testing.T) {
			conv := agui.NewConverter()
			var out []byte
			for _, chunk := range asStrings(c["input_chunks"]) {
				out = conv.AppendChunk(out, []byte(fillEvents(t, chunk)))
			}
			want, _ := c["output"].(string)
			t.Logf("%q", out)
			matchStream(t, string(out), want)
		})
	}
}

// replyStart is the event the stream cases' "<REPLY_START json…>" stands
// for: the reference's tests use ReplyStartEvent(session_id="sess_1",
// reply_id="reply_1", name="agent").
const replyStart = `{"id":"e1","created_at":"2026-08-22T09:14:04.514079","metadata":{},"type":"REPLY_START","session_id":"sess_1","reply_id":"reply_1","name":"agent","role":"assistant"}`

var placeholder = regexp.MustCompile(`<([A-Z_]+) json[^>]*>`)

func fillEvents(t *testing.T, chunk string) string {
	return placeholder.ReplaceAllStringFunc(chunk, func(p string) string {
		if typ := placeholder.FindStringSubmatch(p)[1]; typ != "REPLY_START" {
			t.Fatalf("no event for the placeholder %s", p)
		}
		return replyStart
	})
}

// matchStream checks a converted stream against a stream case's output,
// in which "<TYPE json>" stands for an AG-UI event of that type (for this
// input, the RUN_STARTED of sess_1/reply_1) and one prose form describes a
// bare converted event.
func matchStream(t *testing.T, got, want string) {
	t.Helper()
	if want == "converted JSON followed by a single newline" {
		if !strings.HasSuffix(got, "}\n") || strings.Count(got, "\n") != 1 {
			t.Fatalf("want one JSON object and a newline, got %q", got)
		}
		checkRunStarted(t, []byte(got[:len(got)-1]))
		return
	}
	var pattern strings.Builder
	pattern.WriteString("^")
	var types []string
	rest := want
	for {
		loc := placeholder.FindStringSubmatchIndex(rest)
		if loc == nil {
			pattern.WriteString(regexp.QuoteMeta(rest))
			break
		}
		pattern.WriteString(regexp.QuoteMeta(rest[:loc[0]]))
		pattern.WriteString(`(\{[^\r\n]*\})`)
		types = append(types, rest[loc[2]:loc[3]])
		rest = rest[loc[1]:]
	}
	pattern.WriteString("$")
	m := regexp.MustCompile(pattern.String()).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("got %q, want the form %q", got, want)
	}
	for i, typ := range types {
		if typ != "RUN_STARTED" {
			t.Fatalf("no expectation for %s", typ)
		}
		checkRunStarted(t, []byte(m[i+1]))
	}
}

func checkRunStarted(t *testing.T, obj []byte) {
	t.Helper()
	checkLine(t, append(slices.Clip(obj), '\n'))
	got := parseObject(t, obj)
	want := map[string]any{"type": "RUN_STARTED", "threadId": "sess_1", "runId": "reply_1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// checkLine holds an output line to the form every AG-UI event takes: one
// JSON object on one line, camelCase keys (a CUSTOM's value holds the
// native dict, snake_case), no null outside that value.
func checkLine(t *testing.T, line []byte) {
	t.Helper()
	if !bytes.HasSuffix(line, []byte("\n")) || bytes.Count(line, []byte("\n")) != 1 {
		t.Fatalf("not one line: %q", line)
	}
	obj := parseObject(t, line)
	for k, v := range obj {
		if k == "value" {
			continue
		}
		if strings.Contains(k, "_") {
			t.Errorf("key %q is not camelCase: %s", k, line)
		}
		if hasNull(v) {
			t.Errorf("%s holds a null: %s", k, line)
		}
	}
}

func hasNull(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, x := range v {
			if hasNull(x) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(v, hasNull)
	}
	return false
}

func parseObject(t *testing.T, data []byte) map[string]any {
	t.Helper()
	v, err := fixture.Parse(data)
	if err != nil {
		t.Fatalf("not JSON: %v: %q", err, data)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("not an object: %q", data)
	}
	return obj
}

func asStrings(v any) []string {
	var out []string
	if a, ok := v.([]any); ok {
		for _, x := range a {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}
