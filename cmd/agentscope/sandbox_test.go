package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/tool"
	"github.com/agentscope-go/agentscope/tool/builtin"
)

// bashCallsServer is an OpenAI-compatible endpoint whose first answer
// calls Bash once per command, in one turn, and whose next answer is
// "Done."; it records the request bodies.
func bashCallsServer(t *testing.T, commands ...string) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		b.ReadFrom(r.Body)
		mu.Lock()
		first := len(bodies) == 0
		bodies = append(bodies, b.String())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if !first {
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Done.\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
			return
		}
		for i, c := range commands {
			args, _ := json.Marshal(map[string]string{"command": c})
			chunk := map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "tool_calls": []any{
				map[string]any{"index": i, "id": fmt.Sprintf("call_%d", i), "type": "function", "function": map[string]any{"name": "Bash", "arguments": string(args)}},
			}}}}}
			line, _ := json.Marshal(chunk)
			fmt.Fprintf(w, "data: %s\n\n", line)
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), bodies...)
	}
}

// outsideDir is a directory the sandbox shows as it is (not under /tmp,
// which it replaces with an empty one) outside every working directory.
func outsideDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "agentscope-sandbox-test-")
	if err != nil {
		t.Fatalf("a directory outside /tmp for the test: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// The built binary, as a user runs it, against a model served over real
// HTTP: with --sandbox the approved `rm -rf` of a file outside the working
// directory fails inside the sandbox, the file survives and the tool
// result the model gets says why; the command sees neither the provider
// key in agentscope's environment nor agentscope's /proc entry.
func TestRunSandboxEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and execs the binary")
	}
	if err := builtin.CheckSandbox(); err != nil {
		t.Fatalf("the sandbox tests need bubblewrap: %v", err)
	}
	bin := buildBinary(t)
	victim := filepath.Join(outsideDir(t), "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	srv, bodies := bashCallsServer(t, "rm -rf "+victim, "cat /proc/$PPID/environ /proc/1/environ; env; echo made > inside.txt")
	cmd := exec.CommandContext(t.Context(), bin, "run", "--model", "openai-compatible:m@"+srv.URL+"/v1",
		"--tools", "builtin", "--sandbox", "workspace-write", "--permission-mode", "bypass", "clean up")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=sk-test-secret", "AGENTSCOPE_MODEL=")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil || out.String() != "Done.\n" {
		t.Fatalf("run: %v, stdout %q, stderr %q", err, out.String(), errOut.String())
	}
	if got, err := os.ReadFile(victim); err != nil || string(got) != "keep me" {
		t.Fatalf("the file outside did not survive: %q, %v", got, err)
	}
	if got, err := os.ReadFile(filepath.Join(work, "inside.txt")); err != nil || string(got) != "made\n" {
		t.Errorf("the write inside the working directory: %q, %v", got, err)
	}
	b := bodies()
	if len(b) != 2 {
		t.Fatalf("requests %q", b)
	}
	results := b[1]
	if !strings.Contains(results, "rm: cannot remove '"+victim+"': Read-only file system") || !strings.Contains(results, "Exit code: 1") {
		t.Errorf("the tool result does not say why rm failed:\n%s", results)
	}
	if strings.Contains(results, "sk-test-secret") || !strings.Contains(results, "PATH=") {
		t.Errorf("the command saw the secret, or no environment at all:\n%s", results)
	}
}

// The flags are checked before anything starts.
func TestSandboxFlagErrors(t *testing.T) {
	t.Setenv("AGENTSCOPE_MODEL", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--model", "demo", "--sandbox", "strict", "hi"}, `unknown sandbox mode "strict"`},
		{[]string{"run", "--model", "demo", "--tools", "builtin", "--sandbox-network", "hi"}, "--sandbox-network is only for a sandbox"},
		{[]string{"run", "--model", "demo", "--sandbox", "read-only", "hi"}, "--sandbox confines the Bash tool, and no agent has it"},
		{[]string{"serve", "--sandbox", "read-only", "--addr", "127.0.0.1:0"}, "--sandbox confines the Bash tool, and no agent has it"},
		{[]string{"mcp", "--sandbox", "read-only"}, "--sandbox confines the Bash tool, and no agent has it"},
		{[]string{"chat", "--sandbox", "read-only", "--db", filepath.Join(t.TempDir(), "x.db")}, "--sandbox confines the Bash tool, and no agent has it"},
		{[]string{"chat", "--server", "http://127.0.0.1:1", "--sandbox", "read-only"}, "--sandbox: only for a chat in-process"},
	} {
		code, _, stderr := runIn(t, "", tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
		}
	}
}

