package pyschema

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
)

// testdata/python_cases.json holds messages produced by Python's
// jsonschema 4.26 (testdata/gen_python_cases.py).
func TestBestMatchMatchesPython(t *testing.T) {
	data, err := os.ReadFile("testdata/python_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Schema   json.RawMessage
		Instance json.RawMessage
		Message  *string
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 50 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		schema, err := pyjson.Parse(string(c.Schema))
		if err != nil {
			t.Fatal(err)
		}
		inst, err := pyjson.Parse(string(c.Instance))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := BestMatch(schema, inst)
		switch {
		case c.Message == nil && ok:
			t.Errorf("schema %s instance %s: got %q, want valid", c.Schema, c.Instance, got)
		case c.Message != nil && (!ok || got != *c.Message):
			t.Errorf("schema %s instance %s:\n got %q (ok=%v)\nwant %q", c.Schema, c.Instance, got, ok, *c.Message)
		}
	}
}

func TestRefCycleTerminates(t *testing.T) {
	schema, _ := pyjson.Parse(`{"$defs":{"A":{"$ref":"#/$defs/A"}},"$ref":"#/$defs/A"}`)
	inst, _ := pyjson.Parse(`{"a":1}`)
	if msg, ok := BestMatch(schema, inst); ok {
		t.Fatalf("unexpected error %q", msg)
	}
}
