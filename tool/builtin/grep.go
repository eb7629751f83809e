package builtin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
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

// ReadOnly is true but when the search path is a secret path
// ([Config.SecretPath]); secret files below it are skipped, not asked
// for.
func (g *Grep) ReadOnly(input map[string]any) bool { return g.secretPath(input) == "" }

// CheckPermissions asks, as Read does, when the search path is a secret
// path; else it passes through.
func (g *Grep) CheckPermissions(_ context.Context, input map[string]any, _ *permission.Context) permission.Decision {
	if why := g.secretPath(input); why != "" {
		return secretAsk("Grep", searchPath(g.cfg.Dir, stringArg(input, "path")), why)
	}
	return permission.Decision{Behavior: block.Passthrough, Message: "Content search is read-only."}
}

func (g *Grep) secretPath(input map[string]any) string {
	return g.cfg.SecretPath(searchPath(g.cfg.Dir, stringArg(input, "path")), "")
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
	globs         []grepGlob
	types         []string
	single        bool
	// lineKeep is how much of a line is matched, fileKeep how much of a
	// file a multiline search reads (see grepWork).
	lineKeep int
	fileKeep int64
}

// Call searches. Results are paths (files_with_matches), "path:count"
// (count) or matching lines "path:line:text" with "-" for context lines
// and "--" between groups (content); a single searched file drops the
// path. head_limit (default 250, 0 for all) and offset page the result.
// The search stops at Config.SearchTimeout, Config.GrepMaxFiles,
// Config.GrepMaxBytes or GrepMaxResults collected results, saying so
// after the results; it does not enter /proc, /dev or /sys from outside
// them, and opens no secret file ([Config.SecretPath]) unless the search
// path itself is one (a search the user confirmed).
func (g *Grep) Call(ctx context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
	pattern := stringArg(input, "pattern")
	root := searchPath(g.cfg.Dir, stringArg(input, "path"))
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
	re, size, err := compileGrep(src)
	if err != nil {
		return errorText("ripgrep error (code 2): %v", err)
	}
	o.re = re
	o.lineKeep = min(maxLineBytes, max(minKeep, grepLineWork/size))
	o.fileKeep = int64(min(maxMultilineBytes, max(minKeep, grepFileWork/size)))
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
		// No more context can be shown than results collected; the
		// lines before a match are held until it comes.
		o.before = min(o.before, GrepMaxResults)
	}
	if t := stringArg(input, "type"); t != "" {
		ts, ok := grepTypes[t]
		if !ok {
			return errorText("ripgrep error (code 2): unrecognized file type: %s", t)
		}
		o.types = ts
	}
	if gl := stringArg(input, "glob"); gl != "" {
		var raws []string
		for _, raw := range strings.Fields(gl) {
			if strings.Contains(raw, "{") && strings.Contains(raw, "}") {
				raws = append(raws, raw)
				continue
			}
			for _, p := range strings.Split(raw, ",") {
				if p != "" {
					raws = append(raws, p)
				}
			}
		}
		globs, err := compileGrepGlobs(raws)
		if err != nil {
			return errorText("ripgrep error (code 2): %v", err)
		}
		o.globs = globs
	}
	fi, err := os.Stat(root)
	if err != nil {
		return errorText("ripgrep error (code 2): %s: No such file or directory (os error 2)", root)
	}
	limit := DefaultHeadLimit
	if hasLimit {
		limit = headLimit
	}
	budget := g.cfg.searchTimeout()
	sctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	s := &grepSearch{
		ctx: sctx, o: o, cfg: g.cfg, need: maxInt,
		maxFiles: g.cfg.grepMaxFiles(), maxBytes: g.cfg.grepMaxBytes(),
	}
	if limit > 0 {
		// Enough for the page and to know whether another follows.
		s.need = addSat(addSat(offset, limit), 1)
	}
	if !fi.IsDir() {
		s.o.single = true
		if err := s.file(root); errors.Is(err, errNotRegular) {
			return errorText("ripgrep error (code 2): %s: not a regular file", root)
		}
	} else {
		s.walk(root)
	}
	if ctx.Err() != nil {
		return errorText("Error: Grep interrupted: %v", context.Cause(ctx))
	}
	results := s.results
	note := ""
	switch {
	case errors.Is(s.stopped, context.DeadlineExceeded):
		note = timeNote(budget)
	case s.stopped == errFileBudget:
		note = fmt.Sprintf("(search stopped after %d files; results are incomplete)", s.maxFiles)
	case s.stopped == errByteBudget:
		note = fmt.Sprintf("(search stopped after reading %s; results are incomplete)", byteSize(s.maxBytes))
	case s.stopped == errResultBudget:
		note = fmt.Sprintf("(search stopped at %d results; results are incomplete)", GrepMaxResults)
	}
	if note != "" {
		note = "\n\n" + note
	}
	if len(results) == 0 {
		return once(tool.Chunk{Content: []block.Block{block.NewText("No matches found for pattern: " + pattern + note)}, State: block.ResultSuccess})
	}
	var page []string
	suffix := ""
	if limit == 0 {
		page = results[min(offset, len(results)):]
	} else {
		page = results[min(offset, len(results)):min(addSat(offset, limit), len(results))]
		if len(results)-min(offset, len(results)) > limit {
			suffix = fmt.Sprintf("\n\n[Showing results with pagination = limit: %d", limit)
			if offset != 0 {
				suffix += fmt.Sprintf(", offset: %d", offset)
			}
			suffix += "]"
		}
	}
	return once(tool.Chunk{Content: []block.Block{block.NewText(strings.Join(page, "\n") + suffix + note)}, State: block.ResultSuccess})
}

