package builtin

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// fnmatch is Python's fnmatch.fnmatch on POSIX: the whole name must
// match; "*" matches any run of characters, "/" included (so "src/**" is
// "src/*"), "?" one character, "[…]" a class ("[!…]" negated).
func fnmatch(name, pattern string) bool {
	re, err := fnmatchRegexp(pattern)
	if err != nil {
		return false
	}
	return re.MatchString(name)
}

var fnmatchCache sync.Map // pattern → *regexp.Regexp

func fnmatchRegexp(pattern string) (*regexp.Regexp, error) {
	if v, ok := fnmatchCache.Load(pattern); ok {
		return v.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(fnmatchExpr(pattern))
	if err != nil {
		return nil, err
	}
	fnmatchCache.Store(pattern, re)
	return re, nil
}

// fnmatchExpr is fnmatch.translate: pattern as a regular expression.
func fnmatchExpr(pattern string) string {
	var b strings.Builder
	b.WriteString(`(?s)\A`)
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := i + 1
			if j < len(rs) && rs[j] == '!' {
				j++
			}
			if j < len(rs) && rs[j] == ']' {
				j++
			}
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j >= len(rs) {
				b.WriteString(`\[`)
				continue
			}
			class := rs[i+1 : j]
			b.WriteByte('[')
			if len(class) > 0 && class[0] == '!' {
				b.WriteByte('^')
				class = class[1:]
			} else if len(class) > 0 && class[0] == '^' {
				b.WriteString(`\^`)
				class = class[1:]
			}
			for _, r := range class {
				if r == '\\' || r == '[' || r == ']' {
					b.WriteByte('\\')
				}
				b.WriteRune(r)
			}
			b.WriteByte(']')
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`\z`)
	return b.String()
}

// MatchCommandRule is the Bash tool's rule matcher: "X:*" covers X and
// commands starting with "X "; content without an unescaped "*" is a
// substring (after unescaping \\ and \*); content with one is an anchored
// wildcard pattern, where a trailing "*" also accepts the bare prefix.
func MatchCommandRule(content, command string) bool {
	if strings.HasSuffix(content, ":*") {
		prefix := strings.TrimSpace(content[:len(content)-2])
		return strings.HasPrefix(command, prefix+" ") || command == prefix
	}
	if !hasWildcard(content) {
		p := strings.ReplaceAll(content, `\\`, "\x00BACKSLASH\x00")
		p = strings.ReplaceAll(p, `\*`, "*")
		p = strings.ReplaceAll(p, "\x00BACKSLASH\x00", `\`)
		return strings.Contains(command, p)
	}
	const star, backslash = "\x00ESCAPED_STAR\x00", "\x00ESCAPED_BACKSLASH\x00"
	p := strings.ReplaceAll(content, `\\`, backslash)
	p = strings.ReplaceAll(p, `\*`, star)
	for _, c := range `.^$+?{}[]|()` {
		p = strings.ReplaceAll(p, string(c), `\`+string(c))
	}
	p = strings.ReplaceAll(p, "*", ".*")
	p = strings.ReplaceAll(p, star, `\*`)
	p = strings.ReplaceAll(p, backslash, `\\`)
	if base, ok := strings.CutSuffix(p, ".*"); ok {
		base = strings.TrimRight(base, " \t\n\r\f\v")
		if re, err := anchored(base); err == nil && re.MatchString(command) {
			return true
		}
	}
	re, err := anchored(p)
	if err != nil {
		return strings.Contains(command, strings.ReplaceAll(content, "*", ""))
	}
	return re.MatchString(command)
}

var anchoredCache sync.Map // expression → *regexp.Regexp

// anchored compiles a full-match expression once per process (rule
// contents are few and checked often).
func anchored(expr string) (*regexp.Regexp, error) {
	if v, ok := anchoredCache.Load(expr); ok {
		return v.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(`\A(?:` + expr + `)\z`)
	if err != nil {
		return nil, err
	}
	anchoredCache.Store(expr, re)
	return re, nil
}

func hasWildcard(p string) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '*':
			return true
		}
	}
	return false
}

// expandUser is os.path.expanduser for "~" and "~/…".
func expandUser(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return home + p[1:]
		}
	}
	return p
}

// absPath is os.path.abspath relative to dir ("" = the process's).
func absPath(p, dir string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if dir == "" {
		if wd, err := os.Getwd(); err == nil {
			dir = wd
		}
	}
	return filepath.Join(dir, p)
}

// dangerousPath reports whether path names a dangerous file (base name)
// or lies under a dangerous directory (any segment), case-insensitively,
// as written or once its symlinks are resolved (a link in the working
// directory to ~/.bashrc is as dangerous as its target).
func dangerousPath(path string, files, dirs []string) bool {
	abs := absPath(expandUser(path), "")
	if dangerousAbs(abs, files, dirs) {
		return true
	}
	// As the kernel reaches it too: link/../x is beside link's target.
	for _, res := range []string{realPath(abs), realPath(rawAbs(path, ""))} {
		if res != abs && dangerousAbs(res, files, dirs) {
			return true
		}
	}
	return false
}

func dangerousAbs(abs string, files, dirs []string) bool {
	// EqualFold, not ToLower: a case-insensitive file system also takes
	// .baſhrc for .bashrc and .GIT for .git.
	segs := strings.Split(abs, string(filepath.Separator))
	for _, f := range files {
		// A name of several segments (.config/git/config) matches the
		// path's last segments.
		parts := strings.Split(f, "/")
		if len(parts) > len(segs) {
			continue
		}
		tail, match := segs[len(segs)-len(parts):], true
		for i, p := range parts {
			match = match && strings.EqualFold(tail[i], p)
		}
		if match {
			return true
		}
	}
	for _, d := range dirs {
		for _, s := range segs {
			if strings.EqualFold(s, d) {
				return true
			}
		}
	}
	return false
}

// dangerousRemoval reports whether removing path would remove "/", the
// home directory, a direct child of "/", or everything of a directory
// ("*", "dir/*"). Symlinks are not resolved: /tmp stays a child of root.
func dangerousRemoval(path, dir string) bool {
	switch {
	case path == "*" || path == "./*" || path == "/":
		return true
	case strings.HasSuffix(path, "/*") || strings.HasSuffix(path, `\*`):
		return true
	}
	abs := absPath(expandUser(path), dir)
	if home, err := os.UserHomeDir(); err == nil && abs == filepath.Clean(home) {
		return true
	}
	parent := filepath.Dir(abs)
	return abs == parent || filepath.Dir(parent) == parent
}
