# Regenerate draft_cases.json with: python3 gen_draft_cases.py > draft_cases.json
# (jsonschema 4.26). Each case is a tool's input schema of an older draft and
# an argument object; "message" is what jsonschema.validate(instance, schema)
# raises (the validator its "$schema" picks, best_match), null when it passes.
import json, jsonschema

D4 = "http://json-schema.org/draft-04/schema#"
D6 = "http://json-schema.org/draft-06/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
D2019 = "https://json-schema.org/draft/2019-09/schema"

def obj(draft, props, **kw):
    s = {"$schema": draft, "type": "object", "properties": props}
    s.update(kw)
    return s

cases = []
def case(schema, *instances):
    for i in instances:
        cases.append((schema, i))

# Draft 4: exclusiveMaximum/exclusiveMinimum are booleans qualifying maximum/minimum.
num4 = obj(D4, {"n": {"type": "number", "maximum": 5, "exclusiveMaximum": True},
                "m": {"type": "number", "minimum": 1, "exclusiveMinimum": True},
                "k": {"type": "integer", "maximum": 5, "exclusiveMaximum": False}})
case(num4, {"n": 5}, {"n": 4.5}, {"n": 6}, {"m": 1}, {"m": 0.5}, {"m": 1.5}, {"k": 5}, {"k": 6})
# Draft 4 knows no const, contains, propertyNames, if: they are annotations.
case(obj(D4, {"c": {"const": "x"}, "a": {"type": "array", "contains": {"type": "integer"}},
              "o": {"type": "object", "propertyNames": {"maxLength": 1}},
              "i": {"if": {"type": "string"}, "then": {"minLength": 3}}}),
     {"c": "y", "a": ["s"], "o": {"long": 1}, "i": "ab"})
# Draft 6 has const and contains (its own message) but no if.
d6 = obj(D6, {"c": {"const": "x"}, "a": {"type": "array", "contains": {"type": "integer"}},
              "i": {"if": {"type": "string"}, "then": {"minLength": 3}},
              "e": {"type": "number", "exclusiveMaximum": 3}})
case(d6, {"c": "y"}, {"a": ["s", "t"]}, {"a": ["s", 1]}, {"i": "ab"}, {"e": 3}, {"e": 2})
# Draft 7: definitions and $ref, whose siblings are ignored.
d7 = obj(D7, {"user": {"$ref": "#/definitions/User", "type": "string"},
              "ids": {"type": "array", "items": {"$ref": "#/definitions/Id"}}},
         definitions={"User": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
                      "Id": {"type": "integer", "minimum": 1}},
         required=["user"])
case(d7, {"user": {"name": "a"}}, {"user": {}}, {"user": {"name": 3}}, {}, {"user": {"name": "a"}, "ids": [1, 0]},
     {"user": "text"})
case(obj(D7, {"i": {"if": {"type": "string"}, "then": {"minLength": 3}, "else": {"type": "integer"}}}),
     {"i": "ab"}, {"i": 1.5}, {"i": "abc"})
# dependencies: a list of names, or a schema.
dep = obj(D7, {"a": {}, "b": {}, "c": {}},
          dependencies={"a": ["b", "c"], "b": {"properties": {"c": {"type": "string"}}, "required": ["c"]}})
case(dep, {"a": 1, "b": 2, "c": 3}, {"a": 1}, {"b": 1}, {"b": 1, "c": "x"}, {"c": 1})
case(obj(D4, {"a": {}, "b": {}}, dependencies={"a": ["b"]}), {"a": 1}, {"a": 1, "b": 2})
# items as a list (prefixItems in 2020-12) and additionalItems.
tup = obj(D7, {"t": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": False},
               "u": {"type": "array", "items": [{"type": "string"}], "additionalItems": {"type": "boolean"}},
               "v": {"type": "array", "items": {"type": "string"}, "additionalItems": False}})
case(tup, {"t": ["a", 1]}, {"t": ["a", 1, 2]}, {"t": ["a", 1, 2, 3]}, {"t": [1]}, {"t": ["a", "b"]},
     {"u": ["a", True, 3]}, {"u": ["a", True]}, {"v": ["a", "b", "c"]}, {"v": ["a", 1]})
case(obj(D4, {"t": {"type": "array", "items": [{"type": "string"}], "additionalItems": False}}), {"t": ["a", "b"]})
# additionalItems without items is ignored.
case(obj(D7, {"t": {"type": "array", "additionalItems": False, "minItems": 3}}),
     {"t": [1, 2]})
# Keywords of later drafts are annotations in earlier ones, and the reverse.
case(obj(D7, {"a": {}, "b": {}, "t": {"prefixItems": [{"type": "integer"}]},
              "k": {"contains": {"type": "integer"}, "minContains": 2}},
         dependentRequired={"a": ["b"]}, dependentSchemas={"b": {"required": ["a"]}}),
     {"a": 1}, {"b": 1}, {"t": ["x"]}, {"k": [1]}, {"k": ["x"]})
case(obj(D2019, {"a": {}, "b": {}, "t": {"prefixItems": [{"type": "integer"}]}}, dependencies={"a": ["b"]}),
     {"a": 1}, {"t": ["x"]})
# Draft 2019-09's $ref siblings apply; before, the $ref alone.
case(obj(D7, {"n": {"$ref": "#/definitions/i", "maximum": 1}}, definitions={"i": {"type": "integer"}}), {"n": 5}, {"n": "x"})
# formats: jsonschema.validate does not assert them, whatever the draft.
fmt = {"type": "string", "format": "email"}
for d in (D4, D6, D7, D2019):
    case(obj(d, {"e": fmt, "d": {"type": "string", "format": "date-time"}}), {"e": "not an email", "d": "yesterday"})
# 2019-09: dependentRequired, dependentSchemas, items lists, modern contains.
d19 = obj(D2019, {"a": {}, "b": {}, "l": {"type": "array", "items": [{"type": "integer"}], "additionalItems": False},
                  "k": {"type": "array", "contains": {"type": "integer"}, "minContains": 2}},
          dependentRequired={"a": ["b"]}, dependentSchemas={"b": {"required": ["a"]}},
          **{"$defs": {"X": {"type": "string"}}})
case(d19, {"a": 1}, {"b": 1}, {"l": [1, 2]}, {"l": ["x"]}, {"k": [1, "x"]}, {"k": ["x"]}, {"a": 1, "b": 2})
case(obj(D2019, {"x": {"$ref": "#/$defs/X", "maxLength": 2}}, **{"$defs": {"X": {"type": "string"}}}),
     {"x": "abc"}, {"x": 1}, {"x": "ab"})
# The root's own $ref in draft 7 with siblings ignored.
case(obj(D6, {"p": {"type": "integer", "multipleOf": 2}}, required=["p"], additionalProperties=False),
     {"p": 3}, {"p": 2, "q": 1}, {})

out = []
for schema, inst in cases:
    try:
        jsonschema.validate(inst, schema)
        msg = None
    except jsonschema.ValidationError as e:
        msg = e.message
    out.append({"schema": schema, "instance": inst, "message": msg})
print(json.dumps(out, indent=1))