// byteSize renders a byte budget.
func byteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

var (
	errFileBudget   = errors.New("file budget reached")
	errByteBudget   = errors.New("byte budget reached")
	errResultBudget = errors.New("result budget reached")
)

// grepSearch is one Grep call's walk, its budgets and its results.
type grepSearch struct {
	ctx      context.Context
	o        grepOpts
	cfg      Config
	maxFiles int
	maxBytes int64
	need     int // results that settle the page
	files    int
	bytes    int64
	results  []string
	// stopped is why the search ended early: a budget, or ctx's error.
	stopped error
	// secrets is whether to skip secret files: not when the search path
	// is itself a secret path, which the user confirmed reading.
	secrets  bool
	absRoot  string
	realRoot string
}

func (s *grepSearch) done() bool {
	if s.stopped == nil {
		s.stopped = s.ctx.Err()
	}
	return s.stopped != nil || len(s.results) >= s.need
}

// add collects one result line; false once no more are wanted.
func (s *grepSearch) add(line string) bool {
	if s.done() {
		return false
	}
	if len(s.results) >= GrepMaxResults {
		s.stopped = errResultBudget
		return false
	}
	s.results = append(s.results, line)
	return true
}

// walk searches the regular files below root in lexical order. Symlinks
// are not followed (a link to /proc/self/environ is not read), version
// control directories are skipped, and so are /proc, /dev and /sys when
// the search started outside them.
func (s *grepSearch) walk(root string) {
	walkRoot := root
	if li, err := os.Lstat(root); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		// WalkDir does not follow a linked root; through "root/" it does.
		walkRoot = root + string(filepath.Separator)
	}
	s.absRoot = absPath(root, "")
	s.realRoot = realPath(s.absRoot)
	s.secrets = s.cfg.SecretPath(s.absRoot, "") == ""
	_ = filepath.WalkDir(walkRoot, func(p string, d fs.DirEntry, err error) error {
		if s.done() {
			return filepath.SkipAll
		}
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(walkRoot, p)
		if d.IsDir() {
			if rel != "." && (slices.Contains(vcsDirs, d.Name()) || skipVirtual(filepath.Join(s.realRoot, rel), s.realRoot)) {
				return filepath.SkipDir
			}
			if enteringDir(p) {
				return filepath.SkipDir
			}
			if s.done() {
				return filepath.SkipAll
			}
			return nil
		}
		if !d.Type().IsRegular() || !s.o.wants(root, p) {
			return nil
		}
		if s.secrets && (s.cfg.secretAbs(filepath.Join(s.absRoot, rel)) != "" || s.cfg.secretAbs(filepath.Join(s.realRoot, rel)) != "") {
			return nil
		}
		_ = s.file(p)
		return nil
	})
}

