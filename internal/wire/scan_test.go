package wire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/internal/wire"
)

// oracle reads one member the way the encoding/json implementation this
// scanner replaced did (map[string]json.RawMessage, then json.Unmarshal
// per getter); the differential tests hold Object to it.
type oracle map[string]json.RawMessage

func isNullRaw(v []byte) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

func (f oracle) read(name string) (results []string) {
	v, ok := f[name]
	add := func(format string, args ...any) { results = append(results, fmt.Sprintf(format, args...)) }
	// String / StringOr
	var s string
	switch {
	case !ok:
		add("string: required")
	case json.Unmarshal(v, &s) != nil || isNullRaw(v):
		add("string: expected a string")
	default:
		add("string: %q", s)
	}
	// NullString
	s = ""
	switch {
	case !ok || isNullRaw(v):
		add("nullstring: %q", "")
	case json.Unmarshal(v, &s) != nil:
		add("nullstring: expected a string or null")
	default:
		add("nullstring: %q", s)
	}
	// Int
	if !ok {
		add("int: required")
	} else if n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64); err == nil {
		add("int: %d", n)
	} else {
		var fl float64
		if json.Unmarshal(v, &fl) != nil || fl != float64(int64(fl)) {
			add("int: expected an integer")
		} else {
			add("int: %d", int64(fl))
		}
	}
	// Bool
	var b bool
	switch {
	case !ok:
		add("bool: required")
	case json.Unmarshal(v, &b) != nil || isNullRaw(v):
		add("bool: expected a boolean")
	default:
		add("bool: %v", b)
	}
	// Map
	switch {
	case !ok || isNullRaw(v):
		add("map: <nil>")
	default:
		if m, err := wire.DecodeMap(v); err != nil {
			add("map: expected an object")
		} else {
			add("map: %#v", m)
		}
	}
	// Array
	switch {
	case !ok:
		add("array: required")
	case isNullRaw(v):
		add("array: must not be null")
	default:
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			add("array: expected an array")
		} else {
			add("array: %q", items)
		}
	}
	return results
}

// readObject reads name through Object's getters, in the oracle's format.
func readObject(o *wire.Object, name string) (results []string) {
	add := func(format string, args ...any) { results = append(results, fmt.Sprintf(format, args...)) }
	msg := func(err error) string {
		fe, _ := err.(*wire.FieldError)
		return fe.Msg
	}
	fresh := func() *wire.Object {
		// Each getter reads a fresh copy so earlier errors do not mask later ones.
		c := *o
		return &c
	}
	var s string
	c := fresh()
	if c.String(name, &s); c.Err() != nil {
		add("string: %s", msg(c.Err()))
	} else {
		add("string: %q", s)
	}
	s = ""
	c = fresh()
	if c.NullString(name, &s); c.Err() != nil {
		add("nullstring: %s", msg(c.Err()))
	} else {
		add("nullstring: %q", s)
	}
	var n int64
	c = fresh()
	if c.Int(name, &n, true, 0); c.Err() != nil {
		add("int: %s", msg(c.Err()))
	} else {
		add("int: %d", n)
	}
	var b bool
	c = fresh()
	if c.Bool(name, &b, true); c.Err() != nil {
		add("bool: %s", msg(c.Err()))
	} else {
		add("bool: %v", b)
	}
	var m map[string]any
	c = fresh()
	if c.Map(name, &m); c.Err() != nil {
		add("map: %s", msg(c.Err()))
	} else if m == nil {
		add("map: <nil>")
	} else {
		add("map: %#v", m)
	}
	c = fresh()
	items := c.Array(name, true)
	if c.Err() != nil {
		add("array: %s", msg(c.Err()))
	} else {
		add("array: %q", items)
	}
	return results
}

