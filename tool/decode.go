package tool

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// decoder turns an argument object into a Go value. Plain data types
// (structs of strings, numbers, bools, slices, maps, pointers, any) are
// assigned directly by reflection with encoding/json's rules; anything with
// custom decoding (json.Unmarshaler, encoding.TextUnmarshaler, []byte,
// time.Time …) goes through a JSON round trip so its own logic applies.
type decoder struct {
	direct bool
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func newDecoder(t reflect.Type) decoder {
	return decoder{direct: plain(t, map[reflect.Type]bool{})}
}

// plain reports whether values of t can be assigned directly.
func plain(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return true
	}
	seen[t] = true
	if t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler) ||
		t.Implements(textUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return false
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	case reflect.Interface:
		return t.NumMethod() == 0
	case reflect.Pointer:
		return plain(t.Elem(), seen)
	case reflect.Slice:
		return t.Elem().Kind() != reflect.Uint8 && plain(t.Elem(), seen)
	case reflect.Array:
		return plain(t.Elem(), seen)
	case reflect.Map:
		return t.Key().Kind() == reflect.String && plain(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous || (f.IsExported() && f.Tag.Get("json") != "-" && !plain(f.Type, seen)) {
				return false // embedded fields follow json's promotion rules: leave them to it
			}
			if strings.Contains(f.Tag.Get("json"), ",string") {
				return false
			}
		}
		return true
	}
	return false
}

func (d decoder) decode(input map[string]any, dst any) error {
	if !d.direct {
		data, err := json.Marshal(input)
		if err != nil {
			return fmt.Errorf("invalid arguments: %w", err)
		}
		if err := json.Unmarshal(data, dst); err != nil {
			return fmt.Errorf("invalid arguments: %w", err)
		}
		return nil
	}
	if err := assign(reflect.ValueOf(dst).Elem(), input); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	return nil
}

type fieldInfo struct {
	name  string
	index int
}

var structCache sync.Map // reflect.Type → []fieldInfo

func fieldsOf(t reflect.Type) []fieldInfo {
	if v, ok := structCache.Load(t); ok {
		return v.([]fieldInfo)
	}
	var out []fieldInfo
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out = append(out, fieldInfo{name: name, index: i})
	}
	structCache.Store(t, out)
	return out
}

// decodeError is a value that does not fit its Go type; Path is built
// while unwinding, so successful decodes pay nothing for it.
type decodeError struct {
	path string
	typ  reflect.Type
	got  any
}

func (e *decodeError) Error() string {
	p := e.path
	if p == "" {
		p = "input"
	}
	return fmt.Sprintf("cannot use %s as %s for %s", describe(e.got), e.typ, p)
}

func describe(x any) string {
	switch x.(type) {
	case float64:
		return fmt.Sprint(x)
	case string:
		return "string"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", x)
}

//go:noinline
func mismatch(v reflect.Value, x any) error { return &decodeError{typ: v.Type(), got: x} }

//go:noinline
func under(err error, elem string) error {
	if de, ok := err.(*decodeError); ok {
		if de.path == "" || strings.HasPrefix(de.path, "[") {
			de.path = elem + de.path
		} else {
			de.path = elem + "." + de.path
		}
	}
	return err
}

// assign stores x (a decoded JSON value) into v, as json.Unmarshal would.
// Each kind has its own small function to keep frames small: this runs on
// a fresh goroutine stack.
func assign(v reflect.Value, x any) error {
	if x == nil {
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice:
			v.SetZero()
		}
		return nil // json leaves other kinds unchanged on null
	}
	switch v.Kind() {
	case reflect.Interface:
		v.Set(reflect.ValueOf(x))
		return nil
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return assign(v.Elem(), x)
	case reflect.Slice, reflect.Array:
		return assignList(v, x)
	case reflect.Map:
		return assignMap(v, x)
	case reflect.Struct:
		return assignStruct(v, x)
	}
	return assignScalar(v, x)
}

func assignScalar(v reflect.Value, x any) error {
	switch v.Kind() {
	case reflect.String:
		if s, ok := x.(string); ok {
			v.SetString(s)
			return nil
		}
	case reflect.Bool:
		if b, ok := x.(bool); ok {
			v.SetBool(b)
			return nil
		}
	case reflect.Float32, reflect.Float64:
		if f, ok := x.(float64); ok && !v.OverflowFloat(f) {
			v.SetFloat(f)
			return nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if lit, ok := intLiteral(x); ok {
			if n, err := strconv.ParseInt(lit, 10, 64); err == nil && !v.OverflowInt(n) {
				v.SetInt(n)
				return nil
			}
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if lit, ok := intLiteral(x); ok {
			if n, err := strconv.ParseUint(lit, 10, 64); err == nil && !v.OverflowUint(n) {
				v.SetUint(n)
				return nil
			}
		}
	}
	return mismatch(v, x)
}

// intLiteral is the decimal text encoding/json writes for an integral
// float64 (and reads back into an integer field); beyond 1e21 it writes an
// exponent, which no integer field accepts.
func intLiteral(x any) (string, bool) {
	f, ok := x.(float64)
	if !ok || f != math.Trunc(f) || math.Abs(f) >= 1e21 {
		return "", false
	}
	if math.Abs(f) < 1<<53 && !math.Signbit(f) || f <= -1 && f > -(1<<53) {
		return strconv.FormatInt(int64(f), 10), true
	}
	return strconv.FormatFloat(f, 'f', -1, 64), true
}

func assignList(v reflect.Value, x any) error {
	xs, ok := x.([]any)
	if !ok {
		return mismatch(v, x)
	}
	if v.Kind() == reflect.Slice {
		v.Set(reflect.MakeSlice(v.Type(), len(xs), len(xs)))
	}
	for i := range v.Len() {
		if i >= len(xs) {
			v.Index(i).SetZero()
			continue
		}
		if err := assign(v.Index(i), xs[i]); err != nil {
			return under(err, "["+strconv.Itoa(i)+"]")
		}
	}
	return nil
}

func assignMap(v reflect.Value, x any) error {
	m, ok := x.(map[string]any)
	if !ok {
		return mismatch(v, x)
	}
	if v.IsNil() {
		v.Set(reflect.MakeMapWithSize(v.Type(), len(m)))
	}
	kt, et := v.Type().Key(), v.Type().Elem()
	for k, e := range m {
		ev := reflect.New(et).Elem()
		if err := assign(ev, e); err != nil {
			return under(err, k)
		}
		v.SetMapIndex(reflect.ValueOf(k).Convert(kt), ev)
	}
	return nil
}

func assignStruct(v reflect.Value, x any) error {
	m, ok := x.(map[string]any)
	if !ok {
		return mismatch(v, x)
	}
	for _, f := range fieldsOf(v.Type()) {
		e, ok := lookup(m, f.name)
		if !ok {
			continue
		}
		if err := assign(v.Field(f.index), e); err != nil {
			return under(err, f.name)
		}
	}
	return nil
}

// lookup finds a field's member: the exact name, else a case-insensitive
// match (encoding/json's rule; among several, the one it would decode
// last, i.e. the greatest name).
func lookup(m map[string]any, name string) (any, bool) {
	if e, ok := m[name]; ok {
		return e, true
	}
	best, found := "", false
	for k := range m {
		if strings.EqualFold(k, name) && (!found || k > best) {
			best, found = k, true
		}
	}
	return m[best], found
}
