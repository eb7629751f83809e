package conformance

import (
	"encoding/json"
	"fmt"

	"github.com/agentscope-go/agentscope/internal/ojson"
)

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
func obj(kv ...any) *ojson.Object { return ojson.New(kv...) }

// str, num, arr … read spec fields leniently.
func getStr(o *ojson.Object, key, def string) string {
	if o == nil {
		return def
	}
	if v, ok := o.Vals[key].(string); ok {
		return v
	}
	return def
}

func getBool(o *ojson.Object, key string, def bool) bool {
	if o == nil {
		return def
	}
	if v, ok := o.Vals[key].(bool); ok {
		return v
	}
	return def
}

func getObj(o *ojson.Object, key string) *ojson.Object {
	if o == nil {
		return nil
	}
	v, _ := o.Vals[key].(*ojson.Object)
	return v
}

func getArr(o *ojson.Object, key string) []any {
	if o == nil {
		return nil
	}
	v, _ := o.Vals[key].([]any)
	return v
}

func getNum(o *ojson.Object, key string) (float64, bool) {
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
