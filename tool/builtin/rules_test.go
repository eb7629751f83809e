package builtin_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool/builtin"
)

func checkWith(t *testing.T, wd string, rules []block.PermissionRule, cmd string) block.Behavior {
	t.Helper()
	pc := permission.NewContext(permission.ModeDefault)
	pc.AddWorkingDirectory(wd, "test")
	e := permission.NewEngine(pc)
	for _, r := range rules {
		e.AddRule(r)
	}
	return e.Check(context.Background(), builtin.NewBash(builtin.Config{Dir: wd}), map[string]any{"command": cmd}).Behavior
}

func rule(b block.Behavior, content string) block.PermissionRule {
	return block.PermissionRule{ToolName: "Bash", RuleContent: block.Some(content), Behavior: b, Source: "test"}
}

// Allow rules grant a line only when, together, they cover every command
// of it that is not read-only; deny rules stop a line when they match any
// one of its commands.
func TestBashRulesCoverEveryCommand(t *testing.T) {
	wd := t.TempDir()
	allow := func(c ...string) []block.PermissionRule {
		var out []block.PermissionRule
		for _, x := range c {
			out = append(out, rule(block.Allow, x))
		}
		return out
	}
	const A, K, D = block.Allow, block.Ask, block.Deny
	for _, c := range []struct {
		rules []block.PermissionRule
		cmd   string
		want  block.Behavior
	}{
		{allow("git commit:*"), "git commit -m x", A},
		{allow("git commit:*"), "git commit -m x && ls", A},
		{allow("git commit:*"), "git commit -m x && npm publish", K},
		{allow("git commit:*"), "git commit -m x\nnpm publish", K},
		{allow("git commit:*"), "git commit -m x; curl x | sh", K},
		{allow("git commit:*"), "git commit -m x > /tmp/out", K},
		{allow("git commit:*"), "GIT_DIR=/tmp/x git commit -m x", K},
		{allow("git add:*", "git commit:*"), "git add . && git commit -m x", A},
		{allow("git add:*"), "git add . && git commit -m x", K},
		{allow("git:*"), "git push && git status", A},
		{allow("ls:*"), "ls $(npm publish)", K},
		{allow("npm publish"), "npm publish", A},
		{allow("npm publish"), "npm publish --tag evil", K},
		{allow("npm publish"), "npm publish && npm publish", A},
		{allow("install"), "npm install", K}, // content without * is the exact command, not a substring
		{allow("npm * build"), "npm run build", A},
		{allow("npm * build"), "npm run build && npm publish", K},
		{allow("npm install && npm test"), "npm install && npm test", A},
		{[]block.PermissionRule{rule(D, "rm:*")}, "ls && rm x", D},
		{[]block.PermissionRule{rule(D, "rm:*")}, "ls\nrm x", D},
		{[]block.PermissionRule{rule(D, "rm:*")}, "FOO=1 rm x", D},
		{[]block.PermissionRule{rule(D, "curl:*"), rule(A, "")}, "ls | curl -d @a.txt x", D},
		{[]block.PermissionRule{rule(K, "git push:*"), rule(A, "git:*")}, "git status; git push", K},
	} {
		if got := checkWith(t, wd, c.rules, c.cmd); got != c.want {
			t.Errorf("%q under %v: %s, want %s", c.cmd, c.rules, got, c.want)
		}
	}
}

// Suggested rules are never wider than the call, and accepting them
// allows the call again but nothing wider.
func TestBashSuggestionsNeverWider(t *testing.T) {
	wd := t.TempDir()
	b := builtin.NewBash(builtin.Config{Dir: wd})
	for _, c := range []struct {
		cmd   string
		want  []string
		wider []string // commands the accepted suggestions must not allow
	}{
		{"ls $(rm -rf /)", nil, nil},
		{"cat <(curl x)", nil, nil},
		{"eval npm publish", nil, nil},
		{"source ./env.sh && npm test", nil, nil},
		{"rm -rf victim", []string{"rm -rf victim"}, []string{"rm -rf victim /", "rm -rf other"}},
		{"rm victim", []string{"rm victim"}, []string{"rm victim2", "rm victim other"}},
		{"python -m pytest", []string{"python -m pytest"}, []string{"python -m http.server", "python -m pytest; rm x"}},
		{"python3 build.py", []string{"python3 build.py"}, []string{"python3 evil.py"}},
		{"git commit -m 'x'", []string{"git commit:*"}, []string{"git commit -m x && npm publish", "git push"}},
		{"npm install && npm test", []string{"npm install", "npm test"}, []string{"npm publish", "npm install evil-package", "npm test --script-shell=./evil"}},
		{"npm test", []string{"npm test"}, []string{"cd /tmp && npm test", "cd sub; npm test", "cd .. && git commit -m x"}},
		{"git commit -m x", []string{"git commit:*"}, []string{"cd /tmp && git commit -m x", "cd sub && git commit -m y"}},
		{"cd sub && npm test", []string{"cd sub && npm test"}, []string{"cd sub && npm test && rm x", "cd /tmp && npm test", "npm test"}},
		{"npm run build", []string{"npm run build"}, []string{"npm run build --script-shell=./evil", "npm run deploy"}},
		{"make test", []string{"make test"}, []string{"make test -f evil.mk", "make test SHELL=./evil"}},
		{"cargo test", []string{"cargo test"}, []string{"cargo test --config target.x.runner=./evil"}},
		{"git fetch origin", []string{"git fetch origin"}, []string{"git fetch --upload-pack='touch x;:' ."}},
		{"git push origin main", []string{"git push origin main"}, []string{"git push --receive-pack=x origin"}},
		{"go test ./...", []string{"go test ./..."}, []string{"go test -exec=./x ./..."}},
		{"rm *.log", []string{`rm \*.log`}, []string{"rm -r ~/Documents x.log", "rm a.log"}},
		{"git -c core.pager=sh log", []string{"git -c core.pager=sh log"}, []string{"git -c core.pager=evil log"}},
		{"docker run alpine", []string{"docker run alpine"}, []string{"docker run -v /:/h alpine"}},
		{"NODE_ENV=prod npm run build", []string{"NODE_ENV=prod npm run build"}, []string{"NODE_ENV=prod npm run deploy", "LD_PRELOAD=x npm run build"}},
		{"echo x > out.txt", []string{"echo x > out.txt"}, []string{"echo y > out.txt", "echo x > /etc/passwd"}},
		{"echo x | tee log", []string{"tee log"}, []string{"echo x | tee /etc/passwd"}},
		{"xargs rm < list", []string{"xargs rm < list"}, []string{"xargs sh < list"}},
		{"sudo apt-get install x", []string{"sudo apt-get install x"}, []string{"sudo rm -rf /"}},
		{"find . -delete", []string{"find . -delete"}, []string{"find / -delete"}},
	} {
		got := b.SuggestRules(map[string]any{"command": c.cmd})
		var contents []string
		for _, r := range got {
			if r.ToolName != "Bash" || r.Behavior != block.Allow || r.Source != permission.SourceSuggested {
				t.Errorf("%q: rule %+v", c.cmd, r)
			}
			contents = append(contents, r.RuleContent.String)
		}
		if !slices.Equal(contents, c.want) {
			t.Errorf("%q: suggested %q, want %q", c.cmd, contents, c.want)
			continue
		}
		if len(got) == 0 {
			continue
		}
		// Accept them ("always"): the same call is allowed, a wider one
		// is not (unless something else allows it).
		if d := checkWith(t, wd, got, c.cmd); d != block.Allow && !safetyAsk(wd, c.cmd) {
			t.Errorf("%q: not allowed after accepting %q: %s", c.cmd, contents, d)
		}
		for _, w := range c.wider {
			if d := checkWith(t, wd, got, w); d == block.Allow {
				t.Errorf("%q: accepting %q allows %q", c.cmd, contents, w)
			}
		}
	}
}

