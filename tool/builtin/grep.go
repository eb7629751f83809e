package builtin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

var (
	grepDescription = pycompat.BuiltinText("grep.txt")
	grepSchema      = pycompat.BuiltinText("grep.json")
)

// DefaultHeadLimit caps Grep's results when the call gives no head_limit.
const DefaultHeadLimit = 250

var vcsDirs = []string{".git", ".svn", ".hg", ".bzr", ".jj", ".sl"}

// grepTypes are the file types Grep's "type" accepts (a subset of
// ripgrep's --type list).
var grepTypes = map[string][]string{
	"c": {"*.c", "*.h"}, "cpp": {"*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.h"},
	"css": {"*.css"}, "go": {"*.go"}, "html": {"*.html", "*.htm"},
	"java": {"*.java"}, "js": {"*.js", "*.jsx", "*.mjs", "*.cjs"},
	"json": {"*.json"}, "md": {"*.md", "*.markdown"}, "markdown": {"*.md", "*.markdown"},
	"py": {"*.py", "*.pyi"}, "rb": {"*.rb"}, "ruby": {"*.rb"}, "rust": {"*.rs"},
	"sh": {"*.sh", "*.bash"}, "sql": {"*.sql"}, "toml": {"*.toml"},
	"ts": {"*.ts", "*.tsx", "*.mts", "*.cts"}, "txt": {"*.txt"},
	"yaml": {"*.yaml", "*.yml"}, "xml": {"*.xml"},
}

// Grep searches file contents with a regular expression, in the output
// formats of ripgrep (which the reference runs). Differences: Go's RE2
// syntax, no .gitignore handling, a subset of --type names.
type Grep struct{ cfg Config }

// NewGrep returns the Grep tool.
func NewGrep(cfg Config) *Grep { return &Grep{cfg: cfg} }

// Name returns "Grep".
func (*Grep) Name() string { return "Grep" }

// Description returns the reference's description.
func (*Grep) Description() string { return grepDescription }

// InputSchema returns the reference's schema (pattern, path, output_mode,
// glob, type, -A, -B, -C, context, n, i, case_insensitive, multiline,
// head_limit, offset).
func (*Grep) InputSchema() json.RawMessage { return schema(grepSchema) }

// Flags: read-only, concurrency-safe.
func (*Grep) Flags() tool.Flags { return tool.Flags{ReadOnly: true, ConcurrencySafe: true} }

// ReadOnly is always true.
func (*Grep) ReadOnly(map[string]any) bool { return true }

// CheckPermissions passes through.
func (*Grep) CheckPermissions(context.Context, map[string]any, *permission.Context) permission.Decision {
	return permission.Decision{Behavior: block.Passthrough, Message: "Content search is read-only."}
}

// MatchRule matches the content (an fnmatch glob) against path, or the
// search directory when there is none.
func (g *Grep) MatchRule(content string, input map[string]any) bool {
	p := stringArg(input, "path")
	if p == "" {
		p = cwd(g.cfg.Dir)
	}
	return fnmatch(p, content)
}

// SuggestRules proposes the absolute search directory with "/**".
func (g *Grep) SuggestRules(input map[string]any) []block.PermissionRule {
	return suggestDir("Grep", g.cfg.Dir, input)
}

type grepOpts struct {
	mode          string
	re            *regexp.Regexp
	multiline     bool
	lineNumbers   bool
	before, after int
	globs         []string
	types         []string
	single        bool
}

