package wire_test

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"unicode/utf8"

	"github.com/agentscope-go/agentscope/internal/wire"
)

// pydantic-core escapes only '"', '\\' and control characters (short forms
// for \b \f \n \r \t); non-ASCII, '<', '>', '&', DEL and U+2028 pass as is.
func TestAppendString(t *testing.T) {
	cases := map[string]string{
		"":                       `""`,
		"plain":                  `"plain"`,
		`q"b\`:                   `"q\"b\\"`,
		"\n\r\t\b\f":             `"\n\r\t\b\f"`,
		"\x00\x01\x1f":           `"\u0000\u0001\u001f"`,
		"\x7f":                   "\"\x7f\"",
		"<a&b>":                  `"<a&b>"`,
		"é中😀\u2028\u2029":        "\"é中😀\u2028\u2029\"",
		"bad\xffutf8\xc3":        "\"bad\ufffdutf8\ufffd\"",
		"\xed\xa0\x80 surrogate": "\"\ufffd\ufffd\ufffd surrogate\"",
	}
	for in, want := range cases {
		got := string(wire.AppendString([]byte("x"), in))
		if got != "x"+want {
			t.Errorf("AppendString(%q) = %s, want %s", in, got[1:], want)
		}
		if !utf8.ValidString(got) || !json.Valid([]byte(got[1:])) {
			t.Errorf("AppendString(%q): invalid output %q", in, got)
		}
		var back string
		if err := json.Unmarshal([]byte(got[1:]), &back); err != nil || (utf8.ValidString(in) && back != in) {
			t.Errorf("AppendString(%q) does not read back: %q %v", in, back, err)
		}
	}
}

func TestAppendNullables(t *testing.T) {
	if got := string(wire.AppendNullString(nil, "")); got != "null" {
		t.Fatal(got)
	}
	if got := string(wire.AppendNullString(nil, "a")); got != `"a"` {
		t.Fatal(got)
	}
	if got := string(wire.AppendNullObject(nil, nil)); got != "null" {
		t.Fatal(got)
	}
	if got := string(wire.AppendNullObject(nil, map[string]any{})); got != "{}" {
		t.Fatal(got)
	}
	if got := string(wire.AppendObject(nil, nil)); got != "{}" {
		t.Fatal(got)
	}
	if got := string(wire.AppendKey(nil, "k")); got != `"k":` {
		t.Fatal(got)
	}
}

// tenth is a variable so that tenth+0.2 is computed in float64 (constant
// arithmetic would give exactly 0.3).
var tenth = 0.1

// Floats as pydantic's model_dump_json writes them (checked against
// pydantic 2.13): not Python's repr, which pads the exponent ("1e-05") and
// switches to scientific form below 1e-4, and no NaN or Infinity, which are
// not JSON.
func TestAppendFloat(t *testing.T) {
	cases := []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1, "1.0"}, {100, "100.0"}, {-3, "-3.0"},
		{tenth + 0.2, "0.30000000000000004"}, {1.5, "1.5"}, {1234567.5, "1234567.5"},
		{12345678.9, "12345678.9"}, {1e15 + 0.5, "1000000000000000.5"}, {9999999999999998, "9999999999999998.0"},
		{1e16, "1e+16"}, {123456789012345680, "1.2345678901234568e+17"}, {1e22, "1e+22"},
		{0.0001, "0.0001"}, {0.00001, "0.00001"}, {1.5e-5, "0.000015"}, {1e-6, "1e-6"},
		{1e-7, "1e-7"}, {2.5e-300, "2.5e-300"},
		{math.MaxFloat64, "1.7976931348623157e+308"}, {5e-324, "5e-324"},
		{math.NaN(), "null"}, {math.Inf(1), "null"}, {math.Inf(-1), "null"},
	}
	for _, c := range cases {
		if got := string(wire.AppendFloat(nil, c.f)); got != c.want {
			t.Errorf("AppendFloat(%v) = %s, want %s", c.f, got, c.want)
		}
	}
}

type appender struct{}

func (appender) AppendJSON(dst []byte) []byte { return append(dst, `{"custom":true}`...) }

func TestAppendAny(t *testing.T) {
	v := map[string]any{
		"z":   json.Number("1.50"),
		"a":   []any{true, false, nil, "s", 1.0, float32(0.5), int(-1), int64(2), int32(3), uint64(4)},
		"m":   map[string]any{"b": []string{"x", "y"}, "a": json.RawMessage(`{ "k" : [1, 2] }`)},
		"e":   json.RawMessage(nil),
		"c":   appender{},
		"std": struct{ X int }{7},
		"bad": func() {},
	}
	want := `{"a":[true,false,null,"s",1.0,0.5,-1,2,3,4],"bad":"json: unsupported type: func()","c":{"custom":true},"e":null,"m":{"a":{"k":[1,2]},"b":["x","y"]},"std":{"X":7},"z":1.50}`
	if got := string(wire.AppendAny(nil, v)); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

func TestAppendCompact(t *testing.T) {
	in := "{ \"a\" : [ 1 ,\n 2 ],\t\"s\": \"keep  spaces, \\\" and : here\" }\r\n"
	want := `{"a":[1,2],"s":"keep  spaces, \" and : here"}`
	if got := string(wire.AppendCompact(nil, []byte(in))); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

func TestObjectGetters(t *testing.T) {
	o, err := wire.ParseObject("thing", []byte(`{"s":"x","n":null,"i":3,"f":3.0,"frac":3.5,"b":true,"m":{"k":1.10},"arr":[1,"2"],"notarr":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	var s, ns, def string
	o.String("s", &s)
	o.NullString("n", &ns)
	o.StringOr("absent", &def, "dflt")
	var i, f, d int64
	o.Int("i", &i, true, 0)
	o.Int("f", &f, true, 0)
	o.Int("absent", &d, false, 9)
	var b bool
	o.Bool("b", &b, true)
	var m map[string]any
	o.Map("m", &m)
	arr := o.Array("arr", true)
	if err := o.Err(); err != nil {
		t.Fatal(err)
	}
	if s != "x" || ns != "" || def != "dflt" || i != 3 || f != 3 || d != 9 || !b || m["k"] != json.Number("1.10") || len(arr) != 2 {
		t.Fatalf("%q %q %q %d %d %d %v %v %d", s, ns, def, i, f, d, b, m, len(arr))
	}
	if raw, ok := o.Raw("n"); !ok || raw != nil {
		t.Fatal("Raw(null)")
	}
	if _, ok := o.Raw("absent"); ok {
		t.Fatal("Raw(absent)")
	}

	fails := map[string]func(o *wire.Object){
		"s":      func(o *wire.Object) { var x int64; o.Int("s", &x, true, 0) },
		"frac":   func(o *wire.Object) { var x int64; o.Int("frac", &x, true, 0) },
		"n":      func(o *wire.Object) { var x string; o.String("n", &x) },
		"i":      func(o *wire.Object) { var x string; o.NullString("i", &x) },
		"absent": func(o *wire.Object) { var x string; o.RequiredNullString("absent", &x) },
		"b":      func(o *wire.Object) { var x map[string]any; o.Map("b", &x) },
		"notarr": func(o *wire.Object) { o.Array("notarr", true) },
		"m":      func(o *wire.Object) { var x bool; o.Bool("m", &x, true) },
	}
	for field, get := range fails {
		o, _ := wire.ParseObject("thing", []byte(`{"s":"x","n":null,"i":3,"frac":3.5,"b":true,"m":{},"notarr":{}}`))
		get(o)
		var fe *wire.FieldError
		if err := o.Err(); !errors.As(err, &fe) || fe.Field != field || fe.Type != "thing" || !errors.Is(err, wire.ErrField) {
			t.Errorf("%s: got %v", field, err)
		}
	}
	// The first error wins.
	o, _ = wire.ParseObject("thing", []byte(`{}`))
	var x string
	o.String("first", &x)
	o.String("second", &x)
	if fe := new(wire.FieldError); !errors.As(o.Err(), &fe) || fe.Field != "first" {
		t.Fatal(o.Err())
	}
	for _, bad := range []string{`null`, `[]`, `"s"`, `{`, ``} {
		if _, err := wire.ParseObject("thing", []byte(bad)); err == nil {
			t.Errorf("ParseObject(%q) accepted", bad)
		}
	}
}

func TestDecodeHelpers(t *testing.T) {
	m, err := wire.DecodeMap([]byte(`{"a":1e3,"b":[2]}`))
	if err != nil || m["a"] != json.Number("1e3") {
		t.Fatal(m, err)
	}
	if _, err := wire.DecodeMap([]byte(`null`)); err == nil {
		t.Fatal("null map accepted")
	}
	v, err := wire.DecodeAny([]byte(`[1.0]`))
	if err != nil || v.([]any)[0] != json.Number("1.0") {
		t.Fatal(v, err)
	}
	if typ, err := wire.PeekType([]byte(`{"x":1,"type":"T"}`)); err != nil || typ != "T" {
		t.Fatal(typ, err)
	}
	for _, bad := range []string{`{}`, `{"type":1}`, `[]`} {
		if _, err := wire.PeekType([]byte(bad)); err == nil {
			t.Errorf("PeekType(%s) accepted", bad)
		}
	}
}
