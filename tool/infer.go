package tool

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
)

// ErrUnsupportedType is wrapped by InferSchema's error for a type JSON
// cannot carry (chan, func, complex, unsafe pointer, non-string map keys).
var ErrUnsupportedType = errors.New("type cannot be described by a JSON schema")

// InferSchema derives an object schema from a struct type (or pointer to
// one, or map[string]T):
//
//   - properties are the exported fields, named and skipped ("-") by their
//     json tags, in field order; embedded structs are flattened as
//     encoding/json does;
//   - required are the fields without omitempty/omitzero that are not
//     pointers (override with `jsonschema:"required"` or
//     `jsonschema:"optional"`);
//   - string, bool, integer and number types map to their JSON types
//     (unsigned integers get "minimum": 0), slices and arrays to "array"
//     with "items" ([]byte is a base64 string), maps with string keys to
//     "object" with "additionalProperties", nested structs recursively,
//     pointers to their element, time.Time to a date-time string, any to
//     an unconstrained schema; a recursive type is cut off as a plain
//     "object";
//   - a blank field (`_ struct{}`) tagged like any other field gives the
//     object itself a description or title;
//   - the `jsonschema` tag adds keywords:
//     `jsonschema:"description=The mode to use,enum=fast|slow,default=fast"`;
//     known keys are description, title, enum (values separated by "|"),
//     default, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
//     multipleOf, minLength, maxLength, pattern, format, minItems, maxItems,
//     uniqueItems; a comma only separates keywords when a known key
//     follows it, so descriptions may contain commas. `desc` and
//     `description` tags are shorthands for description.
func InferSchema(t reflect.Type) (json.RawMessage, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	inf := inferrer{visiting: map[reflect.Type]bool{}}
	var root pyjson.Value
	var err error
	switch {
	case t.Kind() == reflect.Struct && t != timeType:
		root, err = inf.object(t)
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		root, err = inf.schema(t)
		if err == nil {
			root = withProperties(root)
		}
	default:
		return nil, fmt.Errorf("%w: a tool's input must be a struct or a map with string keys, not %s", ErrUnsupportedType, t)
	}
	if err != nil {
		return nil, err
	}
	return pyjson.AppendJSON(nil, root), nil
}

// withProperties makes a map schema the object schema tools require.
func withProperties(v pyjson.Value) pyjson.Value {
	out := obj()
	out.Set("type", str("object"))
	out.Set("properties", obj())
	for i, k := range v.Keys {
		if k != "type" {
			out.Set(k, v.Items[i])
		}
	}
	return out
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

type inferrer struct {
	visiting map[reflect.Type]bool
}

func obj() pyjson.Value {
	return pyjson.Value{Kind: pyjson.Object, Keys: []string{}, Items: []pyjson.Value{}}
}
func str(s string) pyjson.Value { return pyjson.Value{Kind: pyjson.String, Str: s} }
func arr(v ...pyjson.Value) pyjson.Value {
	if v == nil {
		v = []pyjson.Value{}
	}
	return pyjson.Value{Kind: pyjson.Array, Items: v}
}

type field struct {
	name     string
	typ      reflect.Type
	tag      reflect.StructTag
	required bool
}

func (inf *inferrer) object(t reflect.Type) (pyjson.Value, error) {
	if inf.visiting[t] {
		o := obj()
		o.Set("type", str("object"))
		return o, nil
	}
	inf.visiting[t] = true
	defer delete(inf.visiting, t)

	fields, err := structFields(t, nil)
	if err != nil {
		return pyjson.Value{}, err
	}
	props := obj()
	var required []pyjson.Value
	for _, f := range fields {
		s, err := inf.schema(f.typ)
		if err != nil {
			return pyjson.Value{}, fmt.Errorf("field %s: %w", f.name, err)
		}
		s, req, err := applyTag(s, f.typ, f.tag, f.required)
		if err != nil {
			return pyjson.Value{}, fmt.Errorf("field %s: %w", f.name, err)
		}
		props.Set(f.name, s)
		if req {
			required = append(required, str(f.name))
		}
	}
	o := obj()
	o.Set("type", str("object"))
	// A blank field carries the object's own keywords:
	// _ struct{} `jsonschema:"description=The input of set_mode."`
	for i := range t.NumField() {
		if sf := t.Field(i); sf.Name == "_" {
			var err error
			if o, _, err = applyTag(o, sf.Type, sf.Tag, false); err != nil {
				return pyjson.Value{}, fmt.Errorf("%s: %w", t, err)
			}
		}
	}
	o.Set("properties", props)
	if len(required) > 0 {
		o.Set("required", arr(required...))
	}
	return o, nil
}

// structFields lists the JSON-visible fields of t, flattening embedded
// structs without a json name (outer fields win on name clashes).
func structFields(t reflect.Type, seen map[reflect.Type]bool) ([]field, error) {
	if seen == nil {
		seen = map[reflect.Type]bool{}
	}
	if seen[t] {
		return nil, nil
	}
	seen[t] = true
	var out []field
	var embedded []field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if sf.Anonymous && name == "" {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				sub, err := structFields(et, seen)
				if err != nil {
					return nil, err
				}
				embedded = append(embedded, sub...)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		omit := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		out = append(out, field{name: name, typ: ft, tag: sf.Tag, required: !omit && ft.Kind() != reflect.Pointer})
	}
	for _, e := range embedded {
		clash := false
		for _, f := range out {
			if f.name == e.name {
				clash = true
				break
			}
		}
		if !clash {
			out = append(out, e)
		}
	}
	return out, nil
}

func (inf *inferrer) schema(t reflect.Type) (pyjson.Value, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s := obj()
	switch {
	case t == timeType:
		s.Set("type", str("string"))
		s.Set("format", str("date-time"))
		return s, nil
	case t == rawType || t.Kind() == reflect.Interface:
		return s, nil
	case t.Kind() != reflect.String && (t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)):
		s.Set("type", str("string"))
		return s, nil
	}
	switch t.Kind() {
	case reflect.String:
		s.Set("type", str("string"))
	case reflect.Bool:
		s.Set("type", str("boolean"))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s.Set("type", str("integer"))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		s.Set("type", str("integer"))
		s.Set("minimum", pyjson.Value{Kind: pyjson.Int, Str: "0"})
	case reflect.Float32, reflect.Float64:
		s.Set("type", str("number"))
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			s.Set("type", str("string"))
			s.Set("contentEncoding", str("base64"))
			return s, nil
		}
		items, err := inf.schema(t.Elem())
		if err != nil {
			return pyjson.Value{}, err
		}
		s.Set("type", str("array"))
		s.Set("items", items)
		if t.Kind() == reflect.Array {
			n := pyjson.Value{Kind: pyjson.Int, Str: strconv.Itoa(t.Len())}
			s.Set("minItems", n)
			s.Set("maxItems", n)
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String && !t.Key().Implements(textMarshaler) {
			return pyjson.Value{}, fmt.Errorf("%w: map key %s", ErrUnsupportedType, t.Key())
		}
		vals, err := inf.schema(t.Elem())
		if err != nil {
			return pyjson.Value{}, err
		}
		s.Set("type", str("object"))
		if len(vals.Keys) > 0 {
			s.Set("additionalProperties", vals)
		}
	case reflect.Struct:
		return inf.object(t)
	default:
		return pyjson.Value{}, fmt.Errorf("%w: %s", ErrUnsupportedType, t)
	}
	return s, nil
}

