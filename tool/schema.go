package tool

import (
	"encoding/json"
	"reflect"
)

// Validator checks argument objects against one compiled input schema.
// It is safe for concurrent use.
type Validator struct {
	tool string
}

// NewValidator compiles schema (Draft 2020-12 unless it says otherwise)
// for the named tool; a *SchemaError if it is not a valid object schema.
func NewValidator(toolName string, schema json.RawMessage) (*Validator, error) {
	panic("unimplemented")
}

// Validate returns nil or a *ValidationError phrased like the reference.
func (v *Validator) Validate(input map[string]any) error { panic("unimplemented") }

// ParseInput parses a tool call's raw argument text into an object the way
// the reference does (json.loads, then a lenient repair of truncated or
// sloppy JSON); empty text is an empty object. Anything that does not
// become a JSON object is a *JSONDecodeError.
func ParseInput(raw string) (map[string]any, error) { panic("unimplemented") }

// StripTitles returns a copy of schema without "title" keys, recursing
// into properties, items, additionalProperties and $defs (not into
// anyOf/allOf), key order preserved. Non-object values (boolean schemas)
// are left as they are.
func StripTitles(schema json.RawMessage) (json.RawMessage, error) { panic("unimplemented") }

// InferSchema derives an object schema from a struct type (or pointer to
// one): properties from exported fields named by their json tags, in field
// order; required = fields without omitempty/omitzero (and not pointers);
// descriptions and constraints from the `jsonschema` tag
// (`jsonschema:"description=…,enum=a|b,minimum=1,maximum=10,default=5"`)
// or a `desc` tag; nested structs, slices, arrays, maps and pointers are
// described recursively. Unsupported kinds (chan, func, complex) are an
// error.
func InferSchema(t reflect.Type) (json.RawMessage, error) { panic("unimplemented") }

// SchemaFor is InferSchema for a type parameter.
func SchemaFor[T any]() (json.RawMessage, error) {
	return InferSchema(reflect.TypeFor[T]())
}
