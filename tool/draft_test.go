package tool_test

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/agentscope-go/agentscope/tool"
)

// Every draft a tool may declare validates with its own rules: each case
// is a schema, an instance and whether that draft accepts it (the JSON
// Schema test suite's meaning of each keyword in each draft).
func TestDraftsValidateByTheirOwnRules(t *testing.T) {
	const (
		d4    = `"$schema":"http://json-schema.org/draft-04/schema#",`
		d6    = `"$schema":"http://json-schema.org/draft-06/schema#",`
		d7    = `"$schema":"http://json-schema.org/draft-07/schema#",`
		d2019 = `"$schema":"https://json-schema.org/draft/2019-09/schema",`
		d2020 = `"$schema":"https://json-schema.org/draft/2020-12/schema",`
	)
	obj := func(draft, props string) string {
		return `{` + draft + `"type":"object","properties":{` + props + `}}`
	}
	for _, c := range []struct {
		name, schema, input string
		valid               bool
	}{
		// Draft 4's boolean exclusiveMaximum qualifies maximum.
		{"d4 exclusive max", obj(d4, `"n":{"maximum":3,"exclusiveMaximum":true}`), `{"n":3}`, false},
		{"d4 exclusive max below", obj(d4, `"n":{"maximum":3,"exclusiveMaximum":true}`), `{"n":2.5}`, true},
		{"d4 inclusive max", obj(d4, `"n":{"maximum":3,"exclusiveMaximum":false}`), `{"n":3}`, true},
		{"d4 exclusive min", obj(d4, `"n":{"minimum":1,"exclusiveMinimum":true}`), `{"n":1}`, false},
		// Keywords a draft does not have are annotations there.
		{"d4 has no const", obj(d4, `"n":{"const":1}`), `{"n":2}`, true},
		{"d6 has no if", obj(d6, `"n":{"if":{"type":"string"},"then":{"minLength":3}}`), `{"n":"a"}`, true},
		{"d7 has if", obj(d7, `"n":{"if":{"type":"string"},"then":{"minLength":3}}`), `{"n":"a"}`, false},
		// An array of items, then additionalItems.
		{"d7 tuple", obj(d7, `"t":{"type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":false}`), `{"t":["a",1]}`, true},
		{"d7 tuple extra", obj(d7, `"t":{"type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":false}`), `{"t":["a",1,2]}`, false},
		{"d7 tuple wrong", obj(d7, `"t":{"type":"array","items":[{"type":"string"},{"type":"integer"}]}`), `{"t":[1,1]}`, false},
		{"d7 additionalItems after one schema ignored", obj(d7, `"t":{"items":{"type":"integer"},"additionalItems":false}`), `{"t":[1,2]}`, true},
		{"d2019 tuple extra", obj(d2019, `"t":{"items":[{"type":"string"}],"additionalItems":{"type":"integer"}}`), `{"t":["a","b"]}`, false},
		// dependencies: names or a schema.
		{"d7 dependencies", `{` + d7 + `"type":"object","properties":{},"dependencies":{"a":["b"],"c":{"required":["d"]}}}`, `{"a":1}`, false},
		{"d7 dependent schema", `{` + d7 + `"type":"object","properties":{},"dependencies":{"a":["b"],"c":{"required":["d"]}}}`, `{"c":1}`, false},
		{"d7 dependencies met", `{` + d7 + `"type":"object","properties":{},"dependencies":{"a":["b"],"c":{"required":["d"]}}}`, `{"a":1,"b":2,"c":3,"d":4}`, true},
		// Before 2019-09 a $ref's siblings are ignored; after, they apply.
		{"d7 ref siblings ignored", `{` + d7 + `"type":"object","properties":{"n":{"$ref":"#/definitions/i","maximum":1}},"definitions":{"i":{"type":"integer"}}}`, `{"n":5}`, true},
		{"d7 ref applies", `{` + d7 + `"type":"object","properties":{"n":{"$ref":"#/definitions/i","maximum":1}},"definitions":{"i":{"type":"integer"}}}`, `{"n":"x"}`, false},
		{"d2020 ref siblings apply", `{` + d2020 + `"type":"object","properties":{"n":{"$ref":"#/$defs/i","maximum":1}},"$defs":{"i":{"type":"integer"}}}`, `{"n":5}`, false},
		// A pointer through a renamed keyword still finds its schema.
		{"d7 ref into tuple", `{` + d7 + `"type":"object","properties":{"t":{"items":[{"type":"integer"}]},"u":{"$ref":"#/properties/t/items/0"}}}`, `{"u":"x"}`, false},
		{"d7 ref into tuple ok", `{` + d7 + `"type":"object","properties":{"t":{"items":[{"type":"integer"}]},"u":{"$ref":"#/properties/t/items/0"}}}`, `{"u":3}`, true},
		// Plain-name anchors in $id (id in draft 4).
		{"d7 anchor", `{` + d7 + `"type":"object","properties":{"n":{"$ref":"#num"}},"definitions":{"x":{"$id":"#num","type":"integer"}}}`, `{"n":"x"}`, false},
		{"d4 anchor", `{` + d4 + `"type":"object","properties":{"n":{"$ref":"#num"}},"definitions":{"x":{"id":"#num","type":"integer"}}}`, `{"n":1}`, true},
		// "format" only annotates, in every draft: jsonschema.validate,
		// which the reference calls, passes no format checker.
		{"d7 date-time", obj(d7, `"at":{"type":"string","format":"date-time"}`), `{"at":"yesterday"}`, true},
		{"d4 email", obj(d4, `"e":{"format":"email"}`), `{"e":"no at sign"}`, true},
		{"d7 format beside type", obj(d7, `"d":{"format":"date","type":"integer"}`), `{"d":"2026-02-30"}`, false},
		{"d2020 format annotates", obj(d2020, `"at":{"format":"date-time"}`), `{"at":"yesterday"}`, true},
		// 2019-09's recursive references.
		{"d2019 recursive", `{` + d2019 + `"$recursiveAnchor":true,"type":"object","properties":{"child":{"$recursiveRef":"#"},"n":{"type":"integer"}}}`, `{"child":{"child":{"n":"x"}}}`, false},
		{"d2019 recursive ok", `{` + d2019 + `"$recursiveAnchor":true,"type":"object","properties":{"child":{"$recursiveRef":"#"},"n":{"type":"integer"}}}`, `{"child":{"child":{"n":1}}}`, true},
		// 2020-12 itself.
		{"d2020 prefixItems", obj(d2020, `"t":{"prefixItems":[{"type":"string"}],"items":false}`), `{"t":["a",1]}`, false},
		{"d2020 unevaluated", obj(d2020, `"o":{"type":"object","properties":{"a":{}},"unevaluatedProperties":false}`), `{"o":{"b":1}}`, false},
	} {
		v, err := tool.NewValidator("t", json.RawMessage(c.schema))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		input, err := tool.ParseInput(c.input)
		if err != nil {
			t.Fatal(err)
		}
		err = v.Validate(input)
		var ve *tool.ValidationError
		switch {
		case c.valid && err != nil:
			t.Errorf("%s: %s rejected: %v", c.name, c.input, err)
		case !c.valid && !errors.As(err, &ve):
			t.Errorf("%s: %s accepted (%v)", c.name, c.input, err)
		case !c.valid && ve.Message == "":
			t.Errorf("%s: no message", c.name)
		}
	}
}

