package conformance

import (
	"encoding/json"
	"fmt"

	"github.com/agentscope-go/agentscope/internal/ojson"
)

// Object is a JSON object that remembers its key order (the traversal
// order decides how ids are numbered).
type Object = ojson.Object

// parseOrdered decodes JSON into nil, bool, json.Number, string, []any and
// *Object values.
func parseOrdered(data []byte) (any, error) { return ojson.Parse(data) }

// mustParse decodes JSON the engine itself produced.
func mustParse(data []byte) any {
	v, err := parseOrdered(data)
	if err != nil {
		panic(fmt.Sprintf("conformance: engine produced invalid JSON: %v: %s", err, data))
	}
	return v
}

// obj builds an ordered object from key/value pairs.
func obj(kv ...any) *Object { return ojson.New(kv...) }

// str, num, arr … read spec fields leniently.
func getStr(o *Object, key, def string) string {
	if o == nil {
		return def
	}
	if v, ok := o.Vals[key].(string); ok {
		return v
	}
	return def
}

func getBool(o *Object, key string, def bool) bool {
	if o == nil {
		return def
	}
	if v, ok := o.Vals[key].(bool); ok {
		return v
	}
	return def
}

func getObj(o *Object, key string) *Object {
	if o == nil {
		return nil
	}
	v, _ := o.Vals[key].(*Object)
	return v
}

func getArr(o *Object, key string) []any {
	if o == nil {
		return nil
	}
	v, _ := o.Vals[key].([]any)
	return v
}

func getNum(o *Object, key string) (float64, bool) {
	if o == nil {
		return 0, false
	}
	n, ok := o.Vals[key].(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// toJSON serializes an ordered value compactly (for raw schemas).
func toJSON(v any) []byte { return ojson.Append(nil, v) }
