package conformance

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/internal/ojson"
)

// A scenario names built-in tools by library name; the model's Read call
// runs the real tool (read-only, so the engine allows it).
func TestScenarioUsesBuiltinToolsByName(t *testing.T) {
	p := filepath.Join(t.TempDir(), "note.txt")
	if err := os.WriteFile(p, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	golden := loadGolden(t, "single_tool_call")
	spec := getObj(golden, "spec")
	spec.Set("tools", []any{"Read", ojson.New("ref", "Glob")})
	first := getArr(spec, "model_turns")[0].(*ojson.Object)
	call := getObj(getArr(first, "chunks")[1].(*ojson.Object), "tool_call")
	call.Set("name", "Read")
	call.Set("input", `{"file_path": "`+p+`"}`)
	doc, err := record(golden)
	if err != nil {
		t.Fatal(err)
	}
	out := string(ojson.Append(nil, doc))
	if !strings.Contains(out, `     1\thello`) {
		t.Errorf("the Read result is not in the trace: %.600s", out)
	}
	for _, name := range []string{`"name":"Read"`, `"name":"Glob"`} {
		if !strings.Contains(out, name) {
			t.Errorf("trace offers no %s", name)
		}
	}
}

func TestScenarioRejectsUnknownLibraryTool(t *testing.T) {
	golden := loadGolden(t, "single_tool_call")
	spec := getObj(golden, "spec")
	for _, v := range []any{"NoSuchTool", ojson.New("ref", "Bash", "description", "x")} {
		spec.Set("tools", []any{v})
		_, err := record(golden)
		var se *SpecError
		if !errors.As(err, &se) {
			t.Errorf("tools %v: error %v, want a *SpecError", v, err)
		}
	}
}
