package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/internal/wire"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/tool"
)

var weatherWithUnit = json.RawMessage(`{"properties": {"city": {"title": "City", "type": "string"}, "unit": {"default": "celsius", "title": "Unit", "type": "string"}}, "required": ["city"], "title": "WeatherReportWithUnit", "type": "object"}`)

// §9.6 and SO-7: defaults filled, extras kept, stored through the hook.
func TestStructuredOutputStoresFilledOutput(t *testing.T) {
	var stored map[string]any
	so := must(t)(tool.NewStructuredOutput(weatherWithUnit, func(_ context.Context, out map[string]any) error {
		stored = out
		return nil
	}))
	if so.Name() != tool.StructuredOutputName {
		t.Fatal(so.Name())
	}
	if fl := so.Flags(); !fl.ConcurrencySafe || !fl.ReadOnly || !fl.StateInjected || fl.External {
		t.Fatalf("flags %+v", fl)
	}
	if d := tool.PermissionSubject(so).CheckPermissions(context.Background(), nil, nil); d.Behavior != block.Allow {
		t.Fatalf("permission %+v", d)
	}
	if want := `{"properties":{"city":{"type":"string"},"unit":{"default":"celsius","type":"string"}},"required":["city"],"type":"object"}`; string(so.InputSchema()) != want {
		t.Fatalf("schema %s", so.InputSchema())
	}
	tk, _ := tool.NewToolkit([]tool.Tool{so})
	call := &block.ToolCall{ID: "structured_call_1", Name: tool.StructuredOutputName, Input: `{"city": "Hangzhou", "note": "sunny"}`}
	tl, input, err := tk.Prepare(call, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := (&tool.Runner{}).Collect(context.Background(), call.ID, tl, input)
	if res.State != block.ResultSuccess || textOf(res.Content[0]) != tool.StructuredOutputDone {
		t.Fatalf("result %s", res.AppendJSON(nil))
	}
	want := map[string]any{"city": "Hangzhou", "note": "sunny", "unit": "celsius"}
	if !reflect.DeepEqual(stored, want) {
		t.Fatalf("stored %v, want %v", stored, want)
	}
	if _, ok := input["unit"]; ok {
		t.Fatal("the caller's input was modified")
	}
}

// The schema the model sees equals the golden trace's.
func TestStructuredOutputSchemaMatchesGolden(t *testing.T) {
	var g struct {
		Spec struct {
			SchemasJSON map[string]json.RawMessage `json:"schemas_json"`
		}
		Steps []struct {
			ModelCalls []struct {
				Tools json.RawMessage
			} `json:"model_calls"`
		}
	}
	fixture.Load(t, &g, "conformance", "golden", "structured_output_success.json")
	so := must(t)(tool.NewStructuredOutput(g.Spec.SchemasJSON["Answer"], nil))
	tk, _ := tool.NewToolkit([]tool.Tool{so})
	got, _ := json.Marshal(tk.Schemas(nil))
	matchJSON(t, "tools", got, g.Steps[0].ModelCalls[0].Tools)
}

func TestStructuredOutputFailures(t *testing.T) {
	nested := json.RawMessage(`{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer","default":1}},"required":["n"]}},"name":{"type":"string","minLength":2}},"required":["items"]}`)
	so := must(t)(tool.NewStructuredOutput(nested, func(context.Context, map[string]any) error {
		t.Error("stored an invalid output")
		return nil
	}))
	// Called directly (not through Prepare): the tool validates itself and
	// lists every error.
	res := (&tool.Runner{}).Collect(context.Background(), "c", so, map[string]any{
		"items": []any{map[string]any{"n": "x"}, map[string]any{}},
		"name":  "a",
	})
	want := "ValidationError: Structured output validation failed with error: $.items[0].n: 'x' is not of type 'integer'; $.name: 'a' is too short"
	if res.State != block.ResultError || textOf(res.Content[0]) != want {
		t.Fatalf("got %s\nwant %s", res.AppendJSON(nil), want)
	}
	// Defaults fill nested objects: {} becomes {"n": 1}.
	var stored map[string]any
	ok := must(t)(tool.NewStructuredOutput(nested, func(_ context.Context, out map[string]any) error { stored = out; return nil }))
	res = (&tool.Runner{}).Collect(context.Background(), "c", ok, map[string]any{"items": []any{map[string]any{}}})
	if res.State != block.ResultSuccess || !reflect.DeepEqual(stored["items"], []any{map[string]any{"n": json.Number("1")}}) {
		t.Fatalf("%s %v", res.AppendJSON(nil), stored)
	}
	// Integers stay integers on the wire (a float64 would be written 1.0).
	ints := must(t)(tool.NewStructuredOutput(nested, func(_ context.Context, out map[string]any) error { stored = out; return nil }))
	(&tool.Runner{}).Collect(context.Background(), "c", ints, map[string]any{"items": []any{map[string]any{"n": float64(3)}}, "name": "ab"})
	if got := string(wire.AppendObject(nil, stored)); got != `{"items":[{"n":3}],"name":"ab"}` {
		t.Fatalf("stored output written as %s", got)
	}
	// A store failure is the error result.
	failing := must(t)(tool.NewStructuredOutput(nested, func(context.Context, map[string]any) error { return errors.New("state is gone") }))
	res = (&tool.Runner{}).Collect(context.Background(), "c", failing, map[string]any{"items": []any{}})
	if res.State != block.ResultError || textOf(res.Content[0]) != "state is gone" {
		t.Fatal(string(res.AppendJSON(nil)))
	}
	// No schema: nothing to generate.
	none := must(t)(tool.NewStructuredOutput(nil, nil))
	res = (&tool.Runner{}).Collect(context.Background(), "c", none, map[string]any{"x": 1})
	if res.State != block.ResultSuccess || textOf(res.Content[0]) != tool.StructuredOutputNotRequired {
		t.Fatal(string(res.AppendJSON(nil)))
	}
	if _, err := tool.NewStructuredOutput(json.RawMessage(`{"type":"string"}`), nil); err == nil {
		t.Fatal("non-object schema accepted")
	}
	if !strings.HasSuffix(tool.StructuredOutputDescription, "information.\n") {
		t.Fatal("description")
	}
}
