package tool_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/tool"
)

// Whatever argument text a model produces, Prepare returns either a
// model-facing error or an object that the validator accepts; it never
// panics.
func FuzzPrepare(f *testing.F) {
	for _, s := range []string{`{"mode": "fast", "level": 3}`, `{"mode": 1}`, `[1, 2]`, `{"mode": "fast", "level": 1e400}`, `{'mode': 'slow'`, ``, `nul`, "\xff"} {
		f.Add(s)
	}
	schema := json.RawMessage(`{"type":"object","properties":{"mode":{"type":"string","enum":["fast","slow"]},"level":{"type":"integer","minimum":1,"maximum":10},"tags":{"type":"array","items":{"type":"string"},"uniqueItems":true}},"required":["mode"],"additionalProperties":false}`)
	tl, err := tool.New("set_mode", "d", schema, chunks())
	if err != nil {
		f.Fatal(err)
	}
	tk, _ := tool.NewToolkit([]tool.Tool{tl})
	v, _ := tool.NewValidator("set_mode", schema)
	f.Fuzz(func(t *testing.T, input string) {
		_, args, err := tk.Prepare(&block.ToolCall{ID: "c", Name: "set_mode", Input: input}, nil)
		if err != nil {
			if !errors.Is(err, tool.ErrModelFacing) || err.Error() == "" {
				t.Fatalf("%q: not a model-facing error: %v", input, err)
			}
			var ve *tool.ValidationError
			if errors.As(err, &ve) && (ve.Message == "" || strings.HasPrefix(ve.Message, "at '")) {
				// The schema only uses keywords the reference-style renderer
				// models, so it must agree with the validator.
				t.Fatalf("%q: renderer and validator disagree: %q", input, ve.Message)
			}
			return
		}
		if err := v.Validate(args); err != nil {
			t.Fatalf("%q: prepared arguments do not validate: %v", input, err)
		}
	})
}
