package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
	"github.com/agentscope-go/agentscope/internal/pycompat/pyschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Validator checks argument objects against one compiled input schema.
// It is safe for concurrent use.
type Validator struct {
	tool     string
	tree     pyjson.Value // the schema, for rendering reference messages
	compiled *jsonschema.Schema
}

// ErrNotObjectSchema is wrapped by a *SchemaError for an input schema that
// is not {"type":"object","properties":{…}}.
var ErrNotObjectSchema = errors.New(`input schema must be {"type":"object","properties":{...}}`)

// NewValidator compiles schema (Draft 2020-12 unless it declares another
// "$schema") for the named tool; a *SchemaError if it is not a valid
// object schema.
//
// Compiled schemas are kept by their text, process-wide: a server builds
// an agent, and so a toolkit, for every run, and compiling its tools'
// schemas anew each time was most of the cost of building it.
func NewValidator(toolName string, schema json.RawMessage) (*Validator, error) {
	if c, ok := compiledSchemas.get(schema); ok {
		return &Validator{tool: toolName, tree: c.tree, compiled: c.compiled}, nil
	}
	tree, err := pyjson.Parse(string(schema))
	if err != nil {
		return nil, &SchemaError{Tool: toolName, Err: err}
	}
	if err := checkObjectSchema(tree); err != nil {
		return nil, &SchemaError{Tool: toolName, Err: err}
	}
	compiled, err := compileSchema(schema)
	if err != nil {
		return nil, &SchemaError{Tool: toolName, Err: err}
	}
	if err := checkFanout(tree); err != nil {
		return nil, &SchemaError{Tool: toolName, Err: err}
	}
	compiledSchemas.put(schema, compiledSchema{tree, compiled})
	return &Validator{tool: toolName, tree: tree, compiled: compiled}, nil
}

// compiledSchema is what a Validator shares with every other validator
// of the same schema text; both parts are only read once built.
type compiledSchema struct {
	tree     pyjson.Value
	compiled *jsonschema.Schema
}

// schemaCache keeps compiled schemas by text, up to maxCachedSchemas; it
// starts over when full, so schemas that keep changing (an MCP server
// generating them) cannot grow it without bound.
type schemaCache struct {
	mu sync.RWMutex
	m  map[string]compiledSchema
}

const maxCachedSchemas = 1024

var compiledSchemas = &schemaCache{m: map[string]compiledSchema{}}

func (c *schemaCache) get(schema json.RawMessage) (compiledSchema, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[string(schema)]
	return v, ok
}

func (c *schemaCache) put(schema json.RawMessage, v compiledSchema) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCachedSchemas {
		clear(c.m)
	}
	c.m[string(schema)] = v
}

func checkObjectSchema(tree pyjson.Value) error {
	if tree.Kind != pyjson.Object {
		return ErrNotObjectSchema
	}
	t, ok := tree.Get("type")
	if !ok || t.Kind != pyjson.String || t.Str != "object" {
		return ErrNotObjectSchema
	}
	p, ok := tree.Get("properties")
	if !ok || p.Kind != pyjson.Object {
		return ErrNotObjectSchema
	}
	return nil
}

// schemaURL names the in-memory resource; nothing is ever fetched (the
// compiler has no loader for other URLs, so remote $refs fail to compile).
const schemaURL = "mem:///input.json"

