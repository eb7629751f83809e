package pyjson

import "github.com/agentscope-go/agentscope/internal/pycompat/jsonstr"

// DumpOptions select json.dumps variants.
type DumpOptions struct {
	// EnsureASCII escapes non-ASCII as \uXXXX (surrogate pairs beyond the
	// BMP), json.dumps' default.
	EnsureASCII bool
	// SortKeys sorts object keys (by code point).
	SortKeys bool
	// Compact uses "," and ":" separators instead of ", " and ": ".
	Compact bool
}

// Dumps returns Python's json.dumps(v, ...) text.
func Dumps(v Value, o DumpOptions) string { return string(AppendDumps(nil, v, o)) }

// AppendDumps appends Dumps(v, o).
func AppendDumps(dst []byte, v Value, o DumpOptions) []byte {
	switch v.Kind {
	case Null:
		return append(dst, "null"...)
	case Bool:
		if v.Bool {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Int:
		return appendIntLiteral(dst, v.Str)
	case Float:
		switch v.Str {
		case "NaN", "Infinity", "-Infinity":
			return append(dst, v.Str...)
		}
		f := v.Float64()
		if !v.Finite() { // a literal too large for a float64
			if f > 0 {
				return append(dst, "Infinity"...)
			}
			return append(dst, "-Infinity"...)
		}
		return AppendFloatRepr(dst, f)
	case String:
		return appendDumpString(dst, v.Str, o.EnsureASCII)
	case Array:
		dst = append(dst, '[')
		for i, it := range v.Items {
			if i > 0 {
				dst = appendSep(dst, ',', o.Compact)
			}
			dst = AppendDumps(dst, it, o)
		}
		return append(dst, ']')
	case Object:
		order := make([]int, len(v.Keys))
		for i := range order {
			order[i] = i
		}
		if o.SortKeys {
			for i := 1; i < len(order); i++ {
				for j := i; j > 0 && v.Keys[order[j]] < v.Keys[order[j-1]]; j-- {
					order[j], order[j-1] = order[j-1], order[j]
				}
			}
		}
		dst = append(dst, '{')
		for n, i := range order {
			if n > 0 {
				dst = appendSep(dst, ',', o.Compact)
			}
			dst = appendDumpString(dst, v.Keys[i], o.EnsureASCII)
			dst = appendSep(dst, ':', o.Compact)
			dst = AppendDumps(dst, v.Items[i], o)
		}
		return append(dst, '}')
	}
	return dst
}

func appendSep(dst []byte, c byte, compact bool) []byte {
	if compact {
		return append(dst, c)
	}
	return append(dst, c, ' ')
}

// appendDumpString writes a str as json.dumps does, with or without
// ensure_ascii.
func appendDumpString(dst []byte, s string, ascii bool) []byte {
	if ascii {
		return jsonstr.AppendASCII(dst, s)
	}
	return jsonstr.Append(dst, s)
}

// AppendJSON appends compact standard JSON (no spaces, non-ASCII kept,
// key order kept); NaN and infinities, which standard JSON lacks, are
// written as null.
func AppendJSON(dst []byte, v Value) []byte {
	switch v.Kind {
	case Int:
		return appendIntLiteral(dst, v.Str)
	case Float:
		if !v.Finite() {
			return append(dst, "null"...)
		}
		return append(dst, v.Str...)
	case Array:
		dst = append(dst, '[')
		for i, it := range v.Items {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSON(dst, it)
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		for i, k := range v.Keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendDumpString(dst, k, false)
			dst = append(dst, ':')
			dst = AppendJSON(dst, v.Items[i])
		}
		return append(dst, '}')
	}
	return AppendDumps(dst, v, DumpOptions{Compact: true})
}
