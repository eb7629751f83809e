package wire

import (
	"encoding/binary"
	"encoding/json"
	"unicode/utf8"
	"unsafe"
)

// maxDepth is encoding/json's nesting limit, so the scanner accepts exactly
// what json.Valid accepts.
const maxDepth = 10000

// Value kinds, by the byte a value starts with.
const (
	kindString = '"'
	kindNumber = '0'
	kindObject = '{'
	kindArray  = '['
	kindTrue   = 't'
	kindFalse  = 'f'
	kindNull   = 'n'
)

// strFlags say what extracting a string needs beyond slicing it.
const (
	strEscaped  = 1 << iota // has a backslash escape
	strNonASCII             // has a byte ≥ 0x80 (UTF-8 to check)
)

// scanner validates JSON text in one pass, the grammar of RFC 8259 as
// encoding/json reads it (its depth limit included), recording nothing: the
// callers note the spans they need.
type scanner struct {
	data  []byte
	pos   int
	depth int
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value scans one value at s.pos (no leading white space) and returns its
// kind and, for strings, its flags; ok is false for invalid text.
func (s *scanner) value() (kind byte, flags uint8, ok bool) {
	if s.pos >= len(s.data) {
		return 0, 0, false
	}
	switch c := s.data[s.pos]; c {
	case '"':
		flags, ok = s.str()
		return kindString, flags, ok
	case '{':
		return kindObject, 0, s.object()
	case '[':
		return kindArray, 0, s.array()
	case 't':
		return kindTrue, 0, s.lit("true")
	case 'f':
		return kindFalse, 0, s.lit("false")
	case 'n':
		return kindNull, 0, s.lit("null")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return kindNumber, 0, s.number()
		}
		return 0, 0, false
	}
}

func (s *scanner) lit(w string) bool {
	if len(s.data)-s.pos < len(w) || string(s.data[s.pos:s.pos+len(w)]) != w {
		return false
	}
	s.pos += len(w)
	return true
}

func (s *scanner) digits() int {
	n := 0
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
		n++
	}
	return n
}

func (s *scanner) number() bool {
	d := s.data
	if d[s.pos] == '-' {
		s.pos++
	}
	if s.pos >= len(d) {
		return false
	}
	if d[s.pos] == '0' {
		s.pos++
	} else if s.digits() == 0 {
		return false
	}
	if s.pos < len(d) && d[s.pos] == '.' {
		s.pos++
		if s.digits() == 0 {
			return false
		}
	}
	if s.pos < len(d) && (d[s.pos] == 'e' || d[s.pos] == 'E') {
		s.pos++
		if s.pos < len(d) && (d[s.pos] == '+' || d[s.pos] == '-') {
			s.pos++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

// plain[c] is true for string bytes that end nothing and need nothing.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// special reports whether any byte of the 8 in x is < 0x20, '"', '\\' or
// ≥ 0x80 (the classic "has a zero byte" bit trick, three times).
func special(x uint64) bool {
	ctl := (x - lsb*0x20) &^ x
	q := x ^ (lsb * '"')
	q = (q - lsb) &^ q
	b := x ^ (lsb * '\\')
	b = (b - lsb) &^ b
	return (ctl|q|b|x)&msb != 0
}

// str scans a string literal at s.pos, leaving s.pos after its closing quote.
func (s *scanner) str() (flags uint8, ok bool) {
	d := s.data
	i := s.pos + 1
	for {
		for i+8 <= len(d) && !special(binary.LittleEndian.Uint64(d[i:])) {
			i += 8
		}
		for i < len(d) && plain[d[i]] {
			i++
		}
		if i >= len(d) {
			return 0, false
		}
		switch c := d[i]; {
		case c == '"':
			s.pos = i + 1
			return flags, true
		case c == '\\':
			flags |= strEscaped
			if i+1 >= len(d) {
				return 0, false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) {
					return 0, false
				}
				for _, h := range d[i+2 : i+6] {
					if unhex(h) < 0 {
						return 0, false
					}
				}
				i += 6
			default:
				return 0, false
			}
		case c < 0x20:
			return 0, false
		default: // ≥ 0x80
			flags |= strNonASCII
			i++
		}
	}
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func (s *scanner) object() bool {
	if s.depth++; s.depth > maxDepth {
		return false
	}
	s.pos++ // '{'
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		s.depth--
		return true
	}
	for {
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return false
		}
		if _, ok := s.str(); !ok {
			return false
		}
		s.ws()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return false
		}
		s.pos++
		s.ws()
		if _, _, ok := s.value(); !ok {
			return false
		}
		s.ws()
		if s.pos >= len(s.data) {
			return false
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
			s.ws()
		case '}':
			s.pos++
			s.depth--
			return true
		default:
			return false
		}
	}
}

