package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/tool"
)

// Every tool call in the conformance traces either fails preparation with
// exactly the error text the reference put in its result, or passes it
// (when the reference went on to run the tool).
func TestPrepareAgainstGoldenTraces(t *testing.T) {
	files, err := filepath.Glob(fixture.Path(t, "conformance", "golden", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden traces: %v", err)
	}
	var failures, successes int
	for _, f := range files {
		var g struct {
			Spec struct {
				Tools []struct {
					Name        string
					Description *string
					InputSchema json.RawMessage `json:"input_schema"`
				}
				SchemasJSON map[string]json.RawMessage `json:"schemas_json"`
			}
			FinalContext []struct {
				Content []json.RawMessage
			} `json:"final_context"`
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &g); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var tools []tool.Tool
		for _, st := range g.Spec.Tools {
			desc := "Scripted tool '" + st.Name + "'."
			if st.Description != nil {
				desc = *st.Description
			}
			schema := st.InputSchema
			if schema == nil {
				schema = json.RawMessage(`{"type":"object","properties":{"input":{"type":"string"}},"required":[]}`)
			}
			tools = append(tools, must(t)(tool.New(st.Name, desc, schema, chunks(tool.Text("ok")))))
		}
		for _, s := range g.Spec.SchemasJSON {
			tools = append(tools, must(t)(tool.NewStructuredOutput(s, nil)))
		}
		tk, err := tool.NewToolkit(tools)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		calls := map[string]*block.ToolCall{}
		for _, m := range g.FinalContext {
			for _, raw := range m.Content {
				b, err := block.Decode(raw)
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				switch b := b.(type) {
				case *block.ToolCall:
					calls[b.ID] = b
				case *block.ToolResult:
					call := calls[b.ID]
					if call == nil {
						continue
					}
					_, _, err := tk.Prepare(call, nil)
					switch {
					case b.State == block.ResultError && b.Output.Plain:
						failures++
						if err == nil || err.Error() != b.Output.Text || !errors.Is(err, tool.ErrModelFacing) {
							t.Errorf("%s %s: Prepare error\n got %v\nwant %s", filepath.Base(f), b.ID, err, b.Output.Text)
						}
					case !b.Output.Plain:
						successes++
						if err != nil {
							t.Errorf("%s %s: the reference ran the tool, Prepare failed: %v", filepath.Base(f), b.ID, err)
						}
					}
				}
			}
		}
	}
	if failures < 3 || successes < 10 {
		t.Fatalf("only %d failing and %d passing calls checked", failures, successes)
	}
}

// §3.7: the decode-error texts, including the 200-character truncation
// (expected texts from testdata/gen_decode_errors.py, the reference's
// formatting run under CPython).
func TestJSONDecodeErrorTexts(t *testing.T) {
	data, err := os.ReadFile("testdata/decode_errors.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases [][2]string
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		_, err := tool.ParseInput(c[0])
		var de *tool.JSONDecodeError
		if !errors.As(err, &de) || !errors.Is(err, tool.ErrModelFacing) {
			t.Errorf("ParseInput(%.40q): %v", c[0], err)
			continue
		}
		if err.Error() != c[1] {
			t.Errorf("ParseInput(%.40q):\n got %s\nwant %s", c[0], err.Error(), c[1])
		}
	}
}

func TestParseInputRepairsAndAccepts(t *testing.T) {
	for in, want := range map[string]string{
		``:                           `{}`,
		"  \n":                       `{}`,
		`{"a": 1}`:                   `{"a":1}`,
		`{"a": 1, "b": [1, 2`:        `{"a":1,"b":[1,2]}`,
		`{'a': 'x', b: True,}`:       `{"a":"x","b":true}`,
		"Sure! {\"city\": \"Oslo\"}": `{"city":"Oslo"}`,
	} {
		got, err := tool.ParseInput(in)
		if err != nil {
			t.Errorf("ParseInput(%q): %v", in, err)
			continue
		}
		if b, _ := json.Marshal(got); string(b) != want {
			t.Errorf("ParseInput(%q) = %s, want %s", in, b, want)
		}
	}
	for _, in := range []string{`{"a": NaN}`, `{"a": -Infinity`} {
		_, err := tool.ParseInput(in)
		var de *tool.JSONDecodeError
		if !errors.As(err, &de) || de.Problem != "Error: NaN and Infinity are not valid JSON numbers." {
			t.Errorf("ParseInput(%q): %v", in, err)
		}
	}
}

// SO-3 and the jsonschema phrasing for the common failures.
func TestPrepareValidationMessages(t *testing.T) {
	weather := json.RawMessage(`{"properties": {"city": {"title": "City", "type": "string"}, "temperature": {"title": "Temperature", "type": "number"}}, "required": ["city", "temperature"], "title": "WeatherReport", "type": "object"}`)
	so := must(t)(tool.NewStructuredOutput(weather, nil))
	mode := must(t)(tool.New("set_mode", "d", json.RawMessage(`{"type":"object","properties":{"mode":{"type":"string","enum":["fast","slow"]},"level":{"type":"integer","minimum":1}},"required":["mode"],"additionalProperties":false}`), chunks()))
	tk, err := tool.NewToolkit([]tool.Tool{so, mode})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, input, want string }{
		{tool.StructuredOutputName, `{"city": "Hangzhou", "temperature": "hot"}`,
			"Input validation failed for tool 'GenerateStructuredOutput': 'hot' is not of type 'number'"},
		{tool.StructuredOutputName, `{"city": "Hangzhou"}`,
			"Input validation failed for tool 'GenerateStructuredOutput': 'temperature' is a required property"},
		{"set_mode", `{"mode": "medium"}`, "Input validation failed for tool 'set_mode': 'medium' is not one of ['fast', 'slow']"},
		{"set_mode", `{"mode": "fast", "zzz": 1, "aaa": 2}`, "Input validation failed for tool 'set_mode': Additional properties are not allowed ('aaa', 'zzz' were unexpected)"},
		{"set_mode", `{"mode": "fast", "level": 0.5}`, "Input validation failed for tool 'set_mode': 0.5 is not of type 'integer'"},
		{"set_mode", `{"mode": "fast", "level": 0}`, "Input validation failed for tool 'set_mode': 0 is less than the minimum of 1"},
		{"set_mode", `{"mode": "fast", "level": 2.0}`, ""},
	} {
		_, _, err := tk.Prepare(&block.ToolCall{ID: "c", Name: c.name, Input: c.input}, nil)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s %s: %v", c.name, c.input, err)
			}
			continue
		}
		var ve *tool.ValidationError
		if !errors.As(err, &ve) || err.Error() != c.want {
			t.Errorf("%s %s:\n got %v\nwant %s", c.name, c.input, err, c.want)
		}
	}
}