func safetyAsk(wd, cmd string) bool {
	return builtin.BashDecision(cmd, permission.NewContext(permission.ModeDefault), builtin.Config{Dir: wd}).SafetyAsk()
}

// A deny rule stops the command however it is spelled: through a path, a
// backslash, or a wrapper that runs it.
func TestBashDenyRuleSeesThroughSpellings(t *testing.T) {
	wd := t.TempDir()
	deny := []block.PermissionRule{rule(block.Deny, "rm:*"), rule(block.Allow, "")}
	for _, cmd := range []string{
		"rm x", `\rm x`, "/bin/rm x", "command rm x", "sudo rm x", "env FOO=1 rm x",
		"timeout 5 rm x", "nice -n 5 rm x", "nohup rm x", "xargs rm < list", "ls && exec rm x",
	} {
		if got := checkWith(t, wd, deny, cmd); got != block.Deny {
			t.Errorf("%q under deny rm:*: %s", cmd, got)
		}
	}
	if got := checkWith(t, wd, deny, "ls rm"); got == block.Deny {
		t.Errorf("ls rm denied: rm is only a word there")
	}
}

// A command line too long to analyze asks, with a confirmation no rule
// silences, and the check stays quick.
func TestBashTooLongToAnalyze(t *testing.T) {
	wd := t.TempDir()
	long := "cat " + strings.Repeat("/usr/*/*/*/x* ", builtin.MaxAnalysedCommand/14+1)
	d := builtin.BashDecision(long, permission.NewContext(permission.ModeDefault), builtin.Config{Dir: wd})
	if !d.SafetyAsk() || !strings.Contains(d.Message, "too long to analyze") {
		t.Fatalf("a %d-byte command: %s %q", len(long), d.Behavior, d.Message)
	}
	if got := checkWith(t, wd, []block.PermissionRule{rule(block.Allow, "")}, long); got != block.Ask {
		t.Fatalf("under an allow-all rule: %s", got)
	}
}

// What the analysis allows, the shell runs as the analysis read it: lines
// that bash and dash split differently, run through the tool in explore
// mode (only read-only lines run), leave the marker files unmade.
func TestAnalysisReadsTheLineAsTheShellRunsIt(t *testing.T) {
	wd := t.TempDir()
	marker := filepath.Join(t.TempDir(), "marker")
	b := builtin.NewBash(builtin.Config{Dir: wd})
	ran := 0
	for _, cmd := range []string{
		"echo $'a\\' ; touch " + marker + " ; # '",
		"echo $\"a\\\" ; touch " + marker + " ; # \"",
		"cat <<$'EOF'\n$EOF\ntouch " + marker + "\nEOF",
		"echo x &>/dev/null touch " + marker,
		"echo {a,b} ; echo ok",
	} {
		pc := permission.NewContext(permission.ModeExplore)
		d := permission.NewEngine(pc).Check(context.Background(), b, map[string]any{"command": cmd})
		if d.Behavior != block.Allow {
			continue // not run: nothing to compare
		}
		ran++
		for range b.Call(context.Background(), map[string]any{"command": cmd}) {
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%q was allowed in explore mode and made %s", cmd, marker)
		}
	}
	// The lines with $'…', $"…" and a $'…' delimiter read as one
	// command in bash, which runs them: they are allowed, and ran.
	if ran < 3 {
		t.Fatalf("%d of the lines ran; the test compares nothing", ran)
	}
}
