package pyjson

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Repr returns Python's repr() of the decoded value: None, True, 'text',
// 25.0, [1, 2], {'a': 1}.
func Repr(v Value) string { return string(AppendRepr(nil, v)) }

// Str returns Python's str() of the decoded value: a str's own text, the
// repr of anything else.
func Str(v Value) string {
	if v.Kind == String {
		return v.Str
	}
	return Repr(v)
}

// AppendRepr appends Repr(v).
func AppendRepr(dst []byte, v Value) []byte {
	switch v.Kind {
	case Null:
		return append(dst, "None"...)
	case Bool:
		if v.Bool {
			return append(dst, "True"...)
		}
		return append(dst, "False"...)
	case Int:
		return appendIntLiteral(dst, v.Str)
	case Float:
		return AppendFloatRepr(dst, v.Float64())
	case String:
		return AppendStrRepr(dst, v.Str)
	case Array:
		dst = append(dst, '[')
		for i, it := range v.Items {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendRepr(dst, it)
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		for i, k := range v.Keys {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendStrRepr(dst, k)
			dst = append(dst, ": "...)
			dst = AppendRepr(dst, v.Items[i])
		}
		return append(dst, '}')
	}
	return dst
}

// appendIntLiteral normalizes a JSON integer literal the way int() would
// print it ("-0" is 0).
func appendIntLiteral(dst []byte, lit string) []byte {
	if strings.Trim(lit, "-0") == "" {
		return append(dst, '0')
	}
	return append(dst, lit...)
}

// StrRepr returns Python's repr() of a str.
func StrRepr(s string) string { return string(AppendStrRepr(nil, s)) }

// AppendStrRepr appends Python's repr() of a str: single quotes unless the
// text has a single quote and no double quote; \t \n \r \\ and the quote
// escaped; other non-printable characters as \xNN, \uNNNN or \UNNNNNNNN.
func AppendStrRepr(dst []byte, s string) []byte {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	dst = append(dst, quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r < 0x20 || r == 0x7f:
			dst = appendHexEscape(dst, 'x', uint32(r), 2)
		case r < 0x7f:
			dst = append(dst, byte(r))
		case unicode.IsPrint(r):
			dst = utf8.AppendRune(dst, r)
		case r <= 0xff:
			dst = appendHexEscape(dst, 'x', uint32(r), 2)
		case r <= 0xffff:
			dst = appendHexEscape(dst, 'u', uint32(r), 4)
		default:
			dst = appendHexEscape(dst, 'U', uint32(r), 8)
		}
	}
	return append(dst, quote)
}

func appendHexEscape(dst []byte, letter byte, v uint32, width int) []byte {
	const digits = "0123456789abcdef"
	dst = append(dst, '\\', letter)
	for i := width - 1; i >= 0; i-- {
		dst = append(dst, digits[(v>>(4*uint(i)))&0xf])
	}
	return dst
}

// FloatRepr returns Python's repr() of a float.
func FloatRepr(f float64) string { return string(AppendFloatRepr(nil, f)) }

// AppendFloatRepr appends Python's repr() of a float: the shortest
// round-tripping digits, positional with at least ".0" when the decimal
// exponent is in [-4, 16), scientific ("1e-05", "1.5e+16") otherwise.
func AppendFloatRepr(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	digits := strings.Replace(mant, ".", "", 1)
	if neg {
		dst = append(dst, '-')
	}
	if exp < -4 || exp >= 16 {
		dst = append(dst, digits[0])
		if len(digits) > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if exp < 0 {
			dst = append(dst, '-')
			exp = -exp
		} else {
			dst = append(dst, '+')
		}
		if exp < 10 {
			dst = append(dst, '0')
		}
		return strconv.AppendInt(dst, int64(exp), 10)
	}
	if exp < 0 {
		dst = append(dst, "0."...)
		for i := 0; i < -exp-1; i++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	intLen := exp + 1
	if len(digits) <= intLen {
		dst = append(dst, digits...)
		for i := len(digits); i < intLen; i++ {
			dst = append(dst, '0')
		}
		return append(dst, ".0"...)
	}
	dst = append(dst, digits[:intLen]...)
	dst = append(dst, '.')
	return append(dst, digits[intLen:]...)
}

// StrSetRepr returns Python's repr() of a set of str: sorted and without
// duplicates (a set's order in Python is arbitrary, and a reproducible
// text is more use than a random one).
func StrSetRepr(ss []string) string {
	ss = slices.Clone(ss)
	slices.Sort(ss)
	ss = slices.Compact(ss)
	if len(ss) == 0 {
		return "set()"
	}
	dst := []byte{'{'}
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = AppendStrRepr(dst, s)
	}
	return string(append(dst, '}'))
}
