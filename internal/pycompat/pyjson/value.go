package pyjson

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentscope-go/agentscope/internal/ojson"
)

// Kind is a JSON value's type as Python decodes it.
type Kind uint8

// Kinds. Int and Float are distinguished by how the number was written
// (Python's json module makes 1 an int and 1.0 a float).
const (
	Null Kind = iota
	Bool
	Int
	Float
	String
	Array
	Object
)

// Value is a decoded JSON value.
type Value struct {
	Kind Kind
	Bool bool
	// Str is the text of a String, or the literal of an Int/Float as
	// written (NaN, Infinity and -Infinity included).
	Str string
	// Items are an Array's elements or an Object's member values.
	Items []Value
	// Keys are an Object's member names, in order, parallel to Items.
	// Duplicate names keep the last value at the first position, as a
	// Python dict does.
	Keys []string
}

// Float64 returns a number's value (NaN for a non-number).
func (v Value) Float64() float64 {
	if v.Kind != Int && v.Kind != Float {
		return math.NaN()
	}
	switch v.Str {
	case "NaN":
		return math.NaN()
	case "Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	f, _ := strconv.ParseFloat(v.Str, 64)
	return f
}

// IsNumber reports Int or Float.
func (v Value) IsNumber() bool { return v.Kind == Int || v.Kind == Float }

// Finite reports whether a number is neither NaN nor infinite.
func (v Value) Finite() bool {
	f := v.Float64()
	return !math.IsNaN(f) && !math.IsInf(f, 0)
}

// Get returns an object member.
func (v Value) Get(key string) (Value, bool) {
	for i, k := range v.Keys {
		if k == key {
			return v.Items[i], true
		}
	}
	return Value{}, false
}

// Has reports whether an object has the member.
func (v Value) Has(key string) bool {
	_, ok := v.Get(key)
	return ok
}

// set adds or replaces an object member (a replaced member keeps its
// position, like a Python dict).
func (v *Value) set(key string, val Value) {
	for i, k := range v.Keys {
		if k == key {
			v.Items[i] = val
			return
		}
	}
	v.Keys = append(v.Keys, key)
	v.Items = append(v.Items, val)
}

// Set adds or replaces an object member.
func (v *Value) Set(key string, val Value) { v.set(key, val) }

// Delete removes an object member.
func (v *Value) Delete(key string) {
	for i, k := range v.Keys {
		if k == key {
			v.Keys = append(v.Keys[:i:i], v.Keys[i+1:]...)
			v.Items = append(v.Items[:i:i], v.Items[i+1:]...)
			return
		}
	}
}

// TypeName is Python's type(value) name: dict, list, str, int, float,
// bool or NoneType.
func (v Value) TypeName() string {
	switch v.Kind {
	case Object:
		return "dict"
	case Array:
		return "list"
	case String:
		return "str"
	case Int:
		return "int"
	case Float:
		return "float"
	case Bool:
		return "bool"
	}
	return "NoneType"
}

// Any converts the value to what encoding/json would decode it into
// (map[string]any, []any, string, float64, bool, nil).
func (v Value) Any() any { return v.toAny(false) }

// JSONAny is Any with numbers kept as json.Number literals, so that an
// integer stays an integer when the value is written out again (Any's
// float64 would come back as 3.0 in Python's style). Non-finite numbers
// become float64, since JSON has no literal for them.
func (v Value) JSONAny() any { return v.toAny(true) }

func (v Value) toAny(literals bool) any {
	switch v.Kind {
	case Bool:
		return v.Bool
	case Int, Float:
		if f := v.Float64(); !literals || math.IsNaN(f) || math.IsInf(f, 0) {
			return f
		}
		return json.Number(v.Str)
	case String:
		return v.Str
	case Array:
		out := make([]any, len(v.Items))
		for i, it := range v.Items {
			out[i] = it.toAny(literals)
		}
		return out
	case Object:
		out := make(map[string]any, len(v.Keys))
		for i, k := range v.Keys {
			out[k] = v.Items[i].toAny(literals)
		}
		return out
	}
	return nil
}

// FromAny converts a decoded Go value to a Value: what encoding/json
// produces (float64 numbers, map keys sorted since Go maps have no order),
// json.Number literals (int or float as written), the internal ordered
// objects (key order kept) and the common Go scalars. Anything else goes
// through encoding/json.
func FromAny(x any) Value {
	switch t := x.(type) {
	case nil:
		return Value{Kind: Null}
	case bool:
		return Value{Kind: Bool, Bool: t}
	case string:
		return Value{Kind: String, Str: t}
	case float64:
		return floatValue(t)
	case float32:
		return floatValue(float64(t))
	case int:
		return Value{Kind: Int, Str: strconv.Itoa(t)}
	case int64:
		return Value{Kind: Int, Str: strconv.FormatInt(t, 10)}
	case int32:
		return Value{Kind: Int, Str: strconv.FormatInt(int64(t), 10)}
	case uint64:
		return Value{Kind: Int, Str: strconv.FormatUint(t, 10)}
	case json.Number:
		return numberValue(string(t))
	case []any:
		out := Value{Kind: Array, Items: make([]Value, len(t))}
		for i, it := range t {
			out.Items[i] = FromAny(it)
		}
		return out
	case *ojson.Object:
		if t == nil {
			return Value{Kind: Null}
		}
		out := Value{Kind: Object, Keys: slices.Clone(t.Keys), Items: make([]Value, len(t.Keys))}
		for i, k := range t.Keys {
			out.Items[i] = FromAny(t.Vals[k])
		}
		return out
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := Value{Kind: Object, Keys: keys, Items: make([]Value, len(keys))}
		for i, k := range keys {
			out.Items[i] = FromAny(t[k])
		}
		return out
	}
	b, err := json.Marshal(x)
	if err != nil {
		return Value{Kind: Null}
	}
	v, err := Parse(string(b))
	if err != nil {
		return Value{Kind: Null}
	}
	return v
}

func numberValue(lit string) Value {
	if strings.ContainsAny(lit, ".eE") {
		return Value{Kind: Float, Str: lit}
	}
	return Value{Kind: Int, Str: lit}
}

// floatValue renders a float64 that came from encoding/json: integral
// values are treated as ints (encoding/json has already lost the
// distinction, and ints are what JSON writers emit for them).
func floatValue(f float64) Value {
	switch {
	case math.IsNaN(f):
		return Value{Kind: Float, Str: "NaN"}
	case math.IsInf(f, 1):
		return Value{Kind: Float, Str: "Infinity"}
	case math.IsInf(f, -1):
		return Value{Kind: Float, Str: "-Infinity"}
	case f == math.Trunc(f) && math.Abs(f) < 1e21:
		return Value{Kind: Int, Str: strconv.FormatFloat(f, 'f', -1, 64)}
	}
	return Value{Kind: Float, Str: strconv.FormatFloat(f, 'g', -1, 64)}
}
