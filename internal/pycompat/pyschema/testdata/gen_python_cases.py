# Regenerate python_cases.json with: python3 gen_python_cases.py > python_cases.json
# (jsonschema 4.26; the expected message is str(best_match) = error.message).
import json, jsonschema

add = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}
weather = {"properties": {"city": {"title": "City", "type": "string"}, "temperature": {"title": "Temperature", "type": "number"}}, "required": ["city", "temperature"], "title": "WeatherReport", "type": "object"}
mode = {"type": "object", "properties": {"mode": {"type": "string", "enum": ["fast", "slow"]}, "level": {"type": "integer", "minimum": 1, "maximum": 10}}, "required": ["mode"], "additionalProperties": False}
nested = {"type": "object", "properties": {"user": {"$ref": "#/$defs/User"}, "tags": {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 2, "uniqueItems": True}}, "$defs": {"User": {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer", "exclusiveMinimum": 0}}, "required": ["name"]}}}
anyof = {"type": "object", "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 10}]}, "o": {"oneOf": [{"type": "integer"}, {"type": "number"}]}, "n": {"not": {"type": "null"}}, "c": {"const": "x"}}}
misc = {"type": "object", "properties": {"p": {"type": "string", "pattern": "^[a-z]+$"}, "m": {"type": "number", "multipleOf": 0.5}, "k": {"type": "integer", "multipleOf": 3}, "t": {"type": "array", "prefixItems": [{"type": "string"}], "items": False}, "s": {"type": "array", "contains": {"type": "integer"}}, "e": {"type": "string", "maxLength": 0}, "u": {"type": ["string", "null"]}, "b": {"type": "boolean"}}, "dependentRequired": {"p": ["m"]}, "minProperties": 1}
pp = {"type": "object", "patternProperties": {"^x_": {"type": "integer"}}, "additionalProperties": False}
aobj = {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}}

cases = [
 (add, {"a": "one", "b": 2}), (add, {"a": "one"}), (add, {}), (add, {"a": 1.0, "b": True}), (add, {"a": 1.5, "b": 2}),
 (weather, {"city": "Hangzhou", "temperature": "hot"}), (weather, {"city": 3, "temperature": "hot"}),
 (mode, {"mode": "medium"}), (mode, {"mode": "fast", "level": 11}), (mode, {"mode": "fast", "level": 0}),
 (mode, {"mode": "fast", "zzz": 1, "aaa": 2}), (mode, {"mode": "fast", "x": 1}), (mode, {"level": "high"}),
 (nested, {"user": {"age": 0}}), (nested, {"user": {"name": 1, "age": -1}}), (nested, {"tags": ["a", ""]}),
 (nested, {"tags": ["a", "a", "b"]}), (nested, {"tags": ["a", "a"]}), (nested, {"user": "bob"}),
 (anyof, {"v": 5}), (anyof, {"v": [1]}), (anyof, {"o": 1}), (anyof, {"o": "x"}), (anyof, {"n": None}), (anyof, {"c": "y"}),
 (misc, {"p": "ABC", "m": 1.0}), (misc, {"m": 0.3}), (misc, {"k": 4}), (misc, {"t": ["a", 1, 2]}), (misc, {"t": ["a", 1]}),
 (misc, {"s": ["a"]}), (misc, {"e": "x"}), (misc, {"u": 1}), (misc, {"b": "yes"}), (misc, {"p": "abc"}), (misc, {}),
 (pp, {"x_a": "s"}), (pp, {"y": 1}), (pp, {"y": 1, "z": 2}), (aobj, {"a": "ok", "q": "no"}),
 ({"type": "object", "properties": {"f": False}}, {"f": {"k": [1, 2.5, None, True]}}),
 ({"type": "object", "properties": {"d": {"type": "object", "minProperties": 1, "maxProperties": 1}}}, {"d": {}}),
 ({"type": "object", "properties": {"d": {"type": "object", "maxProperties": 1}}}, {"d": {"a": 1, "b": 2}}),
 ({"type": "object", "properties": {"l": {"type": "array", "minItems": 3}}}, {"l": [1]}),
 ({"type": "object", "properties": {"s": {"type": "string", "minLength": 3}}}, {"s": "é"}),
 ({"type": "object", "properties": {"x": {"type": "number", "exclusiveMaximum": 5}}}, {"x": 5}),
 ({"type": "object", "properties": {"x": {"if": {"type": "integer"}, "then": {"minimum": 3}, "else": {"type": "string"}}}}, {"x": 1}),
 ({"type": "object", "properties": {"x": {"if": {"type": "integer"}, "then": {"minimum": 3}, "else": {"type": "string"}}}}, {"x": 1.5}),
 ({"type": "object", "properties": {"x": {"type": "string"}}}, {"x": "it's \"q\""}),
 ({"type": "object", "properties": {"x": {"type": "string"}}}, {"x": 1e100}),
 ({"type": "object", "properties": {"x": {"enum": [1, "a", None, True]}}}, {"x": False}),
 ({"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}}, {"y": "b", "x": "a"}),
 ({"type": "object", "properties": {"y": {"type": "integer"}, "x": {"type": "integer"}}}, {"x": "a", "y": "b"}),
 ({"type": "object", "properties": {"a": {"type": "object", "properties": {"z": {"type": "string"}}}, "b": {"type": "string"}}}, {"a": {"z": 1}, "b": 2}),
 ({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}}, {"a": ["x", 1, 2]}),
 ({"type": "object", "properties": {"a": {"type": "string", "enum": ["x"]}}}, {"a": 1}),
 ({"type": "object", "properties": {"a": {"anyOf": [{"type": "object", "required": ["k"]}, {"type": "string"}]}}}, {"a": {}}),
 ({"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}}, {"Bad": 1}),
]
out = []
for schema, inst in cases:
    try:
        jsonschema.validate(inst, schema)
        msg = None
    except jsonschema.ValidationError as e:
        msg = e.message
    out.append({"schema": schema, "instance": inst, "message": msg})
print(json.dumps(out, ensure_ascii=False, indent=0))
