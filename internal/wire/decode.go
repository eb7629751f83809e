package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
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

// Object is a JSON object scanned once: its members are recorded as spans of
// the input and converted only when a getter asks for them. The strings the
// getters return are written (escapes resolved) into one buffer sized for the
// whole input, so decoding an object of n strings costs one allocation
// rather than n, and what a decoded value keeps alive is its strings' bytes.
//
// An Object borrows the bytes it was parsed from until the next Parse (Raw
// returns slices of them); the strings it returns do not.
type Object struct {
	Type   string
	data   []byte
	buf    []byte // the bytes of every string handed out, made on first need
	fields []member
	inline [16]member
	escKey []string // the keys that had escapes, unescaped
	err    error
	// With no key twice (maybeDup false), find looks from where the last
	// hit was: decoders read fields in wire order, so most reads cost
	// one comparison.
	maybeDup bool
	cursor   int
}

// member is one key and the span of its value in Object.data. It holds no
// pointers, so recording and clearing members costs no write barriers.
type member struct {
	keyS, keyE int // the key's text, or when esc ≥ 0 its index in escKey
	valS, valE int
	esc        int32
	kind       byte
	flags      uint8
}

// ParseObject decodes data as one JSON object.
func ParseObject(typ string, data []byte) (*Object, error) {
	o := new(Object)
	if err := o.Parse(typ, data); err != nil {
		return nil, err
	}
	return o, nil
}

var objects = sync.Pool{New: func() any { return new(Object) }}

// Borrow is ParseObject with an Object from a pool, for a decoder that is
// done with it when it returns: it must call Release then, and keep nothing
// Raw, Value or Array returned (the strings getters return it may keep).
func Borrow(typ string, data []byte) (*Object, error) {
	o := objects.Get().(*Object)
	if err := o.Parse(typ, data); err != nil {
		o.Release()
		return nil, err
	}
	return o, nil
}

// Release returns a borrowed Object to the pool.
func (o *Object) Release() {
	o.Reset()
	objects.Put(o)
}

// Parse makes o the object data holds, for a caller that reuses one Object
// (from a pool or the stack). Invalid JSON, JSON null and other values give
// the errors json.Unmarshal into a map would.
func (o *Object) Parse(typ string, data []byte) error {
	o.Type, o.data, o.buf, o.err = typ, data, nil, nil
	if o.fields == nil {
		o.fields = o.inline[:0]
	}
	o.fields = o.fields[:0]
	o.escKey = o.escKey[:0]
	o.maybeDup, o.cursor = false, 0
	if !o.scan() {
		o.data = nil
		return parseError(typ, data)
	}
	return nil
}

// Reset drops o's references to the input it was parsed from.
func (o *Object) Reset() {
	clear(o.escKey)
	o.escKey = o.escKey[:0]
	o.Type, o.data, o.buf, o.err, o.fields = "", nil, nil, nil, o.fields[:0]
}

// parseError gives the error encoding/json gives for data that is not a
// JSON object (the scanner only says whether it is one), so that errors
// read as they always did.
func parseError(typ string, data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return fmt.Errorf("%s: %w", typ, err)
	}
	if fields == nil {
		return &FieldError{Type: typ, Msg: "expected an object, got null"}
	}
	// Unreachable while the scanner and encoding/json agree (a fuzz test
	// holds them to it); say so rather than decode what was rejected.
	return fmt.Errorf("%s: %w", typ, errScannerDisagrees)
}

var errScannerDisagrees = errors.New("internal: JSON scanner rejected an object encoding/json accepts")

// scan records the members of the top-level object and checks the rest.
func (o *Object) scan() bool {
	s := scanner{data: o.data}
	s.ws()
	if s.pos >= len(s.data) || s.data[s.pos] != '{' {
		return false
	}
	s.depth = 1
	s.pos++
	s.ws()
	var seen uint64 // a one-word Bloom filter of the keys, to rule out repeats cheaply
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
	} else {
		for {
			if s.pos >= len(s.data) || s.data[s.pos] != '"' {
				return false
			}
			m := member{esc: -1}
			m.keyS = s.pos + 1
			kf, ok := s.str()
			if !ok {
				return false
			}
			m.keyE = s.pos - 1
			if kf != 0 {
				m.esc = int32(len(o.escKey))
				o.escKey = append(o.escKey, unquote(s.data[m.keyS-1:s.pos]))
				o.maybeDup = true
			} else {
				h := uint64(1) << keyHash(s.data[m.keyS:m.keyE])
				if seen&h != 0 {
					o.maybeDup = true
				}
				seen |= h
			}
			s.ws()
			if s.pos >= len(s.data) || s.data[s.pos] != ':' {
				return false
			}
			s.pos++
			s.ws()
			m.valS = s.pos
			m.kind, m.flags, ok = s.value()
			if !ok {
				return false
			}
			m.valE = s.pos
			o.fields = append(o.fields, m)
			s.ws()
			if s.pos >= len(s.data) {
				return false
			}
			if c := s.data[s.pos]; c == ',' {
				s.pos++
				s.ws()
				continue
			} else if c != '}' {
				return false
			}
			s.pos++
			break
		}
	}
	s.ws()
	return s.pos == len(s.data)
}

