package builtin

import (
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/permission"
)

// TestBashDecisionTable runs the Bash tool's own check end to end, with
// the reference's quirks spelled out (each row says why).
func TestBashDecisionTable(t *testing.T) {
	type row struct {
		cmd    string
		mode   permission.Mode
		want   block.Behavior
		immune bool
		msg    string // a substring of the message
	}
	const (
		A, K, P = block.Allow, block.Ask, block.Passthrough
		def     = permission.ModeDefault
		edits   = permission.ModeAcceptEdits
	)
	rows := []row{
		{"", def, P, false, "Empty command"},
		// Read-only lines are allowed by the tool's own check too.
		{"ls -la", def, A, false, "read-only"},
		{"git log --oneline -5", def, A, false, "read-only"},
		// Quirk: "format" is a substring pattern, but read-only comes first.
		{"git log --format=%H", def, A, false, "read-only"},
		{"clang-format -i main.c", def, K, true, "dangerous pattern: format"},
		// Stricter than the reference: tee writes, and its targets are
		// judged like Write's.
		{"echo x | tee /etc/passwd", def, P, false, "Execute bash command"},
		{"cat a | tee -a b", def, P, false, "Execute bash command"},
		{"echo x | tee .bashrc", def, K, true, "sensitive paths: .bashrc"},
		// Stricter: a declaration or an assignment prefix is not read-only.
		{"export X=1 && ls", def, P, false, "Execute bash command"},
		{"FOO=1 cat x", def, P, false, "Execute bash command"},
		{"FOO=1 rm x", def, P, false, "Execute bash command"},
		// Any ">" makes a line not read-only; "> /dev/" is dangerous.
		{"ls > /dev/null", def, K, true, "dangerous pattern: > /dev/"},
		{"ls 2>/dev/null", def, P, false, ""},
		{"cat a > b.txt", def, P, false, ""},
		// Injection constructs, named as tree-sitter names them.
		{"echo $(date)", def, K, true, "command_substitution"},
		{"echo `date`", def, K, true, "command_substitution"},
		{"diff <(ls a) <(ls b)", def, K, true, "process_substitution"},
		{"echo ${HOME}", def, K, true, "expansion"},
		{"echo $HOME", def, A, false, "read-only"},
		{"echo \"$(whoami)\"", def, K, true, "command_substitution"},
		{"echo '$(whoami)'", def, A, false, "read-only"},
		{"(cd /tmp && ls)", def, K, true, "subshell"},
		{"for f in *; do rm $f; done", def, K, true, "for_statement"},
		{"for ((i=0;i<3;i++)); do echo $i; done", def, K, true, "for_statement"},
		{"while true; do :; done", def, K, true, "while_statement"},
		{"until false; do :; done", def, K, true, "until_statement"},
		{"if true; then ls; fi", def, K, true, "if_statement"},
		{"case x in x) ls;; esac", def, K, true, "case_statement"},
		{"f() { rm -rf /; }; f", def, K, true, "function_definition"},
		{"[[ -f x ]] && rm x", def, K, true, "test_command"},
		{"[ -f x ] && rm x", def, K, true, "test_command"},
		{"(( x = 1 ))", def, K, true, "test_command"},
		{"ls \"unterminated", def, K, true, "parsing failed"},
		{"echo $((1+2))", def, A, false, "read-only"},
		// Dangerous patterns; short words on word boundaries.
		{"rm -rf build", def, K, true, "rm -rf"},
		{"sudo rm x", def, K, true, "sudo rm"},
		{"dd if=/dev/zero of=x", def, K, true, "dd"},
		{"git add .", def, P, false, ""},
		{"odd_tool run", def, P, false, ""},
		{"mkfs.ext4 /dev/sda1", def, K, true, "sensitive path: /dev/sda1"}, // a device: before the pattern
		{"chmod   777   x", def, K, true, "chmod 777"},
		{"chown -R me .", def, K, true, "chown -R"},
		{"kill -9 1", def, K, true, "kill -9"},
		// sed allow-list.
		{"sed -n '5p' f", def, P, false, ""},
		{"sed 's/a/b/g' f", def, P, false, ""},
		{"sed 's/a/b/w out' f", def, K, true, "write operation"},
		{"sed 's/a/b/e' f", def, K, true, "execute operation"},
		{"sed '1d' f", def, K, true, "not in allowlist"},
		{"sed -z 's/a/b/' f", def, K, true, "flag -z not allowed"},
		{"sed -i 's/a/b/' .env", def, K, true, "sensitive path: .env"}, // a dotenv file is a secret first
		{"sed 's/a/b/", def, K, true, "parsing failed"},
		// Quirk: any token "sed" is taken for sed.
		{"npm install sed", def, K, true, "sed command missing expression"},
		{"echo sed", def, A, false, "read-only"},
		// Dangerous files and directories among targets.
		{"rm ~/.bashrc", def, K, true, "sensitive paths: ~/.bashrc"},
		{"touch .git/hooks/pre-commit", def, K, true, ".git/hooks/pre-commit"},
		{"cp x .VSCODE/settings.json", def, K, true, "sensitive paths"},
		{"echo x > ~/.zshrc", def, K, true, "sensitive paths"},
		// Stricter: quoted words are targets too.
		{"rm '.bashrc'", def, K, true, "sensitive paths: .bashrc"},
		// Removal of roots.
		{"rm /", def, K, true, "Dangerous removal"},
		{"rm /usr", def, K, true, "'/usr'"},
		{"rmdir /tmp", def, K, true, "Dangerous removal"},
		{"rm ~", def, K, true, "Dangerous removal"},
		{"rm *", def, K, true, "'*'"},
		{"rm build/*", def, K, true, "'build/*'"},
		{"ls && rm /etc", def, K, true, "'/etc'"},
		{"rm /usr/local/x", def, P, false, ""},
		// Accept-edits targets.
		{"mkdir /tmp/project/a", edits, A, false, "all targets in working directory"},
		{"touch /tmp/project/a /tmp/other", edits, P, false, ""},
		{"mkdir", edits, P, false, ""},
		{"npm install", edits, P, false, ""},
		{"cp /tmp/project/a /tmp/project/b", permission.ModeDontAsk, A, false, ""},
		{"cp /tmp/project/a /tmp/project/b", def, P, false, ""},
	}
	for _, r := range rows {
		pc := permission.NewContext(r.mode)
		pc.AddWorkingDirectory("/tmp/project", "test")
		d := BashDecision(r.cmd, pc, Config{})
		if d.Behavior != r.want || d.BypassImmune != r.immune || !strings.Contains(d.Message, r.msg) {
			t.Errorf("%q in %s: got %s immune=%v %q; want %s immune=%v containing %q",
				r.cmd, r.mode, d.Behavior, d.BypassImmune, d.Message, r.want, r.immune, r.msg)
		}
	}
}