// budgetReader counts what a search reads against its byte budget and
// stops reading when the search's context ends.
type budgetReader struct {
	s *grepSearch
	r io.Reader
}

func (b budgetReader) Read(p []byte) (int, error) {
	if err := b.s.ctx.Err(); err != nil {
		return 0, err
	}
	left := b.s.maxBytes - b.s.bytes
	if left <= 0 {
		return 0, errByteBudget
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := b.r.Read(p)
	b.s.bytes += int64(n)
	return n, err
}

// file searches one file, labelled p. Binary files (a NUL in their first
// 8 KB) are skipped, as ripgrep does. Line by line searches stream the
// file; only the context lines before a match are held.
func (s *grepSearch) file(p string) error {
	if s.files >= s.maxFiles {
		s.stopped = errFileBudget
		return nil
	}
	s.files++
	f, fi, err := openRegular(p)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(budgetReader{s, f}, 64*1024)
	head, err := br.Peek(8192)
	if s.readFailed(err) || bytes.IndexByte(head, 0) >= 0 {
		return nil
	}
	g := lineGrep{o: s.o, label: p, lastShown: -2, add: s.add}
	if s.o.multiline {
		data, err := readAtMost(br, s.o.fileKeep, fi.Size())
		if s.readFailed(err) {
			return nil
		}
		s.multiline(data, &g)
		return nil
	}
	var buf []byte
	for n := 0; ; n++ {
		raw, eof, err := readCappedLine(br, s.o.lineKeep, buf[:0])
		if s.readFailed(err) || raw == nil || s.done() {
			break
		}
		buf = raw
		line := bytes.TrimSuffix(bytes.TrimSuffix(raw, []byte("\n")), []byte("\r"))
		if eof && len(raw) == 0 {
			break
		}
		matched := s.o.re.Match(line)
		if s.o.mode == "files_with_matches" && matched {
			s.add(p)
			return nil
		}
		if !g.line(n, line, matched) || eof {
			break
		}
	}
	g.finish()
	return nil
}

// readFailed notes a budget or the context ending the read, and reports
// whether the read failed (io.EOF is no failure).
func (s *grepSearch) readFailed(err error) bool {
	switch {
	case err == nil || errors.Is(err, io.EOF) || errors.Is(err, bufio.ErrBufferFull):
		return false
	case errors.Is(err, errByteBudget) || s.ctx.Err() != nil:
		if s.stopped == nil {
			s.stopped = err
		}
	}
	return true
}

// readAtMost reads up to n bytes, sized by hint (the file's size, which
// may be 0 for /proc files): growing a buffer by append copies a large
// file many times over.
func readAtMost(r io.Reader, n, hint int64) ([]byte, error) {
	buf := make([]byte, 0, min(max(hint, 0), n)+1)
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(cap(buf), int(n)-len(buf)))
		}
		k, err := r.Read(buf[len(buf):min(cap(buf), int(n))])
		buf = buf[:len(buf)+k]
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
	}
	return buf, nil
}

