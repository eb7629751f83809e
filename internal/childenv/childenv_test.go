package childenv

import (
	"slices"
	"strings"
	"testing"
)

func TestEnviron(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-secret")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret")
	t.Setenv("AGENTSCOPE_TOKEN", "tok")
	t.Setenv("HOME", "/home/u")
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("TERM", "() { :; }; echo pwned")
	got, err := Environ([]string{"FOO=1", "HOME=/elsewhere", "FOO=2", "EMPTY="})
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range got {
		if strings.Contains(kv, "secret") || strings.HasPrefix(kv, "AGENTSCOPE_TOKEN=") || strings.HasPrefix(kv, "TERM=") {
			t.Errorf("leaked %q", kv)
		}
	}
	for _, want := range []string{"HOME=/elsewhere", "LANG=C.UTF-8", "FOO=2", "EMPTY="} {
		if !slices.Contains(got, want) {
			t.Errorf("%v lacks %q", got, want)
		}
	}
	if slices.Contains(got, "HOME=/home/u") || slices.Contains(got, "FOO=1") {
		t.Errorf("an earlier value survived: %v", got)
	}
	for _, bad := range []string{"NOVALUE", "=x"} {
		if _, err := Environ([]string{bad}); err == nil || !strings.Contains(err.Error(), "KEY=VALUE") {
			t.Errorf("%q: error %v", bad, err)
		}
	}
}
