package event_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/internal/wire"
)

// specEventLines returns the 30 one-line examples of core-spec §1.6.3: one
// per type, plus a second REPLY_END (with an error) and a second
// TOOL_RESULT_DATA_DELTA (a URL instead of data).
func specEventLines(t testing.TB) []string {
	t.Helper()
	fences := fixture.SpecFences(t, "#### 1.6.3")
	if len(fences) != 1 {
		t.Fatalf("§1.6.3: want 1 json fence, got %d", len(fences))
	}
	return fixture.Lines(fences)
}

// TestSpecExamplesByteExact decodes every §1.6.3 example and re-encodes it:
// the output must equal the reference's line byte for byte.
func TestSpecExamplesByteExact(t *testing.T) {
	lines := specEventLines(t)
	if len(lines) != 30 {
		t.Fatalf("§1.6.3: want 30 examples (28 types, REPLY_END and TOOL_RESULT_DATA_DELTA twice), got %d", len(lines))
	}
	seen := map[event.Type]bool{}
	for _, line := range lines {
		typ, err := wire.PeekType([]byte(line))
		if err != nil {
			t.Fatalf("example without a type: %s", line)
		}
		seen[event.Type(typ)] = true
		t.Run(typ, func(t *testing.T) {
			e, err := event.Decode([]byte(line))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if e.Type() != event.Type(typ) {
				t.Fatalf("Decode gave %s, want %s", e.Type(), typ)
			}
			if got := string(e.AppendJSON(nil)); got != line {
				t.Fatalf("AppendJSON differs\n got: %s\nwant: %s", got, line)
			}
			m, err := e.MarshalJSON()
			if err != nil || string(m) != line {
				t.Fatalf("MarshalJSON differs (%v)\n got: %s\nwant: %s", err, m, line)
			}
			// An encoding/json Encoder goes through MarshalJSON; without
			// SetEscapeHTML(false) it would rewrite '<' as \u003c, which
			// pydantic does not.
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(e); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSuffix(buf.String(), "\n"); got != line {
				t.Fatalf("json.Encoder differs\n got: %s\nwant: %s", got, line)
			}
			// Appending after existing bytes must not disturb them.
			prefix := []byte("data: ")
			if got := string(e.AppendJSON(prefix)); got != "data: "+line {
				t.Fatalf("AppendJSON onto a prefix: %s", got)
			}
			// The typed UnmarshalJSON agrees with Decode.
			fresh, _ := event.New(e.Type())
			if err := json.Unmarshal([]byte(line), fresh); err != nil {
				t.Fatalf("json.Unmarshal into %T: %v", fresh, err)
			}
			if got := string(fresh.AppendJSON(nil)); got != line {
				t.Fatalf("UnmarshalJSON round trip differs\n got: %s\nwant: %s", got, line)
			}
		})
	}
	for _, typ := range event.Types {
		if !seen[typ] {
			t.Errorf("no §1.6.3 example for %s", typ)
		}
	}
	if len(event.Types) != 28 || len(seen) != 28 {
		t.Errorf("want 28 event types, have %d and %d examples' types", len(event.Types), len(seen))
	}
}

// TestUnmarshalWrongType: a typed UnmarshalJSON refuses another type's JSON.
func TestUnmarshalWrongType(t *testing.T) {
	var e event.TextBlockDelta
	err := json.Unmarshal([]byte(`{"type":"TEXT_BLOCK_END","reply_id":"r","block_id":"b"}`), &e)
	if !errors.Is(err, event.ErrInvalid) {
		t.Fatalf("got %v, want ErrInvalid", err)
	}
}

type eventFixture struct {
	ReplyStartDump struct {
		Construct struct {
			SessionID string `json:"session_id"`
			ReplyID   string `json:"reply_id"`
			Name      string `json:"name"`
		} `json:"construct"`
		Expected any `json:"expected"`
	} `json:"reply_start_dump"`
	ReplyStartValidateInput json.RawMessage `json:"reply_start_validate_input"`
	DataDeltaSource         struct {
		Common map[string]any `json:"common"`
		Valid  []struct {
			Data   *string        `json:"data"`
			URL    *string        `json:"url"`
			Expect map[string]any `json:"expect"`
		} `json:"valid"`
		Invalid       []map[string]any `json:"invalid"`
		ErrorContains string           `json:"invalid_error_contains"`
	} `json:"tool_result_data_delta_source"`
}

func loadEventFixture(t *testing.T) eventFixture {
	var fx eventFixture
	fixture.Load(t, &fx, "spec", "fixtures", "event_test.json")
	return fx
}

