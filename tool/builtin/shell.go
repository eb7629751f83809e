package builtin

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"mvdan.cc/sh/v3/syntax"
)

// The command lists of the reference's Bash analysis
// (tool/_builtin/_bash_parser.py, tool/_constants.py) that remain: its
// dangerous patterns and the commands whose words are file targets.
var (
	dangerousCommands = []string{
		"rm -rf", "sudo rm", "dd", "mkfs", "fdisk", "format", "chmod 777",
		"chmod -R 777", "chown -R", "kill -9", "> /dev/",
	}

	// fileCommands are the commands whose non-flag word arguments are
	// file targets.
	fileCommands = []string{"rm", "mv", "cp", "chmod", "chown", "chgrp", "touch", "ln", "sed", "mkdir", "rmdir"}
)

// DefaultDangerousFiles are the file names (matched case-insensitively on
// the base name, or on the last segments for a name with a slash) whose
// edits always need the user's confirmation.
var DefaultDangerousFiles = []string{
	".gitconfig", ".gitmodules", ".git-credentials", ".config/git/config", ".config/git/credentials",
	".config/git/attributes", ".config/git/ignore", ".bashrc", ".bash_profile", ".bash_login",
	".bash_logout", ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".config/go/env",
	".profile", ".ssh/config", ".ssh/authorized_keys", ".netrc", ".npmrc", ".pypirc",
	".env", ".envrc", ".env.local", ".env.development", ".env.development.local",
	".env.test", ".env.test.local", ".env.staging", ".env.production",
	".env.production.local",
}

// DefaultDangerousDirectories are the directory names (matched
// case-insensitively on any path segment) whose contents always need the
// user's confirmation.
var DefaultDangerousDirectories = []string{".git", ".vscode", ".idea", ".ssh"}

// script is one parsed command line. A command the parser rejects has a
// nil file: the reference's tree-sitter parser never fails (it builds error
// nodes), so where it would still find commands we find none and the
// injection check asks instead.
type script struct {
	src  string
	file *syntax.File
}

// parsedBytes counts the bytes given to the parser, so tests can check
// that one analysis parses no more than a constant multiple of its input.
var parsedBytes atomic.Int64

// parseCache keeps the trees of recent short commands: the engine asks
// the tool several questions about one command (read-only, its own check,
// rules, suggestions) and each step of the check looks at the tree again.
// Trees are only read once built, so sharing them is safe.
var parseCache struct {
	sync.Mutex
	m map[string]*syntax.File // nil value: the parser rejected it
}

const (
	parseCacheEntries = 16
	parseCacheMaxLen  = 4096
)

func parse(src string) script {
	if len(src) <= parseCacheMaxLen {
		parseCache.Lock()
		f, ok := parseCache.m[src]
		parseCache.Unlock()
		if ok {
			return script{src: src, file: f}
		}
	}
	parsedBytes.Add(int64(len(src)))
	p := syntax.NewParser(syntax.Variant(interp().lang))
	f, err := p.Parse(strings.NewReader(src), "")
	if err != nil {
		f = nil
	}
	if len(src) <= parseCacheMaxLen {
		parseCache.Lock()
		if parseCache.m == nil || len(parseCache.m) >= parseCacheEntries {
			parseCache.m = make(map[string]*syntax.File, parseCacheEntries)
		}
		parseCache.m[src] = f
		parseCache.Unlock()
	}
	return script{src: src, file: f}
}

func (s script) text(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(s.src) || start > end {
		return ""
	}
	return s.src[start:end]
}

