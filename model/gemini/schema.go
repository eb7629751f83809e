package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentscope-go/agentscope/internal/wire"
)

// obj is a JSON object that keeps its key order: property order is part of
// what the model sees.
type obj struct {
	keys []string
	vals map[string]any
}

func (o *obj) get(k string) (any, bool) { v, ok := o.vals[k]; return v, ok }

func (o *obj) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *obj) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, kk := range o.keys {
		if kk == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

func (o *obj) clone() *obj {
	c := &obj{keys: append([]string(nil), o.keys...), vals: make(map[string]any, len(o.vals))}
	for k, v := range o.vals {
		c.vals[k] = v
	}
	return c
}

func parseOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the schema")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &obj{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(kt.(string), v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
	}
	return t, nil
}

func appendOrdered(dst []byte, v any) []byte {
	switch v := v.(type) {
	case *obj:
		dst = append(dst, '{')
		for i, k := range v.keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = wire.AppendString(dst, k)
			dst = append(dst, ':')
			dst = appendOrdered(dst, v.vals[k])
		}
		return append(dst, '}')
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendOrdered(dst, e)
		}
		return append(dst, ']')
	}
	return wire.AppendAny(dst, v)
}

// schemaKeys are the Schema fields the API accepts; any other keyword is a
// 400 ("Invalid JSON payload received. Unknown name …").
var schemaKeys = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true,
	"enum": true, "maxItems": true, "minItems": true, "properties": true, "required": true,
	"minProperties": true, "maxProperties": true, "minLength": true, "maxLength": true,
	"pattern": true, "example": true, "anyOf": true, "propertyOrdering": true,
	"default": true, "items": true, "minimum": true, "maximum": true,
}

// sanitizeSchema reduces a JSON Schema to the API's Schema: local $refs
// inlined (a cycle becomes a plain OBJECT), anyOf/type lists with null
// turned into nullable, const into a one-element enum, type names
// upper-cased, unknown keywords dropped.
func sanitizeSchema(raw json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage(`{"type":"OBJECT","properties":{}}`), nil
	}
	v, err := parseOrdered(raw)
	if err != nil {
		return nil, err
	}
	root, ok := v.(*obj)
	if !ok {
		return nil, fmt.Errorf("a tool's parameters must be a JSON object schema")
	}
	s := &sanitizer{root: root}
	out := s.node(root, nil)
	return appendOrdered(nil, out), nil
}

type sanitizer struct{ root *obj }

func (s *sanitizer) resolve(ref string) (*obj, bool) {
	var path string
	switch {
	case strings.HasPrefix(ref, "#/$defs/"):
		path = "$defs"
	case strings.HasPrefix(ref, "#/definitions/"):
		path = "definitions"
	default:
		return nil, false
	}
	defs, ok := s.root.get(path)
	if !ok {
		return nil, false
	}
	d, ok := defs.(*obj)
	if !ok {
		return nil, false
	}
	name := ref[strings.LastIndex(ref, "/")+1:]
	t, ok := d.get(name)
	if !ok {
		return nil, false
	}
	o, ok := t.(*obj)
	return o, ok
}

// node sanitizes one schema; seen holds the $refs being expanded above it.
func (s *sanitizer) node(v any, seen []string) any {
	o, ok := v.(*obj)
	if !ok {
		return v
	}
	o = o.clone()
	if r, ok := o.get("$ref"); ok {
		ref, _ := r.(string)
		for _, x := range seen {
			if x == ref {
				return &obj{keys: []string{"type"}, vals: map[string]any{"type": "OBJECT"}}
			}
		}
		target, ok := s.resolve(ref)
		if !ok {
			return &obj{keys: []string{"type"}, vals: map[string]any{"type": "OBJECT"}}
		}
		merged := target.clone()
		for _, k := range o.keys { // siblings of $ref (description…) win
			if k != "$ref" {
				merged.set(k, o.vals[k])
			}
		}
		return s.node(merged, append(seen, ref))
	}
	if c, ok := o.get("const"); ok {
		if _, has := o.get("enum"); !has {
			if str, isStr := c.(string); isStr {
				o.set("enum", []any{str})
			}
		}
	}
	if e, ok := o.get("enum"); ok {
		// The API's enum holds strings only (for STRING types).
		vals, _ := e.([]any)
		for _, x := range vals {
			if _, isStr := x.(string); !isStr {
				o.del("enum")
				break
			}
		}
	}
	if t, ok := o.get("type"); ok {
		switch t := t.(type) {
		case string:
			if t == "null" {
				o.set("type", "OBJECT")
				o.set("nullable", true)
			} else {
				o.set("type", strings.ToUpper(t))
			}
		case []any:
			var kept []string
			for _, x := range t {
				if xs, _ := x.(string); xs == "null" {
					o.set("nullable", true)
				} else if xs != "" {
					kept = append(kept, strings.ToUpper(xs))
				}
			}
			if len(kept) == 1 {
				o.set("type", kept[0])
			} else {
				o.del("type")
				if len(kept) > 1 {
					var alts []any
					for _, k := range kept {
						alts = append(alts, &obj{keys: []string{"type"}, vals: map[string]any{"type": k}})
					}
					o.set("anyOf", alts)
				}
			}
		}
	}
	if a, ok := o.get("anyOf"); ok {
		alts, _ := a.([]any)
		var kept []any
		for _, alt := range alts {
			if ao, ok := alt.(*obj); ok {
				if t, _ := ao.get("type"); t == "null" {
					o.set("nullable", true)
					continue
				}
			}
			kept = append(kept, s.node(alt, seen))
		}
		switch len(kept) {
		case 0:
			o.del("anyOf")
		case 1:
			// anyOf [X, null] is X, nullable.
			o.del("anyOf")
			if ko, ok := kept[0].(*obj); ok {
				for _, k := range ko.keys {
					if _, has := o.get(k); !has {
						o.set(k, ko.vals[k])
					}
				}
			}
		default:
			o.set("anyOf", kept)
		}
	}
	if p, ok := o.get("properties"); ok {
		if po, ok := p.(*obj); ok {
			np := &obj{vals: map[string]any{}}
			for _, k := range po.keys {
				np.set(k, s.node(po.vals[k], seen))
			}
			o.set("properties", np)
		}
	}
	if it, ok := o.get("items"); ok {
		o.set("items", s.node(it, seen))
	}
	for _, k := range append([]string(nil), o.keys...) {
		if !schemaKeys[k] {
			o.del(k)
		}
	}
	return o
}