// checkAgainstOracle holds ParseObject and every getter to encoding/json.
func checkAgainstOracle(t *testing.T, data []byte) {
	t.Helper()
	if got, want := wire.Valid(data), json.Valid(data); got != want {
		t.Fatalf("Valid(%q) = %v, json.Valid = %v", data, got, want)
	}
	var head struct {
		Type *string `json:"type"`
	}
	wantT, wantErr := "", json.Unmarshal(data, &head)
	if wantErr == nil && head.Type == nil {
		wantErr = errors.New(`missing "type"`)
	} else if wantErr == nil {
		wantT = *head.Type
	}
	if gotT, gotErr := wire.PeekType(data); gotT != wantT || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("PeekType(%q) = %q, %v; encoding/json gives %q, %v", data, gotT, gotErr, wantT, wantErr)
	}
	var str string
	strErr := json.Unmarshal(data, &str)
	if got, ok := wire.DecodeString(data); ok != (strErr == nil && !isNullRaw(data)) || ok && got != str {
		t.Fatalf("DecodeString(%q) = %q, %v; encoding/json gives %q, %v", data, got, ok, str, strErr)
	}
	var items []json.RawMessage
	itemsErr := json.Unmarshal(data, &items)
	if got, ok := wire.SplitArray(data); ok != (itemsErr == nil && items != nil) || ok && fmt.Sprintf("%q", got) != fmt.Sprintf("%q", items) {
		t.Fatalf("SplitArray(%q) = %q, %v; encoding/json gives %q, %v", data, got, ok, items, itemsErr)
	}
	var f map[string]json.RawMessage
	stdErr := json.Unmarshal(data, &f)
	if got, err := wire.Members(data); fmt.Sprint(err) != fmt.Sprint(stdErr) || fmt.Sprintf("%q", got) != fmt.Sprintf("%q", f) {
		t.Fatalf("Members(%q) = %q, %v; encoding/json gives %q, %v", data, got, err, f, stdErr)
	}
	o, err := wire.ParseObject("x", data)
	switch {
	case stdErr != nil || f == nil:
		if err == nil {
			t.Fatalf("ParseObject(%q) accepted what encoding/json rejects (%v)", data, stdErr)
		}
		if stdErr != nil && !strings.Contains(err.Error(), stdErr.Error()) {
			t.Fatalf("ParseObject(%q) error %q, want encoding/json's %q", data, err, stdErr)
		}
		return
	case err != nil:
		t.Fatalf("ParseObject(%q): %v; encoding/json accepts it", data, err)
	}
	names := []string{"a", "type", "missing"}
	for k := range f {
		names = append(names, k)
	}
	keys := o.Keys()
	for _, k := range keys {
		if _, ok := f[k]; !ok {
			t.Fatalf("Keys() of %q has %q, encoding/json has not", data, k)
		}
	}
	if len(f) > 0 && len(keys) < len(f) {
		t.Fatalf("Keys() of %q = %q, fewer than encoding/json's %d", data, keys, len(f))
	}
	for _, name := range names {
		v, ok := f[name]
		if got, gotOK := o.Value(name); gotOK != ok || !bytes.Equal(got, v) {
			t.Fatalf("Value(%q) of %q = %q %v, want %q %v", name, data, got, gotOK, v, ok)
		}
		if want, got := oracle(f).read(name), readObject(o, name); !reflect.DeepEqual(got, want) {
			t.Fatalf("member %q of %q:\n got %q\nwant %q", name, data, got, want)
		}
	}
}

var oracleSeeds = []string{
	`{}`, ` { } `, `null`, `[]`, `"s"`, `1`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{"a":}`, `{"a":1}x`,
	`{"a":"x","a":"y"}`, `{"\u0061":"esc key","a":"plain"}`, `{"a":"\ud83d\ude00 \ud800 \udc00x \ud800\u0041"}`,
	"{\"a\":\"bad \xff utf8 \xc3\"}", "{\"a\":\"ctl \x01\"}", `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"é中"}`,
	`{"a":3.0}`, `{"a":3.5}`, `{"a":-0}`, `{"a":1e2}`, `{"a":1e400}`, `{"a":9223372036854775808}`, `{"a":01}`,
	`{"a":-}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":+1}`, `{"a":null}`, `{"a":true}`, `{"a":false}`,
	`{"a":tru}`, `{"a":nul}`, `{"a":{"b":[1,2.50,"x",{"c":null}],"d":{}}}`, `{"a":[ 1 , "two" ,[] ]}`,
	`{"a":[1,]}`, `{"a":[,1]}`, `{"a":{"b":1,}}`, "{\"a\" :\t\"x\"\n,\r\"type\":\"T\"}", `{"type":5}`,
	`{"a":"` + strings.Repeat("0123456789abcdef", 20) + `"}`, `{"a":"` + strings.Repeat("é", 40) + `\n"}`,
	strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
	strings.Repeat(`[`, 9999) + strings.Repeat("]", 9999),
	`{"a":` + strings.Repeat(`[`, 9999) + strings.Repeat("]", 9999) + `}`,
	` "str\u00e9" `, `["a", 1 ,[]]`, `[]`, ` [ ] `, `[1,]`, `"\ud800"`,
	`{"type":"text","TYPE":"data"}`, `{"Type":"x"}`, `{"type":null}`, `{"type":1}`, `{"\u0074ype":"esc"}`, `{"type":"a","type":"b"}`,
	`{"a":` + strings.Repeat(`[`, 10000) + strings.Repeat("]", 10000) + `}`,
}

// TestObjectMatchesEncodingJSON: the scanner accepts exactly what
// encoding/json accepts and every getter reads the same values and errors.
func TestObjectMatchesEncodingJSON(t *testing.T) {
	for _, s := range oracleSeeds {
		checkAgainstOracle(t, []byte(s))
	}
}

func FuzzObject(f *testing.F) {
	for _, s := range oracleSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkAgainstOracle)
}
