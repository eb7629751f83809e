package builtin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/permission"
	"mvdan.cc/sh/v3/syntax"
)

// analyse runs everything the permission engine asks the Bash tool about
// one command, in every mode.
func analyse(cmd string) {
	b := NewBash(Config{})
	in := map[string]any{"command": cmd}
	b.ReadOnly(in)
	b.SuggestRules(in)
	b.MatchRule("git:*", in)
	b.MatchRule("npm * build", in)
	for _, m := range []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModeDontAsk} {
		BashDecision(cmd, permission.NewContext(m), Config{})
	}
	// The steps the decision may skip, on their own.
	ReadOnlyCommand(cmd, Config{})
	DangerousPattern(cmd)
	SedViolation(cmd, DefaultDangerousFiles)
	FilePaths(cmd)
	removalTargets(cmd)
}

// FuzzBashAnalysis: no command makes the analysis panic, and the analysis
// parses at most a fixed multiple of the command's bytes (the parser and
// every pass over its tree are linear, so the work is linear too; the
// benchmark BenchmarkBashAnalysis shows the time per byte staying flat).
func FuzzBashAnalysis(f *testing.F) {
	for _, s := range []string{
		"ls -la && cat x | grep y", "ls $(rm -rf /)", "sed -i 's/a/b/g' f", "rm -rf /",
		"for f in *; do echo $f; done", "echo ${x:-$(y)}", "a=1 b=2 c", "cat <<EOF\n$(x)\nEOF",
		"echo 'unterminated", "x() { y; }", "[[ -f a ]]", "git commit -m \"$(date)\"",
		strings.Repeat("a | ", 50) + "b", strings.Repeat("$(", 30) + "x" + strings.Repeat(")", 30),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		before := parsedBytes.Load()
		analyse(cmd)
		if work := parsedBytes.Load() - before; work > int64(64*len(cmd)+64) {
			t.Fatalf("parsed %d bytes for a %d-byte command", work, len(cmd))
		}
	})
}

// BenchmarkBashAnalysis reports the analysis time for growing compound
// commands; ns/op divided by the size stays flat when the work is linear.
// "new" analyses a command not seen before in each iteration (its first
// parse misses the cache, the other steps hit it), as the engine does for
// each tool call; "repeated" asks about the same command again.
func BenchmarkBashAnalysis(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		cmd := strings.Repeat("git add a.txt && cat b | grep -n x; ", n)
		b.Run(fmt.Sprintf("new/parts=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(cmd)))
			i := 0
			for b.Loop() {
				i++
				analyse(cmd + strconv.Itoa(i))
			}
		})
		b.Run(fmt.Sprintf("repeated/parts=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(cmd)))
			for b.Loop() {
				analyse(cmd)
			}
		})
	}
}

// oracleReadOnly are the commands the fuzz oracle takes as possibly
// read-only, written out here rather than taken from the allow-list, so
// a command added to the list without thought fails the fuzz target.
var oracleReadOnly = map[string]bool{
	"echo": true, "printf": true, ":": true, "true": true, "false": true, "pwd": true, "cd": true,
	"ls": true, "cat": true, "head": true, "tail": true, "wc": true, "file": true, "stat": true,
	"du": true, "df": true, "tree": true, "which": true, "whereis": true, "type": true, "find": true,
	"grep": true, "egrep": true, "fgrep": true, "rg": true, "sort": true, "uniq": true, "cut": true,
	"tr": true, "nl": true, "tac": true, "rev": true, "fold": true, "paste": true, "join": true,
	"comm": true, "column": true, "expand": true, "unexpand": true, "od": true, "hexdump": true,
	"xxd": true, "strings": true, "md5sum": true, "sha1sum": true, "sha224sum": true,
	"sha256sum": true, "sha384sum": true, "sha512sum": true, "b2sum": true, "cksum": true,
	"base64": true, "cmp": true, "diff": true, "jq": true, "awk": true, "gawk": true, "mawk": true,
	"basename": true, "dirname": true, "realpath": true, "readlink": true, "whoami": true, "id": true,
	"uname": true, "hostname": true, "date": true, "nproc": true, "uptime": true, "sleep": true,
	"seq": true, "git": true, "docker": true, "gh": true, "python": true, "python3": true,
	"node": true, "npm": true, "pip": true, "pip3": true, "go": true,
}

