package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentscope-go/agentscope/internal/ojson"
)

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
	v, err := ojson.Parse(raw)
	if err != nil {
		return nil, err
	}
	root, ok := v.(*ojson.Object)
	if !ok {
		return nil, fmt.Errorf("a tool's parameters must be a JSON object schema")
	}
	s := &sanitizer{root: root}
	out := s.node(root, nil)
	return ojson.Append(nil, out), nil
}

type sanitizer struct{ root *ojson.Object }

func (s *sanitizer) resolve(ref string) (*ojson.Object, bool) {
	var path string
	switch {
	case strings.HasPrefix(ref, "#/$defs/"):
		path = "$defs"
	case strings.HasPrefix(ref, "#/definitions/"):
		path = "definitions"
	default:
		return nil, false
	}
	defs, ok := s.root.Get(path)
	if !ok {
		return nil, false
	}
	d, ok := defs.(*ojson.Object)
	if !ok {
		return nil, false
	}
	name := ref[strings.LastIndex(ref, "/")+1:]
	t, ok := d.Get(name)
	if !ok {
		return nil, false
	}
	o, ok := t.(*ojson.Object)
	return o, ok
}

// node sanitizes one schema; seen holds the $refs being expanded above it.
func (s *sanitizer) node(v any, seen []string) any {
	o, ok := v.(*ojson.Object)
	if !ok {
		return v
	}
	o = o.Clone()
	if r, ok := o.Get("$ref"); ok {
		ref, _ := r.(string)
		for _, x := range seen {
			if x == ref {
				return ojson.New("type", "OBJECT")
			}
		}
		target, ok := s.resolve(ref)
		if !ok {
			return ojson.New("type", "OBJECT")
		}
		merged := target.Clone()
		for _, k := range o.Keys { // siblings of $ref (description…) win
			if k != "$ref" {
				merged.Set(k, o.Vals[k])
			}
		}
		return s.node(merged, append(seen, ref))
	}
	if c, ok := o.Get("const"); ok {
		if _, has := o.Get("enum"); !has {
			if str, isStr := c.(string); isStr {
				o.Set("enum", []any{str})
			}
		}
	}
	if e, ok := o.Get("enum"); ok {
		// The API's enum holds strings only (for STRING types).
		vals, _ := e.([]any)
		for _, x := range vals {
			if _, isStr := x.(string); !isStr {
				o.Delete("enum")
				break
			}
		}
	}
	if t, ok := o.Get("type"); ok {
		switch t := t.(type) {
		case string:
			if t == "null" {
				o.Set("type", "OBJECT")
				o.Set("nullable", true)
			} else {
				o.Set("type", strings.ToUpper(t))
			}
		case []any:
			var kept []string
			for _, x := range t {
				if xs, _ := x.(string); xs == "null" {
					o.Set("nullable", true)
				} else if xs != "" {
					kept = append(kept, strings.ToUpper(xs))
				}
			}
			if len(kept) == 1 {
				o.Set("type", kept[0])
			} else {
				o.Delete("type")
				if len(kept) > 1 {
					var alts []any
					for _, k := range kept {
						alts = append(alts, ojson.New("type", k))
					}
					o.Set("anyOf", alts)
				}
			}
		}
	}
	if a, ok := o.Get("anyOf"); ok {
		alts, _ := a.([]any)
		var kept []any
		for _, alt := range alts {
			if ao, ok := alt.(*ojson.Object); ok {
				if t, _ := ao.Get("type"); t == "null" {
					o.Set("nullable", true)
					continue
				}
			}
			kept = append(kept, s.node(alt, seen))
		}
		switch len(kept) {
		case 0:
			o.Delete("anyOf")
		case 1:
			// anyOf [X, null] is X, nullable.
			o.Delete("anyOf")
			if ko, ok := kept[0].(*ojson.Object); ok {
				for _, k := range ko.Keys {
					if _, has := o.Get(k); !has {
						o.Set(k, ko.Vals[k])
					}
				}
			}
		default:
			o.Set("anyOf", kept)
		}
	}
	if p, ok := o.Get("properties"); ok {
		if po, ok := p.(*ojson.Object); ok {
			np := ojson.New()
			for _, k := range po.Keys {
				np.Set(k, s.node(po.Vals[k], seen))
			}
			o.Set("properties", np)
		}
	}
	if it, ok := o.Get("items"); ok {
		o.Set("items", s.node(it, seen))
	}
	for _, k := range append([]string(nil), o.Keys...) {
		if !schemaKeys[k] {
			o.Delete(k)
		}
	}
	return o
}