func (s *scanner) array() bool {
	if s.depth++; s.depth > maxDepth {
		return false
	}
	s.pos++ // '['
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		s.depth--
		return true
	}
	for {
		if _, _, ok := s.value(); !ok {
			return false
		}
		s.ws()
		if s.pos >= len(s.data) {
			return false
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
			s.ws()
		case ']':
			s.pos++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// Valid reports whether data is one JSON value (with optional surrounding
// white space), exactly as json.Valid does.
func Valid(data []byte) bool {
	s := scanner{data: data}
	s.ws()
	if _, _, ok := s.value(); !ok {
		return false
	}
	s.ws()
	return s.pos == len(data)
}

// unquote decodes the string literal lit (quotes included, already
// validated) the way encoding/json does: escapes resolved, a lone or
// malformed surrogate and every invalid UTF-8 byte become U+FFFD.
func unquote(lit []byte) string {
	out := appendUnquoted(make([]byte, 0, len(lit)-2), lit)
	// out is not touched again, so the string may share its bytes.
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// appendUnquoted appends the value of the validated string literal lit.
func appendUnquoted(out, lit []byte) []byte {
	body := lit[1 : len(lit)-1]
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			switch e := body[i+1]; e {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r := hex4(body[i+2:])
				i += 6
				if r >= 0xd800 && r < 0xe000 {
					// A high surrogate followed by an escaped low one is a
					// pair; anything else is U+FFFD, as in encoding/json.
					if r < 0xdc00 && i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
						if r2 := hex4(body[i+2:]); r2 >= 0xdc00 && r2 < 0xe000 {
							out = utf8.AppendRune(out, (r-0xd800)<<10|(r2-0xdc00)+0x10000)
							i += 6
							continue
						}
					}
					out = utf8.AppendRune(out, utf8.RuneError)
					continue
				}
				out = utf8.AppendRune(out, r)
				continue
			default: // '"', '\\', '/'
				out = append(out, e)
			}
			i += 2
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, body[i:i+size]...)
			}
			i += size
		}
	}
	return out
}

func hex4(b []byte) rune {
	return rune(unhex(b[0])<<12 | unhex(b[1])<<8 | unhex(b[2])<<4 | unhex(b[3]))
}

// valueAt validates data as one JSON value with optional white space around
// it, as json.Unmarshal does, and returns where the value starts and its kind.
func valueAt(data []byte) (start int, kind byte, flags uint8, ok bool) {
	s := scanner{data: data}
	s.ws()
	start = s.pos
	kind, flags, ok = s.value()
	if !ok {
		return 0, 0, 0, false
	}
	s.ws()
	if s.pos != len(data) {
		return 0, 0, 0, false
	}
	return start, kind, flags, true
}

// DecodeString decodes data as one JSON string (ok false for any other
// value or invalid text), as json.Unmarshal into a string does.
func DecodeString(data []byte) (string, bool) {
	start, kind, flags, ok := valueAt(data)
	if !ok || kind != kindString {
		return "", false
	}
	s := scanner{data: data, pos: start}
	s.str()
	lit := data[start:s.pos]
	if flags == 0 || flags == strNonASCII && utf8.Valid(lit[1:len(lit)-1]) {
		return string(lit[1 : len(lit)-1]), true
	}
	return unquote(lit), true
}

// SplitArray splits data, one JSON array, into its raw elements (slices of
// data); ok false for any other value (null included) or invalid text.
func SplitArray(data []byte) ([]json.RawMessage, bool) {
	start, kind, _, ok := valueAt(data)
	if !ok || kind != kindArray {
		return nil, false
	}
	return splitArray(data, start), true
}

// splitArray splits the validated array at data[start].
func splitArray(data []byte, start int) []json.RawMessage {
	s := scanner{data: data, pos: start + 1, depth: 1}
	items := []json.RawMessage{}
	s.ws()
	if s.data[s.pos] == ']' {
		return items
	}
	for {
		st := s.pos
		s.value()
		items = append(items, data[st:s.pos:s.pos])
		s.ws()
		c := s.data[s.pos]
		s.pos++
		if c == ']' {
			return items
		}
		s.ws()
	}
}