// oracleUnsafeWords are words that make an allow-listed command write or
// run something, by command: a word equal to one, or starting with one
// that ends in "=", or (for awk) containing one.
var oracleUnsafeWords = map[string][]string{
	"find":   {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"},
	"sort":   {"-o", "--output=", "--output", "--compress-program=", "-T"},
	"git":    {"-c", "--output=", "--output", "--ext-diff", "--git-dir=", "--work-tree=", "--exec-path=", "-O", "--open-files-in-pager", "add", "commit", "push", "reset", "checkout", "clean", "apply", "am", "rebase", "merge"},
	"rg":     {"--pre", "--pre=", "-z", "--search-zip", "--hostname-bin="},
	"tree":   {"-o", "-R"},
	"xxd":    {"-r"},
	"diff":   {"-l", "--paginate"},
	"file":   {"-z", "-Z", "-C"},
	"date":   {"-s", "--set="},
	"awk":    {"system", "getline", "|", ">"},
	"gawk":   {"system", "getline", "|", ">", "@load"},
	"mawk":   {"system", "getline", "|", ">"},
	"go":     {"-w", "run", "build", "generate", "test", "install", "get"},
	"npm":    {"install", "run", "exec", "publish", "ci", "test"},
	"pip":    {"install", "uninstall"},
	"pip3":   {"install", "uninstall"},
	"python": {"-c", "-m"}, "python3": {"-c", "-m"}, "node": {"-e", "-p"},
}

// oracleLit is a word's value when it has no expansion.
func oracleLit(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(strings.ReplaceAll(x.Value, `\`, ""))
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// oracle names what in cmd's syntax tree makes it unsafe to run unasked
// (a write, an execution or an unknown command), or "".
func oracle(cmd string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return "" // the analysis asks for what does not parse; nothing to check
	}
	found := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if found != "" {
			return false
		}
		switch x := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.FuncDecl, *syntax.CoprocClause:
			found = "execution: substitution or function"
		case *syntax.DeclClause, *syntax.LetClause:
			found = "assignment"
		case *syntax.Redirect:
			switch x.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
				if v, ok := oracleLit(x.Word); !ok || v != "/dev/null" {
					found = "write: redirection"
				}
			}
		case *syntax.CallExpr:
			if len(x.Assigns) > 0 {
				found = "assignment"
				return false
			}
			if len(x.Args) == 0 {
				return true
			}
			name, ok := oracleLit(x.Args[0])
			if !ok || !oracleReadOnly[name] {
				found = "unknown command " + name
				return false
			}
			args := x.Args[1:]
			if strings.HasSuffix(name, "awk") {
				args = oracleAwkProgram(args)
			}
			for _, a := range args {
				v, ok := oracleLit(a)
				if !ok {
					continue
				}
				for _, bad := range oracleUnsafeWords[name] {
					hit := v == bad || (strings.HasSuffix(bad, "=") && strings.HasPrefix(v, bad))
					if strings.HasSuffix(name, "awk") {
						hit = strings.Contains(v, bad)
					}
					if hit {
						found = "write or execution: " + name + " " + v
						return false
					}
				}
			}
		}
		return true
	})
	return found
}

// oracleAwkProgram is the words of an awk command up to its program (the
// first word that is neither a flag nor a flag's value): the files after
// it are only read, whatever their names.
func oracleAwkProgram(args []*syntax.Word) []*syntax.Word {
	for i := 0; i < len(args); i++ {
		v, ok := oracleLit(args[i])
		if !ok || !strings.HasPrefix(v, "-") || v == "-" {
			return args[:i+1]
		}
		if v == "--" {
			return args[:min(i+2, len(args))]
		}
		if v == "-F" || v == "-v" || v == "-f" {
			i++
		}
	}
	return args
}

// FuzzBashNeverAllowsUnsafe: no command whose syntax tree has a write,
// an execution or an unknown command (by the oracle above, which shares
// nothing with the analysis but the parser) is ever allowed outside
// bypass, with no rules, in any other mode. No path is in a working
// directory: the process's directory (which counts as one) is an empty
// temporary directory, and the commands run in another.
func FuzzBashNeverAllowsUnsafe(f *testing.F) {
	for _, rows := range permissionSeeds {
		f.Add(rows)
	}
	f.Chdir(f.TempDir())
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644); err != nil {
		f.Fatal(err)
	}
	bash := NewBash(Config{Dir: dir})
	f.Fuzz(func(t *testing.T, cmd string) {
		why := oracle(cmd)
		if why == "" {
			return
		}
		in := map[string]any{"command": cmd}
		for _, m := range []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModeExplore, permission.ModeDontAsk} {
			d := permission.NewEngine(permission.NewContext(m)).Check(context.Background(), bash, in)
			if d.Behavior == block.Allow {
				t.Fatalf("%q (%s) allowed in %s: %s", cmd, why, m, d.Message)
			}
		}
	})
}

// permissionSeeds start the fuzzer at the reproductions and at
// each class of the permission table.
var permissionSeeds = []string{
	"ls\nrm -rf victim", "LD_PRELOAD=/tmp/x.so ls", "PATH=/tmp:$PATH ls", "git diff --output=/tmp/x",
	"git branch X", "git tag X", "git remote add x y", "echo '[core]' | tee -a .git/config",
	"tee .bashrc", "cat /proc/self/environ", "ls $(rm -rf /)", "find . -exec rm {} ;",
	"sort -o out a.txt", "sed -i s/a/b/ a.txt", "awk '{system(\"id\")}'", "xargs rm", "env ls",
	"eval ls", "ls && cat a.txt | grep x", "{ ls; } > out", "cd / && rm -rf usr", "git -c x=y log",
	"ls；rm x", "echo x > a.txt", "cp a.txt b.txt", "git status && git log --oneline",
}
