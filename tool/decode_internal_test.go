package tool

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

type decInner struct {
	V  string  `json:"v"`
	N  *int    `json:"n"`
	Fs []int8  `json:"fs"`
	F  float32 `json:"f"`
}

type decTarget struct {
	S   string              `json:"s"`
	I   int                 `json:"i"`
	U   uint16              `json:"u"`
	F   float64             `json:"f"`
	B   bool                `json:"b"`
	P   *string             `json:"p"`
	L   []decInner          `json:"l"`
	A   [2]bool             `json:"a"`
	M   map[string]float64  `json:"m"`
	MI  map[string]decInner `json:"mi"`
	X   any                 `json:"x"`
	In  decInner            `json:"in"`
	PI  *decInner           `json:"pi"`
	Raw string              // no tag: the Go name
	Ign string              `json:"-"`
}

// jsonValue draws a decoded-JSON value, biased towards what fits the
// target's fields so both success and failure paths are exercised.
func jsonValue(t *rapid.T, depth int) any {
	kinds := 5
	if depth < 3 {
		kinds = 7
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
	case 0:
		return nil
	case 1:
		return rapid.String().Draw(t, "s")
	case 2:
		return rapid.Bool().Draw(t, "b")
	case 3:
		return float64(rapid.IntRange(-70000, 70000).Draw(t, "int"))
	case 4:
		return rapid.Float64().Draw(t, "f")
	case 5:
		n := rapid.IntRange(0, 3).Draw(t, "len")
		out := make([]any, n)
		for i := range out {
			out[i] = jsonValue(t, depth+1)
		}
		return out
	default:
		return jsonObject(t, depth+1)
	}
}

var decKeys = []string{"s", "i", "u", "f", "b", "p", "l", "a", "m", "mi", "x", "in", "pi", "Raw", "Ign", "v", "n", "fs", "zz"}

func jsonObject(t *rapid.T, depth int) map[string]any {
	out := map[string]any{}
	for range rapid.IntRange(0, 6).Draw(t, "members") {
		out[rapid.SampledFrom(decKeys).Draw(t, "key")] = jsonValue(t, depth)
	}
	return out
}

// The direct decoder agrees with a JSON round trip through
// encoding/json: same success, same value.
func TestDirectDecoderMatchesEncodingJSON(t *testing.T) {
	dec := newDecoder(reflect.TypeFor[decTarget]())
	if !dec.direct {
		t.Fatal("plain type not decoded directly")
	}
	rapid.Check(t, func(t *rapid.T) {
		in := jsonObject(t, 0)
		var got, want decTarget
		errGot := dec.decode(in, &got)
		data, err := json.Marshal(in)
		if err != nil {
			t.Skip("unencodable draw")
		}
		errWant := json.Unmarshal(data, &want)
		if (errGot == nil) != (errWant == nil) {
			t.Fatalf("input %s: direct err %v, json err %v", data, errGot, errWant)
		}
		if errGot == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("input %s:\n direct %+v\n json   %+v", data, got, want)
		}
	})
}

func TestDirectDecoderDetails(t *testing.T) {
	dec := newDecoder(reflect.TypeFor[decTarget]())
	var v decTarget
	if err := dec.decode(map[string]any{"S": "upper", "s": "exact", "RAW": "r"}, &v); err != nil || v.S != "exact" || v.Raw != "r" {
		t.Fatalf("%+v %v", v, err)
	}
	err := dec.decode(map[string]any{"l": []any{map[string]any{"fs": []any{1.0, 300.0}}}}, &v)
	if err == nil || !strings.Contains(err.Error(), "for l[0].fs[1]") {
		t.Fatalf("error path: %v", err)
	}
	// Custom decoders go through encoding/json.
	type custom struct {
		R json.RawMessage `json:"r"`
		B []byte          `json:"b"`
	}
	if newDecoder(reflect.TypeFor[custom]()).direct {
		t.Fatal("custom types decoded directly")
	}
}
