package pyjson

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/internal/ojson"
)

var (
	sorted   = DumpOptions{EnsureASCII: true, SortKeys: true}
	unsorted = DumpOptions{EnsureASCII: true}
)

// The conformance runner writes json.dumps of ordered spec values and of
// tool inputs decoded into map[string]any; these are the cases its own
// writer was tested on, now written by this one.
func TestDumpsOfDecodedValues(t *testing.T) {
	v, err := ojson.Parse([]byte(`{"b": [1, 2.5, 1e-05, 1e16, 1234567.5, true, null], "a": "é😀\"\\\n\u007f/<>", "c": {"z": 1, "y": 2.0}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a": "\u00e9\ud83d\ude00\"\\\n\u007f/<>", "b": [1, 2.5, 1e-05, 1e+16, 1234567.5, true, null], "c": {"y": 2.0, "z": 1}}`
	if got := Dumps(FromAny(v), sorted); got != want {
		t.Fatalf("sorted:\n got %s\nwant %s", got, want)
	}
	if got := Dumps(FromAny(v), unsorted); !strings.HasPrefix(got, `{"b": [1, 2.5`) || !strings.Contains(got, `"c": {"z": 1, "y": 2.0}`) {
		t.Fatalf("insertion order lost: %s", got)
	}
	if got := Dumps(FromAny(v), DumpOptions{SortKeys: true, Compact: true}); !strings.HasPrefix(got, "{\"a\":\"é😀\\\"\\\\\\n\x7f/<>\",\"b\":[1,2.5") {
		t.Fatalf("ensure_ascii=False, compact: %s", got)
	}
}

// Numbers encoding/json decoded into float64 have lost int versus float:
// integral values below 1e21 (where encoding/json itself switches to
// exponent form) are written as ints, the rest as repr(float).
func TestDumpsOfFloat64(t *testing.T) {
	in := map[string]any{"n": 3.0, "f": 0.1, "neg0": math.Copysign(0, -1), "big": 1e20, "huge": 1e21, "frac": 1e15 + 0.5}
	want := `{"big": 100000000000000000000, "f": 0.1, "frac": 1000000000000000.5, "huge": 1e+21, "n": 3, "neg0": 0}`
	if got := Dumps(FromAny(in), sorted); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	for f, want := range map[float64]string{
		0.0001: "0.0001", 123456789012345.5: "123456789012345.5", -2.5e-7: "-2.5e-07",
		math.Inf(1): "Infinity", math.Inf(-1): "-Infinity", math.NaN(): "NaN",
	} {
		if got := Dumps(FromAny(f), sorted); got != want {
			t.Errorf("Dumps(%v) = %s, want %s", f, got, want)
		}
	}
}

// json.Number literals keep int versus float as written, like json.loads.
func TestDumpsOfNumberLiterals(t *testing.T) {
	for lit, want := range map[string]string{
		"1": "1", "-0": "0", "12345678901234567890": "12345678901234567890",
		"2.0": "2.0", "1E16": "1e+16", "-0.0": "-0.0", "1e400": "Infinity", "-1e400": "-Infinity",
	} {
		if got := Dumps(FromAny(json.Number(lit)), sorted); got != want {
			t.Errorf("Dumps(%s) = %s, want %s", lit, got, want)
		}
	}
}

// Other Go values go through encoding/json, as a tool's own types would.
func TestFromAnyOtherTypes(t *testing.T) {
	type point struct {
		X int     `json:"x"`
		Y float64 `json:"y"`
	}
	in := []any{point{1, 2.5}, uint8(7), []string{"a"}, (*ojson.Object)(nil), ojson.New("z", 1, "a", "é")}
	want := `[{"x": 1, "y": 2.5}, 7, ["a"], null, {"z": 1, "a": "\u00e9"}]`
	if got := Dumps(FromAny(in), unsorted); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if got := FromAny(math.Inf(1)).Kind; got != Float {
		t.Fatalf("kind of +Inf = %v", got)
	}
	if got := FromAny(func() {}); got.Kind != Null {
		t.Fatalf("unencodable value = %+v, want null", got)
	}
}

func TestAnyAndJSONAny(t *testing.T) {
	v, err := Parse(`{"i": 3, "f": 2.50, "n": NaN, "a": [1, "s", null, true], "o": {}}`)
	if err != nil {
		t.Fatal(err)
	}
	plain := v.Any().(map[string]any)
	lit := v.JSONAny().(map[string]any)
	if plain["i"] != 3.0 || plain["f"] != 2.5 || lit["i"] != json.Number("3") || lit["f"] != json.Number("2.50") {
		t.Fatalf("numbers: %#v / %#v", plain, lit)
	}
	if n, ok := lit["n"].(float64); !ok || !math.IsNaN(n) {
		t.Fatalf("NaN as a literal: %#v", lit["n"])
	}
	if a := lit["a"].([]any); a[0] != json.Number("1") || a[1] != "s" || a[2] != nil || a[3] != true {
		t.Fatalf("array: %#v", a)
	}
	if o, ok := plain["o"].(map[string]any); !ok || len(o) != 0 {
		t.Fatalf("object: %#v", plain["o"])
	}
}
