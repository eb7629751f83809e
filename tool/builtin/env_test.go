package builtin

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
)

// setSecrets puts provider keys into this process's environment, where a
// command must not find them.
func setSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-secret")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret")
	t.Setenv("AGENTSCOPE_UNNAMED", "not for children")
}

// minimalNames are the variables a command may inherit, the three that
// set git's safe.bareRepository and the go command's GOTOOLCHAIN.
var minimalNames = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "GOTOOLCHAIN"}

// checkEnv checks the output of `env`: only the minimal names and the
// named extras (and what sh itself sets), no secret, the extras present.
func checkEnv(t *testing.T, out string, extras ...string) {
	t.Helper()
	for line := range strings.Lines(strings.TrimSpace(out)) {
		k, _, _ := strings.Cut(strings.TrimSpace(line), "=")
		named := slices.ContainsFunc(extras, func(kv string) bool { return strings.HasPrefix(kv, k+"=") })
		if strings.Contains(line, "secret") || !(slices.Contains(minimalNames, k) || named || k == "PWD" || k == "SHLVL" || k == "_" || k == "OLDPWD") {
			t.Errorf("the command sees %q", strings.TrimSpace(line))
		}
	}
	for _, kv := range extras {
		if !strings.Contains(out, kv+"\n") {
			t.Errorf("the command does not see %q in\n%s", kv, out)
		}
	}
}

func TestBashMinimalEnvironment(t *testing.T) {
	setSecrets(t)
	t.Setenv("LANG", "C.UTF-8")
	b := NewBash(Config{Dir: t.TempDir(), Env: []string{"NAMED_EXTRA=visible", "LANG=en_US.UTF-8"}})
	out, s := call(t, context.Background(), b, map[string]any{"command": "env"})
	if s != block.ResultSuccess {
		t.Fatalf("env: %s %q", s, out)
	}
	checkEnv(t, out, "NAMED_EXTRA=visible", "LANG=en_US.UTF-8")
	if strings.Contains(out, "LANG=C.UTF-8") {
		t.Errorf("Config.Env did not win over the inherited LANG:\n%s", out)
	}
	if out, _ := call(t, context.Background(), b, map[string]any{"command": `printf %s "$OPENAI_API_KEY"`}); out != "" {
		t.Errorf("OPENAI_API_KEY = %q", out)
	}
	bad := NewBash(Config{Env: []string{"NOVALUE"}})
	if out, s := call(t, context.Background(), bad, map[string]any{"command": "true"}); s != block.ResultError || !strings.Contains(out, `Config.Env: environment entry "NOVALUE" is not KEY=VALUE`) {
		t.Errorf("bad Env: %s %q", s, out)
	}
}