// Call searches. Results are paths (files_with_matches), "path:count"
// (count) or matching lines "path:line:text" with "-" for context lines
// and "--" between groups (content); a single searched file drops the
// path. head_limit (default 250, 0 for all) and offset page the result.
func (g *Grep) Call(ctx context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
	pattern := stringArg(input, "pattern")
	root := stringArg(input, "path")
	if root == "" {
		root = cwd(g.cfg.Dir)
	} else if !filepath.IsAbs(root) && g.cfg.Dir != "" {
		root = filepath.Join(g.cfg.Dir, root)
	}
	headLimit, hasLimit := -1, false
	if _, ok := input["head_limit"]; ok {
		headLimit, hasLimit = intArg(input, "head_limit", 0), true
	}
	offset := intArg(input, "offset", 0)
	if hasLimit && headLimit < 0 {
		return errorText("Error: head_limit must be non-negative.")
	}
	if offset < 0 {
		return errorText("Error: offset must be non-negative.")
	}
	o := grepOpts{mode: stringArg(input, "output_mode"), multiline: boolArg(input, "multiline", false), lineNumbers: boolArg(input, "n", true)}
	if o.mode == "" {
		o.mode = "files_with_matches"
	}
	flags := ""
	if boolArg(input, "i", false) || boolArg(input, "case_insensitive", false) {
		flags += "i"
	}
	if o.multiline {
		flags += "s"
	}
	src := pattern
	if flags != "" {
		src = "(?" + flags + ")" + src
	}
	if !o.multiline {
		src = "(?m)" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return errorText("ripgrep error (code 2): regex parse error: %v", err)
	}
	o.re = re
	if o.mode == "content" {
		_, hasCtx := input["context"]
		_, hasC := input["-C"]
		switch {
		case hasCtx:
			o.before = intArg(input, "context", 0)
			o.after = o.before
		case hasC:
			o.before = intArg(input, "-C", 0)
			o.after = o.before
		default:
			o.before, o.after = intArg(input, "-B", 0), intArg(input, "-A", 0)
		}
	}
	if t := stringArg(input, "type"); t != "" {
		ts, ok := grepTypes[t]
		if !ok {
			return errorText("ripgrep error (code 2): unrecognized file type: %s", t)
		}
		o.types = ts
	}
	if gl := stringArg(input, "glob"); gl != "" {
		for _, raw := range strings.Fields(gl) {
			if strings.Contains(raw, "{") && strings.Contains(raw, "}") {
				o.globs = append(o.globs, raw)
				continue
			}
			for _, p := range strings.Split(raw, ",") {
				if p != "" {
					o.globs = append(o.globs, p)
				}
			}
		}
	}
	fi, err := os.Stat(root)
	if err != nil {
		return errorText("ripgrep error (code 2): %s: No such file or directory (os error 2)", root)
	}
	var results []string
	if !fi.IsDir() {
		o.single = true
		results = grepFile(root, root, o)
	} else {
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if ctx.Err() != nil {
				return filepath.SkipAll
			}
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != root && slices.Contains(vcsDirs, d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !o.wants(root, p) {
				return nil
			}
			results = append(results, grepFile(p, p, o)...)
			return nil
		})
	}
	if len(results) == 0 {
		return once(tool.Chunk{Content: []block.Block{block.NewText("No matches found for pattern: " + pattern)}, State: block.ResultSuccess})
	}
	limit := DefaultHeadLimit
	if hasLimit {
		limit = headLimit
	}
	var page []string
	suffix := ""
	if limit == 0 {
		page = results[min(offset, len(results)):]
	} else {
		page = results[min(offset, len(results)):min(offset+limit, len(results))]
		if len(results)-offset > limit {
			suffix = fmt.Sprintf("\n\n[Showing results with pagination = limit: %d", limit)
			if offset != 0 {
				suffix += fmt.Sprintf(", offset: %d", offset)
			}
			suffix += "]"
		}
	}
	return once(tool.Chunk{Content: []block.Block{block.NewText(strings.Join(page, "\n") + suffix)}, State: block.ResultSuccess})
}

// wants applies the type and glob filters to a file found under root.
func (o grepOpts) wants(root, p string) bool {
	name := filepath.Base(p)
	rel, _ := filepath.Rel(root, p)
	if len(o.types) > 0 && !slices.ContainsFunc(o.types, func(g string) bool { return fnmatch(name, g) }) {
		return false
	}
	positive, matched := false, false
	for _, g := range o.globs {
		neg := strings.HasPrefix(g, "!")
		g = strings.TrimPrefix(g, "!")
		hit := globMatch(g, name, rel)
		if neg {
			if hit {
				return false
			}
			continue
		}
		positive = true
		matched = matched || hit
	}
	return !positive || matched
}

// globMatch is a ripgrep glob: without "/" it matches the base name,
// with one the path relative to the search root; {a,b} alternates.
func globMatch(g, name, rel string) bool {
	for _, alt := range expandBraces(g) {
		target := name
		if strings.Contains(alt, "/") {
			target = filepath.ToSlash(rel)
			alt = strings.TrimPrefix(alt, "/")
		}
		if fnmatch(target, strings.ReplaceAll(alt, "**/", "*")) || fnmatch(target, alt) {
			return true
		}
	}
	return false
}

func expandBraces(g string) []string {
	i := strings.IndexByte(g, '{')
	j := strings.IndexByte(g, '}')
	if i < 0 || j < i {
		return []string{g}
	}
	var out []string
	for _, alt := range strings.Split(g[i+1:j], ",") {
		out = append(out, expandBraces(g[:i]+alt+g[j+1:])...)
	}
	return out
}

const maxColumns = 500

// Grep's memory bounds: a line is matched on its first maxLineBytes
// bytes, and a multiline search reads at most maxMultilineBytes of a file.
const (
	maxLineBytes      = 1 << 20
	maxMultilineBytes = 64 << 20
)

