package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	stamped := func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"},
			{Key: "vcs.time", Value: "2026-12-01T20:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		}}, true
	}
	released := func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}, true
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	for _, c := range []struct {
		linked string
		read   func() (*debug.BuildInfo, bool)
		want   string
	}{
		{"", stamped, "agentscope (devel) (commit 0123456789ab, 2026-12-01T20:00:00Z, modified, " + runtime.Version() + ")"},
		{"", released, "agentscope v0.3.0 (" + runtime.Version() + ")"},
		{"v1.2.3", released, "agentscope v1.2.3 (" + runtime.Version() + ")"},
		{"", none, "agentscope unknown (" + runtime.Version() + ")"},
	} {
		if got := versionLine(c.linked, c.read); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

// --version and the version command print the same line, through the
// entry function and through the built binary.
func TestVersionCommand(t *testing.T) {
	want := versionLine(version, debug.ReadBuildInfo) + "\n"
	for _, args := range [][]string{{"--version"}, {"-version"}, {"version"}} {
		code, stdout, stderr := runIn(t, "", args...)
		if code != 0 || stdout != want || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	if code, _, stderr := runIn(t, "", "version", "extra"); code != exitUsage || !strings.Contains(stderr, "extra") {
		t.Errorf("version extra: exit %d, %q", code, stderr)
	}
	if _, stdout, _ := runIn(t, "", "help"); !strings.Contains(stdout, "  version ") {
		t.Errorf("help does not list version:\n%s", stdout)
	}

	bin := filepath.Join(t.TempDir(), "agentscope")
	if out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	exe := func(args ...string) (int, string, string) {
		cmd := exec.CommandContext(t.Context(), bin, args...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), out.String(), errOut.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, out.String(), errOut.String()
	}
	code, v1, _ := exe("--version")
	_, v2, _ := exe("version")
	if code != 0 || v1 != v2 || !strings.HasPrefix(v1, "agentscope ") || !strings.HasSuffix(v1, runtime.Version()+")\n") {
		t.Errorf("binary: exit %d, %q and %q", code, v1, v2)
	}
	// Flags after the prompt, as a user types them.
	code, stdout, stderr := exe("run", "What is 12*(3+4)?", "--model", "demo")
	if code != 0 || !strings.Contains(stdout, "12*(3+4) = 84") {
		t.Errorf("binary run with flags after the prompt: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
