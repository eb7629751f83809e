package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// ErrField is wrapped by every FieldError.
var ErrField = errors.New("invalid field")

// FieldError reports a missing or malformed field while decoding Type.
type FieldError struct {
	Type  string // the object being decoded, e.g. "TEXT_BLOCK_DELTA" or "text block"
	Field string
	Msg   string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s: field %q: %s", e.Type, e.Field, e.Msg)
}

func (e *FieldError) Unwrap() error { return ErrField }

// Object is a decoded JSON object whose values are still raw.
type Object struct {
	Type   string
	Fields map[string]json.RawMessage
	err    error
}

// ParseObject decodes data as one JSON object.
func ParseObject(typ string, data []byte) (*Object, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, fmt.Errorf("%s: %w", typ, err)
	}
	if fields == nil {
		return nil, &FieldError{Type: typ, Msg: "expected an object, got null"}
	}
	return &Object{Type: typ, Fields: fields}, nil
}

// Err returns the first error any getter recorded.
func (o *Object) Err() error { return o.err }

func (o *Object) fail(field, format string, args ...any) {
	if o.err == nil {
		o.err = &FieldError{Type: o.Type, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
}

// Fail records an error for field unless one is recorded already.
func (o *Object) Fail(field, format string, args ...any) { o.fail(field, format, args...) }

// Raw returns the raw value of name; absent reports false, and a JSON null
// reports present with a nil slice.
func (o *Object) Raw(name string) (json.RawMessage, bool) {
	v, ok := o.Fields[name]
	if ok && isNull(v) {
		return nil, true
	}
	return v, ok
}

func isNull(v []byte) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

// String reads a required, non-null string.
func (o *Object) String(name string, p *string) {
	v, ok := o.Fields[name]
	if !ok {
		o.fail(name, "required")
		return
	}
	if err := json.Unmarshal(v, p); err != nil || isNull(v) {
		o.fail(name, "expected a string")
	}
}

// StringOr reads an optional string; absent leaves *p as def.
func (o *Object) StringOr(name string, p *string, def string) {
	v, ok := o.Fields[name]
	if !ok {
		*p = def
		return
	}
	if err := json.Unmarshal(v, p); err != nil || isNull(v) {
		o.fail(name, "expected a string")
	}
}

// NullString reads an optional, nullable string; null and absent become "".
func (o *Object) NullString(name string, p *string) {
	v, ok := o.Fields[name]
	if !ok || isNull(v) {
		*p = ""
		return
	}
	if err := json.Unmarshal(v, p); err != nil {
		o.fail(name, "expected a string or null")
	}
}

// RequiredNullString reads a key that must be present but may be null.
func (o *Object) RequiredNullString(name string, p *string) {
	if _, ok := o.Fields[name]; !ok {
		o.fail(name, "required")
		return
	}
	o.NullString(name, p)
}

// Int reads an integer; absent leaves def unless required.
func (o *Object) Int(name string, p *int64, required bool, def int64) {
	v, ok := o.Fields[name]
	if !ok {
		if required {
			o.fail(name, "required")
		}
		*p = def
		return
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
	if err != nil {
		// Python accepts integral floats such as 3.0 for int fields.
		var f float64
		if json.Unmarshal(v, &f) != nil || f != float64(int64(f)) {
			o.fail(name, "expected an integer")
			return
		}
		n = int64(f)
	}
	*p = n
}

// Bool reads a boolean.
func (o *Object) Bool(name string, p *bool, required bool) {
	v, ok := o.Fields[name]
	if !ok {
		if required {
			o.fail(name, "required")
		}
		return
	}
	if err := json.Unmarshal(v, p); err != nil || isNull(v) {
		o.fail(name, "expected a boolean")
	}
}

// Map reads an optional object (absent or null → nil). Numbers keep their
// literal text as json.Number so integers and floats round-trip.
func (o *Object) Map(name string, p *map[string]any) {
	v, ok := o.Fields[name]
	if !ok || isNull(v) {
		*p = nil
		return
	}
	m, err := DecodeMap(v)
	if err != nil {
		o.fail(name, "expected an object")
		return
	}
	*p = m
}

// DecodeMap decodes an object with json.Number numbers.
func DecodeMap(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("expected an object")
	}
	return m, nil
}

// DecodeAny decodes any JSON value with json.Number numbers.
func DecodeAny(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// Array splits a JSON array into its raw elements; null or absent → nil.
func (o *Object) Array(name string, required bool) []json.RawMessage {
	v, ok := o.Fields[name]
	if !ok {
		if required {
			o.fail(name, "required")
		}
		return nil
	}
	if isNull(v) {
		if required {
			o.fail(name, "must not be null")
		}
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		o.fail(name, "expected an array")
		return nil
	}
	return items
}

// PeekType returns the "type" member of a JSON object without decoding the
// rest of it into Go values.
func PeekType(data []byte) (string, error) {
	var t struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return "", err
	}
	if t.Type == nil {
		return "", errors.New(`missing "type"`)
	}
	return *t.Type, nil
}
