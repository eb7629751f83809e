package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

var (
	globDescription = pycompat.BuiltinText("glob.txt")
	globSchema      = pycompat.BuiltinText("glob.json")
)

// Glob lists the files matching a glob pattern, newest first.
type Glob struct{ cfg Config }

// NewGlob returns the Glob tool.
func NewGlob(cfg Config) *Glob { return &Glob{cfg: cfg} }

// Name returns "Glob".
func (*Glob) Name() string { return "Glob" }

// Description returns the reference's description.
func (*Glob) Description() string { return globDescription }

// InputSchema returns {pattern, path}.
func (*Glob) InputSchema() json.RawMessage { return schema(globSchema) }

// Flags: read-only, concurrency-safe.
func (*Glob) Flags() tool.Flags { return tool.Flags{ReadOnly: true, ConcurrencySafe: true} }

// ReadOnly is true but when the search directory is a secret path
// ([Config.SecretPath]).
func (g *Glob) ReadOnly(input map[string]any) bool { return g.secretDir(input) == "" }

// CheckPermissions asks, as Read does, when the search directory is a
// secret path; else it passes through.
func (g *Glob) CheckPermissions(_ context.Context, input map[string]any, _ *permission.Context) permission.Decision {
	if why := g.secretDir(input); why != "" {
		return secretAsk("Glob", searchPath(g.cfg.Dir, stringArg(input, "path")), why)
	}
	return permission.Decision{Behavior: block.Passthrough, Message: "Glob pattern matching is read-only."}
}

func (g *Glob) secretDir(input map[string]any) string {
	return g.cfg.SecretPath(searchPath(g.cfg.Dir, stringArg(input, "path")), "")
}

// MatchRule matches the content (an fnmatch glob) against path, then
// against pattern.
func (*Glob) MatchRule(content string, input map[string]any) bool {
	if p := stringArg(input, "path"); p != "" && fnmatch(p, content) {
		return true
	}
	p := stringArg(input, "pattern")
	return p != "" && fnmatch(p, content)
}

// SuggestRules proposes the absolute search directory with "/**".
func (g *Glob) SuggestRules(input map[string]any) []block.PermissionRule {
	return suggestDir("Glob", g.cfg.Dir, input)
}

// Call matches pattern under path (default Config.Dir): "*" and "?"
// within one segment, "**" any number of directories; symlinked
// directories are not followed, and a search from outside /proc, /dev and
// /sys does not enter them. Matches are sorted by modification time,
// newest first. The search stops at Config.SearchTimeout or
// Config.GlobMaxMatches, saying so after the matches it found.
func (g *Glob) Call(ctx context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
	pattern := stringArg(input, "pattern")
	base := searchPath(g.cfg.Dir, stringArg(input, "path"))
	if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
		return errorText("Directory not found: %s", base)
	}
	budget, maxMatches := g.cfg.searchTimeout(), g.cfg.globMaxMatches()
	sctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	matches, stopped := globFiles(sctx, pattern, base, maxMatches)
	if ctx.Err() != nil {
		return errorText("Error: Glob interrupted: %v", context.Cause(ctx))
	}
	text := strings.Join(matches, "\n")
	if len(matches) == 0 {
		text = "No files found matching pattern: " + pattern
	}
	switch {
	case stopped == errMatchBudget:
		text += fmt.Sprintf("\n\n(search stopped at %d matches; results are incomplete)", maxMatches)
	case stopped != nil:
		text += "\n\n" + timeNote(budget)
	}
	return once(tool.Text(text))
}

// searchPath is Glob's and Grep's search path: p relative to dir, dir
// itself without p ("" for either: the process's directory).
func searchPath(dir, p string) string {
	switch {
	case p == "":
		return cwd(dir)
	case !filepath.IsAbs(p) && dir != "":
		return filepath.Join(dir, p)
	}
	return p
}

