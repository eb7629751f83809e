package pyjson

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Repair reads sloppy or truncated JSON the way a lenient repairer would:
// it skips text before the first '{' or '[', accepts single-quoted and
// unquoted strings and keys, Python literals (True, False, None),
// comments, missing and trailing commas, raw control characters in
// strings, and closes whatever is still open at the end of the input. A
// member whose value never arrived is dropped rather than guessed. ok is
// false when there is no structure to read at all.
func Repair(s string) (v Value, ok bool) {
	i := strings.IndexAny(s, "{[")
	if i < 0 {
		return Value{}, false
	}
	r := repairer{s: s}
	v, _ = r.value(i, 0)
	return v, true
}

type repairer struct{ s string }

// skip passes whitespace and comments.
func (r *repairer) skip(i int) int {
	s := r.s
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r':
			i++
		case strings.HasPrefix(s[i:], "//") || s[i] == '#':
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return len(s)
			}
			i += j + 1
		case strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return len(s)
			}
			i += j + 4
		default:
			return i
		}
	}
	return i
}

// value reads one value at i (after skipping); ok is false at the end of
// input, where no value exists.
func (r *repairer) value(i, depth int) (Value, int) {
	s := r.s
	i = r.skip(i)
	if i >= len(s) {
		return Value{}, i
	}
	switch c := s[i]; {
	case c == '{':
		if depth >= maxDepth {
			return Value{Kind: Null}, len(s)
		}
		return r.object(i+1, depth+1)
	case c == '[':
		if depth >= maxDepth {
			return Value{Kind: Null}, len(s)
		}
		return r.array(i+1, depth+1)
	case c == '"' || c == '\'':
		str, end := r.str(i+1, c)
		return Value{Kind: String, Str: str}, end
	case c == '-' || c == '.' || isDigit(c):
		return r.number(i)
	}
	word, end := r.bare(i)
	switch word {
	case "true", "True":
		return Value{Kind: Bool, Bool: true}, end
	case "false", "False":
		return Value{Kind: Bool}, end
	case "null", "None":
		return Value{Kind: Null}, end
	case "NaN", "Infinity", "-Infinity":
		return Value{Kind: Float, Str: word}, end
	}
	return Value{Kind: String, Str: word}, end
}

// bare reads an unquoted token up to a delimiter.
func (r *repairer) bare(i int) (string, int) {
	s := r.s
	j := i
	for j < len(s) && !strings.ContainsRune(",:}]\n", rune(s[j])) {
		j++
	}
	if j == i && j < len(s) { // a stray delimiter: consume it so progress is made
		return "", j + 1
	}
	return strings.TrimSpace(s[i:j]), j
}

func (r *repairer) number(i int) (Value, int) {
	s := r.s
	j := i
	for j < len(s) && strings.IndexByte("0123456789+-.eE", s[j]) >= 0 {
		j++
	}
	lit := s[i:j]
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		// Not a number after all ("-", "1-2"): keep the text.
		word, end := r.bare(i)
		if word == "-Infinity" {
			return Value{Kind: Float, Str: word}, end
		}
		return Value{Kind: String, Str: word}, end
	}
	if strings.ContainsAny(lit, ".eE") {
		// Normalized, since ".5" or "1." are not valid JSON literals.
		return Value{Kind: Float, Str: FloatRepr(f)}, j
	}
	neg := strings.HasPrefix(lit, "-")
	lit = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(lit, "-"), "+"), "0")
	if lit == "" {
		lit = "0"
	} else if neg {
		lit = "-" + lit
	}
	return Value{Kind: Int, Str: lit}, j
}

// str reads a string body closed by quote (or the end of input).
func (r *repairer) str(i int, quote byte) (string, int) {
	s := r.s
	var b strings.Builder
	for i < len(s) {
		c := s[i]
		switch {
		case c == quote:
			return b.String(), i + 1
		case c == '\\' && i+1 < len(s):
			e := s[i+1]
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'u':
				if cp, ok := hex4(s, i+2); ok {
					if cp >= 0xd800 && cp <= 0xdbff {
						if i+11 < len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
							if lo, ok := hex4(s, i+8); ok && lo >= 0xdc00 && lo <= 0xdfff {
								b.WriteRune(0x10000 + (cp-0xd800)<<10 + (lo - 0xdc00))
								i += 12
								continue
							}
						}
						cp = utf8.RuneError
					} else if cp >= 0xdc00 && cp <= 0xdfff {
						cp = utf8.RuneError
					}
					b.WriteRune(cp)
					i += 6
					continue
				}
				b.WriteByte('u')
			default:
				b.WriteByte(e)
			}
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), i
}

func (r *repairer) object(i, depth int) (Value, int) {
	s := r.s
	v := Value{Kind: Object, Keys: []string{}, Items: []Value{}}
	for {
		i = r.skip(i)
		for i < len(s) && s[i] == ',' {
			i = r.skip(i + 1)
		}
		if i >= len(s) {
			return v, i
		}
		if s[i] == '}' {
			return v, i + 1
		}
		if s[i] == ']' { // mismatched closer: treat as the end of this object
			return v, i + 1
		}
		var key string
		if s[i] == '"' || s[i] == '\'' {
			key, i = r.str(i+1, s[i])
		} else {
			j := i
			for j < len(s) && !strings.ContainsRune(":,}]", rune(s[j])) {
				j++
			}
			key = strings.TrimSpace(s[i:j])
			i = j
		}
		i = r.skip(i)
		if i >= len(s) || s[i] != ':' {
			// A key without a value: drop it.
			if i < len(s) && s[i] != ',' && s[i] != '}' {
				i++
			}
			continue
		}
		i = r.skip(i + 1)
		if i >= len(s) || s[i] == '}' || s[i] == ',' {
			continue // the value never arrived
		}
		val, end := r.value(i, depth)
		v.set(key, val)
		i = end
	}
}

func (r *repairer) array(i, depth int) (Value, int) {
	s := r.s
	v := Value{Kind: Array, Items: []Value{}}
	for {
		i = r.skip(i)
		for i < len(s) && s[i] == ',' {
			i = r.skip(i + 1)
		}
		if i >= len(s) {
			return v, i
		}
		if s[i] == ']' || s[i] == '}' {
			return v, i + 1
		}
		val, end := r.value(i, depth)
		if end <= i { // no progress: give up on the rest
			return v, len(s)
		}
		v.Items = append(v.Items, val)
		i = end
	}
}
