package builtin

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/permission"
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
	IsReadOnly(cmd)
	DangerousPattern(cmd)
	SedViolation(cmd, DefaultDangerousFiles)
	FilePaths(cmd)
	removalTargets(cmd)
	CommandPrefixes(cmd, 5)
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