// keyHash picks one of 64 bits for a key.
func keyHash(k []byte) uint {
	if len(k) == 0 {
		return 0
	}
	return (uint(len(k))*31 + uint(k[0])*7 + uint(k[len(k)-1])) & 63
}

// find returns the member named name; a repeated key's last value wins, as
// in encoding/json.
func (o *Object) find(name string) *member {
	if !o.maybeDup {
		n := len(o.fields)
		for j := 0; j < n; j++ {
			i := o.cursor + j
			if i >= n {
				i -= n
			}
			m := &o.fields[i]
			if m.keyE-m.keyS == len(name) && string(o.data[m.keyS:m.keyE]) == name {
				o.cursor = i + 1
				return m
			}
		}
		return nil
	}
	for i := len(o.fields) - 1; i >= 0; i-- {
		m := &o.fields[i]
		if m.esc >= 0 {
			if o.escKey[m.esc] == name {
				return m
			}
		} else if m.keyE-m.keyS == len(name) && string(o.data[m.keyS:m.keyE]) == name {
			return m
		}
	}
	return nil
}

func (o *Object) keyOf(m *member) string {
	if m.esc >= 0 {
		return o.escKey[m.esc]
	}
	return o.keep(o.data[m.keyS:m.keyE])
}

// grow readies o.buf, sized for every string of the input at once.
func (o *Object) grow() {
	if o.buf == nil {
		o.buf = make([]byte, 0, len(o.data))
	}
}

// keep returns b as a string whose bytes live in o.buf. Bytes in o.buf are
// never written again once handed out (an append that outgrows it moves on
// to a new array and leaves the old one to the strings that use it), so the
// strings stay immutable.
func (o *Object) keep(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	o.grow()
	n := len(o.buf)
	o.buf = append(o.buf, b...)
	return unsafe.String(&o.buf[n], len(b))
}

// transient returns data[s:e] as a string for a call that does not keep it.
func (o *Object) transient(s, e int) string { return unsafe.String(&o.data[s], e-s) }

// lit returns the value of the string literal at data[s:e] (quotes included).
func (o *Object) lit(s, e int, flags uint8) string {
	if flags == 0 || flags == strNonASCII && utf8.Valid(o.data[s+1:e-1]) {
		return o.keep(o.data[s+1 : e-1])
	}
	o.grow()
	n := len(o.buf)
	o.buf = appendUnquoted(o.buf, o.data[s:e])
	if len(o.buf) == n {
		return ""
	}
	return unsafe.String(&o.buf[n], len(o.buf)-n)
}

// str returns the value of a string member.
func (o *Object) str(m *member) string { return o.lit(m.valS, m.valE, m.flags) }

func (o *Object) raw(m *member) json.RawMessage { return o.data[m.valS:m.valE:m.valE] }

// Has reports whether the key name is present (null included).
func (o *Object) Has(name string) bool { return o.find(name) != nil }

// Keys returns the keys in document order, a repeated key each time.
func (o *Object) Keys() []string {
	keys := make([]string, len(o.fields))
	for i := range o.fields {
		keys[i] = o.keyOf(&o.fields[i])
	}
	return keys
}

// Err returns the first error any getter recorded.
func (o *Object) Err() error { return o.err }