// Validation errors from a schema feature the message renderer does not
// model still come back as validation errors, with the validator's text.
func TestValidationFallbackMessage(t *testing.T) {
	v, err := tool.NewValidator("t", json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","unevaluatedProperties":false,"properties":{"x":{}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	err = v.Validate(map[string]any{"a": map[string]any{"y": 1}})
	var ve *tool.ValidationError
	if !errors.As(err, &ve) || ve.Message == "" || ve.Cause == nil {
		t.Fatalf("err = %v", err)
	}
}

func TestNewValidatorRejectsBadSchemas(t *testing.T) {
	for _, s := range []string{`{"type":"array"}`, `{"type":"object"}`, `[]`, `{"type":"object","properties":{"a":{"type":"nope"}}}`, `{`, `{"type":"object","properties":{},"$ref":"http://example.com/x.json"}`} {
		_, err := tool.NewValidator("t", json.RawMessage(s))
		var se *tool.SchemaError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v", s, err)
		}
	}
}

func TestPrepareUsesActivation(t *testing.T) {
	x := must(t)(tool.New("x", "d", emptySchema, chunks()))
	tk, _ := tool.NewToolkit(nil, tool.Group{Name: "g", Description: "G", Tools: []tool.Tool{x}})
	if _, _, err := tk.Prepare(&block.ToolCall{Name: "x", Input: "{}"}, nil); err == nil {
		t.Fatal("inactive tool prepared")
	}
	got, input, err := tk.Prepare(&block.ToolCall{Name: "x", Input: "{}"}, []string{"g"})
	if err != nil || got != x || input == nil {
		t.Fatalf("%v %v %v", got, input, err)
	}
	_ = context.Background()
}

// The tool list of every model call in the conformance traces equals
// Toolkit.Schemas for the scenario's tools (plus GenerateStructuredOutput,
// mounted last in "basic", for structured replies).
func TestSchemasAgainstGoldenTraces(t *testing.T) {
	files, err := filepath.Glob(fixture.Path(t, "conformance", "golden", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden traces: %v", err)
	}
	checked := 0
	for _, f := range files {
		var g struct {
			Spec struct {
				Tools []struct {
					Name        string
					Description *string
					InputSchema json.RawMessage `json:"input_schema"`
				}
				SchemasJSON map[string]json.RawMessage `json:"schemas_json"`
				Inputs      []struct {
					StructuredSchema string `json:"structured_schema"`
				}
			}
			Steps []struct {
				ModelCalls []struct {
					Tools json.RawMessage
				} `json:"model_calls"`
			}
		}
		data, _ := os.ReadFile(f)
		if err := json.Unmarshal(data, &g); err != nil {
			t.Fatal(err)
		}
		var tools []tool.Tool
		for _, st := range g.Spec.Tools {
			desc := "Scripted tool '" + st.Name + "'."
			if st.Description != nil {
				desc = *st.Description
			}
			schema := st.InputSchema
			if schema == nil {
				schema = json.RawMessage(`{"type":"object","properties":{"input":{"type":"string"}},"required":[]}`)
			}
			tools = append(tools, must(t)(tool.New(st.Name, desc, schema, chunks())))
		}
		tk, err := tool.NewToolkit(tools)
		if err != nil {
			t.Fatal(err)
		}
		for i, step := range g.Steps {
			tk.Remove(tool.StructuredOutputName)
			if i < len(g.Spec.Inputs) && g.Spec.Inputs[i].StructuredSchema != "" {
				so := must(t)(tool.NewStructuredOutput(g.Spec.SchemasJSON[g.Spec.Inputs[i].StructuredSchema], nil))
				if err := tk.Add("", so); err != nil {
					t.Fatal(err)
				}
			}
			for _, mc := range step.ModelCalls {
				got, _ := json.Marshal(tk.Schemas(nil))
				want := mc.Tools
				if string(want) == "null" {
					want = json.RawMessage(`[]`)
				}
				matchJSON(t, filepath.Base(f), got, want)
				checked++
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d model calls checked", checked)
	}
}
