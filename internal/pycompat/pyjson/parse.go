package pyjson

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 10000

// SyntaxError is a json.loads failure, positioned like Python's
// JSONDecodeError (Pos counts characters, not bytes).
type SyntaxError struct {
	Msg       string
	Pos       int
	Line, Col int
}

// Error returns Python's str(JSONDecodeError):
// "{msg}: line {line} column {col} (char {pos})".
func (e *SyntaxError) Error() string {
	return e.Msg + ": line " + strconv.Itoa(e.Line) + " column " + strconv.Itoa(e.Col) +
		" (char " + strconv.Itoa(e.Pos) + ")"
}

func syntaxError(s, msg string, bytePos int) *SyntaxError {
	if bytePos > len(s) {
		bytePos = len(s)
	}
	prefix := s[:bytePos]
	pos := utf8.RuneCountInString(prefix)
	line := strings.Count(prefix, "\n") + 1
	col := pos + 1
	if nl := strings.LastIndexByte(prefix, '\n'); nl >= 0 {
		col = pos - utf8.RuneCountInString(s[:nl])
	}
	return &SyntaxError{Msg: msg, Pos: pos, Line: line, Col: col}
}

// Parse decodes s exactly as Python's json.loads does (NaN, Infinity and
// -Infinity are accepted), returning a *SyntaxError with Python's message
// otherwise.
func Parse(s string) (Value, error) {
	if strings.HasPrefix(s, "\ufeff") {
		return Value{}, syntaxError(s, "Unexpected UTF-8 BOM (decode using utf-8-sig)", 0)
	}
	p := parser{s: s}
	i := p.ws(0)
	v, end, err := p.value(i, 0)
	if err != nil {
		return Value{}, err
	}
	end = p.ws(end)
	if end != len(s) {
		return Value{}, syntaxError(s, "Extra data", end)
	}
	return v, nil
}

type parser struct{ s string }

func (p *parser) ws(i int) int {
	for i < len(p.s) {
		switch p.s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (p *parser) fail(msg string, i int) error { return syntaxError(p.s, msg, i) }

// value is Python's scan_once: a failure to start a value is "Expecting
// value" at i.
func (p *parser) value(i, depth int) (Value, int, error) {
	s := p.s
	if i >= len(s) {
		return Value{}, i, p.fail("Expecting value", i)
	}
	switch c := s[i]; {
	case c == '"':
		str, end, err := p.str(i + 1)
		return Value{Kind: String, Str: str}, end, err
	case c == '{':
		if depth >= maxDepth {
			return Value{}, i, p.fail("Maximum nesting depth exceeded", i)
		}
		return p.object(i+1, depth+1)
	case c == '[':
		if depth >= maxDepth {
			return Value{}, i, p.fail("Maximum nesting depth exceeded", i)
		}
		return p.array(i+1, depth+1)
	case c == 'n' && strings.HasPrefix(s[i:], "null"):
		return Value{Kind: Null}, i + 4, nil
	case c == 't' && strings.HasPrefix(s[i:], "true"):
		return Value{Kind: Bool, Bool: true}, i + 4, nil
	case c == 'f' && strings.HasPrefix(s[i:], "false"):
		return Value{Kind: Bool}, i + 5, nil
	case c == 'N' && strings.HasPrefix(s[i:], "NaN"):
		return Value{Kind: Float, Str: "NaN"}, i + 3, nil
	case c == 'I' && strings.HasPrefix(s[i:], "Infinity"):
		return Value{Kind: Float, Str: "Infinity"}, i + 8, nil
	case c == '-' && strings.HasPrefix(s[i:], "-Infinity"):
		return Value{Kind: Float, Str: "-Infinity"}, i + 9, nil
	}
	if v, end, ok := number(s, i); ok {
		return v, end, nil
	}
	return Value{}, i, p.fail("Expecting value", i)
}

// number matches (-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)? at i.
func number(s string, i int) (Value, int, bool) {
	start := i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return Value{}, start, false
	}
	kind := Int
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i += 2
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		kind = Float
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i = j
			kind = Float
		}
	}
	return Value{Kind: kind, Str: s[start:i]}, i, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// str scans a string body starting after the opening quote at i-1, like
