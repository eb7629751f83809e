package tool

import (
	"strconv"
	"strings"

	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
	"github.com/agentscope-go/agentscope/internal/pycompat/pyschema"
)

// The validator of record (github.com/google/jsonschema-go) implements
// Draft 2020-12 and draft-07; tools declare drafts 4, 6 and 2019-09 too.
// Every draft is rewritten here into the Draft 2020-12 schema with the same
// meaning, so that one implementation of one draft validates them all, and
// the message renderer (pyschema, 2020-12 as well) walks the same tree.

// draft is a JSON Schema draft; pyschema reads "$schema" as Python's
// jsonschema.validate does, and renders messages in the same draft.
type draft = pyschema.Draft

const (
	draft4    = pyschema.Draft4
	draft6    = pyschema.Draft6
	draft7    = pyschema.Draft7
	draft2019 = pyschema.Draft2019
	draft2020 = pyschema.Draft2020
)

const draft2020URL = "https://json-schema.org/draft/2020-12/schema"

// to2020 returns root, a schema of draft d, as the Draft 2020-12 schema
// that accepts the same instances. A 2020-12 schema is returned as it is.
func to2020(root pyjson.Value, d draft) pyjson.Value {
	if d == draft2020 {
		return root
	}
	t := translator{d: d, root: root}
	out := t.schema(root)
	if out.Kind == pyjson.Object {
		out.Set("$schema", pyjson.Value{Kind: pyjson.String, Str: draft2020URL})
	}
	return out
}

type translator struct {
	d    draft
	root pyjson.Value
}

// Keywords whose value is one subschema, an array of them, or an object
// of them, in every draft.
var (
	oneSchema  = map[string]bool{"additionalProperties": true, "not": true, "contains": true, "propertyNames": true, "if": true, "then": true, "else": true, "unevaluatedProperties": true, "unevaluatedItems": true, "contentSchema": true, "additionalItems": true}
	schemaList = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}
	schemaMap  = map[string]bool{"properties": true, "patternProperties": true, "definitions": true, "$defs": true, "dependentSchemas": true}
)

// unknown reports the keywords a draft does not have: they are
// annotations there (jsonschema's validator of that draft has no function
// for them), so they must not start to validate once the schema is read
// as 2020-12. Draft 4's boolean exclusiveMaximum/exclusiveMinimum are
// handled with maximum/minimum; a number there is no keyword either.
func (t translator) unknown(k string, v pyjson.Value) bool {
	switch k {
	case "if", "then", "else":
		return t.d < draft7
	case "const", "contains", "propertyNames":
		return t.d < draft6
	case "exclusiveMaximum", "exclusiveMinimum":
		return t.d == draft4 && v.Kind != pyjson.Bool
	case "dependentRequired", "dependentSchemas", "unevaluatedItems", "unevaluatedProperties",
		"minContains", "maxContains", "$recursiveRef", "$recursiveAnchor":
		return t.d < draft2019
	case "dependencies":
		return t.d >= draft2019
	case "prefixItems", "$dynamicRef", "$dynamicAnchor":
		return t.d < draft2020
	}
	return false
}

func (t translator) schema(s pyjson.Value) pyjson.Value {
	if s.Kind != pyjson.Object {
		return s // true/false, or not a schema (left for the compiler to refuse)
	}
	out := pyjson.Value{Kind: pyjson.Object}
	_, hasRef := s.Get("$ref")
	items, _ := s.Get("items")
	for i, k := range s.Keys {
		v := s.Items[i]
		if t.unknown(k, v) {
			continue
		}
		// Before 2019-09 "$ref" makes its siblings be ignored; definitions
		// stay, since references point into them.
		if hasRef && t.d < draft2019 && k != "$ref" && k != "definitions" && k != "$defs" {
			continue
		}
		switch {
		case k == "$ref" && v.Kind == pyjson.String:
			out.Set(k, pyjson.Value{Kind: pyjson.String, Str: t.ref(v.Str)})
		case k == "id" && t.d == draft4 && v.Kind == pyjson.String, k == "$id" && t.d < draft2019 && v.Kind == pyjson.String:
			// "#name" was a plain-name anchor; 2020-12 spells it $anchor.
			if name, ok := strings.CutPrefix(v.Str, "#"); ok {
				out.Set("$anchor", pyjson.Value{Kind: pyjson.String, Str: name})
			} else {
				out.Set("$id", v)
			}
		case k == "$recursiveAnchor" && t.d == draft2019:
			if v.Kind == pyjson.Bool && v.Bool {
				out.Set("$dynamicAnchor", pyjson.Value{Kind: pyjson.String, Str: recursiveAnchor})
			}
		case k == "$recursiveRef" && t.d == draft2019 && v.Kind == pyjson.String:
			out.Set("$dynamicRef", pyjson.Value{Kind: pyjson.String, Str: t.ref(v.Str) + recursiveAnchorRef(v.Str)})
		case k == "items" && v.Kind == pyjson.Array:
			out.Set("prefixItems", t.list(v))
		case k == "additionalItems":
			// Only after an array of items; after one items schema it is
			// ignored.
			if items.Kind == pyjson.Array {
				out.Set("items", t.schema(v))
			}
		case k == "dependencies" && v.Kind == pyjson.Object:
			t.dependencies(&out, v)
		case (k == "exclusiveMaximum" || k == "exclusiveMinimum") && t.d == draft4 && v.Kind == pyjson.Bool:
			// Draft 4's booleans qualify maximum/minimum, handled there.
		case (k == "maximum" || k == "minimum") && t.d == draft4:
			if x, ok := s.Get("exclusive" + strings.ToUpper(k[:1]) + k[1:]); ok && x.Kind == pyjson.Bool && x.Bool {
				out.Set("exclusive"+strings.ToUpper(k[:1])+k[1:], v)
			} else {
				out.Set(k, v)
			}
		case k == "items" || oneSchema[k]:
			out.Set(k, t.schema(v))
		case schemaList[k] && v.Kind == pyjson.Array:
			out.Set(k, t.list(v))
		case schemaMap[k] && v.Kind == pyjson.Object:
			m := pyjson.Value{Kind: pyjson.Object}
			for j, name := range v.Keys {
				m.Set(name, t.schema(v.Items[j]))
			}
			out.Set(k, m)
		default:
			out.Set(k, v)
		}
	}
	return out
}

