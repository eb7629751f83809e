package builtin

import (
	"errors"
	"regexp"
	"strings"
	"sync"
)

// shlexSplit is Python's shlex.split(s) (POSIX mode, no comments): words
// split on whitespace, single quotes literal, double quotes with \" and \\
// escapes, a backslash outside quotes escaping the next character.
func shlexSplit(s string) ([]string, error) {
	var (
		out     []string
		cur     strings.Builder
		inWord  bool
		quote   rune // 0, '\'' or '"'
		escaped bool
		escInDQ bool
	)
	for _, r := range s {
		switch {
		case escaped:
			if escInDQ && r != '"' && r != '\\' {
				cur.WriteRune('\\')
			}
			cur.WriteRune(r)
			escaped, escInDQ = false, false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped, escInDQ = true, true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	switch {
	case quote != 0:
		return nil, errors.New("No closing quotation")
	case escaped:
		return nil, errors.New("No escaped character")
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

var (
	sedWrite   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/[wW]\s+\S+`) })
	sedExecute = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/[eE](?:\s|$)`) })
	sedLine    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+p\n?$`) })
	sedRange   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+,\d+p\n?$`) })
)

// SedViolation returns why a sed invocation in command is outside the
// reference's allow-list, or "": flags only -n -E -e -i; expressions only
// Np / N,Mp (with -n) or s/…/…/ with g, p and digit flags (also s| and
// s#); no w/W/e/E commands, braces, negation or comments; no -i on a
// dangerous file. Any command containing "sed" is looked at, so "npm
// install sed" is one without an expression, as in the reference.
func SedViolation(command string, dangerousFiles []string) string {
	if !strings.Contains(command, "sed") {
		return ""
	}
	tokens, err := shlexSplit(command)
	if err != nil {
		return "sed command has invalid shell syntax"
	}
	at := -1
	for i, t := range tokens {
		if t == "sed" || strings.HasSuffix(t, "/sed") {
			at = i
			break
		}
	}
	if at < 0 {
		return ""
	}
	args := tokens[at+1:]
	var flags []rune
	var exprs, files []string
	foundExpr := false
	skipsBackup := func(next string) bool {
		return !strings.HasPrefix(next, "-") && !strings.HasPrefix(next, "s") && !strings.Contains(next, ".")
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case strings.HasPrefix(arg, "-") && !strings.HasPrefix(arg, "--"):
			chars := arg[1:]
			flags = append(flags, []rune(chars)...)
			if strings.Contains(chars, "i") && i+1 < len(args) && skipsBackup(args[i+1]) {
				i++
			}
		case arg == "--in-place":
			flags = append(flags, 'i')
			if i+1 < len(args) && skipsBackup(args[i+1]) {
				i++
			}
		case arg == "--expression":
			if i+1 < len(args) {
				exprs = append(exprs, args[i+1])
				i++
			}
		case !strings.HasPrefix(arg, "-"):
			if !foundExpr {
				exprs = append(exprs, arg)
				foundExpr = true
			} else {
				files = append(files, arg)
			}
		}
	}
	// The reference tests "-e" in its first branch, which any single-dash
	// argument takes, so "-e EXPR" adds the flag e and EXPR becomes the
	// first positional expression; reproduced as written.
	if len(exprs) == 0 {
		return "sed command missing expression"
	}
	hasN, hasI := false, false
	for _, f := range flags {
		switch f {
		case 'n':
			hasN = true
		case 'i':
			hasI = true
		case 'E', 'e':
		default:
			return "sed flag -" + string(f) + " not allowed"
		}
	}
	for _, e := range exprs {
		if v := sedExprViolation(e, hasN); v != "" {
			return v
		}
	}
	if hasI {
		for _, f := range files {
			for _, d := range dangerousFiles {
				if strings.Contains(f, d) || strings.HasSuffix(f, d) {
					return "sed -i modifying dangerous file: " + f
				}
			}
		}
	}
	return ""
}

func sedExprViolation(e string, hasN bool) string {
	switch {
	case sedWrite().MatchString(e) || strings.HasSuffix(e, "/w") || strings.HasSuffix(e, "/W"):
		return "sed write operation (w/W) not allowed"
	case sedExecute().MatchString(e) || strings.HasSuffix(e, "/e") || strings.HasSuffix(e, "/E"):
		return "sed execute operation (e/E) not allowed"
	case strings.ContainsAny(e, "{}"):
		return "sed curly braces not allowed"
	case strings.HasPrefix(e, "!"):
		return "sed negation (!) not allowed"
	case strings.Contains(e, "#") && !strings.HasPrefix(e, "s#"):
		return "sed comments not allowed"
	}
	if hasN && (sedLine().MatchString(e) || sedRange().MatchString(e)) {
		return ""
	}
	if strings.HasPrefix(e, "s/") || strings.HasPrefix(e, "s|") || strings.HasPrefix(e, "s#") {
		parts := strings.Split(e[2:], e[1:2])
		if len(parts) == 2 {
			return ""
		}
		if len(parts) > 2 && strings.Trim(parts[2], "gp0123456789") == "" {
			return ""
		}
	}
	return "sed expression '" + e + "' not in allowlist"
}
