package builtin

import (
	"context"
	"encoding/json"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

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

// ReadOnly is always true.
func (*Glob) ReadOnly(map[string]any) bool { return true }

// CheckPermissions passes through.
func (*Glob) CheckPermissions(context.Context, map[string]any, *permission.Context) permission.Decision {
	return permission.Decision{Behavior: block.Passthrough, Message: "Glob pattern matching is read-only."}
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
// directories are not followed. Matches are sorted by modification time,
// newest first.
func (g *Glob) Call(_ context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
	pattern := stringArg(input, "pattern")
	base := stringArg(input, "path")
	if base == "" {
		base = cwd(g.cfg.Dir)
	} else if !filepath.IsAbs(base) && g.cfg.Dir != "" {
		base = filepath.Join(g.cfg.Dir, base)
	}
	if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
		return errorText("Directory not found: %s", base)
	}
	matches := GlobFiles(pattern, base)
	if len(matches) == 0 {
		return once(tool.Text("No files found matching pattern: " + pattern))
	}
	return once(tool.Text(strings.Join(matches, "\n")))
}

var globSplit = regexp.MustCompile(`[\\/]+`)

// GlobFiles returns the files under base matching pattern, newest first
// (ties in walk order).
func GlobFiles(pattern, base string) []string {
	var parts []string
	for _, p := range globSplit.Split(pattern, -1) {
		if p != "" {
			parts = append(parts, p)
		}
	}
	var out []string
	matchParts(parts, 0, base, &out)
	mt := make(map[string]float64, len(out))
	for _, p := range out {
		m, _ := mtime(p)
		mt[p] = m
	}
	sort.SliceStable(out, func(i, j int) bool { return mt[out[i]] > mt[out[j]] })
	return out
}

func segmentRegexp(part string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`\A`)
	for _, c := range part {
		switch c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`\z`)
	return regexp.MustCompile(b.String())
}

func matchParts(parts []string, i int, dir string, out *[]string) {
	if i >= len(parts) {
		return
	}
	part, last := parts[i], i == len(parts)-1
	if part == "**" {
		if last {
			_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					*out = append(*out, p)
				}
				return nil
			})
			return
		}
		matchParts(parts, i+1, dir, out)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.IsDir() {
				matchParts(parts, i, filepath.Join(dir, e.Name()), out)
			}
		}
		return
	}
	re := segmentRegexp(part)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !re.MatchString(e.Name()) {
			continue
		}
		full := filepath.Join(dir, e.Name())
		switch {
		case last && e.Type().IsRegular():
			*out = append(*out, full)
		case !last && e.IsDir():
			matchParts(parts, i+1, full, out)
		}
	}
}