// recursiveAnchor names the dynamic anchor 2019-09's "$recursiveAnchor":
// true becomes.
const recursiveAnchor = "agentscope-recursive"

func recursiveAnchorRef(ref string) string {
	if ref == "#" || strings.HasSuffix(ref, "#") {
		return recursiveAnchor
	}
	return ""
}

func (t translator) list(v pyjson.Value) pyjson.Value {
	out := pyjson.Value{Kind: pyjson.Array, Items: make([]pyjson.Value, len(v.Items))}
	for i, s := range v.Items {
		out.Items[i] = t.schema(s)
	}
	return out
}

// dependencies splits the old keyword: a list of names is
// dependentRequired, a schema dependentSchemas.
func (t translator) dependencies(out *pyjson.Value, v pyjson.Value) {
	req, sch := pyjson.Value{Kind: pyjson.Object}, pyjson.Value{Kind: pyjson.Object}
	for i, name := range v.Keys {
		if d := v.Items[i]; d.Kind == pyjson.Array {
			req.Set(name, d)
		} else {
			sch.Set(name, t.schema(d))
		}
	}
	if len(req.Keys) > 0 {
		out.Set("dependentRequired", req)
	}
	if len(sch.Keys) > 0 {
		out.Set("dependentSchemas", sch)
	}
}

// ref rewrites a local JSON pointer whose path crosses a renamed keyword
// ("#/items/0" is "#/prefixItems/0" now, "#/dependencies/a" is
// "#/dependentSchemas/a" or "#/dependentRequired/a"). Other references are
// kept as they are.
func (t translator) ref(ref string) string {
	frag, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return ref
	}
	toks := strings.Split(frag, "/")
	cur := t.root
	out := make([]string, 0, len(toks))
	inSchema := true // cur is a schema (not a map or list of them)
	for i := 0; i < len(toks); i++ {
		tok := unescapePointer(toks[i])
		next, found := step(cur, tok)
		name := toks[i]
		if inSchema && cur.Kind == pyjson.Object {
			switch {
			case tok == "items" && next.Kind == pyjson.Array:
				name = "prefixItems"
			case tok == "additionalItems":
				name = "items"
			case tok == "dependencies" && next.Kind == pyjson.Object && i+1 < len(toks):
				d, _ := next.Get(unescapePointer(toks[i+1]))
				name = "dependentSchemas"
				if d.Kind == pyjson.Array {
					name = "dependentRequired"
				}
			}
			inSchema = !schemaList[tok] && !schemaMap[tok] && tok != "dependencies" && !(tok == "items" && next.Kind == pyjson.Array)
		} else {
			inSchema = true
		}
		out = append(out, name)
		if !found {
			out = append(out, toks[i+1:]...)
			break
		}
		cur = next
	}
	return "#/" + strings.Join(out, "/")
}

func step(v pyjson.Value, tok string) (pyjson.Value, bool) {
	switch v.Kind {
	case pyjson.Object:
		return v.Get(tok)
	case pyjson.Array:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(v.Items) {
			return pyjson.Value{}, false
		}
		return v.Items[i], true
	}
	return pyjson.Value{}, false
}

func unescapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}