// TestReadOnlyInvocation: the engine's fast path never allows a line with
// an injection construct, even when the line looks read-only.
func TestReadOnlyInvocation(t *testing.T) {
	for cmd, want := range map[string]bool{
		"ls":               true,
		"ls $(rm -rf /)":   false,
		"cat `rm x`":       false,
		"":                 false,
		"git status":       true,
		"git push":         false,
		"find . -delete":   false,
		"find . -name '*'": true,
	} {
		if got := ReadOnlyCommand(cmd, Config{}); got != want {
			t.Errorf("ReadOnlyCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestBashSuggestions(t *testing.T) {
	b := NewBash(Config{})
	got := b.SuggestRules(map[string]any{"command": "git add . && git commit -m 'x' | tee log && ls"})
	var contents []string
	for _, r := range got {
		if r.ToolName != "Bash" || r.Behavior != block.Allow || r.Source != "suggested" {
			t.Errorf("rule %+v", r)
		}
		contents = append(contents, r.RuleContent.String)
	}
	// tee's prefix would allow writing anywhere: its exact command.
	if strings.Join(contents, ",") != "git add:*,git commit:*,tee log" {
		t.Errorf("suggestions %v", contents)
	}
	if got := b.SuggestRules(map[string]any{"command": "ls -la"}); len(got) != 0 {
		t.Errorf("safe command suggested %v", got)
	}
}

func TestFnmatch(t *testing.T) {
	for _, c := range []struct {
		name, pat string
		want      bool
	}{
		{"/tmp/a/b.txt", "/tmp/**", true},
		{"/tmp/a/b.txt", "/tmp/*", true}, // * crosses "/" in fnmatch
		{"test.py", "*.py", true},
		{"test.pyc", "*.py", false},
		{"a", "?", true},
		{"ab", "?", false},
		{"b", "[abc]", true},
		{"d", "[!abc]", true},
		{"a", "[!abc]", false},
		{"[", "[", true},
		{"a.b", "a.b", true},
		{"axb", "a.b", false},
		{"a\nb", "a*b", true},
	} {
		if got := fnmatch(c.name, c.pat); got != c.want {
			t.Errorf("fnmatch(%q, %q) = %v, want %v", c.name, c.pat, got, c.want)
		}
	}
}

func TestShlexSplit(t *testing.T) {
	for in, want := range map[string]string{
		`a b  c`:        "a|b|c",
		`'a b' "c d"`:   "a b|c d",
		`a\ b`:          "a b",
		`"a\"b" "a\nb"`: `a"b|a\nb`,
		`x'y'z`:         "xyz",
		`''`:            "",
		`sed -n '5p' f`: "sed|-n|5p|f",
	} {
		got, err := shlexSplit(in)
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("shlexSplit(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`'a`, `"a`, `a\`} {
		if _, err := shlexSplit(bad); err == nil {
			t.Errorf("shlexSplit(%q) did not fail", bad)
		}
	}
}

// TestReferenceBashToolCases are the command lists of the reference's
// Bash tool tests (tests/builtin_bash_test.py), with their assertions.
func TestReferenceBashToolCases(t *testing.T) {
	pc := permission.NewContext(permission.ModeDefault)
	check := func(cmd string) permission.Decision { return BashDecision(cmd, pc, Config{}) }
	for _, cmd := range []string{"ls $(pwd)", "rm $(find . -name '*.tmp')", "cat `which python`", "ls $(rm -rf /)"} {
		if d := check(cmd); d.Behavior != block.Ask || !strings.Contains(d.Message, "command_substitution") {
			t.Errorf("%q: %+v", cmd, d)
		}
	}
	for _, cmd := range []string{"for f in *.txt; do cat $f; done", "while read line; do echo $line; done < file.txt", "if [ -f file.txt ]; then cat file.txt; fi"} {
		if d := check(cmd); d.Behavior != block.Ask || !strings.Contains(d.Message, "cannot be statically analyzed") {
			t.Errorf("%q: %+v", cmd, d)
		}
	}
	if d := check("(cd /tmp && ls)"); d.Behavior != block.Ask || !strings.Contains(d.Message, "subshell") {
		t.Errorf("subshell: %+v", d)
	}
	for _, cmd := range []string{
		"find . -delete", "find . -name '*.tmp' -delete", "find . -daystart -delete", "find . -nogroup -delete",
		"find . -nouser -delete", `find . -exec rm {} \;`, `find . -execdir rm {} \;`, "find . -fls results.txt",
		"find . -fprint results.txt", "find . -fprint0 results.txt", `find . -fprintf results.txt '%p\n'`,
		`find . -ok rm {} \;`, `find . -okdir rm {} \;`,
	} {
		if d := check(cmd); d.Behavior == block.Allow {
			t.Errorf("mutating find %q allowed", cmd)
		}
	}
	for _, cmd := range []string{"ls -la", "cat file.txt", "find . -name '-delete'", "find . -path './-fprint'", "find . -regex '.*-exec.*'", "git status", "echo 'hello world'"} {
		if d := check(cmd); d.Behavior == block.Ask {
			t.Errorf("safe %q asks: %s", cmd, d.Message)
		}
	}
	removal := func(d permission.Decision) bool {
		return strings.Contains(d.Message, "Dangerous removal operation") || strings.Contains(d.Message, "dangerous pattern")
	}
	for _, cmd := range []string{
		"rm -rf /", "rm -rf /usr", "rm -rf /etc", "rm -rf /tmp", "rm -rf /var", "rm -rf /bin", "rm -rf ~",
		"rm -rf *", "rm -rf /*", "rm -rf /tmp/*", "ls && rm -rf /", "cd /tmp && rm -rf /usr", "echo start; rm -rf ~; echo end",
	} {
		if d := check(cmd); d.Behavior != block.Ask || !d.BypassImmune || !removal(d) {
			t.Errorf("%q: %+v", cmd, d)
		}
	}
	for _, cmd := range []string{"rmdir /", "rmdir /usr", "rmdir ~"} {
		if d := check(cmd); d.Behavior != block.Ask || !strings.Contains(d.Message, "Dangerous removal operation") {
			t.Errorf("%q: %+v", cmd, d)
		}
	}
	for _, cmd := range []string{"rm file.txt", "rm -f temp.log", "rm -rf /tmp/my_project/build", "rm -rf ./node_modules"} {
		if d := check(cmd); strings.Contains(d.Message, "Dangerous removal operation") {
			t.Errorf("safe rm %q: %s", cmd, d.Message)
		}
	}
	// Rule matching and suggestions of the same file.
	b := NewBash(Config{})
	for _, c := range []struct {
		rule, cmd string
		want      bool
	}{
		{"git:*", "git", true}, {"git:*", "git status", true}, {"git:*", "npm install", false},
		{"git commit *", "git commit -m 'test'", true}, {"git commit *", "git status", false},
		{"install", "npm install package", true}, {"install", "npm run build", false},
		{`echo \*`, "echo *", true}, {`echo \\`, `echo \`, true},
	} {
		if got := b.MatchRule(c.rule, map[string]any{"command": c.cmd}); got != c.want {
			t.Errorf("MatchRule(%q, %q) = %v", c.rule, c.cmd, got)
		}
	}
	// Stricter: "npm install:*" would install any package and run its
	// scripts; the exact command is suggested.
	if s := b.SuggestRules(map[string]any{"command": "npm install"}); len(s) != 1 || s[0].RuleContent.String != "npm install" {
		t.Errorf("suggestions %+v", s)
	}
}

// Relative targets are judged where the command runs (Config.Dir), not
// where the process happens to be.
func TestBashRelativeTargetsUseDir(t *testing.T) {
	work := t.TempDir()
	pc := permission.NewContext(permission.ModeAcceptEdits)
	pc.AddWorkingDirectory(work, "test")
	if d := BashDecision("touch a.txt", pc, Config{Dir: work}); d.Behavior != block.Allow {
		t.Errorf("touch a.txt in the working dir: %s (%s)", d.Behavior, d.Message)
	}
	// The process's directory counts as a working directory; a command
	// running elsewhere must not borrow it.
	elsewhere := t.TempDir()
	if d := BashDecision("touch a.txt", pc, Config{Dir: elsewhere}); d.Behavior == block.Allow {
		t.Errorf("touch a.txt outside the working dirs allowed: %s", d.Message)
	}
	if d := BashDecision("touch .git/x", pc, Config{Dir: work}); !d.BypassImmune {
		t.Errorf("dangerous relative target: %+v", d)
	}
}