func compileSchema(schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

// Validate returns nil or a *ValidationError phrased like the reference.
func (v *Validator) Validate(input map[string]any) error {
	return v.validate(input, nil)
}

// validate checks input; ordered, when non-nil, is the same value as
// parsed from the model's text, whose key order and int/float spelling the
// message quotes.
func (v *Validator) validate(input map[string]any, ordered *pyjson.Value) error {
	if input == nil {
		input = map[string]any{}
	}
	err := v.compiled.Validate(input)
	if err == nil {
		return nil
	}
	inst := pyjson.Value{}
	if ordered != nil {
		inst = *ordered
	} else {
		inst = pyjson.FromAny(input)
	}
	msg, ok := pyschema.BestMatch(v.tree, inst)
	if !ok {
		msg = fallbackMessage(err)
	}
	return &ValidationError{Tool: v.tool, Message: msg, Cause: err}
}

// fallbackMessage describes a failure the Python-style renderer does not
// model (format, unevaluated*, dynamic refs) from the validator's own
// first leaf error, e.g. "at '/a': got string, want integer".
func fallbackMessage(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	return ve.Error()
}

// ParseInput parses a tool call's raw argument text into an object the way
// the reference does (json.loads, then a lenient repair of truncated or
// sloppy JSON); empty text is an empty object. Anything that does not
// become a JSON object is a *JSONDecodeError.
func ParseInput(raw string) (map[string]any, error) {
	v, err := parseInput(raw)
	if err != nil {
		return nil, err
	}
	return v.Any().(map[string]any), nil
}

func parseInput(raw string) (pyjson.Value, error) {
	// Providers stream no argument text at all for a call without
	// arguments.
	if strings.TrimSpace(raw) == "" {
		return pyjson.Value{Kind: pyjson.Object}, nil
	}
	v, err := pyjson.Parse(raw)
	var problem string
	switch {
	case err == nil && v.Kind == pyjson.Object:
		if finite(v) {
			return v, nil
		}
		problem = pycompat.ArgumentsNotFinite
	case err == nil:
		problem = pycompat.ArgumentsNotObject(v.TypeName())
	default:
		problem = pycompat.ArgumentsNotJSON(err.Error())
		if r, ok := pyjson.Repair(raw); ok && r.Kind == pyjson.Object {
			if finite(r) {
				return r, nil
			}
			problem = pycompat.ArgumentsNotFinite
		}
	}
	return pyjson.Value{}, &JSONDecodeError{Input: raw, Problem: problem}
}

// finite reports whether no number in v is NaN or infinite: such values
// pass schema checks yet silently defeat minimum/maximum.
func finite(v pyjson.Value) bool {
	switch v.Kind {
	case pyjson.Int, pyjson.Float:
		return v.Finite()
	case pyjson.Array, pyjson.Object:
		for _, it := range v.Items {
			if !finite(it) {
				return false
			}
		}
	}
	return true
}

// Error renders the reference's ToolJSONDecodeError text.
func (e *JSONDecodeError) Error() string { return pycompat.BadArguments(e.Problem, e.Input) }

// StripTitles returns a copy of schema without "title" keys, recursing
// into properties, items, additionalProperties and $defs (not into
// anyOf/allOf), key order preserved. Non-object values (boolean schemas)
// are left as they are.
func StripTitles(schema json.RawMessage) (json.RawMessage, error) {
	tree, err := pyjson.Parse(string(schema))
	if err != nil {
		return nil, fmt.Errorf("strip titles: %w", err)
	}
	return pyjson.AppendJSON(nil, stripTitles(tree)), nil
}

func stripTitles(s pyjson.Value) pyjson.Value {
	if s.Kind != pyjson.Object {
		return s
	}
	out := pyjson.Value{Kind: pyjson.Object, Keys: make([]string, 0, len(s.Keys)), Items: make([]pyjson.Value, 0, len(s.Keys))}
	for i, k := range s.Keys {
		v := s.Items[i]
		switch k {
		case "title":
			continue
		case "properties", "$defs":
			if v.Kind == pyjson.Object {
				m := pyjson.Value{Kind: pyjson.Object, Keys: v.Keys, Items: make([]pyjson.Value, len(v.Items))}
				for j, sub := range v.Items {
					m.Items[j] = stripTitles(sub)
				}
				v = m
			}
		case "items", "additionalProperties":
			v = stripTitles(v)
		}
		out.Keys = append(out.Keys, k)
		out.Items = append(out.Items, v)
	}
	return out
}

// SchemaFor is InferSchema for a type parameter.
func SchemaFor[T any]() (json.RawMessage, error) {
	return InferSchema(reflect.TypeFor[T]())
}

// pyjsonStrip returns the validator's schema without titles, as models
// see it.
func pyjsonStrip(v *Validator) json.RawMessage {
	return pyjson.AppendJSON(nil, stripTitles(v.tree))
}
