package toolinput

import (
	"bytes"
	"encoding/json"
	"strings"
)

// maxAttempts bounds the cut points tried when repairing, so a large broken
// input costs O(n·maxAttempts) at worst.
const maxAttempts = 64

// Object returns raw as a compact JSON object. Empty or whitespace-only
// text is {}. repaired reports that the text was not a valid object as
// given; the result is then the best repair, or {} when nothing parsed.
func Object(raw string) (obj json.RawMessage, repaired bool) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return json.RawMessage("{}"), false
	}
	if isObject(s) {
		return compact(s), false
	}
	if r, ok := repair(s); ok {
		return compact(r), true
	}
	return json.RawMessage("{}"), true
}

func isObject(s string) bool {
	return s[0] == '{' && json.Valid([]byte(s))
}

func compact(s string) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return json.RawMessage(s)
	}
	return buf.Bytes()
}

// checkpoint is a prefix length after which the text can be closed by
// appending closers (the still-open brackets, innermost first).
type checkpoint struct {
	at      int
	closers string
}

// repair completes a truncated JSON object. It scans once, remembering
// where the text could be cut cleanly (after an opening bracket, before a
// comma), then tries the whole text first and those cuts from the end.
func repair(s string) (string, bool) {
	if s[0] != '{' {
		return "", false
	}
	var stack []byte
	var cps []checkpoint
	closers := func() string {
		b := make([]byte, len(stack))
		for i, c := range stack {
			b[len(stack)-1-i] = c
		}
		return string(b)
	}
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
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
		case '"':
			inStr = true
		case '{':
			stack = append(stack, '}')
			cps = append(cps, checkpoint{i + 1, closers()})
		case '[':
			stack = append(stack, ']')
			cps = append(cps, checkpoint{i + 1, closers()})
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return "", false // not a truncation: the text is malformed
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 && strings.TrimSpace(s[i+1:]) != "" {
				return "", false // trailing garbage after the object
			}
		case ',':
			cps = append(cps, checkpoint{i, closers()})
		}
	}
	// The whole text, with an open string closed (minus a dangling escape
	// or a partial \u sequence).
	tail := s
	if inStr {
		tail = trimPartialEscape(tail) + `"`
	}
	if c := tail + closers(); isObject(c) {
		return c, true
	}
	for k, n := len(cps)-1, 0; k >= 0 && n < maxAttempts; k, n = k-1, n+1 {
		c := strings.TrimRight(s[:cps[k].at], " \t\r\n") + cps[k].closers
		if isObject(c) {
			return c, true
		}
	}
	return "", false
}

func trimPartialEscape(s string) string {
	if i := strings.LastIndex(s, `\`); i >= 0 {
		// An escape is complete when it is \X or \uXXXX; count the
		// backslashes before it, since "\\" is a finished escape.
		n := 0
		for j := i; j >= 0 && s[j] == '\\'; j-- {
			n++
		}
		rest := s[i+1:]
		switch {
		case n%2 == 1 && rest == "":
			return s[:i]
		case n%2 == 1 && rest[0] == 'u' && len(rest) < 5:
			return s[:i]
		}
	}
	return s
}