// grepFile returns the result lines of one file. Binary files (a NUL in
// their first 8 KB) are skipped, as ripgrep does. Line by line searches
// stream the file; only the context lines before a match are held.
func grepFile(p, label string, o grepOpts) []string {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64*1024)
	if head, _ := br.Peek(8192); bytes.IndexByte(head, 0) >= 0 {
		return nil
	}
	if o.multiline {
		data, err := io.ReadAll(io.LimitReader(br, maxMultilineBytes))
		if err != nil {
			return nil
		}
		return grepMultiline(string(data), label, o)
	}
	g := lineGrep{o: o, label: label, lastShown: -2}
	for n := 0; ; n++ {
		raw, eof, err := readCappedLine(br, maxLineBytes, nil)
		if err != nil || raw == nil {
			break
		}
		line := strings.TrimSuffix(strings.TrimSuffix(string(raw), "\n"), "\r")
		if eof && line == "" && len(raw) == 0 {
			break
		}
		matched := o.re.MatchString(line)
		if o.mode == "files_with_matches" && matched {
			return []string{label}
		}
		g.line(n, line, matched)
		if eof {
			break
		}
	}
	if o.mode == "count" {
		if g.count == 0 {
			return nil
		}
		return []string{g.prefix() + strconv.Itoa(g.count)}
	}
	return g.out
}

// lineGrep formats one file's content results as the lines go by.
type lineGrep struct {
	o         grepOpts
	label     string
	count     int
	out       []string
	before    []numbered // the last o.before lines not shown
	afterLeft int
	lastShown int
}

type numbered struct {
	n    int
	text string
}

func (g *lineGrep) prefix() string {
	if g.o.single {
		return ""
	}
	return g.label + ":"
}

func (g *lineGrep) line(n int, text string, matched bool) {
	if matched {
		g.count++
	}
	if g.o.mode != "content" {
		return
	}
	switch {
	case matched:
		for _, b := range g.before {
			g.emit(b.n, b.text, false)
		}
		g.before = g.before[:0]
		g.emit(n, text, true)
		g.afterLeft = g.o.after
	case g.afterLeft > 0:
		g.afterLeft--
		g.emit(n, text, false)
	case g.o.before > 0:
		g.before = append(g.before, numbered{n, text})
		if len(g.before) > g.o.before {
			g.before = g.before[1:]
		}
	}
}

func (g *lineGrep) emit(k int, line string, matched bool) {
	if g.lastShown >= 0 && k > g.lastShown+1 && (g.o.before > 0 || g.o.after > 0) {
		g.out = append(g.out, "--")
	}
	g.lastShown = k
	if s := formatResult(g.o, g.label, k, line, matched); s != "" {
		g.out = append(g.out, s)
	}
}

// formatResult renders one content line as ripgrep does: ":" after the
// path and number of a matching line, "-" for a context line, and long
// lines replaced by a notice (--max-columns 500).
func formatResult(o grepOpts, label string, k int, line string, matched bool) string {
	sep := "-"
	if matched {
		sep = ":"
	}
	if len(line) > maxColumns {
		if matched {
			line = fmt.Sprintf("[Omitted long line with %d matches]", max(1, len(o.re.FindAllStringIndex(line, -1))))
		} else {
			line = "[Omitted long context line]"
		}
	}
	head := ""
	if !o.single {
		head = label + sep
	}
	if o.lineNumbers {
		head += strconv.Itoa(k+1) + sep
	}
	return head + line
}

// grepMultiline searches the whole text, a match spanning lines marking
// each of them.
func grepMultiline(text, label string, o grepOpts) []string {
	ms := o.re.FindAllStringIndex(text, -1)
	if len(ms) == 0 {
		return nil
	}
	if o.mode == "files_with_matches" {
		return []string{label}
	}
	lines := splitLines(text)
	matched := make([]bool, len(lines))
	starts := lineStarts(text)
	for _, m := range ms {
		first := lineOf(starts, m[0])
		last := lineOf(starts, max(m[1]-1, m[0]))
		for k := first; k <= last && k < len(lines); k++ {
			matched[k] = true
		}
	}
	g := lineGrep{o: o, label: label, lastShown: -2}
	for k, l := range lines {
		g.line(k, l, matched[k])
	}
	if o.mode == "count" {
		// ripgrep's -c counts matching lines, in multiline mode too.
		return []string{g.prefix() + strconv.Itoa(g.count)}
	}
	return g.out
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls
}

func lineStarts(s string) []int {
	starts := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func lineOf(starts []int, off int) int {
	i, _ := slices.BinarySearch(starts, off+1)
	return i - 1
}
