package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
	"github.com/agentscope-go/agentscope/internal/pycompat/pyschema"
	"github.com/google/jsonschema-go/jsonschema"
)

// Validator checks argument objects against one compiled input schema.
// It is safe for concurrent use.
type Validator struct {
	tool string
	compiledSchema
}

// ErrNotObjectSchema is wrapped by a *SchemaError for an input schema that
// is not {"type":"object","properties":{…}}.
var ErrNotObjectSchema = errors.New(`input schema must be {"type":"object","properties":{...}}`)

// NewValidator compiles schema (Draft 2020-12 unless it declares another
// "$schema": drafts 4, 6, 7 and 2019-09 are read too) for the named tool;
// a *SchemaError if it is not a valid object schema.
//
// Compiled schemas are kept by their text, process-wide: a server builds
// an agent, and so a toolkit, for every run, and compiling its tools'
// schemas anew each time was most of the cost of building it.
func NewValidator(toolName string, schema json.RawMessage) (*Validator, error) {
	if c, ok := compiledSchemas.get(schema); ok {
		return &Validator{tool: toolName, compiledSchema: c}, nil
	}
	tree, err := pyjson.Parse(string(schema))
	if err != nil {
		return nil, &SchemaError{Tool: toolName, Err: err}
	}
	if err := checkObjectSchema(tree); err != nil {
		return nil, &SchemaError{Tool: toolName, Err: err}
	}
	c, err := compileSchema(tree)
	if err != nil {
		return nil, &SchemaError{Tool: toolName, Err: err}
	}
	compiledSchemas.put(schema, c)
	return &Validator{tool: toolName, compiledSchema: c}, nil
}

// compiledSchema is what a Validator shares with every other validator
// of the same schema text; every part is only read once built.
type compiledSchema struct {
	tree     pyjson.Value // the schema as given, for messages and for models
	resolved *jsonschema.Resolved
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
// resolver has no loader, so remote $refs fail to compile).
const schemaURL = "mem:///input.json"

// compileSchema reads tree in its draft, as Draft 2020-12 (draft.go),
// checks it against what the meta-schema allows (schemacheck.go) and
// resolves its references.
//
// The validator is github.com/google/jsonschema-go, which the MCP SDK
// links anyway; santhosh-tekuri/jsonschema, used before, compiles the five
// drafts' meta-schemas in its package initialisation, 1.7 MB of heap in
// every process that links it (BENCHMARKS.md, memory at start).
func compileSchema(tree pyjson.Value) (compiledSchema, error) {
	d, err := pyschema.DraftOf(tree)
	if err != nil {
		return compiledSchema{}, err
	}
	t2020 := to2020(tree, d)
	if err := checkSchema(t2020, "#"); err != nil {
		return compiledSchema{}, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(pyjson.AppendJSON(nil, t2020), &s); err != nil {
		return compiledSchema{}, err
	}
	r, err := s.Resolve(&jsonschema.ResolveOptions{BaseURI: schemaURL})
	if err != nil {
		return compiledSchema{}, err
	}
	return compiledSchema{tree: tree, resolved: r}, nil
}

// check validates an instance decoded from JSON (maps, slices, float64 or
// json.Number, strings, booleans, nil) with the validator of record.
// "format" only annotates, in every draft: jsonschema.validate, which the
// reference calls, passes no format checker.
func (c *compiledSchema) check(instance any) error {
	return c.resolved.Validate(numbersAsGo(instance))
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
	err := v.check(input)
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
// model (unevaluated*, dynamic refs) in the validator's own words.
func fallbackMessage(err error) string {
	return err.Error()
}

// numbersAsGo returns x with every json.Number as an int64 (an integer
// literal that fits) or a float64: the validator of record takes a
// json.Number, whose kind is string, for a string. x is copied only where
// it holds one.
func numbersAsGo(x any) any {
	switch v := x.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		if f, err := v.Float64(); err == nil {
			return f
		}
		return pyjson.FromAny(v).Float64()
	case map[string]any:
		var out map[string]any
		for k, e := range v {
			if n := numbersAsGo(e); !sameValue(n, e) {
				if out == nil {
					out = maps.Clone(v)
				}
				out[k] = n
			}
		}
		if out != nil {
			return out
		}
	case []any:
		var out []any
		for i, e := range v {
			if n := numbersAsGo(e); !sameValue(n, e) {
				if out == nil {
					out = slices.Clone(v)
				}
				out[i] = n
			}
		}
		if out != nil {
			return out
		}
	}
	return x
}

// sameValue reports whether numbersAsGo left e as it was: only numbers
// and containers holding them change, and those come back as another
// dynamic type or another container.
func sameValue(n, e any) bool {
	switch ev := e.(type) {
	case json.Number:
		return false
	case map[string]any:
		nv, ok := n.(map[string]any)
		return ok && reflect.ValueOf(nv).UnsafePointer() == reflect.ValueOf(ev).UnsafePointer()
	case []any:
		nv, ok := n.([]any)
		return ok && len(nv) == len(ev) && (len(ev) == 0 || &nv[0] == &ev[0])
	}
	return true
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
