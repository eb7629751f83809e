package conformance

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/agentscope-go/agentscope/internal/ojson"
)

// pyDumps renders v as Python's json.dumps(v, sort_keys=sortKeys) does:
// ", " and ": " separators, non-ASCII escaped as \uXXXX (surrogate pairs
// for astral characters), floats written like repr(float). Integral
// float64 values are written as integers: the tool layer decodes every
// JSON number into a float64, and scenario arguments are integers far more
// often than integral floats.
func pyDumps(v any, sortKeys bool) string {
	var b strings.Builder
	pyWrite(&b, v, sortKeys)
	return b.String()
}

func pyWrite(b *strings.Builder, v any, sortKeys bool) {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case string:
		pyString(b, t)
	case json.Number:
		s := string(t)
		if strings.ContainsAny(s, ".eE") {
			f, err := t.Float64()
			if err != nil {
				b.WriteString(s)
				return
			}
			b.WriteString(pyFloat(f))
			return
		}
		b.WriteString(s)
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1e18 {
			b.WriteString(strconv.FormatInt(int64(t), 10))
			return
		}
		b.WriteString(pyFloat(t))
	case float32:
		pyWrite(b, float64(t), sortKeys)
	case int:
		b.WriteString(strconv.Itoa(t))
	case int64:
		b.WriteString(strconv.FormatInt(t, 10))
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteString(", ")
			}
			pyWrite(b, e, sortKeys)
		}
		b.WriteByte(']')
	case *ojson.Object:
		keys := t.Keys
		if sortKeys {
			keys = slices.Clone(keys)
			slices.Sort(keys)
		}
		pyObject(b, keys, func(k string) any { return t.Vals[k] }, sortKeys)
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		// Go maps have no order; sorted is the only reproducible choice.
		slices.Sort(keys)
		pyObject(b, keys, func(k string) any { return t[k] }, sortKeys)
	default:
		data, err := json.Marshal(t)
		if err != nil {
			b.WriteString("null")
			return
		}
		pv, err := parseOrdered(data)
		if err != nil {
			b.WriteString("null")
			return
		}
		pyWrite(b, pv, sortKeys)
	}
}

func pyObject(b *strings.Builder, keys []string, get func(string) any, sortKeys bool) {
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		pyString(b, k)
		b.WriteString(": ")
		pyWrite(b, get(k), sortKeys)
	}
	b.WriteByte('}')
}

const hexDigits = "0123456789abcdef"

func pyString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20 || (r >= 0x7f && r < 0x10000):
				writeU(b, r)
			case r >= 0x10000:
				r1, r2 := utf16.EncodeRune(r)
				writeU(b, r1)
				writeU(b, r2)
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

func writeU(b *strings.Builder, r rune) {
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[(r>>uint(shift))&0xf])
	}
}

// pyFloat is Python's repr(float): the shortest round-tripping digits, in
// positional notation when the decimal exponent is in [-4, 16), with ".0"
// for integral values; scientific notation ("1e-05", "1.5e+16") otherwise.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	digits := strings.Replace(mant, ".", "", 1)
	sign := ""
	if neg {
		sign = "-"
	}
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := strconv.Itoa(abs(exp))
		if len(es) < 2 {
			es = "0" + es
		}
		if exp < 0 {
			return sign + m + "e-" + es
		}
		return sign + m + "e+" + es
	}
	if exp < 0 {
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	if len(digits) <= exp+1 {
		return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	}
	return sign + digits[:exp+1] + "." + digits[exp+1:]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
