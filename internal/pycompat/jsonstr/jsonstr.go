package jsonstr

import "unicode/utf8"

const hex = "0123456789abcdef"

// plain[b] and ascii[b] are true for the ASCII bytes each spelling writes
// unescaped: the two differ only in DEL.
var plain, ascii = func() (p, a [utf8.RuneSelf]bool) {
	for i := 0x20; i < utf8.RuneSelf; i++ {
		p[i] = i != '"' && i != '\\'
		a[i] = p[i] && i != 0x7f
	}
	return p, a
}()

// Append appends s as a JSON string literal in pydantic's spelling (that
// of json.dumps with ensure_ascii=False).
func Append(dst []byte, s string) []byte { return appendQuoted(dst, s, false) }

// AppendASCII appends s as a JSON string literal in json.dumps' default
// spelling (ensure_ascii=True).
func AppendASCII(dst []byte, s string) []byte { return appendQuoted(dst, s, true) }

// appendQuoted copies runs of bytes that need no escaping in one append,
// so that the common case (short ASCII text, an event per streamed token)
// costs one pass and no allocation.
func appendQuoted(dst []byte, s string, toASCII bool) []byte {
	safe := &plain
	if toASCII {
		safe = &ascii
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = appendU(dst, rune(c))
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		invalid := r == utf8.RuneError && size == 1
		if !toASCII && !invalid {
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		switch {
		case !toASCII:
			dst = append(dst, "\ufffd"...)
		case r < 0x10000:
			dst = appendU(dst, r)
		default:
			r -= 0x10000
			dst = appendU(dst, 0xd800+(r>>10))
			dst = appendU(dst, 0xdc00+(r&0x3ff))
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendU appends \uXXXX for a code point (or surrogate) below U+10000.
func appendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}