// Where bubblewrap is missing, a command asked to sandbox Bash refuses to
// start, saying how to install it.
func TestSandboxUnavailableRefusesToStart(t *testing.T) {
	t.Setenv("AGENTSCOPE_MODEL", "")
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	config := filepath.Join(dir, "agents.json")
	if err := os.WriteFile(config, []byte(`{"agents": [{"id": "a", "model": "demo", "tools": "builtin", "sandbox": "workspace-write"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "--model", "demo", "--tools", "builtin", "--sandbox", "workspace-write", "hi"},
		{"serve", "--tools", "builtin", "--sandbox", "read-only", "--addr", "127.0.0.1:0", "--db", filepath.Join(dir, "x.db")},
		{"serve", "--config", config, "--addr", "127.0.0.1:0", "--db", filepath.Join(dir, "x.db")},
		{"chat", "--config", config, "--db", filepath.Join(dir, "x.db")},
		{"mcp", "--tools", "builtin", "--sandbox", "workspace-write"},
	} {
		code, stdout, stderr := runIn(t, "", args...)
		if code == exitOK || stdout != "" || !strings.Contains(stderr, "the Bash sandbox is unavailable: bubblewrap (bwrap) is not on PATH") || !strings.Contains(stderr, "apt-get install bubblewrap") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.db")); err == nil {
		t.Error("a command without its sandbox opened the store")
	}
}

// bashOf runs command with the Bash tool of the agent spec builds.
func bashOf(t *testing.T, s agentSpec, command string) (string, block.ToolResultState) {
	t.Helper()
	a, err := s.build(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ag, err := a.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range ag.Toolkit().Tools(nil) {
		if tl.Name() != "Bash" {
			continue
		}
		var text string
		var state block.ToolResultState
		for c := range tool.Run(context.Background(), tl, map[string]any{"command": command}) {
			for _, b := range c.Content {
				if tb, ok := b.(*block.Text); ok {
					text += tb.Text
				}
			}
			state = c.State
		}
		return text, state
	}
	t.Fatal("no Bash tool")
	return "", ""
}

// serve's and chat's --sandbox is every Bash agent's sandbox unless its
// entry names its own; an agent's sandbox reaches its Bash tool.
func TestSandboxAppliesToAgents(t *testing.T) {
	if err := builtin.CheckSandbox(); err != nil {
		t.Fatalf("the sandbox tests need bubblewrap: %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "agents.json")
	file := `{"agents": [
		{"id": "plain", "model": "demo", "tools": "builtin"},
		{"id": "own", "model": "demo", "tools": ["Bash", "Read"], "sandbox": "workspace-write", "sandbox_network": true},
		{"id": "reader", "model": "demo", "tools": ["Read"]}
	]}`
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	specs, err := readAgentFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o := &sandboxOpts{mode: builtin.SandboxReadOnly}
	if err := o.applyTo(specs); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(specs[0].builtinConfig().Sandbox, specs[1].builtinConfig().Sandbox, specs[2].Sandbox == "")
	if want := fmt.Sprint(builtin.Sandbox{Mode: builtin.SandboxReadOnly}, builtin.Sandbox{Mode: builtin.SandboxWorkspaceWrite, Network: true}, true); got != want {
		t.Errorf("sandboxes %s, want %s", got, want)
	}
	// The agent's Bash runs in it: a read-only sandbox refuses a write
	// in the process's directory, which the sandbox-less agent makes.
	t.Chdir(dir)
	if out, s := bashOf(t, specs[0], "touch made-by-sandboxed"); s != block.ResultError || !strings.Contains(out, "Read-only file system") {
		t.Errorf("read-only agent: %s %q", s, out)
	}
	free := agentSpec{ID: "free", Model: "demo", Tools: json.RawMessage(`"builtin"`)}
	if out, s := bashOf(t, free, "touch made-by-free"); s == block.ResultError {
		t.Errorf("unsandboxed agent: %s %q", s, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "made-by-free")); err != nil {
		t.Errorf("the unsandboxed agent did not write: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "made-by-sandboxed")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the read-only agent wrote: %v", err)
	}
}

// sleeperPID finds the process running `sleep tag`, polling for up to 10s
// (0: none).
func sleeperPID(tag string) int {
	for range 1000 {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && string(b) == "sleep\x00"+tag+"\x00" {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0
}

// A sandboxed command dies with agentscope, even when agentscope is
// killed outright and cannot kill it.
func TestSandboxDiesWithAgentscope(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and execs the binary")
	}
	if err := builtin.CheckSandbox(); err != nil {
		t.Fatalf("the sandbox tests need bubblewrap: %v", err)
	}
	bin := buildBinary(t)
	tag := strconv.Itoa(7000 + os.Getpid()%1000)
	srv, _ := bashCallsServer(t, "sleep "+tag)
	cmd := exec.Command(bin, "run", "--model", "openai-compatible:m@"+srv.URL+"/v1",
		"--tools", "builtin", "--sandbox", "read-only", "--permission-mode", "bypass", "wait")
	cmd.Dir = t.TempDir()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := sleeperPID(tag)
	cmd.Process.Kill()
	cmd.Wait()
	if pid == 0 {
		t.Fatal("the sandboxed sleep did not start")
	}
	for range 500 {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(b), ") Z ") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("the sandboxed sleep %d outlived agentscope", pid)
}