var globSplit = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[\\/]+`) })

var errMatchBudget = errors.New("match budget reached")

// GlobFiles returns the files under base matching pattern, newest first
// (ties in walk order), at most DefaultGlobMaxMatches of them.
func GlobFiles(pattern, base string) []string {
	out, _ := globFiles(context.Background(), pattern, base, DefaultGlobMaxMatches)
	return out
}

// globFiles returns up to maxMatches files, and why it stopped early:
// errMatchBudget, or ctx's error.
func globFiles(ctx context.Context, pattern, base string, maxMatches int) ([]string, error) {
	g := globber{ctx: ctx, parts: compileGlob(pattern), max: maxMatches, realBase: realPath(absPath(base, ""))}
	if len(g.parts) > 0 {
		g.walk(base, g.realBase, g.closure([]int{0}))
	}
	mt := make(map[string]float64, len(g.out))
	for _, p := range g.out {
		m, _ := mtime(p)
		mt[p] = m
	}
	sort.SliceStable(g.out, func(i, j int) bool { return mt[g.out[i]] > mt[g.out[j]] })
	return g.out, g.stopped
}

// A glob is matched as an automaton over its segments: each directory is
// read once, with the set of segment positions that are live there, so
// "**/**/**/x" or "**/a/**/a/**/a" costs one walk of the tree rather than
// one per way of splitting a path among the "**"s (exponential in their
// number). Each file is listed at most once.
type globPart struct {
	star bool           // "**": any number of directories
	re   *regexp.Regexp // one name; nil never matches
}

type globber struct {
	ctx      context.Context
	parts    []globPart
	max      int
	realBase string
	out      []string
	stopped  error
}

// maxGlobDepth bounds the directories a match can lie below its base: a
// path has at most PATH_MAX (4096) bytes, so at most 2048 names.
const maxGlobDepth = 2048

// compileGlob splits pattern into segments: "**/**" is one "**", and a
// segment that cannot match a name (longer than NAME_MAX without its
// "*"s) matches nothing, so no input compiles into a large automaton.
func compileGlob(pattern string) []globPart {
	var parts []globPart
	names := 0
	compiled := map[string]*regexp.Regexp{}
	for _, p := range globSplit().Split(pattern, -1) {
		switch {
		case p == "":
			continue
		case p == "**":
			if n := len(parts); n > 0 && parts[n-1].star {
				continue
			}
			parts = append(parts, globPart{star: true})
			continue
		}
		if names++; names > maxGlobDepth {
			return nil
		}
		re, ok := compiled[p]
		if !ok {
			re = segmentRegexp(p)
			compiled[p] = re
		}
		parts = append(parts, globPart{re: re})
	}
	return parts
}

// closure adds, after each "**" position, the position behind it ("**"
// matches no directory too). states is sorted; so is the result.
func (g *globber) closure(states []int) []int {
	out := states[:0:0]
	for _, i := range states {
		out = appendState(out, i)
		if g.parts[i].star && i+1 < len(g.parts) {
			out = appendState(out, i+1)
		}
	}
	return out
}

// appendState appends i to a sorted set built in ascending order.
func appendState(set []int, i int) []int {
	if n := len(set); n > 0 && set[n-1] >= i {
		return set
	}
	return append(set, i)
}

func (g *globber) stop() bool {
	if g.stopped == nil {
		g.stopped = g.ctx.Err()
	}
	return g.stopped != nil
}

// walk matches dir's entries against the live positions states; real is
// dir with its symlinks resolved (the walk follows none, so it is
// real-of-base plus the names walked).
func (g *globber) walk(dir, real string, states []int) {
	if enteringDir(dir) || g.stop() {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	last := len(g.parts) - 1
	var next []int
	for _, e := range entries {
		if g.stop() {
			return
		}
		name, isDir := e.Name(), e.IsDir()
		emit := false
		next = next[:0]
		for _, i := range states {
			p := g.parts[i]
			switch {
			case p.star:
				emit = emit || (i == last && !isDir)
				if isDir {
					next = appendState(next, i)
				}
			case p.re == nil || !p.re.MatchString(name):
			case i == last:
				emit = emit || e.Type().IsRegular()
			case isDir:
				next = appendState(next, i+1)
			}
		}
		full := filepath.Join(dir, name)
		if emit {
			if len(g.out) >= g.max {
				g.stopped = errMatchBudget
				return
			}
			g.out = append(g.out, full)
		}
		if len(next) > 0 {
			sub := filepath.Join(real, name)
			if !skipVirtual(sub, g.realBase) {
				g.walk(full, sub, g.closure(next))
			}
		}
	}
}

// segmentRegexp compiles one segment: "*" any run of characters, "?" one.
// Runs of "*" are one "*"; a segment with more than NAME_MAX (255) other
// characters matches no name and compiles to nil.
func segmentRegexp(part string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`\A`)
	fixed, star := 0, false
	for _, c := range part {
		if c == '*' {
			if !star {
				b.WriteString(".*")
			}
			star = true
			continue
		}
		star = false
		if fixed++; fixed > 255 {
			return nil
		}
		if c == '?' {
			b.WriteString(".")
		} else {
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`\z`)
	return regexp.MustCompile(b.String())
}
