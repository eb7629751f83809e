package pyjson

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"testing"
)

// testdata/python_cases.txt was produced by testdata/gen_python_cases.py
// with CPython 3.11's json module: one JSON document per line.
func loadCases(t *testing.T) [][]json.RawMessage {
	t.Helper()
	f, err := os.Open("testdata/python_cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line []json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		out = append(out, line)
	}
	return out
}

func TestParseMatchesPython(t *testing.T) {
	for _, raw := range loadCases(t)[0] {
		var c []*string
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		in := *c[0]
		v, err := Parse(in)
		switch {
		case c[1] != nil:
			if err == nil || err.Error() != *c[1] {
				t.Errorf("Parse(%q) error = %v, want %q", in, err, *c[1])
			}
		case err != nil:
			t.Errorf("Parse(%q) failed: %v", in, err)
		case Repr(v) != *c[2]:
			t.Errorf("Repr(Parse(%q)) = %s, want %s", in, Repr(v), *c[2])
		}
	}
}

func TestStrReprMatchesPython(t *testing.T) {
	for _, raw := range loadCases(t)[1] {
		var c [2]string
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		if got := StrRepr(c[0]); got != c[1] {
			t.Errorf("StrRepr(%q) = %s, want %s", c[0], got, c[1])
		}
	}
}

func TestFloatReprMatchesPython(t *testing.T) {
	for _, raw := range loadCases(t)[2] {
		var c [2]json.RawMessage
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		var want string
		_ = json.Unmarshal(c[0], &want)
		f, err := strconv.ParseFloat(string(c[1]), 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := FloatRepr(f); got != want {
			t.Errorf("FloatRepr(%v) = %s, want %s", f, got, want)
		}
	}
}

func TestReprAndDumpsMatchPython(t *testing.T) {
	for _, raw := range loadCases(t)[3] {
		var c [4]string
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		v, err := Parse(c[0])
		if err != nil {
			t.Fatal(err)
		}
		if got := Repr(v); got != c[1] {
			t.Errorf("Repr = %s, want %s", got, c[1])
		}
		if got := Dumps(v, DumpOptions{}); got != c[2] {
			t.Errorf("Dumps = %s, want %s", got, c[2])
		}
		if got := Dumps(v, DumpOptions{EnsureASCII: true, SortKeys: true}); got != c[3] {
			t.Errorf("Dumps(ascii, sorted) = %s, want %s", got, c[3])
		}
	}
}

func TestRepair(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"a": 1`, `{"a":1}`},
		{`{"a": 1,}`, `{"a":1}`},
		{`{a: 1, 'b': 'x'}`, `{"a":1,"b":"x"}`},
		{`{"a": [1, 2`, `{"a":[1,2]}`},
		{`{"a": "unterminated`, `{"a":"unterminated"}`},
		{`{"a": 1, "b"`, `{"a":1}`},
		{`{"a": 1, "b":`, `{"a":1}`},
		{`{"a": True, "b": None}`, `{"a":true,"b":null}`},
		{"```json\n{\"a\": 1}\n```", `{"a":1}`},
		{`{"a": 1 "b": 2}`, `{"a":1,"b":2}`},
		{`{"a": 1 // note` + "\n}", `{"a":1}`},
		{`{"s": "line` + "\n" + `break"}`, `{"s":"line\nbreak"}`},
		{`{"n": -01}`, `{"n":-1}`},
		{`{"u": "\u00e9\ud83d\ude00"}`, `{"u":"é😀"}`},
		{`[1, 2`, `[1,2]`},
	}
	for _, c := range cases {
		v, ok := Repair(c.in)
		if !ok {
			t.Errorf("Repair(%q) failed", c.in)
			continue
		}
		if got := string(AppendJSON(nil, v)); got != c.want {
			t.Errorf("Repair(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	for _, in := range []string{"", "hello", "42", `"str"`} {
		if _, ok := Repair(in); ok {
			t.Errorf("Repair(%q) succeeded, want failure", in)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a": [1, {"b": "\u00e9"}]}`, `[`, `"\ud800"`, `{"a":1}x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			return
		}
		// Whatever Python's decoder accepts, encoding/json must accept
		// once re-encoded (NaN/Infinity become null).
		var x any
		if err := json.Unmarshal(AppendJSON(nil, v), &x); err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", s, err)
		}
		_, _ = Repair(s)
	})
}

func FuzzRepair(f *testing.F) {
	f.Add(`{"a": [1, 'x', {b: True`)
	f.Fuzz(func(t *testing.T, s string) {
		if v, ok := Repair(s); ok {
			var x any
			if err := json.Unmarshal(AppendJSON(nil, v), &x); err != nil {
				t.Fatalf("repaired %q does not encode: %v", s, err)
			}
		}
	})
}

// Duplicate keys keep the first position and the last value (a Python
// dict), also past the size where the parser switches to an index.
func TestParseDuplicateKeys(t *testing.T) {
	var b []byte
	b = append(b, '{')
	for i := range 20 {
		b = append(b, `"k`+strconv.Itoa(i)+`": `+strconv.Itoa(i)+`, `...)
	}
	b = append(b, `"k3": "x", "k19": null, "k0": true}`...)
	v, err := Parse(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Keys) != 20 || v.Keys[3] != "k3" || Repr(v.Items[3]) != "'x'" || Repr(v.Items[19]) != "None" || Repr(v.Items[0]) != "True" {
		t.Fatalf("%s", Repr(v))
	}
	small, _ := Parse(`{"a": 1, "b": 2, "a": 3}`)
	if Repr(small) != "{'a': 3, 'b': 2}" {
		t.Fatal(Repr(small))
	}
}

func TestStrSetRepr(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, "set()"},
		{[]string{"b", "it's", "a", "b"}, `{'a', 'b', "it's"}`},
		{[]string{`x"y`}, `{'x"y'}`},
	} {
		if got := StrSetRepr(c.in); got != c.want {
			t.Errorf("StrSetRepr(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}
