package builtin

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
)

// These tests need bubblewrap, which .ci/run installs: without it they
// fail, never skip, so CI cannot pass with the sandbox untested.

// sandboxed is a Bash in a fresh working directory with the sandbox on.
func sandboxed(t *testing.T, sb Sandbox) (*Bash, string) {
	t.Helper()
	if err := CheckSandbox(); err != nil {
		t.Fatalf("the sandbox tests need bubblewrap: %v", err)
	}
	dir := t.TempDir()
	return NewBash(Config{Dir: dir, Sandbox: sb}), dir
}

// outsideDir is a directory outside the working directory that the
// sandbox shows as it is: not under /tmp, which it replaces with an empty
// one.
func outsideDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "agentscope-sandbox-test-")
	if err != nil {
		t.Fatalf("a directory outside /tmp for the test: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func workspaceWrite() Sandbox { return Sandbox{Mode: SandboxWorkspaceWrite} }

func TestSandboxRemovalOutsideFails(t *testing.T) {
	for _, mode := range []SandboxMode{SandboxWorkspaceWrite, SandboxReadOnly} {
		t.Run(string(mode), func(t *testing.T) {
			b, _ := sandboxed(t, Sandbox{Mode: mode})
			victim := filepath.Join(outsideDir(t), "victim")
			if err := os.WriteFile(victim, []byte("keep me"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := "rm -rf " + victim
			out, s := call(t, context.Background(), b, map[string]any{"command": cmd})
			if s != block.ResultError || !strings.Contains(out, "Read-only file system") || !strings.Contains(out, "Command failed: "+cmd+"\nExit code: 1") {
				t.Errorf("rm -rf outside: %s %q", s, out)
			}
			if got, err := os.ReadFile(victim); err != nil || string(got) != "keep me" {
				t.Errorf("the file outside did not survive: %q, %v", got, err)
			}
		})
	}
}

func TestSandboxWritesInWorkingDirectory(t *testing.T) {
	b, dir := sandboxed(t, workspaceWrite())
	out, s := call(t, context.Background(), b, map[string]any{"command": "echo made > new.txt && mkdir sub && rm new.txt && touch sub/kept && pwd"})
	if s != block.ResultSuccess {
		t.Fatalf("workspace-write: %s %q", s, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", "kept")); err != nil {
		t.Errorf("the write inside did not happen: %v", err)
	}
	if real, _ := filepath.EvalSymlinks(dir); strings.TrimSpace(out) != real {
		t.Errorf("pwd %q, want %q", out, real)
	}
	// Its /tmp is private and writable, TMPDIR points at it.
	if out, s := call(t, context.Background(), b, map[string]any{"command": `f=$(mktemp) && echo x > "$f" && echo "$TMPDIR"`}); s != block.ResultSuccess || out != "/tmp\n" {
		t.Errorf("mktemp: %s %q", s, out)
	}

	ro, dir := sandboxed(t, Sandbox{Mode: SandboxReadOnly})
	if err := os.WriteFile(filepath.Join(dir, "old.txt"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, s = call(t, context.Background(), ro, map[string]any{"command": "cat old.txt; echo new > new.txt"})
	if s != block.ResultError || !strings.HasPrefix(out, "old") || !strings.Contains(out, "Read-only file system") {
		t.Errorf("read-only: %s %q", s, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("read-only wrote new.txt: %v", err)
	}
	if out, s := call(t, context.Background(), ro, map[string]any{"command": "echo x > /tmp/scratch && cat /tmp/scratch"}); s != block.ResultSuccess || out != "x\n" {
		t.Errorf("read-only /tmp: %s %q", s, out)
	}
}

func TestSandboxWritable(t *testing.T) {
	extra := outsideDir(t)
	b, _ := sandboxed(t, Sandbox{Mode: SandboxWorkspaceWrite, Writable: []string{extra}})
	if out, s := call(t, context.Background(), b, map[string]any{"command": "echo cached > " + filepath.Join(extra, "cache")}); s != block.ResultSuccess {
		t.Fatalf("write to Writable: %s %q", s, out)
	}
	if got, _ := os.ReadFile(filepath.Join(extra, "cache")); string(got) != "cached\n" {
		t.Errorf("Writable holds %q", got)
	}
}

// No process of the sandbox can read this process's environment: /proc
// is the sandbox's own, and so is its environment.
func TestSandboxHidesParentEnvironment(t *testing.T) {
	setSecrets(t)
	b, _ := sandboxed(t, workspaceWrite())
	cmd := "cat /proc/1/environ /proc/$PPID/environ /proc/" + strconv.Itoa(os.Getpid()) + "/environ; env"
	out, _ := call(t, context.Background(), b, map[string]any{"command": cmd})
	if strings.Contains(out, "secret") || strings.Contains(out, "AGENTSCOPE_UNNAMED") || !strings.Contains(out, "PATH=") {
		t.Errorf("a secret in the sandbox:\n%s", out)
	}
	// Only the sandbox's few processes are in its /proc.
	out, _ = call(t, context.Background(), b, map[string]any{"command": "ls /proc | grep -c '^[0-9]'"})
	if n, err := strconv.Atoi(strings.TrimSpace(out)); err != nil || n > 5 {
		t.Errorf("/proc is not the sandbox's own: %q processes", out)
	}
}

// Inside: a minimal /dev, an empty /run (the system's sockets, a
// container engine's among them, are out of reach), no capabilities, a
// session of the sandbox's own.
func TestSandboxDevRunCapabilities(t *testing.T) {
	b, _ := sandboxed(t, workspaceWrite())
	out, s := call(t, context.Background(), b, map[string]any{"command": "ls -A /dev | tr '\\n' ' '; echo; ls -A /run | wc -l; grep CapEff /proc/self/status; cut -d' ' -f6 /proc/self/stat"})
	if s != block.ResultSuccess {
		t.Fatalf("%s %q", s, out)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 4 {
		t.Fatalf("output %q", out)
	}
	minimal := map[string]bool{"core": true, "fd": true, "full": true, "mqueue": true, "null": true, "ptmx": true, "pts": true, "random": true, "shm": true, "stderr": true, "stdin": true, "stdout": true, "tty": true, "urandom": true, "zero": true}
	for _, d := range strings.Fields(lines[0]) {
		if !minimal[d] {
			t.Errorf("/dev/%s in the sandbox", d)
		}
	}
	if strings.TrimSpace(lines[1]) != "0" {
		t.Errorf("/run holds %s entries", lines[1])
	}
	if strings.Fields(lines[2])[1] != "0000000000000000" {
		t.Errorf("capabilities: %s", lines[2])
	}
	if strings.TrimSpace(lines[3]) != "1" {
		t.Errorf("session %s, want the sandbox's first process's", lines[3])
	}
}

// Credential files and Config.SecretPaths look empty inside, even in the
// working directory.
func TestSandboxHidesSecretPaths(t *testing.T) {
	home := outsideDir(t)
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".netrc"), []byte("machine x password hunter2"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckSandbox(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store := filepath.Join(dir, "store.db")
	if err := os.WriteFile(store, []byte("other users' sessions"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := NewBash(Config{Dir: dir, SecretPaths: []string{store}, Sandbox: workspaceWrite()})
	out, _ := call(t, context.Background(), b, map[string]any{"command": "ls -A ~/.ssh; cat ~/.ssh/id_ed25519 ~/.netrc store.db; echo end"})
	if strings.Contains(out, "PRIVATE") || strings.Contains(out, "hunter2") || strings.Contains(out, "sessions") || strings.Contains(out, "id_ed25519\n") || !strings.HasSuffix(out, "end\n") {
		t.Errorf("a secret path in the sandbox:\n%s", out)
	}
	if got, _ := os.ReadFile(store); string(got) != "other users' sessions" {
		t.Errorf("the store changed: %q", got)
	}
}

// The network is unreachable, this machine's loopback included, unless
// Network allows it.
func TestSandboxNetwork(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // owned by the test: ends when ln closes
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	// bash's /dev/tcp connects without a network tool installed.
	cmd := "bash -c 'exec 3<>/dev/tcp/127.0.0.1/" + port + "' && echo connected"
	b, _ := sandboxed(t, workspaceWrite())
	if out, s := call(t, context.Background(), b, map[string]any{"command": cmd}); s != block.ResultError || !strings.Contains(out, "Connection refused") || strings.HasPrefix(out, "connected") {
		t.Errorf("without Network: %s %q", s, out)
	}
	b, _ = sandboxed(t, Sandbox{Mode: SandboxWorkspaceWrite, Network: true})
	if out, s := call(t, context.Background(), b, map[string]any{"command": cmd}); s != block.ResultSuccess || out != "connected\n" {
		t.Errorf("with Network: %s %q", s, out)
	}
}

// sleepers starts two sleeps in the sandbox, one of which leaves the
// process group (setsid); tag makes their arguments unique on this
// machine.
func sleepers(tag int) string {
	return "sleep " + strconv.Itoa(tag) + " & setsid sleep " + strconv.Itoa(tag+1) + " & echo started; wait"
}

// hostPIDs finds, from outside the sandbox, the processes running
// `sleep N` for the two sleepers of tag.
func hostPIDs(tag int) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		for _, n := range []int{tag, tag + 1} {
			if bytes.Equal(b, []byte("sleep\x00"+strconv.Itoa(n)+"\x00")) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

func waitSleepers(t *testing.T, tag int) []int {
	t.Helper()
	for range 500 {
		if pids := hostPIDs(tag); len(pids) == 2 {
			return pids
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the sleepers did not start")
	return nil
}

// A timeout and an interruption kill every process of the sandbox, even
// one that left the process group.
func TestSandboxKilledOnTimeoutAndInterrupt(t *testing.T) {
	tag := 4000 + os.Getpid()%1000*10
	b, _ := sandboxed(t, workspaceWrite())
	done := make(chan string)
	go func() { // owned by the test: ends with the call
		out, _ := call(t, context.Background(), b, map[string]any{"command": sleepers(tag), "timeout": 500.0})
		done <- out
	}()
	pids := waitSleepers(t, tag)
	select {
	case out := <-done:
		if !strings.Contains(out, "Command timed out after 500ms") {
			t.Errorf("timeout result %q", out)
		}
	case <-time.After(pipeGrace + 10*time.Second):
		t.Fatal("the sandboxed call outlived its timeout")
	}
	for _, pid := range pids {
		if !gone(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("sleeper %d outlived the timeout", pid)
		}
	}

	tag += 2
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	go func() { // owned by the test: ends with the call, which cancel ends
		defer close(ended)
		for range b.Call(ctx, map[string]any{"command": sleepers(tag)}) {
		}
	}()
	pids = waitSleepers(t, tag)
	cancel()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the sandboxed call did not end on cancellation")
	}
	for _, pid := range pids {
		if !gone(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("sleeper %d outlived the interrupt", pid)
		}
	}
}

// A background job ends with the command that started it: the command
// waits for the test to see its jobs run, then exits.
func TestSandboxBackgroundJobEnds(t *testing.T) {
	tag := 6000 + os.Getpid()%1000*10
	b, dir := sandboxed(t, workspaceWrite())
	cmd := "sleep " + strconv.Itoa(tag) + " & setsid sleep " + strconv.Itoa(tag+1) + " & while [ ! -f go ]; do sleep 0.01; done"
	done := make(chan block.ToolResultState)
	go func() { // owned by the test: ends with the call, which the file "go" ends
		_, s := call(t, context.Background(), b, map[string]any{"command": cmd, "timeout": 20000.0})
		done <- s
	}()
	pids := waitSleepers(t, tag)
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if s := <-done; s != block.ResultSuccess {
		t.Fatalf("the command ended %s", s)
	}
	for _, pid := range pids {
		if !gone(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("background job %d outlived the command", pid)
		}
	}
}

// Without bubblewrap a sandboxed command refuses to run, saying how to
// install it; it never runs unconfined.
func TestSandboxUnavailableRefuses(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	err := CheckSandbox()
	if !errors.Is(err, ErrSandboxUnavailable) || !strings.Contains(err.Error(), "apt-get install bubblewrap") {
		t.Fatalf("CheckSandbox without bwrap: %v", err)
	}
	b := NewBash(Config{Dir: dir, Sandbox: workspaceWrite()})
	out, s := call(t, context.Background(), b, map[string]any{"command": "echo ran > ran.txt"})
	if s != block.ResultError || !strings.Contains(out, "the Bash sandbox is unavailable: bubblewrap (bwrap) is not on PATH") || !strings.Contains(out, "apt-get install bubblewrap") {
		t.Errorf("result %s %q", s, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command ran: %v", err)
	}
	bad := NewBash(Config{Dir: dir, Sandbox: Sandbox{Mode: "strict"}})
	if out, s := call(t, context.Background(), bad, map[string]any{"command": "true"}); s != block.ResultError || !strings.Contains(out, `unknown sandbox mode "strict"`) {
		t.Errorf("unknown mode: %s %q", s, out)
	}
}

// Off Linux there is no sandbox to make: a refusal.
func TestSandboxNotLinuxRefuses(t *testing.T) {
	defer func(g string) { goos = g }(goos)
	goos = "darwin"
	if err := CheckSandbox(); !errors.Is(err, ErrSandboxUnavailable) || !strings.Contains(err.Error(), "it needs Linux and bubblewrap (bwrap); this is darwin") {
		t.Fatalf("CheckSandbox on darwin: %v", err)
	}
	dir := t.TempDir()
	if out, s := call(t, context.Background(), NewBash(Config{Dir: dir, Sandbox: workspaceWrite()}), map[string]any{"command": "echo ran > ran.txt"}); s != block.ResultError || !strings.Contains(out, "needs Linux") {
		t.Errorf("result %s %q", s, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command ran: %v", err)
	}
}

// A sandbox that bwrap cannot create is a refusal too: a bwrap that
// fails its probe stands in for one without user namespaces.
func TestSandboxProbeFailureRefuses(t *testing.T) {
	bin := t.TempDir()
	fake := "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "bwrap"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	err := CheckSandbox()
	if !errors.Is(err, ErrSandboxUnavailable) || !strings.Contains(err.Error(), "No permissions to create new namespace") || !strings.Contains(err.Error(), "user namespaces") {
		t.Fatalf("CheckSandbox with a failing bwrap: %v", err)
	}
	dir := t.TempDir()
	b := NewBash(Config{Dir: dir, Sandbox: workspaceWrite()})
	if out, s := call(t, context.Background(), b, map[string]any{"command": "echo ran > ran.txt"}); s != block.ResultError || !strings.Contains(out, "cannot create the sandbox here") {
		t.Errorf("result %s %q", s, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command ran: %v", err)
	}
}

func TestParseSandboxMode(t *testing.T) {
	for _, s := range []string{"workspace-write", "read-only"} {
		if m, err := ParseSandboxMode(s); err != nil || string(m) != s {
			t.Errorf("%s: %v %v", s, m, err)
		}
	}
	for _, s := range []string{"", "none", "Read-Only"} {
		if _, err := ParseSandboxMode(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

// In workspace-write, what would run outside the sandbox later stays
// read-only: the repository's hooks and config, and the dangerous files
// at the top of the working directory; the rest of .git (a commit) works.
func TestSandboxProtectsHooksAndConfig(t *testing.T) {
	b, dir := sandboxed(t, workspaceWrite())
	for _, d := range []string{".git/hooks", ".git/objects", ".vscode"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".git/config", ".bashrc", ".envrc"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("mine\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range []string{
		"echo x >> .git/config", "echo touch pwned > .git/hooks/pre-commit", "echo x >> .bashrc",
		"echo x > .envrc", "echo '{}' > .vscode/settings.json",
	} {
		if out, s := call(t, context.Background(), b, map[string]any{"command": cmd}); s != block.ResultError || !strings.Contains(out, "Read-only file system") {
			t.Errorf("%q: %s %q", cmd, s, out)
		}
	}
	for _, f := range []string{".git/config", ".bashrc", ".envrc"} {
		if got, _ := os.ReadFile(filepath.Join(dir, f)); string(got) != "mine\n" {
			t.Errorf("%s changed: %q", f, got)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".git/hooks/pre-commit")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a hook was planted: %v", err)
	}
	if out, s := call(t, context.Background(), b, map[string]any{"command": "echo blob > .git/objects/x && echo fine > code.txt"}); s != block.ResultSuccess {
		t.Errorf("the rest of the work: %s %q", s, out)
	}
}

// A directory written into a bare repository's shape, with a config that
// names a program, is not taken for a repository by Bash's git.
func TestBashGitIgnoresImplicitBareRepository(t *testing.T) {
	dir := t.TempDir()
	pwned := filepath.Join(t.TempDir(), "pwned")
	for _, d := range []string{"objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "config"), []byte("[core]\n\tbare = false\n\tfsmonitor = touch "+pwned+"\n"), 0o644)
	for _, sb := range []Sandbox{{}, workspaceWrite()} {
		if sb.On() {
			if err := CheckSandbox(); err != nil {
				t.Fatalf("the sandbox tests need bubblewrap: %v", err)
			}
		}
		b := NewBash(Config{Dir: dir, Sandbox: sb})
		out, _ := call(t, context.Background(), b, map[string]any{"command": "git log; git status"})
		if !strings.Contains(out, "safe.bareRepository") {
			t.Errorf("sandbox %q: git took the directory for a repository: %q", sb.Mode, out)
		}
	}
	if _, err := os.Stat(pwned); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the config's program ran: %v", err)
	}
	// Config.Env may turn it off, for a user who works in bare repositories.
	b := NewBash(Config{Dir: dir, Env: []string{"GIT_CONFIG_COUNT=0"}})
	if out, _ := call(t, context.Background(), b, map[string]any{"command": "git rev-parse --is-bare-repository"}); strings.Contains(out, "safe.bareRepository") {
		t.Errorf("GIT_CONFIG_COUNT=0 did not turn it off: %q", out)
	}
}

// The go command of a Bash command runs the installed toolchain: a go.mod
// the agent wrote that asks for another one does not make even a
// read-only `go env` fetch and run it.
func TestBashGoToolchainIsLocal(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("go is not on PATH: %v", err)
	}
	// The user's go env file asks for auto, as an official Go's default
	// does (this machine's GOROOT may say local).
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, ".config", "go"), 0o755)
	os.WriteFile(filepath.Join(home, ".config", "go", "env"), []byte("GOTOOLCHAIN=auto\n"), 0o644)
	// Telemetry off (what "go telemetry off" writes): otherwise the go
	// command leaves a child process writing counters under HOME after
	// it exits, racing the temporary directory's removal.
	os.MkdirAll(filepath.Join(home, ".config", "go", "telemetry"), 0o755)
	os.WriteFile(filepath.Join(home, ".config", "go", "telemetry", "mode"), []byte("off"), 0o644)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n\ngo 1.99\n\ntoolchain go1.99.1\n"), 0o644)
	out, _ := call(t, context.Background(), NewBash(Config{Dir: dir}), map[string]any{"command": "go env GOTOOLCHAIN"})
	if !strings.Contains(out, "GOTOOLCHAIN=local") && strings.TrimSpace(out) != "local" {
		t.Errorf("go env in a module asking for go1.99.1: %q", out)
	}
	if strings.Contains(out, "downloading") {
		t.Errorf("the toolchain was fetched: %q", out)
	}
}
