package agui

import (
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/wire"
)

// The AG-UI objects are written by hand, field by field, so their key order
// is fixed (the one of the reference's pydantic models, which is also the
// order of @ag-ui/core's schemas) and a streamed token costs no allocation.
// Every key is a constant that needs no escaping; every value goes through
// wire.AppendString, pydantic's spelling (ensure_ascii=False), so text is
// written as the reference writes it.

// head opens an AG-UI object with its type.
func head(dst []byte, typ string) []byte {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, typ...)
	return append(dst, '"')
}

// str appends ,"key":"v".
func str(dst []byte, key, v string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':')
	return wire.AppendString(dst, v)
}

// key appends ,"key": for a value the caller writes.
func key(dst []byte, k string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, k...)
	return append(dst, '"', ':')
}

// end closes an object and its line.
func end(dst []byte) []byte { return append(dst, '}', '\n') }

// snake is the reference's name of an event type in a CUSTOM event: the
// type tag in lower case ("TOOL_RESULT_START" -> "tool_result_start").
func snake(dst []byte, t event.Type) []byte {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// appendCustom appends CUSTOM{name, value: the event's dict}. The value is
// what the reference's event.model_dump(exclude_none=True) gives: the
// event's own JSON without the members that are null, in the event's
// models and the models nested in them (tool calls, results, rules, data
// sources), but not inside the dict-typed fields (metadata, a CUSTOM's
// value), since pydantic's exclude_none applies to model fields only.
func appendCustom(dst []byte, name []byte, e event.Event, scratch *[]byte) []byte {
	dst = head(dst, "CUSTOM")
	dst = append(dst, `,"name":`...)
	dst = wire.AppendString(dst, string(name))
	dst = append(dst, `,"value":`...)
	*scratch = e.AppendJSON((*scratch)[:0])
	dst = stripNulls(dst, *scratch)
	return end(dst)
}

// stripNulls appends src, one JSON value, with the null members of its
// objects left out, except inside the members named metadata or value,
// which are dicts, not models, in every native event and block, and are
// copied as they are. src is the output of an AppendJSON; text that is not
// JSON is copied as far as it can be read, never past its end.
func stripNulls(dst, src []byte) []byte {
	_, dst = stripValue(dst, src, 0)
	return dst
}

func stripValue(dst, src []byte, i int) (int, []byte) {
	i = skipSpace(src, i)
	if i >= len(src) {
		return i, dst
	}
	switch src[i] {
	case '{':
		return stripObject(dst, src, i)
	case '[':
		return stripArray(dst, src, i)
	}
	j := skipValue(src, i)
	return j, append(dst, src[i:j]...)
}

func stripObject(dst, src []byte, i int) (int, []byte) {
	dst = append(dst, '{')
	i++
	first := true
	for {
		i = skipSpace(src, i)
		if i >= len(src) {
			return i, append(dst, '}')
		}
		if src[i] == '}' {
			return i + 1, append(dst, '}')
		}
		if src[i] == ',' {
			i++
			continue
		}
		ks := i
		ke := skipValue(src, i)
		if ke == ks { // not a key: stop rather than loop
			return len(src), append(dst, '}')
		}
		i = skipSpace(src, ke)
		if i < len(src) && src[i] == ':' {
			i++
		}
		vs := skipSpace(src, i)
		ve := skipValue(src, vs)
		k := string(src[ks:ke])
		switch {
		case k == `"metadata"` || k == `"value"`:
			if !first {
				dst = append(dst, ',')
			}
			dst = append(dst, src[ks:ke]...)
			dst = append(dst, ':')
			dst = append(dst, src[vs:ve]...)
			i = ve
		case ve-vs == 4 && string(src[vs:ve]) == "null":
			i = ve
			continue
		default:
			if !first {
				dst = append(dst, ',')
			}
			dst = append(dst, src[ks:ke]...)
			dst = append(dst, ':')
			i, dst = stripValue(dst, src, vs)
		}
		first = false
	}
}

func stripArray(dst, src []byte, i int) (int, []byte) {
	dst = append(dst, '[')
	i++
	first := true
	for {
		i = skipSpace(src, i)
		if i >= len(src) {
			return i, append(dst, ']')
		}
		if src[i] == ']' {
			return i + 1, append(dst, ']')
		}
		if src[i] == ',' {
			i++
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		start := i
		i, dst = stripValue(dst, src, i)
		if i == start { // not a value: stop rather than loop
			return len(src), append(dst, ']')
		}
	}
}

func skipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the value at i: a string, an object or an
// array (strings inside skipped), or a literal or number (up to the next
// delimiter).
func skipValue(src []byte, i int) int {
	if i >= len(src) {
		return i
	}
	switch src[i] {
	case '"':
		return skipString(src, i)
	case '{', '[':
		depth := 0
		for i < len(src) {
			switch src[i] {
			case '"':
				i = skipString(src, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(src) {
		switch src[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r', ':':
			return i
		}
		i++
	}
	return i
}

func skipString(src []byte, i int) int {
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}