// TestReplyStartDump (EVT): a constructed REPLY_START, once stamped, dumps
// with the default role and empty metadata.
func TestReplyStartDump(t *testing.T) {
	fx := loadEventFixture(t)
	c := fx.ReplyStartDump.Construct
	e := &event.ReplyStart{SessionID: c.SessionID, ReplyID: c.ReplyID, Name: c.Name}
	event.Stamp(e, nil)
	if len(e.ID) != 32 || strings.Trim(e.ID, "0123456789abcdef") != "" {
		t.Fatalf("stamped id %q is not 32 lowercase hex", e.ID)
	}
	got, err := fixture.Parse(e.AppendJSON(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := fixture.Match(got, fx.ReplyStartDump.Expected, map[string]any{"<ANY_STRING>": nil}); err != nil {
		t.Fatal(err)
	}
}

// TestReplyStartValidate: decoding keeps the given id and timestamp and
// defaults the missing metadata to {}.
func TestReplyStartValidate(t *testing.T) {
	fx := loadEventFixture(t)
	e, err := event.Decode(fx.ReplyStartValidateInput)
	if err != nil {
		t.Fatal(err)
	}
	rs, ok := e.(*event.ReplyStart)
	if !ok {
		t.Fatalf("decoded %T", e)
	}
	want := `{"id":"test_id","created_at":"2024-01-01T00:00:00","metadata":{},"type":"REPLY_START","session_id":"test_session","reply_id":"test_reply","name":"Friday","role":"assistant"}`
	if got := string(rs.AppendJSON(nil)); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if rs.Role != event.RoleAssistant || rs.ReplyID != "test_reply" {
		t.Fatalf("fields: %+v", rs)
	}
}

// TestToolResultDataDeltaSource: exactly one of data and url.
func TestToolResultDataDeltaSource(t *testing.T) {
	fx := loadEventFixture(t).DataDeltaSource
	build := func(extra map[string]any) []byte {
		m := map[string]any{"type": "TOOL_RESULT_DATA_DELTA"}
		for k, v := range fx.Common {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for i, v := range fx.Valid {
		extra := map[string]any{}
		if v.Data != nil {
			extra["data"] = *v.Data
		}
		if v.URL != nil {
			extra["url"] = *v.URL
		}
		e, err := event.Decode(build(extra))
		if err != nil {
			t.Fatalf("valid[%d]: %v", i, err)
		}
		d := e.(*event.ToolResultDataDelta)
		got, _ := fixture.Parse(d.AppendJSON(nil))
		gm := got.(map[string]any)
		for k, want := range v.Expect {
			if gm[k] != want {
				t.Errorf("valid[%d]: %s = %v, want %v", i, k, gm[k], want)
			}
		}
		if len(d.BlockID) != 32 {
			t.Errorf("valid[%d]: block_id %q should default to a fresh id", i, d.BlockID)
		}
	}
	for i, inv := range fx.Invalid {
		_, err := event.Decode(build(inv))
		if !errors.Is(err, event.ErrInvalid) {
			t.Fatalf("invalid[%d]: got %v, want ErrInvalid", i, err)
		}
		if !strings.Contains(err.Error(), fx.ErrorContains) {
			t.Fatalf("invalid[%d]: %q does not contain %q", i, err, fx.ErrorContains)
		}
	}
	// A hand-built event is checked by Validate the same way.
	if err := event.Validate(&event.ToolResultDataDelta{MediaType: "image/png"}); !errors.Is(err, event.ErrInvalid) {
		t.Fatalf("Validate: got %v", err)
	}
}

// TestDecodeErrors: every way a line can be wrong yields a typed error.
func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		check func(error) bool
	}{
		{"unknown type", `{"type":"NOPE","reply_id":"r"}`, func(err error) bool { return errors.Is(err, event.ErrUnknownType) }},
		{"lowercase type", `{"type":"reply_start"}`, func(err error) bool { return errors.Is(err, event.ErrUnknownType) }},
		{"missing type", `{"reply_id":"r"}`, isField("type")},
		{"type not a string", `{"type":7}`, isField("type")},
		{"missing reply_id", `{"type":"TEXT_BLOCK_DELTA","block_id":"b","delta":"x"}`, isField("reply_id")},
		{"missing delta", `{"type":"TEXT_BLOCK_DELTA","reply_id":"r","block_id":"b"}`, isField("delta")},
		{"null delta", `{"type":"TEXT_BLOCK_DELTA","reply_id":"r","block_id":"b","delta":null}`, isField("delta")},
		{"bad role", `{"type":"REPLY_START","session_id":"s","reply_id":"r","name":"n","role":"robot"}`, isField("role")},
		{"bad finished_reason", `{"type":"REPLY_END","session_id":"s","reply_id":"r","finished_reason":"done"}`, isField("finished_reason")},
		{"bad error type", `{"type":"REPLY_END","session_id":"s","reply_id":"r","error":{"type":"oops","message":"m"}}`, isField("error")},
		{"tokens not int", `{"type":"MODEL_CALL_END","reply_id":"r","input_tokens":1.5,"output_tokens":1}`, isField("input_tokens")},
		{"missing tokens", `{"type":"MODEL_CALL_END","reply_id":"r","input_tokens":1}`, isField("output_tokens")},
		{"state required", `{"type":"TOOL_RESULT_END","reply_id":"r","tool_call_id":"c"}`, isField("state")},
		{"bad state", `{"type":"TOOL_RESULT_END","reply_id":"r","tool_call_id":"c","state":"ok"}`, isField("state")},
		{"hint not string or list", `{"type":"HINT_BLOCK","reply_id":"r","block_id":"b","hint":3}`, isField("hint")},
		{"hint with a tool call", `{"type":"HINT_BLOCK","reply_id":"r","block_id":"b","hint":[{"type":"tool_call","id":"1","name":"x","input":"{}"}]}`, isField("hint")},
		{"tool_calls missing", `{"type":"REQUIRE_USER_CONFIRM","reply_id":"r"}`, isField("tool_calls")},
		{"tool call missing name", `{"type":"REQUIRE_USER_CONFIRM","reply_id":"r","tool_calls":[{"type":"tool_call","id":"1","input":"{}"}]}`, isField("tool_calls")},
		{"rule_content key required", `{"type":"USER_CONFIRM_RESULT","reply_id":"r","confirm_results":[{"confirmed":true,"tool_call":{"type":"tool_call","id":"1","name":"x","input":"{}"},"rules":[{"tool_name":"x","behavior":"allow","source":"s"}]}]}`, isField("confirm_results")},
		{"confirmed missing", `{"type":"USER_CONFIRM_RESULT","reply_id":"r","confirm_results":[{"tool_call":{"type":"tool_call","id":"1","name":"x","input":"{}"}}]}`, isField("confirm_results")},
		{"result output missing", `{"type":"EXTERNAL_EXECUTION_RESULT","reply_id":"r","execution_results":[{"type":"tool_result","id":"1","name":"x"}]}`, isField("execution_results")},
		{"custom value not object", `{"type":"CUSTOM","name":"n","value":[1]}`, isField("value")},
		{"metadata not object", `{"type":"USER_INTERRUPT","reply_id":"r","metadata":"x"}`, isField("metadata")},
		{"id not string", `{"type":"USER_INTERRUPT","reply_id":"r","id":1}`, isField("id")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := event.Decode([]byte(c.in))
			if err == nil {
				t.Fatalf("decoded %T without error", e)
			}
			if !c.check(err) {
				t.Fatalf("unexpected error %T: %v", err, err)
			}
		})
	}
	for _, bad := range []string{``, `null`, `[]`, `"x"`, `{`, `{"type":"USER_INTERRUPT","reply_id":"r"} trailing`} {
		if e, err := event.Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%q) = %T, want an error", bad, e)
		}
	}
}