// nodeKind names a construct as tree-sitter-bash's node types do, for the
// constructs the injection check rejects ("" for the others).
func nodeKind(n syntax.Node) string {
	switch x := n.(type) {
	case *syntax.CmdSubst:
		return "command_substitution"
	case *syntax.ProcSubst:
		return "process_substitution"
	case *syntax.ParamExp:
		// $VAR is a simple_expansion, which the reference lets through;
		// ${…} is an expansion.
		if !x.Short {
			return "expansion"
		}
	case *syntax.Subshell:
		return "subshell"
	case *syntax.ForClause:
		return "for_statement"
	case *syntax.WhileClause:
		if x.Until {
			return "until_statement"
		}
		return "while_statement"
	case *syntax.IfClause:
		return "if_statement"
	case *syntax.CaseClause:
		return "case_statement"
	case *syntax.FuncDecl:
		return "function_definition"
	case *syntax.TestClause, *syntax.ArithmCmd:
		return "test_command"
	case *syntax.ArithmExp:
		// bash evaluates a name in arithmetic as an expression of its own,
		// an array subscript in it included: $((x)) runs a[$(cmd)] held
		// in x ($_ too). Only literal numbers are judged.
		if arithmHasName(x.X) {
			return "arithmetic_expansion"
		}
	case *syntax.CallExpr:
		// tree-sitter parses `[ … ]` as a test_command, not a command.
		if len(x.Args) > 0 && litWord(x.Args[0]) == "[" {
			return "test_command"
		}
	}
	return ""
}

// arithmHasName reports whether an arithmetic expression names a
// variable (or holds anything but literal numbers and operators).
func arithmHasName(x syntax.ArithmExpr) bool {
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		switch y := n.(type) {
		case *syntax.Word:
			for _, p := range y.Parts {
				l, ok := p.(*syntax.Lit)
				if !ok || !isArithNumber(l.Value) {
					found = true
				}
			}
			return false
		case *syntax.ParamExp, *syntax.CmdSubst:
			found = true
		}
		return !found
	})
	return found
}

// isArithNumber reports whether v is a literal number of bash arithmetic
// (decimal, 0x…, 0…, base#…).
func isArithNumber(v string) bool {
	if v == "" {
		return false
	}
	for _, r := range v {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' || r == 'x' || r == 'X' || r == '#') {
			return false
		}
	}
	return v[0] >= '0' && v[0] <= '9'
}

// InjectionRisk returns why command cannot be analysed statically
// (command or process substitution, ${…} expansion, subshell, control
// flow, function definition, test command, or a parse failure), or "".
func InjectionRisk(command string) string {
	if len(command) > MaxAnalysedCommand {
		return fmt.Sprintf("Command is longer than %d bytes, too long to analyze", MaxAnalysedCommand)
	}
	if strings.Contains(command, "\\\n") || strings.Contains(command, "\\\r\n") {
		// Where bash and the parser read a line continuation differently
		// (in a comment, after a $ in quotes, in a here-document's end
		// line), a line would run what was not judged; none is judged.
		return "Command contains line_continuation which cannot be statically analyzed"
	}
	s := parse(command)
	if s.file == nil {
		return "Command parsing failed, cannot verify safety"
	}
	var kind string
	syntax.Walk(s.file, func(n syntax.Node) bool {
		if kind != "" || n == nil {
			return false
		}
		kind = nodeKind(n)
		return kind == ""
	})
	if kind == "" {
		return ""
	}
	return "Command contains " + kind + " which cannot be statically analyzed"
}

// litWord returns the text of a word made of one unquoted literal, or "".
func litWord(w *syntax.Word) string {
	if w == nil || len(w.Parts) != 1 {
		return ""
	}
	if l, ok := w.Parts[0].(*syntax.Lit); ok {
		return l.Value
	}
	return ""
}

// isWord reports whether w is what tree-sitter-bash calls a word: one
// unquoted literal that is not a number (its "number" node takes an
// optional minus and digits).
func isWord(w *syntax.Word) bool {
	v := litWord(w)
	if v == "" {
		return false
	}
	return !isNumber(v)
}

func isNumber(v string) bool {
	v = strings.TrimPrefix(v, "-")
	if v == "" {
		return false
	}
	for _, r := range v {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// commands lists the simple commands of s in source order, as the
// reference's tree-sitter "command" nodes: calls with a command word,
// not declarations (export, local, …) or `unset`, which tree-sitter gives
// node types of their own.
func (s script) commands() []*syntax.CallExpr {
	if s.file == nil {
		return nil
	}
	var out []*syntax.CallExpr
	syntax.Walk(s.file, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			switch litWord(c.Args[0]) {
			case "unset", "unsetenv", "[":
			default:
				out = append(out, c)
			}
		}
		return true
	})
	return out
}

