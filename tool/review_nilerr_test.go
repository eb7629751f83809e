package tool_test

import (
	"context"
	"encoding/json"
	"iter"
	"testing"

	"github.com/agentscope-go/agentscope/tool"
)

// A constructor that fails returns a nil Tool, not an interface holding a
// nil pointer (which is != nil and panics when used).
func TestFailedConstructorsReturnNilTool(t *testing.T) {
	type in struct{}
	bad := json.RawMessage(`{"type":"array"}`)
	fn := func(context.Context, in) (string, error) { return "", nil }
	cases := map[string]func() (tool.Tool, error){
		"New nil body": func() (tool.Tool, error) { return tool.New("x", "d", json.RawMessage(`{"type":"object"}`), nil) },
		"New bad schema": func() (tool.Tool, error) {
			return tool.New("x", "d", bad, func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] { return nil })
		},
		"Func bad schema": func() (tool.Tool, error) { return tool.Func("x", "d", fn, tool.WithSchema(bad)) },
	}
	for name, mk := range cases {
		tl, err := mk()
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		if tl != nil {
			t.Fatalf("%s: a failed constructor returned a non-nil Tool %#v", name, tl)
		}
	}
}
