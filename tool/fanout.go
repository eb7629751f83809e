package tool

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
)

// maxFanout bounds how many subschemas may judge one value of a tool's
// arguments. The keywords that apply to the value itself ($ref, allOf,
// anyOf, oneOf, not, if, then, else, dependentSchemas) multiply: a chain
// of anyOf over shared definitions doubles at every level, so a schema of
// a kilobyte or two, which an MCP server supplies, would cost every call
// 2^n checks (a validator walks every branch, Python's too). Far more
// than any real schema needs, far less than a call can afford.
const maxFanout = 10_000

// ErrSchemaTooComplex is a schema refused because validating one value
// would take more than maxFanout of its subschemas.
var ErrSchemaTooComplex = errors.New("schema too complex")

// sameValue are the keywords whose subschemas apply to the value the
// schema applies to, each holding one schema or, in lists, several.
var sameValue = map[string]bool{
	"allOf": true, "anyOf": true, "oneOf": true, "not": true,
	"if": true, "then": true, "else": true, "dependentSchemas": true,
}

// checkFanout refuses root when one value could be judged by more than
// maxFanout subschemas. Every subschema is counted as a place a value can
// reach, its count the subschemas that then apply to that same value,
// following $refs within the document (JSON pointers, anchors, ids); a
// reference it cannot place counts as one. Loops through those keywords
// alone (a $ref to itself) are refused too: no value ends them.
func checkFanout(root pyjson.Value) error {
	f := fanout{root: &root, memo: map[*pyjson.Value]int{}, onPath: map[*pyjson.Value]bool{}, named: map[string]*pyjson.Value{}}
	f.index(&root)
	var err error
	f.walk(&root, func(s *pyjson.Value) bool {
		_, err = f.count(s)
		return err == nil
	})
	return err
}

type fanout struct {
	root   *pyjson.Value
	memo   map[*pyjson.Value]int
	onPath map[*pyjson.Value]bool
	// named are the subschemas by $anchor and by $id (as written, and as
	// a fragment "#name" for a draft-7 id).
	named map[string]*pyjson.Value
}

// index records every subschema's anchor and id.
func (f *fanout) index(root *pyjson.Value) {
	f.walk(root, func(s *pyjson.Value) bool {
		for _, k := range []string{"$anchor", "$dynamicAnchor"} {
			if a, ok := s.Get(k); ok && a.Kind == pyjson.String {
				f.named["#"+a.Str] = s
			}
		}
		if id, ok := s.Get("$id"); ok && id.Kind == pyjson.String && id.Str != "" {
			f.named[id.Str] = s
		}
		return true
	})
}

// walk calls fn with every subschema of s, s first, until fn is false.
func (f *fanout) walk(s *pyjson.Value, fn func(*pyjson.Value) bool) bool {
	if s.Kind != pyjson.Object {
		return true
	}
	if !fn(s) {
		return false
	}
	for i, k := range s.Keys {
		v := &s.Items[i]
		switch k {
		case "enum", "const", "default", "examples", "required", "type", "$ref", "$dynamicRef":
			continue // values, not schemas
		}
		switch v.Kind {
		case pyjson.Object:
			if schemaMap[k] {
				for j := range v.Items {
					if !f.walk(&v.Items[j], fn) {
						return false
					}
				}
				continue
			}
			if !f.walk(v, fn) {
				return false
			}
		case pyjson.Array:
			for j := range v.Items {
				if !f.walk(&v.Items[j], fn) {
					return false
				}
			}
		}
	}
	return true
}

// schemaMap are the keywords whose object maps names to schemas.
var schemaMap = map[string]bool{
	"properties": true, "patternProperties": true, "$defs": true, "definitions": true,
	"dependentSchemas": true, "dependencies": true,
}

// count is how many subschemas judge a value s judges: s and, through
// the same-value keywords and $refs, the rest.
func (f *fanout) count(s *pyjson.Value) (int, error) {
	if s.Kind != pyjson.Object {
		return 1, nil
	}
	if n, ok := f.memo[s]; ok {
		return n, nil
	}
	if f.onPath[s] {
		return 0, fmt.Errorf("%w: a $ref loop that never moves to another value", ErrSchemaTooComplex)
	}
	f.onPath[s] = true
	defer delete(f.onPath, s)
	n := 1
	add := func(sub *pyjson.Value) error {
		c, err := f.count(sub)
		if err != nil {
			return err
		}
		if n += c; n > maxFanout {
			return fmt.Errorf("%w: more than %d subschemas would judge one value", ErrSchemaTooComplex, maxFanout)
		}
		return nil
	}
	for i, k := range s.Keys {
		v := &s.Items[i]
		switch {
		case k == "$ref" || k == "$dynamicRef" || k == "$recursiveRef":
			if v.Kind != pyjson.String {
				continue
			}
			if target := f.resolve(v.Str); target != nil {
				if err := add(target); err != nil {
					return 0, err
				}
			}
		case sameValue[k]:
			switch v.Kind {
			case pyjson.Object:
				if k == "dependentSchemas" {
					for j := range v.Items {
						if err := add(&v.Items[j]); err != nil {
							return 0, err
						}
					}
					continue
				}
				if err := add(v); err != nil {
					return 0, err
				}
			case pyjson.Array:
				for j := range v.Items {
					if err := add(&v.Items[j]); err != nil {
						return 0, err
					}
				}
			}
		case k == "dependencies" && v.Kind == pyjson.Object:
			for j := range v.Items {
				if v.Items[j].Kind == pyjson.Object {
					if err := add(&v.Items[j]); err != nil {
						return 0, err
					}
				}
			}
		}
	}
	f.memo[s] = n
	return n, nil
}

// resolve finds the subschema ref names within the document: a JSON
// pointer ("#", "#/$defs/a"), an anchor ("#a") or an id; nil when it
// names none it knows.
func (f *fanout) resolve(ref string) *pyjson.Value {
	if s, ok := f.named[ref]; ok {
		return s
	}
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		if i := strings.IndexByte(ref, '#'); i >= 0 {
			if s, ok := f.named[ref[:i]]; ok && ref[i+1:] == "" {
				return s
			}
		}
		return nil
	}
	if frag != "" && frag[0] != '/' {
		return nil
	}
	cur := f.root
	for _, tok := range strings.Split(frag, "/")[1:] {
		if t, err := url.PathUnescape(tok); err == nil {
			tok = t
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch cur.Kind {
		case pyjson.Object:
			i := -1
			for j, k := range cur.Keys {
				if k == tok {
					i = j
				}
			}
			if i < 0 {
				return nil
			}
			cur = &cur.Items[i]
		case pyjson.Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur.Items) {
				return nil
			}
			cur = &cur.Items[i]
		default:
			return nil
		}
	}
	return cur
}