func isField(name string) func(error) bool {
	return func(err error) bool {
		var fe *wire.FieldError
		return errors.As(err, &fe) && fe.Field == name && errors.Is(err, wire.ErrField)
	}
}

// TestDecodeDefaults: absent optional fields take the reference's defaults.
func TestDecodeDefaults(t *testing.T) {
	cases := map[string]string{
		`{"type":"REPLY_END","id":"i","created_at":"t","session_id":"s","reply_id":"r"}`:                                                                                                                     `{"id":"i","created_at":"t","metadata":{},"type":"REPLY_END","session_id":"s","reply_id":"r","finished_reason":"completed","error":null}`,
		`{"type":"MODEL_CALL_END","id":"i","created_at":"t","reply_id":"r","input_tokens":3.0,"output_tokens":4}`:                                                                                            `{"id":"i","created_at":"t","metadata":{},"type":"MODEL_CALL_END","reply_id":"r","input_tokens":3,"output_tokens":4,"cache_input_tokens":0,"cache_creation_input_tokens":0,"finished_reason":"completed"}`,
		`{"type":"HINT_BLOCK","id":"i","created_at":"t","reply_id":"r","block_id":"b","hint":"h"}`:                                                                                                           `{"id":"i","created_at":"t","metadata":{},"type":"HINT_BLOCK","reply_id":"r","block_id":"b","source":null,"hint":"h"}`,
		`{"type":"CUSTOM","id":"i","created_at":"t","name":"state_updated"}`:                                                                                                                                 `{"id":"i","created_at":"t","metadata":{},"type":"CUSTOM","name":"state_updated","value":{}}`,
		`{"type":"USER_CONFIRM_RESULT","id":"i","created_at":"t","reply_id":"r","confirm_results":[{"confirmed":false,"tool_call":{"type":"tool_call","id":"c","name":"x","input":"{}","created_at":"t"}}]}`: `{"id":"i","created_at":"t","metadata":{},"type":"USER_CONFIRM_RESULT","reply_id":"r","confirm_results":[{"confirmed":false,"tool_call":{"type":"tool_call","id":"c","name":"x","input":"{}","state":"pending","suggested_rules":[],"created_at":"t","finished_at":null},"rules":null}]}`,
		// Metadata keys are written sorted, numbers keep their literal form,
		// and non-ASCII text is not escaped (pydantic style).
		`{"metadata":{"z":1.50,"a":[true,null,"é<>&"]},"type":"USER_INTERRUPT","id":"i","created_at":"t","reply_id":"r"}`: `{"id":"i","created_at":"t","metadata":{"a":[true,null,"é<>&"],"z":1.50},"type":"USER_INTERRUPT","reply_id":"r"}`,
	}
	for in, want := range cases {
		e, err := event.Decode([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := string(e.AppendJSON(nil)); got != want {
			t.Errorf("\n in: %s\ngot: %s\nwant %s", in, got, want)
		}
	}
	// Present but empty values are kept, not replaced by defaults.
	for _, in := range []string{
		`{"id":"","created_at":"","metadata":{},"type":"USER_INTERRUPT","reply_id":""}`,
		`{"id":"","created_at":"","metadata":{},"type":"TOOL_RESULT_DATA_DELTA","reply_id":"r","tool_call_id":"c","block_id":"","media_type":"","data":"aGk=","url":null}`,
	} {
		e, err := event.Decode([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(e.AppendJSON(nil)); got != in {
			t.Errorf("\n got %s\nwant %s", got, in)
		}
	}
	// Missing id and created_at are generated.
	e, err := event.Decode([]byte(`{"type":"USER_INTERRUPT","reply_id":"r"}`))
	if err != nil {
		t.Fatal(err)
	}
	if h := e.Header(); len(h.ID) != 32 || h.CreatedAt == "" {
		t.Fatalf("defaults not filled: %+v", h)
	}
}

// TestReplyIDOf: every event but CUSTOM belongs to a reply.
func TestReplyIDOf(t *testing.T) {
	for _, typ := range event.Types {
		e, err := event.New(typ)
		if err != nil {
			t.Fatal(err)
		}
		_, ok := event.ReplyIDOf(e)
		if ok == (typ == event.TypeCustom) {
			t.Errorf("%s: ReplyIDOf ok=%v", typ, ok)
		}
	}
	if _, err := event.New("NOPE"); !errors.Is(err, event.ErrUnknownType) {
		t.Fatalf("New(NOPE): %v", err)
	}
}

// TestZeroValuesEncodeDefaults: an event built by hand with zero enums
// writes the reference's defaults, not empty strings.
func TestZeroValuesEncodeDefaults(t *testing.T) {
	cases := []struct {
		e    event.Event
		want string
	}{
		{&event.ReplyStart{Base: event.Base{ID: "i", CreatedAt: "t"}, SessionID: "s", ReplyID: "r", Name: "n"},
			`{"id":"i","created_at":"t","metadata":{},"type":"REPLY_START","session_id":"s","reply_id":"r","name":"n","role":"assistant"}`},
		{&event.ReplyEnd{Base: event.Base{ID: "i", CreatedAt: "t"}, SessionID: "s", ReplyID: "r", Error: &event.ErrorInfo{Message: "m"}},
			`{"id":"i","created_at":"t","metadata":{},"type":"REPLY_END","session_id":"s","reply_id":"r","finished_reason":"completed","error":{"type":"unknown","message":"m"}}`},
		{&event.ModelCallEnd{Base: event.Base{ID: "i", CreatedAt: "t"}, ReplyID: "r"},
			`{"id":"i","created_at":"t","metadata":{},"type":"MODEL_CALL_END","reply_id":"r","input_tokens":0,"output_tokens":0,"cache_input_tokens":0,"cache_creation_input_tokens":0,"finished_reason":"completed"}`},
	}
	for _, c := range cases {
		if got := string(c.e.AppendJSON(nil)); got != c.want {
			t.Errorf("\ngot  %s\nwant %s", got, c.want)
		}
	}
}
