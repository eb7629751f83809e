package agent

import (
	"testing"

	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
)

// validate takes the default summary schema without parsing it: it must be
// what a given schema is checked to be, a JSON object.
func TestDefaultSummarySchemaIsObject(t *testing.T) {
	v, err := pyjson.Parse(DefaultSummarySchema)
	if err != nil || v.Kind != pyjson.Object {
		t.Fatalf("DefaultSummarySchema: %v, kind %v", err, v.Kind)
	}
	if _, err := (ContextConfig{SummarySchema: []byte(`[1]`)}).validate(nil); err == nil {
		t.Fatal("a schema that is not an object was taken")
	}
}