// testdata/draft_cases.json holds what Python's jsonschema 4.26 says of
// tool arguments against schemas of drafts 4, 6, 7 and 2019-09
// (testdata/gen_draft_cases.py): whether validate passes, and if not the
// message the model is sent after "Input validation failed for tool 't': ".
func TestDraftMessagesMatchPython(t *testing.T) {
	data, err := os.ReadFile("testdata/draft_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Schema   json.RawMessage
		Instance json.RawMessage
		Message  *string
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 40 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		v, err := tool.NewValidator("t", c.Schema)
		if err != nil {
			t.Errorf("%s: %v", c.Schema, err)
			continue
		}
		input, err := tool.ParseInput(string(c.Instance))
		if err != nil {
			t.Fatal(err)
		}
		err = v.Validate(input)
		var ve *tool.ValidationError
		switch {
		case c.Message == nil && err != nil:
			t.Errorf("schema %s instance %s: got %v, want valid", c.Schema, c.Instance, err)
		case c.Message != nil && !errors.As(err, &ve):
			t.Errorf("schema %s instance %s: got %v, want %q", c.Schema, c.Instance, err, *c.Message)
		case c.Message != nil && ve.Message != *c.Message:
			t.Errorf("schema %s instance %s:\n got %q\nwant %q", c.Schema, c.Instance, ve.Message, *c.Message)
		}
	}
}

// Schemas the meta-schema refuses, or that cannot be resolved, are
// refused when the tool is made, with a *SchemaError naming where.
func TestSchemaErrorsAtRegistration(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"minLength":-1}}}`,
		`{"type":"object","properties":{"a":{"maxItems":1.5}}}`,
		`{"type":"object","properties":{"a":{"pattern":"("}}}`,
		`{"type":"object","properties":{"a":{"type":["string","string"]}}}`,
		`{"type":"object","properties":{"a":3}}`,
		`{"type":"object","properties":{},"required":"a"}`,
		`{"type":"object","properties":{"a":{"anyOf":[]}}}`,
		`{"type":"object","properties":{"a":{"multipleOf":0}}}`,
		`{"type":"object","properties":{},"patternProperties":{"(":{}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`,
		// Nothing is fetched: a reference outside the schema does not resolve.
		`{"type":"object","properties":{"a":{"$ref":"http://127.0.0.1:1/s.json"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`,
		`{"$id":"http://127.0.0.1:1/root.json","type":"object","properties":{"a":{"$ref":"other.json"}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$ref":"https://example.com/s.json#/definitions/x"}}}`,
		`{"$schema":"https://example.com/my-draft","type":"object","properties":{}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"items":[{"type":"nope"}]}}}`,
	} {
		_, err := tool.NewValidator("t", json.RawMessage(s))
		var se *tool.SchemaError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v", s, err)
		}
	}
}
