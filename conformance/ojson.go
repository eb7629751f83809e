package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Object is a JSON object that remembers its key order (the traversal
// order decides how ids are numbered).
type Object struct {
	Keys []string
	Vals map[string]any
}

// Get returns the value of key.
func (o *Object) Get(key string) (any, bool) {
	v, ok := o.Vals[key]
	return v, ok
}

// Set adds or replaces key, keeping the first position.
func (o *Object) Set(key string, v any) {
	if o.Vals == nil {
		o.Vals = map[string]any{}
	}
	if _, ok := o.Vals[key]; !ok {
		o.Keys = append(o.Keys, key)
	}
	o.Vals[key] = v
}

// parseOrdered decodes JSON into nil, bool, json.Number, string, []any and
// *Object values.
func parseOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &Object{Vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("expected an object key")
				}
				v, err := decodeValue(dec)
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
				v, err := decodeValue(dec)
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
		return nil, fmt.Errorf("unexpected delimiter %v", t)
	default:
		return t, nil
	}
}

// mustParse decodes JSON the engine itself produced.
func mustParse(data []byte) any {
	v, err := parseOrdered(data)
	if err != nil {
		panic(fmt.Sprintf("conformance: engine produced invalid JSON: %v: %s", err, data))
	}
	return v
}

// obj builds an ordered object from key/value pairs.
func obj(kv ...any) *Object {
	o := &Object{Vals: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// str, num, arr … read spec fields leniently.
func getStr(o *Object, key, def string) string {
	if o == nil {
		return def
	}
	if v, ok := o.Vals[key].(string); ok {
		return v
	}
	return def
}

func getBool(o *Object, key string, def bool) bool {
	if o == nil {
		return def
	}
	if v, ok := o.Vals[key].(bool); ok {
		return v
	}
	return def
}

func getObj(o *Object, key string) *Object {
	if o == nil {
		return nil
	}
	v, _ := o.Vals[key].(*Object)
	return v
}

func getArr(o *Object, key string) []any {
	if o == nil {
		return nil
	}
	v, _ := o.Vals[key].([]any)
	return v
}

func getNum(o *Object, key string) (float64, bool) {
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
func toJSON(v any) []byte {
	var b bytes.Buffer
	writeJSON(&b, v)
	return b.Bytes()
}

func writeJSON(b *bytes.Buffer, v any) {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		b.WriteString(string(t))
	case string:
		writeString(b, t)
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	case *Object:
		b.WriteByte('{')
		for i, k := range t.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			writeJSON(b, t.Vals[k])
		}
		b.WriteByte('}')
	default:
		s, _ := json.Marshal(t)
		b.Write(s)
	}
}

func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // Encode adds a newline
}
