package tool

import (
	"fmt"
	"math"
	"regexp"

	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
)

// checkSchema refuses what Draft 2020-12's meta-schema refuses, for the
// keywords that validate: a keyword's value of the wrong type, an unknown
// type name, a negative length, a pattern that does not compile. The
// validator of record does not check its input against the meta-schema
// (it reads what it understands), and a tool whose schema is wrong must
// be reported when it is registered, not answer every call with an error.
// s is a translated (2020-12) schema; at is its JSON pointer, for the
// message.
func checkSchema(s pyjson.Value, at string) error {
	switch s.Kind {
	case pyjson.Bool:
		return nil
	case pyjson.Object:
	default:
		return fmt.Errorf("%s: a schema must be an object or a boolean, not %s", at, s.TypeName())
	}
	for i, k := range s.Keys {
		v, p := s.Items[i], at+"/"+escapePointer(k)
		var err error
		switch k {
		case "type":
			err = checkType(v, p)
		case "enum":
			err = want(v.Kind == pyjson.Array, p, "an array")
		case "required":
			err = checkNames(v, p)
		case "dependentRequired":
			if err = want(v.Kind == pyjson.Object, p, "an object"); err == nil {
				for j, name := range v.Keys {
					if err = checkNames(v.Items[j], p+"/"+escapePointer(name)); err != nil {
						break
					}
				}
			}
		case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains":
			err = want(v.IsNumber() && v.Float64() >= 0 && v.Float64() == math.Trunc(v.Float64()), p, "a non-negative integer")
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			err = want(v.IsNumber(), p, "a number")
		case "multipleOf":
			err = want(v.IsNumber() && v.Float64() > 0, p, "a number above 0")
		case "uniqueItems":
			err = want(v.Kind == pyjson.Bool, p, "a boolean")
		case "pattern":
			if err = want(v.Kind == pyjson.String, p, "a string"); err == nil {
				err = checkRegexp(v.Str, p)
			}
		case "format", "$ref", "$dynamicRef", "$anchor", "$dynamicAnchor", "$id", "$schema":
			err = want(v.Kind == pyjson.String, p, "a string")
		case "properties", "$defs", "definitions", "dependentSchemas", "patternProperties":
			if err = want(v.Kind == pyjson.Object, p, "an object"); err == nil {
				for j, name := range v.Keys {
					if k == "patternProperties" {
						if err = checkRegexp(name, p); err != nil {
							break
						}
					}
					if err = checkSchema(v.Items[j], p+"/"+escapePointer(name)); err != nil {
						break
					}
				}
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			if err = want(v.Kind == pyjson.Array && (k == "prefixItems" || len(v.Items) > 0), p, "a non-empty array"); err == nil {
				for j, sub := range v.Items {
					if err = checkSchema(sub, fmt.Sprintf("%s/%d", p, j)); err != nil {
						break
					}
				}
			}
		case "items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
			"unevaluatedItems", "unevaluatedProperties", "contentSchema":
			err = checkSchema(v, p)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

var typeNames = map[string]bool{"object": true, "array": true, "string": true, "number": true, "integer": true, "boolean": true, "null": true}

func checkType(v pyjson.Value, at string) error {
	switch v.Kind {
	case pyjson.String:
		return want(typeNames[v.Str], at, "a type name")
	case pyjson.Array:
		seen := map[string]bool{}
		for _, t := range v.Items {
			if t.Kind != pyjson.String || !typeNames[t.Str] || seen[t.Str] {
				return want(false, at, "a list of distinct type names")
			}
			seen[t.Str] = true
		}
		return nil
	}
	return want(false, at, "a type name or a list of them")
}

func checkNames(v pyjson.Value, at string) error {
	if v.Kind != pyjson.Array {
		return want(false, at, "an array of strings")
	}
	for _, n := range v.Items {
		if n.Kind != pyjson.String {
			return want(false, at, "an array of strings")
		}
	}
	return nil
}

func checkRegexp(re, at string) error {
	if _, err := regexp.Compile(re); err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	return nil
}

func want(ok bool, at, what string) error {
	if ok {
		return nil
	}
	return fmt.Errorf("%s: must be %s", at, what)
}

func escapePointer(tok string) string {
	b := make([]byte, 0, len(tok))
	for i := 0; i < len(tok); i++ {
		switch tok[i] {
		case '~':
			b = append(b, "~0"...)
		case '/':
			b = append(b, "~1"...)
		default:
			b = append(b, tok[i])
		}
	}
	return string(b)
}
