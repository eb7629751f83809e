package tool_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/tool"
)

// chain is a schema whose property x is judged by a chain of n anyOf
// levels, each of two references to the next level: 2^(n+1) subschemas
// for one value. ref spells a reference to level i.
func chain(n int, def func(i int) string, ref func(i int) string) string {
	defs := make([]string, 0, n+1)
	for i := range n {
		defs = append(defs, fmt.Sprintf(`"a%d":{%s"anyOf":[{"$ref":%q},{"$ref":%q}]}`, i, def(i), ref(i+1), ref(i+1)))
	}
	defs = append(defs, fmt.Sprintf(`"a%d":{%s"type":"string"}`, n, def(n)))
	return fmt.Sprintf(`{"type":"object","properties":{"x":{"$ref":%q}},"$defs":{%s}}`, ref(0), strings.Join(defs, ","))
}

// A schema that would have every call walk tens of thousands of its
// subschemas for one value (an MCP server's, say) is refused when the
// tool registers; by pointer or by anchor, the same. Real recursion,
// through items or properties, moves to another value and is accepted.
func TestSchemaFanoutBounded(t *testing.T) {
	byPointer := func(i int) string { return fmt.Sprintf("#/$defs/a%d", i) }
	noDef := func(int) string { return "" }
	byAnchor := func(i int) string { return fmt.Sprintf("#n%d", i) }
	anchorDef := func(i int) string { return fmt.Sprintf(`"$anchor":"n%d",`, i) }
	for name, schema := range map[string]string{
		"pointers, 16 levels": chain(16, noDef, byPointer),
		"anchors, 16 levels":  chain(16, anchorDef, byAnchor),
		"a loop":              `{"type":"object","properties":{"x":{"$ref":"#/$defs/a"}},"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}}}`,
	} {
		_, err := tool.NewValidator("t", json.RawMessage(schema))
		var se *tool.SchemaError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v, want a *SchemaError", name, err)
		}
		if name != "a loop" && !errors.Is(err, tool.ErrSchemaTooComplex) {
			t.Errorf("%s: %v, want ErrSchemaTooComplex", name, err)
		}
	}
	for name, schema := range map[string]string{
		"10 levels":       chain(10, noDef, byPointer),
		"recursive items": `{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}},"$defs":{"n":{"anyOf":[{"type":"array","items":{"$ref":"#/$defs/n"}},{"type":"string"}]}}}`,
		"a tree":          `{"type":"object","properties":{"node":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}},"name":{"type":"string"}}}}}`,
	} {
		v, err := tool.NewValidator("t", json.RawMessage(schema))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if err := v.Validate(map[string]any{"x": "s", "a": []any{[]any{"s"}}}); err != nil {
			t.Errorf("%s: valid arguments refused: %v", name, err)
		}
	}
}

// Whatever schema text a tool brings, registering it returns a validator
// or an error, never a panic or a hang.
func FuzzNewValidator(f *testing.F) {
	f.Add(chain(3, func(int) string { return "" }, func(i int) string { return fmt.Sprintf("#/$defs/a%d", i) }))
	f.Add(`{"type":"object","properties":{"x":{"$ref":"#/properties/x/anyOf/0"}, "y":{"$ref":"#a"}},"$defs":{"a":{"$anchor":"a","$id":"#b"}}}`)
	f.Add(`{"type":"object","properties":{"x":{"$ref":"#/$defs/~1%25/0"}},"$defs":{"/%":[{"type":"string"}]}}`)
	f.Fuzz(func(t *testing.T, schema string) {
		if v, err := tool.NewValidator("t", json.RawMessage(schema)); err == nil {
			_ = v.Validate(map[string]any{"x": "s"})
		}
	})
}