// multiline searches a whole text, a match spanning lines marking each of
// them. The lines are visited in one pass, none held.
func (s *grepSearch) multiline(text []byte, g *lineGrep) {
	// One more match than results can be collected shows the file
	// alone would overflow them.
	ms := s.o.re.FindAllIndex(text, GrepMaxResults+1)
	if len(ms) == 0 {
		return
	}
	if s.o.mode == "files_with_matches" {
		s.add(g.label)
		return
	}
	if len(ms) > GrepMaxResults {
		ms = ms[:GrepMaxResults]
		defer func() {
			if s.stopped == nil {
				s.stopped = errResultBudget
			}
		}()
	}
	body := bytes.TrimSuffix(text, []byte("\n"))
	mi := 0
	for k, start := 0, 0; len(body) > 0 && start <= len(body); k++ {
		end := len(body)
		if i := bytes.IndexByte(body[start:], '\n'); i >= 0 {
			end = start + i
		}
		next := end + 1 // where the next line starts
		// A match covers the lines from its start to its last byte.
		for mi < len(ms) && max(ms[mi][1]-1, ms[mi][0]) < start {
			mi++
		}
		matched := mi < len(ms) && ms[mi][0] < next
		if !g.line(k, bytes.TrimSuffix(body[start:end], []byte("\r")), matched) || s.done() {
			break
		}
		start = next
	}
	if s.o.mode == "count" {
		// ripgrep's -c counts matching lines, in multiline mode too.
		g.add(g.prefix() + strconv.Itoa(g.count))
	} else {
		g.finish()
	}
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
		hit := g.match(name, rel)
		if g.neg {
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

// grepGlob is one ripgrep glob, compiled once per call (the process-wide
// fnmatch cache is for rule patterns; a model's globs would only grow it).
type grepGlob struct {
	neg  bool
	alts []grepGlobAlt
}

type grepGlobAlt struct {
	path bool // matched against the path relative to the search root
	res  []*regexp.Regexp
}

// maxGlobAlternatives bounds what the globs of one call expand to: each
// {a,b} doubles them.
const maxGlobAlternatives = 256

func compileGrepGlobs(raws []string) ([]grepGlob, error) {
	var out []grepGlob
	total := 0
	for _, g := range raws {
		gg := grepGlob{neg: strings.HasPrefix(g, "!")}
		g = strings.TrimPrefix(g, "!")
		alts, ok := expandBraces(g, maxGlobAlternatives-total)
		if !ok {
			return nil, fmt.Errorf("glob %q: more than %d alternatives", g, maxGlobAlternatives)
		}
		total += len(alts)
		for _, alt := range alts {
			a := grepGlobAlt{}
			if strings.Contains(alt, "/") {
				a.path = true
				alt = strings.TrimPrefix(alt, "/")
			}
			for _, pat := range []string{strings.ReplaceAll(alt, "**/", "*"), alt} {
				if re, err := regexp.Compile(fnmatchExpr(pat)); err == nil {
					a.res = append(a.res, re)
				}
			}
			gg.alts = append(gg.alts, a)
		}
		out = append(out, gg)
	}
	return out, nil
}

// match is a ripgrep glob: without "/" it matches the base name, with one
// the path relative to the search root; {a,b} alternates.
func (g grepGlob) match(name, rel string) bool {
	for _, a := range g.alts {
		target := name
		if a.path {
			target = filepath.ToSlash(rel)
		}
		for _, re := range a.res {
			if re.MatchString(target) {
				return true
			}
		}
	}
	return false
}

// expandBraces expands the {a,b} groups of g, failing when that makes
// more than limit alternatives or builds more than a megabyte of them.
func expandBraces(g string, limit int) ([]string, bool) {
	var out []string
	work := 0
	var expand func(g string) bool
	expand = func(g string) bool {
		if work += len(g); work > 1<<20 {
			return false
		}
		i := strings.IndexByte(g, '{')
		j := strings.IndexByte(g, '}')
		if i < 0 || j < i {
			if len(out) >= limit {
				return false
			}
			out = append(out, g)
			return true
		}
		for _, alt := range strings.Split(g[i+1:j], ",") {
			if !expand(g[:i] + alt + g[j+1:]) {
				return false
			}
		}
		return true
	}
	ok := expand(g)
	return out, ok
}

const maxColumns = 500

// Grep's memory bounds: a line is matched on its first maxLineBytes
// bytes, and a multiline search reads at most maxMultilineBytes of a file.
const (
	maxLineBytes      = 1 << 20
	maxMultilineBytes = 64 << 20
)

// grepWork: one regexp match cannot be interrupted, and Go's regexp
// costs up to (bytes × program size) steps, so a large pattern is matched
// on less of a line (grepLineWork / size bytes) and less of a file in
// multiline mode (grepFileWork / size bytes), never under minKeep: no
// single match holds a search past its time budget for more than about a
// second. maxRegexpSize bounds the program (its memory).
const (
	grepLineWork  = 64 << 20
	grepFileWork  = 256 << 20
	minKeep       = 4 << 10
	maxRegexpSize = 10_000
)

// compileGrep compiles src, refusing programs over maxRegexpSize
// instructions before building them (a{1000}{…} is a few bytes of
// pattern and gigabytes of program). It returns the program's estimated
// size (at least 1).
func compileGrep(src string) (*regexp.Regexp, int, error) {
	tree, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, 0, fmt.Errorf("regex parse error: %w", err)
	}
	size := progSize(tree, maxRegexpSize)
	if size > maxRegexpSize {
		return nil, 0, fmt.Errorf("regex parse error: compiled regex exceeds size limit of %d instructions", maxRegexpSize)
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, 0, fmt.Errorf("regex parse error: %w", err)
	}
	return re, max(size, 1), nil
}

// progSize estimates the instructions re compiles to (repeats expanded,
// as the compiler does), saturating just above limit.
func progSize(re *syntax.Regexp, limit int) int {
	sat := func(n int) int { return min(n, limit+1) }
	subs := 0
	for _, sub := range re.Sub {
		subs = sat(subs + progSize(sub, limit))
	}
	switch re.Op {
	case syntax.OpLiteral:
		return sat(len(re.Rune) + 1)
	case syntax.OpConcat:
		return sat(subs + 1)
	case syntax.OpAlternate:
		return sat(subs + 2*len(re.Sub))
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		return sat(subs + 2)
	case syntax.OpRepeat:
		n := re.Max
		if n < 0 {
			n = re.Min + 1
		}
		if subs > 0 && n > (limit+1)/subs {
			return limit + 1
		}
		return sat(n*(subs+1) + 1)
	}
	return sat(subs + 1)
}

// lineGrep formats one file's content results as the lines go by.
type lineGrep struct {
	o         grepOpts
	label     string
	add       func(string) bool
	count     int
	before    []numbered // the last o.before lines not shown
	afterLeft int
	lastShown int
}

// numbered is a context line held until a match shows it: its text, or
// long when it will only be shown as omitted (so at most maxColumns bytes
// are held a line).
type numbered struct {
	n    int
	text string
	long bool
}

func (g *lineGrep) prefix() string {
	if g.o.single {
		return ""
	}
	return g.label + ":"
}

// line takes line n; false once no more results are wanted.
func (g *lineGrep) line(n int, text []byte, matched bool) bool {
	if matched {
		g.count++
	}
	if g.o.mode != "content" {
		return true
	}
	switch {
	case matched:
		for _, b := range g.before {
			if !g.emit(b.n, b.text, b.long, false) {
				return false
			}
		}
		g.before = g.before[:0]
		if !g.emitMatch(n, text) {
			return false
		}
		g.afterLeft = g.o.after
	case g.afterLeft > 0:
		g.afterLeft--
		return g.emit(n, contextText(text), len(text) > maxColumns, false)
	case g.o.before > 0:
		g.before = append(g.before, numbered{n, contextText(text), len(text) > maxColumns})
		if len(g.before) > g.o.before {
			g.before = g.before[1:]
		}
	}
	return true
}

// finish adds a count result at the end of a file.
func (g *lineGrep) finish() {
	if g.o.mode == "count" && g.count > 0 {
		g.add(g.prefix() + strconv.Itoa(g.count))
	}
}

func contextText(text []byte) string {
	if len(text) > maxColumns {
		return ""
	}
	return string(text)
}

func (g *lineGrep) emitMatch(n int, text []byte) bool {
	if len(text) > maxColumns {
		// Counting stops where the line could hold no more matches
		// worth counting; FindAll allocates per match.
		c := len(g.o.re.FindAllIndex(text, 1<<16))
		return g.emit(n, fmt.Sprintf("[Omitted long line with %d matches]", max(1, c)), false, true)
	}
	return g.emit(n, string(text), false, true)
}

// emit renders one content line as ripgrep does: ":" after the path and
// number of a matching line, "-" for a context line, and long lines
// replaced by a notice (--max-columns 500).
func (g *lineGrep) emit(k int, line string, long, matched bool) bool {
	if g.lastShown >= 0 && k > g.lastShown+1 && (g.o.before > 0 || g.o.after > 0) {
		if !g.add("--") {
			return false
		}
	}
	g.lastShown = k
	sep := "-"
	if matched {
		sep = ":"
	}
	if long {
		line = "[Omitted long context line]"
	}
	head := ""
	if !g.o.single {
		head = g.label + sep
	}
	if g.o.lineNumbers {
		head += strconv.Itoa(k+1) + sep
	}
	if s := head + line; s != "" {
		return g.add(s)
	}
	return true
}
