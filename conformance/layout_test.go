package conformance

import (
	"testing"

	"github.com/agentscope-go/agentscope/internal/ojson"
)

// A "none" input records no input_object (omitted, not null); the other
// kinds record one.
func TestNoneInputOmitsInputObject(t *testing.T) {
	golden := loadGolden(t, "multi_turn_conversation")
	spec := getObj(golden, "spec")
	inputs := getArr(spec, "inputs")
	// Continue from the context after the conversation: a turn the model
	// has no script for still records the step.
	spec.Set("inputs", append(inputs, ojson.New("kind", "none")))
	doc, err := record(golden)
	if err != nil {
		t.Fatal(err)
	}
	steps := getArr(doc, "steps")
	if len(steps) != len(inputs)+1 {
		t.Fatalf("%d steps, want %d", len(steps), len(inputs)+1)
	}
	for i, sv := range steps {
		step := sv.(*ojson.Object)
		_, has := step.Get("input_object")
		if want := i < len(inputs); has != want {
			t.Errorf("step %d (%s): input_object present = %v, want %v", i, getStr(getObj(step, "input"), "kind", ""), has, want)
		}
	}
}