// subcommands is the reference's split_compound_command: the text of
// every simple command, or the whole command when there is none.
func subcommands(command string) []string {
	s := parse(command)
	var out []string
	for _, c := range s.commands() {
		out = append(out, s.text(c))
	}
	if len(out) == 0 {
		return []string{command}
	}
	return out
}

// DangerousPattern returns the first dangerous pattern command contains
// ("rm -rf", "dd", "> /dev/", …), or "". Whitespace runs count as one
// space; the short single words (dd, mkfs) match on word boundaries, the
// others as substrings — so "format" also matches "--format", as in the
// reference.
func DangerousPattern(command string) string {
	normalized := strings.Join(strings.Fields(command), " ")
	for _, p := range dangerousCommands {
		if !strings.Contains(p, " ") && len(p) <= 4 {
			if containsWord(normalized, p) {
				return p
			}
		} else if strings.Contains(normalized, p) {
			return p
		}
	}
	return ""
}

// containsWord is Python's re.search(r"\bP\b") for a pattern P of word
// characters (Unicode letters, digits and underscore).
func containsWord(s, p string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], p)
		if j < 0 {
			return false
		}
		at := i + j
		if !wordBefore(s[:at]) && !wordAfter(s[at+len(p):]) {
			return true
		}
		i = at + 1
	}
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func wordBefore(s string) bool {
	if s == "" {
		return false
	}
	r := []rune(s[max(0, len(s)-4):])
	return isWordRune(r[len(r)-1])
}

func wordAfter(s string) bool {
	for _, r := range s {
		return isWordRune(r)
	}
	return false
}

// FilePaths returns the file targets of command as (command, path) pairs:
// the unquoted word arguments that are not flags of rm, mv, cp, chmod,
// chown, chgrp, touch, ln, sed, mkdir and rmdir, and the targets of
// redirections ("redirect"). Like the reference, quoted or expanded words
// are not targets.
func FilePaths(command string) [][2]string {
	s := parse(command)
	if s.file == nil {
		return pathsFallback(command)
	}
	var out [][2]string
	syntax.Walk(s.file, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Redirect:
			switch x.Op {
			case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			default:
				if isWord(x.Word) {
					out = append(out, [2]string{"redirect", strings.Trim(s.text(x.Word), `'"`)})
				}
			}
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				break
			}
			name := s.text(x.Args[0])
			if !slices.Contains(fileCommands, name) {
				break
			}
			for _, a := range x.Args[1:] {
				if !isWord(a) {
					continue
				}
				arg := strings.Trim(s.text(a), `'"`)
				if !strings.HasPrefix(arg, "-") {
					out = append(out, [2]string{name, arg})
				}
			}
		}
		return true
	})
	return out
}

// pathsFallback is the reference's token scan for a command its parser
// cannot read.
func pathsFallback(command string) [][2]string {
	var out [][2]string
	tokens := strings.Fields(command)
	for i := 0; i < len(tokens); i++ {
		t := tokens[i]
		switch t {
		case ">", ">>", "2>", "&>":
			if i+1 < len(tokens) {
				out = append(out, [2]string{"redirect", strings.Trim(tokens[i+1], `'"`)})
			}
			i++
			continue
		case "rm", "mv", "cp", "chmod", "chown", "sed", "touch", "mkdir", "rmdir":
			for _, a := range tokens[i+1:] {
				a = strings.Trim(a, `'"`)
				if !strings.HasPrefix(a, "-") {
					out = append(out, [2]string{t, a})
				}
			}
			return out
		}
	}
	return out
}

// removalTargets returns the non-flag arguments of every rm and rmdir part
// of command, quotes trimmed, as the reference splits them (on whitespace).
func removalTargets(command string) []string {
	if len(strings.Fields(command)) == 0 {
		return nil
	}
	var out []string
	for _, sub := range subcommands(command) {
		toks := strings.Fields(sub)
		if len(toks) == 0 || (toks[0] != "rm" && toks[0] != "rmdir") {
			continue
		}
		for _, t := range toks[1:] {
			if !strings.HasPrefix(t, "-") {
				out = append(out, strings.Trim(t, `'"`))
			}
		}
	}
	return out
}
