package ojson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agentscope-go/agentscope/internal/wire"
)

// ErrTrailingData reports input that holds more than one JSON value.
var ErrTrailingData = errors.New("ojson: unexpected data after the JSON value")

// Object is a JSON object that remembers its key order. Keys lists every key
// of Vals once, in order; use Set and Delete to keep the two in step.
type Object struct {
	Keys []string
	Vals map[string]any
}

// New builds an object from key/value pairs (key1, value1, key2, …); a
// repeated key keeps its first position and its last value.
func New(kv ...any) *Object {
	o := &Object{Vals: make(map[string]any, len(kv)/2)}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Get returns the value of key.
func (o *Object) Get(key string) (any, bool) {
	v, ok := o.Vals[key]
	return v, ok
}

// Set adds key at the end or replaces its value in place.
func (o *Object) Set(key string, v any) {
	if o.Vals == nil {
		o.Vals = map[string]any{}
	}
	if _, ok := o.Vals[key]; !ok {
		o.Keys = append(o.Keys, key)
	}
	o.Vals[key] = v
}

// Delete removes key; the other keys keep their order.
func (o *Object) Delete(key string) {
	if _, ok := o.Vals[key]; !ok {
		return
	}
	delete(o.Vals, key)
	for i, k := range o.Keys {
		if k == key {
			o.Keys = append(o.Keys[:i], o.Keys[i+1:]...)
			break
		}
	}
}

// Clone returns a shallow copy: the keys and the mapping are new, nested
// values are shared.
func (o *Object) Clone() *Object {
	c := &Object{Keys: append([]string(nil), o.Keys...), Vals: make(map[string]any, len(o.Vals))}
	for k, v := range o.Vals {
		c.Vals[k] = v
	}
	return c
}

// Parse decodes one JSON value into nil, bool, json.Number, string, []any
// and *Object values. Anything but whitespace after the value is
// ErrTrailingData.
func Parse(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, ErrTrailingData
	}
	return v, nil
}

func decode(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch d {
	case '{':
		o := &Object{Vals: map[string]any{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, ok := kt.(string)
			if !ok {
				return nil, fmt.Errorf("ojson: expected an object key, got %v", kt)
			}
			v, err := decode(dec)
			if err != nil {
				return nil, err
			}
			o.Set(k, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return o, nil
	case '[':
		arr := []any{}
		for dec.More() {
			v, err := decode(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return arr, nil
	}
	return nil, fmt.Errorf("ojson: unexpected delimiter %v", d)
}

// Append appends v as compact JSON: objects in key order, json.Number
// literals verbatim, everything else as wire.AppendAny writes it.
func Append(dst []byte, v any) []byte {
	switch v := v.(type) {
	case *Object:
		if v == nil {
			return append(dst, "null"...)
		}
		dst = append(dst, '{')
		for i, k := range v.Keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = wire.AppendString(dst, k)
			dst = append(dst, ':')
			dst = Append(dst, v.Vals[k])
		}
		return append(dst, '}')
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = Append(dst, e)
		}
		return append(dst, ']')
	}
	return wire.AppendAny(dst, v)
}

// CloneMap deep-copies a decoded JSON object (nested maps, slices and
// ordered objects included), so the copy shares nothing mutable with m; a
// nil map stays nil.
func CloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = Clone(v)
	}
	return out
}

// Clone deep-copies a decoded JSON value: map[string]any, []any and
// *Object are copied through, scalars are returned as they are.
func Clone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return CloneMap(v)
	case []any:
		if v == nil {
			return v
		}
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = Clone(e)
		}
		return out
	case *Object:
		if v == nil {
			return v
		}
		c := &Object{Keys: append([]string(nil), v.Keys...), Vals: CloneMap(v.Vals)}
		if c.Vals == nil {
			c.Vals = map[string]any{}
		}
		return c
	}
	return v
}
