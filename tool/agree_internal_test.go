package tool

import (
	"encoding/json"
	"os"
	"testing"

	"pgregory.net/rapid"

	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
	"github.com/agentscope-go/agentscope/internal/pycompat/pyschema"
)

// The reference-style message renderer and the validator of record agree
// on validity for every schema of the renderer's Python-derived cases, on
// random instances built from those schemas' names and values.
func TestRendererAgreesWithValidator(t *testing.T) {
	data, err := os.ReadFile("../internal/pycompat/pyschema/testdata/python_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Schema   json.RawMessage
		Instance json.RawMessage
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	type compiled struct {
		tree pyjson.Value
		v    interface{ Validate(any) error }
	}
	var schemas []compiled
	var samples []any
	for _, c := range cases {
		tree, _ := pyjson.Parse(string(c.Schema))
		sch, err := compileSchema(c.Schema)
		if err != nil {
			t.Fatal(err)
		}
		schemas = append(schemas, compiled{tree, sch})
		inst, _ := pyjson.Parse(string(c.Instance))
		collectSamples(inst.Any(), &samples)
		collectSamples(tree.Any(), &samples)
	}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.SampledFrom(schemas).Draw(t, "schema")
		inst := drawInstance(t, samples, 0)
		valid := s.v.Validate(inst) == nil
		msg, found := pyschema.BestMatch(s.tree, pyjson.FromAny(inst))
		if valid == found {
			b, _ := json.Marshal(inst)
			t.Fatalf("instance %s: validator valid=%v, renderer found %v (%q)", b, valid, found, msg)
		}
	})
}

func collectSamples(x any, out *[]any) {
	*out = append(*out, x)
	switch v := x.(type) {
	case map[string]any:
		for k, e := range v {
			*out = append(*out, k)
			collectSamples(e, out)
		}
	case []any:
		for _, e := range v {
			collectSamples(e, out)
		}
	}
}

func drawInstance(t *rapid.T, samples []any, depth int) any {
	switch rapid.IntRange(0, 3).Draw(t, "shape") {
	case 0:
		if depth < 3 {
			m := map[string]any{}
			for range rapid.IntRange(0, 4).Draw(t, "n") {
				k, _ := rapid.SampledFrom(samples).Draw(t, "key").(string)
				m[k] = drawInstance(t, samples, depth+1)
			}
			return m
		}
	case 1:
		if depth < 3 {
			var l []any
			for range rapid.IntRange(0, 3).Draw(t, "n") {
				l = append(l, drawInstance(t, samples, depth+1))
			}
			return l
		}
	}
	return rapid.SampledFrom(samples).Draw(t, "value")
}
