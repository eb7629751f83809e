package wire

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/agentscope-go/agentscope/internal/pycompat/jsonstr"
)

// AppendString appends s as a JSON string literal in pydantic's spelling
// (see [jsonstr.Append]). Invalid UTF-8 bytes become U+FFFD, so the output
// is always valid JSON.
func AppendString(dst []byte, s string) []byte { return jsonstr.Append(dst, s) }

// AppendKey appends `"name":`; name must need no escaping.
func AppendKey(dst []byte, name string) []byte {
	dst = append(dst, '"')
	dst = append(dst, name...)
	return append(dst, '"', ':')
}

// AppendNullString appends s, or null when s is empty.
func AppendNullString(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, "null"...)
	}
	return AppendString(dst, s)
}

// AppendNullable appends s, or null when valid is false.
func AppendNullable(dst []byte, s string, valid bool) []byte {
	if !valid {
		return append(dst, "null"...)
	}
	return AppendString(dst, s)
}

// AppendObject appends m as a JSON object with keys in sorted order; a nil
// map is written as {} (the wire default for metadata).
func AppendObject(dst []byte, m map[string]any) []byte {
	if len(m) == 0 {
		return append(dst, '{', '}')
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, k)
		dst = append(dst, ':')
		dst = AppendAny(dst, m[k])
	}
	return append(dst, '}')
}

// AppendNullObject appends m, or null when m is nil.
func AppendNullObject(dst []byte, m map[string]any) []byte {
	if m == nil {
		return append(dst, "null"...)
	}
	return AppendObject(dst, m)
}

// AppendAny appends an arbitrary JSON-like value: the shapes encoding/json
// decodes into (with UseNumber) plus Go integers, json.RawMessage and, as a
// last resort, anything json.Marshal accepts.
func AppendAny(dst []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case string:
		return AppendString(dst, v)
	case bool:
		return strconv.AppendBool(dst, v)
	case json.Number:
		return append(dst, v...)
	case float64:
		return AppendFloat(dst, v)
	case float32:
		return AppendFloat(dst, float64(v))
	case int:
		return strconv.AppendInt(dst, int64(v), 10)
	case int64:
		return strconv.AppendInt(dst, v, 10)
	case int32:
		return strconv.AppendInt(dst, int64(v), 10)
	case uint64:
		return strconv.AppendUint(dst, v, 10)
	case map[string]any:
		return AppendObject(dst, v)
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendAny(dst, e)
		}
		return append(dst, ']')
	case []string:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, e)
		}
		return append(dst, ']')
	case json.RawMessage:
		if len(v) == 0 {
			return append(dst, "null"...)
		}
		return AppendCompact(dst, v)
	case interface{ AppendJSON([]byte) []byte }:
		return v.AppendJSON(dst)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return AppendString(dst, err.Error())
	}
	return AppendCompact(dst, b)
}

// AppendFloat writes f the way pydantic's model_dump_json does: the
// shortest digits that round-trip, in positional form while the decimal
// exponent is in [-5, 16) (with a ".0" when integral), else in scientific
// form with an unpadded exponent ("1e+16", "2.5e-7"); NaN and ±Inf are
// written as null (pydantic's default ser_json_inf_nan). This is not
// Python's repr, which pads the exponent and switches at 1e-5 ("1e-05").
// strconv's 'g' switches to scientific from 1e21 and for more digits than
// the precision, so it is not used.
func AppendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	var tmp [32]byte
	sci := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	e := bytes.LastIndexByte(sci, 'e')
	exp, _ := strconv.Atoi(string(sci[e+1:]))
	if exp < -5 || exp >= 16 {
		dst = append(dst, sci[:e+2]...) // mantissa, 'e' and the sign
		return strconv.AppendInt(dst, int64(max(exp, -exp)), 10)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
	if bytes.IndexByte(dst[start:], '.') < 0 {
		dst = append(dst, '.', '0')
	}
	return dst
}

// AppendCompact appends the JSON text raw with insignificant white space
// removed, in the pydantic style (no spaces after ',' and ':').
func AppendCompact(dst []byte, raw []byte) []byte {
	inStr, esc := false, false
	for _, c := range raw {
		if inStr {
			dst = append(dst, c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inStr = true
		}
		dst = append(dst, c)
	}
	return dst
}