func (o *Object) fail(field, format string, args ...any) {
	if o.err == nil {
		o.err = &FieldError{Type: o.Type, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
}

// failMsg is fail without formatting, for the getters' fixed messages.
func (o *Object) failMsg(field, msg string) {
	if o.err == nil {
		o.err = &FieldError{Type: o.Type, Field: field, Msg: msg}
	}
}

// Fail records an error for field unless one is recorded already.
func (o *Object) Fail(field, format string, args ...any) { o.fail(field, format, args...) }

// Raw returns the raw value of name; absent reports false, and a JSON null
// reports present with a nil slice. The slice is o's input: valid until it
// changes.
func (o *Object) Raw(name string) (json.RawMessage, bool) {
	m := o.find(name)
	if m == nil {
		return nil, false
	}
	if m.kind == kindNull {
		return nil, true
	}
	return o.raw(m), true
}

// Value returns the raw value of name, a JSON null as the text null. The
// slice is o's input: valid until it changes.
func (o *Object) Value(name string) (json.RawMessage, bool) {
	m := o.find(name)
	if m == nil {
		return nil, false
	}
	return o.raw(m), true
}

// String reads a required, non-null string.
func (o *Object) String(name string, p *string) {
	m := o.find(name)
	if m == nil {
		o.failMsg(name, "required")
		return
	}
	if m.kind != kindString {
		o.failMsg(name, "expected a string")
		return
	}
	*p = o.str(m)
}

// StringOr reads an optional string; absent leaves *p as def.
func (o *Object) StringOr(name string, p *string, def string) {
	m := o.find(name)
	if m == nil {
		*p = def
		return
	}
	if m.kind != kindString {
		o.failMsg(name, "expected a string")
		return
	}
	*p = o.str(m)
}

// NullString reads an optional, nullable string; null and absent become "".
func (o *Object) NullString(name string, p *string) {
	m := o.find(name)
	if m == nil || m.kind == kindNull {
		*p = ""
		return
	}
	if m.kind != kindString {
		o.failMsg(name, "expected a string or null")
		return
	}
	*p = o.str(m)
}

// Nullable reads an optional, nullable string, keeping null (or absent:
// valid false) apart from "".
func (o *Object) Nullable(name string, p *string, valid *bool) {
	m := o.find(name)
	if m == nil || m.kind == kindNull {
		*p, *valid = "", false
		return
	}
	if m.kind != kindString {
		o.failMsg(name, "expected a string or null")
		return
	}
	*p, *valid = o.str(m), true
}

// RequiredNullString reads a key that must be present but may be null.
func (o *Object) RequiredNullString(name string, p *string) {
	if o.find(name) == nil {
		o.failMsg(name, "required")
		return
	}
	o.NullString(name, p)
}

// Int reads an integer; absent leaves def unless required. An integral
// float such as 3.0 is accepted, as Python accepts it, and so is null (as 0),
// as the encoding/json reading this replaces did.
func (o *Object) Int(name string, p *int64, required bool, def int64) {
	m := o.find(name)
	if m == nil {
		if required {
			o.failMsg(name, "required")
		}
		*p = def
		return
	}
	switch m.kind {
	case kindNull:
		*p = 0
		return
	case kindNumber:
	default:
		o.failMsg(name, "expected an integer")
		return
	}
	lit := o.transient(m.valS, m.valE)
	n, err := strconv.ParseInt(lit, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(lit, 64)
		if ferr != nil || f != float64(int64(f)) {
			o.failMsg(name, "expected an integer")
			return
		}
		n = int64(f)
	}
	*p = n
}

// Bool reads a boolean.
func (o *Object) Bool(name string, p *bool, required bool) {
	m := o.find(name)
	if m == nil {
		if required {
			o.failMsg(name, "required")
		}
		return
	}
	switch m.kind {
	case kindTrue:
		*p = true
	case kindFalse:
		*p = false
	default:
		o.failMsg(name, "expected a boolean")
	}
}

// Map reads an optional object (absent or null → nil). Numbers keep their
// literal text as json.Number so integers and floats round-trip.
func (o *Object) Map(name string, p *map[string]any) { o.readMap(name, p, false) }

// Metadata reads an optional object like Map, but an empty object reads as
// nil too: for fields whose writers write nil as {}, it saves decoding a
// map per event.
func (o *Object) Metadata(name string, p *map[string]any) { o.readMap(name, p, true) }

func (o *Object) readMap(name string, p *map[string]any, emptyNil bool) {
	m := o.find(name)
	if m == nil || m.kind == kindNull {
		*p = nil
		return
	}
	if m.kind != kindObject {
		o.failMsg(name, "expected an object")
		return
	}
	d := valueDecoder{o: o, pos: m.valS}
	v := d.object(emptyNil)
	*p = v
}

// valueDecoder builds Go values from text the scanner has validated.
type valueDecoder struct {
	o   *Object
	pos int
}

func (d *valueDecoder) ws() {
	for d.pos < len(d.o.data) {
		switch d.o.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// strLit scans the string literal at d.pos and returns its value.
func (d *valueDecoder) strLit() string {
	s := scanner{data: d.o.data, pos: d.pos}
	flags, _ := s.str()
	st := d.pos
	d.pos = s.pos
	return d.o.lit(st, s.pos, flags)
}

func (d *valueDecoder) object(emptyNil bool) map[string]any {
	d.pos++ // '{'
	d.ws()
	if d.o.data[d.pos] == '}' {
		d.pos++
		if emptyNil {
			return nil
		}
		return map[string]any{}
	}
	m := map[string]any{}
	for {
		k := d.strLit()
		d.ws()
		d.pos++ // ':'
		d.ws()
		m[k] = d.value()
		d.ws()
		c := d.o.data[d.pos]
		d.pos++
		if c == '}' {
			return m
		}
		d.ws()
	}
}

func (d *valueDecoder) value() any {
	switch c := d.o.data[d.pos]; c {
	case '"':
		return d.strLit()
	case '{':
		return d.object(false)
	case '[':
		d.pos++
		d.ws()
		a := []any{}
		if d.o.data[d.pos] == ']' {
			d.pos++
			return a
		}
		for {
			a = append(a, d.value())
			d.ws()
			c := d.o.data[d.pos]
			d.pos++
			if c == ']' {
				return a
			}
			d.ws()
		}
	case 't':
		d.pos += 4
		return true
	case 'f':
		d.pos += 5
		return false
	case 'n':
		d.pos += 4
		return nil
	default:
		s := scanner{data: d.o.data, pos: d.pos}
		s.number()
		st := d.pos
		d.pos = s.pos
		return json.Number(d.o.keep(d.o.data[st:s.pos]))
	}
}

// Members decodes data, one JSON object, into its raw members as
// json.Unmarshal into a map[string]json.RawMessage does (a repeated key's
// last value wins; JSON null gives a nil map; errors are encoding/json's),
// in one scan of its own. The values are slices of data.
func Members(data []byte) (map[string]json.RawMessage, error) {
	o, err := Borrow("", data)
	if err != nil {
		var f map[string]json.RawMessage
		return f, json.Unmarshal(data, &f)
	}
	defer o.Release()
	f := make(map[string]json.RawMessage, len(o.fields))
	for i := range o.fields {
		m := &o.fields[i]
		f[o.keyOf(m)] = o.raw(m)
	}
	return f, nil
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
// The elements are slices of o's input, valid until it changes.
func (o *Object) Array(name string, required bool) []json.RawMessage {
	m := o.find(name)
	if m == nil {
		if required {
			o.failMsg(name, "required")
		}
		return nil
	}
	switch m.kind {
	case kindNull:
		if required {
			o.failMsg(name, "must not be null")
		}
		return nil
	case kindArray:
	default:
		o.failMsg(name, "expected an array")
		return nil
	}
	return splitArray(o.data, m.valS)
}

// PeekType returns the "type" member of a JSON object without decoding the
// rest of it into Go values. It reads as decoding into a struct with a Type
// *string field does: a key that matches "type" only without regard to case
// (encoding/json matches those too) and a "type" that is not a string take
// encoding/json's path, for its exact result and error.
func PeekType(data []byte) (string, error) {
	o, err := Borrow("", data)
	if err != nil {
		return peekTypeStd(data)
	}
	defer o.Release()
	var m *member
	for i := range o.fields {
		f := &o.fields[i]
		k := o.data[f.keyS:f.keyE]
		if f.esc >= 0 || len(k) == 4 && string(k) != "type" && strings.EqualFold(string(k), "type") {
			return peekTypeStd(data)
		}
		if string(k) == "type" {
			m = f
		}
	}
	switch {
	case m == nil || m.kind == kindNull:
		return "", errors.New(`missing "type"`)
	case m.kind != kindString:
		return peekTypeStd(data)
	}
	return o.str(m), nil
}

// PlainType is PeekType on an object already scanned: the "type" string
// when it reads the same under encoding/json's rules without question (ok
// false: ask PeekType of the text).
func (o *Object) PlainType() (t string, ok bool) {
	var m *member
	for i := range o.fields {
		f := &o.fields[i]
		k := o.data[f.keyS:f.keyE]
		if f.esc >= 0 || len(k) == 4 && string(k) != "type" && strings.EqualFold(string(k), "type") {
			return "", false
		}
		if string(k) == "type" {
			m = f
		}
	}
	if m == nil || m.kind != kindString {
		return "", false
	}
	return o.str(m), true
}

func peekTypeStd(data []byte) (string, error) {
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