var tagKeys = []string{
	"description", "title", "enum", "default", "minimum", "maximum", "exclusiveMinimum",
	"exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", "format",
	"minItems", "maxItems", "uniqueItems", "required", "optional",
}

// splitTag splits a jsonschema tag at commas that start a known key.
func splitTag(tag string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(tag); i++ {
		if tag[i] != ',' {
			continue
		}
		rest := tag[i+1:]
		for _, k := range tagKeys {
			if strings.HasPrefix(rest, k+"=") || rest == k || strings.HasPrefix(rest, k+",") {
				parts = append(parts, tag[start:i])
				start = i + 1
				break
			}
		}
	}
	return append(parts, tag[start:])
}

// applyTag adds the keywords of the field's tags to s.
func applyTag(s pyjson.Value, t reflect.Type, tag reflect.StructTag, required bool) (pyjson.Value, bool, error) {
	desc, hasDesc := tag.Lookup("desc")
	if d, ok := tag.Lookup("description"); ok {
		desc, hasDesc = d, true
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	spec, ok := tag.Lookup("jsonschema")
	if !ok {
		if hasDesc {
			s = withKey(s, "description", str(desc))
		}
		return s, required, nil
	}
	if hasDesc {
		s = withKey(s, "description", str(desc))
	}
	for _, part := range splitTag(spec) {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "required":
			required = true
		case "optional":
			required = false
		case "description", "title", "pattern", "format":
			s = withKey(s, k, str(v))
		case "enum":
			var vals []pyjson.Value
			for _, e := range strings.Split(v, "|") {
				ev, err := tagValue(t, e)
				if err != nil {
					return s, required, fmt.Errorf("enum value %q: %w", e, err)
				}
				vals = append(vals, ev)
			}
			s = withKey(s, "enum", arr(vals...))
		case "default":
			dv, err := tagValue(t, v)
			if err != nil {
				return s, required, fmt.Errorf("default %q: %w", v, err)
			}
			s = withKey(s, "default", dv)
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
			"minLength", "maxLength", "minItems", "maxItems":
			n, err := pyjson.Parse(v)
			if err != nil || !n.IsNumber() {
				return s, required, fmt.Errorf("%s=%q is not a number", k, v)
			}
			s = withKey(s, k, n)
		case "uniqueItems":
			s = withKey(s, k, pyjson.Value{Kind: pyjson.Bool, Bool: v == "" || v == "true"})
		default:
			return s, required, fmt.Errorf("unknown jsonschema tag key %q", k)
		}
	}
	return s, required, nil
}

// withKey sets k, placing description right after type as pydantic does.
func withKey(s pyjson.Value, k string, v pyjson.Value) pyjson.Value {
	if k != "description" || s.Has(k) || len(s.Keys) == 0 || s.Keys[0] != "type" {
		s.Set(k, v)
		return s
	}
	out := obj()
	out.Set("type", s.Items[0])
	out.Set(k, v)
	for i := 1; i < len(s.Keys); i++ {
		out.Set(s.Keys[i], s.Items[i])
	}
	return out
}

// tagValue parses an enum or default value for a field of type t.
func tagValue(t reflect.Type, v string) (pyjson.Value, error) {
	switch t.Kind() {
	case reflect.String:
		return str(v), nil
	case reflect.Bool:
		b, err := strconv.ParseBool(v)
		return pyjson.Value{Kind: pyjson.Bool, Bool: b}, err
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return pyjson.Value{}, err
		}
		return pyjson.Value{Kind: pyjson.Int, Str: v}, nil
	case reflect.Float32, reflect.Float64:
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return pyjson.Value{}, err
		}
		n, err := pyjson.Parse(v)
		if err != nil || !n.IsNumber() {
			return pyjson.Value{}, fmt.Errorf("not a JSON number")
		}
		return n, nil
	}
	// Anything else: the value is JSON text.
	return pyjson.Parse(v)
}
