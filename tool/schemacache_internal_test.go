package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// Validators of one schema text share its compiled form, and each still
// names its own tool in its errors; a full cache starts over and keeps
// working.
func TestSchemaCache(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	a, err := NewValidator("a", schema)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewValidator("b", schema)
	if err != nil {
		t.Fatal(err)
	}
	if a.compiled != b.compiled {
		t.Fatal("the second validator of the same schema compiled it again")
	}
	for name, v := range map[string]*Validator{"a": a, "b": b} {
		var ve *ValidationError
		if err := v.Validate(map[string]any{"n": "x"}); !errors.As(err, &ve) || ve.Tool != name {
			t.Fatalf("validator %s: %v", name, err)
		}
	}
	for i := range maxCachedSchemas + 10 {
		s := json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"string"}}}`, i))
		if _, err := NewValidator("t", s); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(compiledSchemas.m); n > maxCachedSchemas {
		t.Fatalf("%d schemas cached, more than %d", n, maxCachedSchemas)
	}
	c, err := NewValidator("c", schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(map[string]any{"n": 1}); err != nil {
		t.Fatal(err)
	}
	// An invalid schema is refused every time, never cached.
	bad := json.RawMessage(`{"type":"object","properties":{"a":{"type":"nonsense"}}}`)
	for range 2 {
		var se *SchemaError
		if _, err := NewValidator("bad", bad); !errors.As(err, &se) {
			t.Fatalf("an invalid schema: %v", err)
		}
	}
}
