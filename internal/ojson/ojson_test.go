package ojson

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestParseAppendKeepsOrderAndNumbers(t *testing.T) {
	in := `{"z": 1, "a": [1.50, 1e-05, 1E16, -0, 12345678901234567890], "m": {"y": true, "b": null, "x": "é\"\n"}}`
	v, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"z":1,"a":[1.50,1e-05,1E16,-0,12345678901234567890],"m":{"y":true,"b":null,"x":"é\"\n"}}`
	if got := string(Append(nil, v)); got != want {
		t.Fatalf("round trip:\n got %s\nwant %s", got, want)
	}
	o := v.(*Object)
	if n, _ := o.Get("z"); n != json.Number("1") {
		t.Fatalf("z = %#v, want json.Number(\"1\")", n)
	}
}

func TestParseNesting(t *testing.T) {
	v, err := Parse([]byte(`[{"a": [{"b": {}}]}, [], [[]], "s"]`))
	if err != nil {
		t.Fatal(err)
	}
	arr := v.([]any)
	if len(arr) != 4 {
		t.Fatalf("len = %d", len(arr))
	}
	a, _ := arr[0].(*Object).Get("a")
	b, ok := a.([]any)[0].(*Object).Get("b")
	if !ok || len(b.(*Object).Keys) != 0 {
		t.Fatalf("b = %#v", b)
	}
	if e := arr[1].([]any); e == nil || len(e) != 0 {
		t.Fatalf("empty array decoded as %#v, want non-nil []any{}", e)
	}
	if got := string(Append(nil, v)); got != `[{"a":[{"b":{}}]},[],[[]],"s"]` {
		t.Fatalf("append: %s", got)
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{`{"a":1} {}`, `1 2`, `[] x`} {
		if _, err := Parse([]byte(in)); !errors.Is(err, ErrTrailingData) {
			t.Errorf("Parse(%q) err = %v, want ErrTrailingData", in, err)
		}
	}
	for _, in := range []string{``, `{`, `{"a":}`, `[1,]`, `{"a" 1}`, `nul`} {
		if v, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) = %#v, want an error", in, v)
		}
	}
	if _, err := Parse([]byte("  {\"a\": 1}\n\t ")); err != nil {
		t.Errorf("surrounding whitespace: %v", err)
	}
}

func TestDuplicateKeyKeepsFirstPositionLastValue(t *testing.T) {
	v, err := Parse([]byte(`{"a":1,"b":2,"a":3}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(Append(nil, v)); got != `{"a":3,"b":2}` {
		t.Fatalf("got %s", got)
	}
}

func TestObjectEdits(t *testing.T) {
	o := New("c", 1, "a", "x", "b", nil)
	o.Set("a", "y") // replaced in place
	o.Set("d", true)
	o.Delete("c")
	o.Delete("missing")
	if got := string(Append(nil, o)); got != `{"a":"y","b":null,"d":true}` {
		t.Fatalf("after edits: %s", got)
	}
	if _, ok := o.Get("c"); ok {
		t.Fatal("deleted key still readable")
	}

	c := o.Clone()
	c.Set("e", 5)
	c.Delete("a")
	if got := string(Append(nil, o)); got != `{"a":"y","b":null,"d":true}` {
		t.Fatalf("clone edits leaked into the original: %s", got)
	}
	if got := string(Append(nil, c)); got != `{"b":null,"d":true,"e":5}` {
		t.Fatalf("clone: %s", got)
	}

	var zero Object
	zero.Set("k", "v")
	if got := string(Append(nil, &zero)); got != `{"k":"v"}` {
		t.Fatalf("zero value: %s", got)
	}
	var nilObj *Object
	if got := string(Append(nil, []any{nilObj})); got != `[null]` {
		t.Fatalf("nil object: %s", got)
	}
}

func TestCloneSharesNothingMutable(t *testing.T) {
	inner := New("k", []any{1})
	orig := map[string]any{"m": map[string]any{"a": []any{"x", map[string]any{"b": 1}}}, "o": inner, "s": "v", "nil": []any(nil)}
	c := CloneMap(orig)
	c["m"].(map[string]any)["a"].([]any)[1].(map[string]any)["b"] = 2
	c["m"].(map[string]any)["new"] = true
	c["o"].(*Object).Set("k2", 3)
	c["o"].(*Object).Vals["k"].([]any)[0] = 9
	c["s"] = "changed"
	// Append writes a map through wire, which knows no *Object: check it apart.
	o, co := orig["o"], c["o"]
	delete(orig, "o")
	delete(c, "o")
	if got := string(Append(nil, orig)) + string(Append(nil, o)); got != `{"m":{"a":["x",{"b":1}]},"nil":[],"s":"v"}{"k":[1]}` {
		t.Fatalf("the original changed through its clone: %s", got)
	}
	if got := string(Append(nil, c)) + string(Append(nil, co)); got != `{"m":{"a":["x",{"b":2}],"new":true},"nil":[],"s":"changed"}{"k":[9],"k2":3}` {
		t.Fatalf("clone: %s", got)
	}
	if CloneMap(nil) != nil || Clone(nil) != nil || Clone((*Object)(nil)).(*Object) != nil {
		t.Fatal("nil must stay nil")
	}
	if v := Clone([]any(nil)).([]any); v != nil {
		t.Fatalf("nil slice cloned as %#v", v)
	}
}
