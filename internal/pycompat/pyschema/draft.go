package pyschema

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
)

// Draft is a JSON Schema draft, by the number or year it is known by.
type Draft int

// The drafts jsonschema.validate picks a validator for by "$schema"
// (draft 3 is not read: no tool declares it).
const (
	Draft4    Draft = 4
	Draft6    Draft = 6
	Draft7    Draft = 7
	Draft2019 Draft = 2019
	Draft2020 Draft = 2020
)

// ErrUnknownDraft is returned by [DraftOf] for a "$schema" that names no
// draft of this package (nothing is ever fetched).
var ErrUnknownDraft = errors.New("unknown $schema")

// DraftOf reads the root's "$schema" the way jsonschema.validator_for
// does; none means Draft 2020-12.
func DraftOf(root pyjson.Value) (Draft, error) {
	s, ok := root.Get("$schema")
	if !ok {
		return Draft2020, nil
	}
	if s.Kind != pyjson.String {
		return 0, fmt.Errorf("%w: not a string", ErrUnknownDraft)
	}
	u := strings.TrimSuffix(s.Str, "#")
	if rest, ok := strings.CutPrefix(u, "http://"); ok {
		u = rest
	} else if rest, ok := strings.CutPrefix(u, "https://"); ok {
		u = rest
	}
	switch u {
	case "json-schema.org/schema", "json-schema.org/draft/2020-12/schema":
		return Draft2020, nil
	case "json-schema.org/draft/2019-09/schema":
		return Draft2019, nil
	case "json-schema.org/draft-07/schema":
		return Draft7, nil
	case "json-schema.org/draft-06/schema":
		return Draft6, nil
	case "json-schema.org/draft-04/schema":
		return Draft4, nil
	}
	return 0, fmt.Errorf("%w %q", ErrUnknownDraft, s.Str)
}

// keywords lists what jsonschema's validator of each older draft
// implements (its VALIDATORS): any other keyword is an annotation there,
// and yields no error. Draft 2020-12 is not listed; keyword ignores what
// it does not know.
var keywords = map[Draft]map[string]bool{
	Draft4:    words(draft4Words),
	Draft6:    words(draft4Words, "const", "contains", "exclusiveMaximum", "exclusiveMinimum", "propertyNames"),
	Draft7:    words(draft4Words, "const", "contains", "exclusiveMaximum", "exclusiveMinimum", "propertyNames", "if"),
	Draft2019: words(strings.ReplaceAll(draft4Words, " dependencies", ""), "const", "contains", "exclusiveMaximum", "exclusiveMinimum", "propertyNames", "if", "dependentRequired", "dependentSchemas", "$recursiveRef", "unevaluatedItems", "unevaluatedProperties"),
}

const draft4Words = "$ref additionalItems additionalProperties allOf anyOf dependencies enum format items maxItems maxLength maxProperties maximum minItems minLength minProperties minimum multipleOf not oneOf pattern patternProperties properties required type uniqueItems"

func words(base string, more ...string) map[string]bool {
	m := map[string]bool{}
	for _, w := range append(strings.Fields(base), more...) {
		m[w] = true
	}
	return m
}

// legacyItems is "items" before 2020-12: one schema for every item, or a
// list of schemas for the items at the same positions (draft 4 reads a
// list or an object only).
func (v *validator) legacyItems(kv, inst pyjson.Value, refDepth int) []*verr {
	var out []*verr
	switch {
	case kv.Kind == pyjson.Array:
		for i := 0; i < len(inst.Items) && i < len(kv.Items); i++ {
			out = append(out, v.descend(inst.Items[i], kv.Items[i], refDepth, idx(i))...)
		}
	case kv.Kind == pyjson.Object || (kv.Kind == pyjson.Bool && v.draft > Draft4):
		for i, it := range inst.Items {
			out = append(out, v.descend(it, kv, refDepth, idx(i))...)
		}
	}
	return out
}

// additionalItems (drafts 4–2019-09) applies to the items past a list of
// "items"; after a single items schema it is ignored.
func (v *validator) additionalItems(kv, schema, inst pyjson.Value, refDepth int) []*verr {
	if v.draft >= Draft2020 || inst.Kind != pyjson.Array {
		return nil
	}
	// Without "items" it is ignored too: jsonschema reads a missing items
	// as {}.
	items, ok := schema.Get("items")
	if !ok || items.Kind == pyjson.Object || (items.Kind == pyjson.Bool && v.draft > Draft4) {
		return nil
	}
	n := 0
	if items.Kind == pyjson.Array {
		n = len(items.Items)
	}
	if len(inst.Items) <= n {
		return nil
	}
	switch {
	case kv.Kind == pyjson.Object:
		var out []*verr
		for i := n; i < len(inst.Items); i++ {
			out = append(out, v.descend(inst.Items[i], kv, refDepth, idx(i))...)
		}
		return out
	case kv.Kind == pyjson.Bool && !kv.Bool:
		extras := make([]string, 0, len(inst.Items)-n)
		for _, it := range inst.Items[n:] {
			extras = append(extras, pyjson.Repr(it))
		}
		verb := "was"
		if len(extras) != 1 {
			verb = "were"
		}
		return []*verr{newErr("Additional items are not allowed (" + strings.Join(extras, ", ") + " " + verb + " unexpected)")}
	}
	return nil
}

// dependencies (drafts 4–7): a list of names each present member needs,
// or a schema the whole object must then match.
func (v *validator) dependencies(kv, inst pyjson.Value, refDepth int) []*verr {
	if v.draft >= Draft2019 || inst.Kind != pyjson.Object || kv.Kind != pyjson.Object {
		return nil
	}
	var out []*verr
	for i, name := range kv.Keys {
		if !inst.Has(name) {
			continue
		}
		d := kv.Items[i]
		if d.Kind == pyjson.Array {
			for _, each := range d.Items {
				if each.Kind == pyjson.String && !inst.Has(each.Str) {
					out = append(out, newErr(pyjson.StrRepr(each.Str)+" is a dependency of "+pyjson.StrRepr(name)))
				}
			}
			continue
		}
		out = append(out, v.descend(inst, d, refDepth)...)
	}
	return out
}
