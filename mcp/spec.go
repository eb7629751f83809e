package mcp

import (
	"errors"
	"fmt"
	"strings"
)

// ParseSpec reads the command-line description of a server (the CLI's
// --mcp): a URL (http:// or https://) or a command line with arguments
// ('npx -y @scope/server arg', with shell-style quotes and backslashes),
// either optionally prefixed "NAME=" to name the server (otherwise it is
// named by its serverInfo.name).
func ParseSpec(spec string) (Config, error) {
	var cfg Config
	s := strings.TrimSpace(spec)
	if i := strings.IndexByte(s, '='); i > 0 && isName(s[:i]) {
		cfg.Name, s = s[:i], strings.TrimSpace(s[i+1:])
	}
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		cfg.URL = s
		return cfg, nil
	}
	words, err := splitWords(s)
	if err != nil {
		return cfg, fmt.Errorf("%w: %q: %v", ErrConfig, spec, err)
	}
	if len(words) == 0 {
		return cfg, fmt.Errorf("%w: %q names no command or URL", ErrConfig, spec)
	}
	cfg.Command, cfg.Args = words[0], words[1:]
	return cfg, nil
}

func isName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return s != ""
}

// splitWords splits a command line like a POSIX shell would, for quotes
// and backslashes only (no expansion).
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
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
		return nil, errors.New("unterminated quote")
	case escaped:
		return nil, errors.New("trailing backslash")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