// CPython's scanstring_unicode in strict mode.
func (p *parser) str(i int) (string, int, error) {
	s := p.s
	begin := i - 1
	var b strings.Builder
	chunk := i
	for {
		j := chunk
		for j < len(s) && s[j] != '"' && s[j] != '\\' && s[j] >= 0x20 {
			j++
		}
		if j >= len(s) {
			return "", j, p.fail("Unterminated string starting at", begin)
		}
		if s[j] < 0x20 {
			return "", j, p.fail("Invalid control character at", j)
		}
		if s[j] == '"' {
			if b.Len() == 0 {
				return s[chunk:j], j + 1, nil
			}
			b.WriteString(s[chunk:j])
			return b.String(), j + 1, nil
		}
		b.WriteString(s[chunk:j])
		// s[j] == '\\'
		j++
		if j >= len(s) {
			return "", j, p.fail("Unterminated string starting at", begin)
		}
		c := s[j]
		if c != 'u' {
			var r byte
			switch c {
			case '"', '\\', '/':
				r = c
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			default:
				return "", j, p.fail("Invalid \\escape", j-1)
			}
			b.WriteByte(r)
			chunk = j + 1
			continue
		}
		// \uXXXX, possibly a surrogate pair.
		u := j // index of 'u'
		if u+5 >= len(s) {
			return "", u, p.fail("Invalid \\uXXXX escape", u)
		}
		r, ok := hex4(s, u+1)
		if !ok {
			return "", u, p.fail("Invalid \\uXXXX escape", u)
		}
		end := u + 5
		if r >= 0xd800 && r <= 0xdbff && end+6 < len(s) && s[end] == '\\' && s[end+1] == 'u' {
			r2, ok := hex4(s, end+2)
			if !ok {
				return "", end + 1, p.fail("Invalid \\uXXXX escape", end+1)
			}
			if r2 >= 0xdc00 && r2 <= 0xdfff {
				r = 0x10000 + (r-0xd800)<<10 + (r2 - 0xdc00)
				end += 6
			}
		}
		if r >= 0xd800 && r <= 0xdfff {
			r = utf8.RuneError // a lone surrogate has no UTF-8 form
		}
		b.WriteRune(r)
		chunk = end
	}
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for k := i; k < i+4; k++ {
		c := s[k]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func (p *parser) object(i, depth int) (Value, int, error) {
	s := p.s
	v := Value{Kind: Object, Keys: []string{}, Items: []Value{}}
	i = p.ws(i)
	if i < len(s) && s[i] == '}' {
		return v, i + 1, nil
	}
	v.Keys, v.Items = make([]string, 0, 4), make([]Value, 0, 4)
	var index map[string]int // for large objects, so duplicate checks stay O(1)
	for {
		if i >= len(s) || s[i] != '"' {
			return Value{}, i, p.fail("Expecting property name enclosed in double quotes", i)
		}
		key, end, err := p.str(i + 1)
		if err != nil {
			return Value{}, end, err
		}
		i = p.ws(end)
		if i >= len(s) || s[i] != ':' {
			return Value{}, i, p.fail("Expecting ':' delimiter", i)
		}
		i = p.ws(i + 1)
		val, end, err := p.value(i, depth)
		if err != nil {
			return Value{}, end, err
		}
		switch {
		case index != nil:
			if at, dup := index[key]; dup {
				v.Items[at] = val
			} else {
				index[key] = len(v.Keys)
				v.Keys = append(v.Keys, key)
				v.Items = append(v.Items, val)
			}
		case len(v.Keys) >= 16:
			index = make(map[string]int, 2*len(v.Keys))
			for n, k := range v.Keys {
				index[k] = n
			}
			v.set(key, val)
			index[key] = slices.Index(v.Keys, key)
		default:
			v.set(key, val)
		}
		i = p.ws(end)
		if i < len(s) && s[i] == '}' {
			return v, i + 1, nil
		}
		if i >= len(s) || s[i] != ',' {
			return Value{}, i, p.fail("Expecting ',' delimiter", i)
		}
		i = p.ws(i + 1)
	}
}

func (p *parser) array(i, depth int) (Value, int, error) {
	s := p.s
	v := Value{Kind: Array, Items: []Value{}}
	i = p.ws(i)
	if i < len(s) && s[i] == ']' {
		return v, i + 1, nil
	}
	for {
		val, end, err := p.value(i, depth)
		if err != nil {
			return Value{}, end, err
		}
		v.Items = append(v.Items, val)
		i = p.ws(end)
		if i < len(s) && s[i] == ']' {
			return v, i + 1, nil
		}
		if i >= len(s) || s[i] != ',' {
			return Value{}, i, p.fail("Expecting ',' delimiter", i)
		}
		i = p.ws(i + 1)
	}
}
