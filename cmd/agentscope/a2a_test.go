package main

import (
	"bufio"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/server/a2a"
	"github.com/agentscope-go/agentscope/tool"
)

// peersDir is the folder of the npm test peers, installed by
// scripts/peers.sh when they are not, holding each of pkgs (failing,
// never skipping, without node, npm or one of them).
func peersDir(t *testing.T, pkgs ...string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is required: %v", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(root, "scripts", "peers.sh")).Output()
	if err != nil {
		t.Fatalf("scripts/peers.sh: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	for _, pkg := range pkgs {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			t.Fatalf("the npm peers have no %s: %v", pkg, err)
		}
	}
	return dir
}

// peerScript is testdata/peers/name and the peers' folder, holding pkgs.
func peerScript(t *testing.T, name string, pkgs ...string) (script, peers string) {
	t.Helper()
	peers = peersDir(t, pkgs...)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "testdata", "peers", name), peers
}

// The real @a2a-js/sdk client (ClientFactory.createFromUrl) against the
// built agentscope serve with the keyless demo agent, behind a token:
// send, stream, input-required then resume, subscribe and cancel, typed
// errors (testdata/a2a/sdk-client.mjs says what it checks).
func TestA2ASDKClient(t *testing.T) {
	peers := peersDir(t, "@a2a-js/sdk")
	s := startServe(t, agentscopeBin(t), freeAddr(t), filepath.Join(t.TempDir(), "a2a.db"), "--token", "sekret")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "a2a", "sdk-client.mjs"))
	cmd.Env = append(os.Environ(), "PEERS="+peers, "A2A_URL="+s.url, "A2A_TOKEN=sekret", "A2A_USER=sdk-user")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok errors") {
		t.Fatalf("sdk-client.mjs: %v\n%s\nserve: %s", err, out, s.stderr)
	}
	for _, step := range []string{"ok card", "ok send", "ok stream", "ok input-required", "ok cancel"} {
		if !strings.Contains(string(out), step) {
			t.Fatalf("no %q in\n%s", step, out)
		}
	}
}

// startEchoAgent runs testdata/a2a/echo-server.mjs, an agent on the
// SDK's own server, on 127.0.0.1 and returns its URL.
func startEchoAgent(t *testing.T) string {
	t.Helper()
	peers := peersDir(t, "@a2a-js/sdk")
	addr := freeAddr(t)
	_, port, _ := strings.Cut(addr, ":")
	cmd := exec.Command("node", filepath.Join("testdata", "a2a", "echo-server.mjs"))
	cmd.Env = append(os.Environ(), "PEERS="+peers, "PORT="+port)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				ready <- u
			}
		}
		cmd.Wait()
		close(exited)
	}()
	select {
	case u := <-ready:
		return strings.TrimRight(u, "/")
	case <-exited:
		t.Fatalf("echo-server.mjs exited: %s", stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("echo-server.mjs did not listen: %s", stderr.String())
	}
	return ""
}

// callTool runs a tool and folds its result.
func callTool(t *testing.T, tl tool.Tool, input map[string]any) (*block.ToolResult, string) {
	t.Helper()
	r := tool.NewResponse("call", nil)
	for ch := range tool.Run(t.Context(), tl, input) {
		if err := r.Append(ch); err != nil {
			t.Fatal(err)
		}
	}
	res := r.Result(tl.Name())
	var b strings.Builder
	for _, bl := range res.Output.Blocks {
		if tx, ok := bl.(*block.Text); ok {
			b.WriteString(tx.Text)
		}
	}
	return res, b.String()
}

// Our A2A client tool against the SDK's own server: a direct message and
// a task, from Go, from `run --a2a`, and in the agents serve builds.
func TestA2AToolAgainstSDKServer(t *testing.T) {
	url := startEchoAgent(t)
	c, err := a2a.Dial(t.Context(), a2a.ClientConfig{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := c.Tool("echo")
	if err != nil {
		t.Fatal(err)
	}
	if res, txt := callTool(t, tl, map[string]any{"message": "hi"}); res.State != block.ResultSuccess || txt != "echo: hi" {
		t.Fatalf("message: %s %q", res.State, txt)
	}
	if res, txt := callTool(t, tl, map[string]any{"message": "task: build it"}); res.State != block.ResultSuccess || txt != "done: build it" {
		t.Fatalf("task: %s %q", res.State, txt)
	}

	// run --a2a: the model calls the tool, and gets the remote answer.
	srv, bodies := toolCallServer(t, "a2a__echo", `{"message":"hello from go"}`)
	code, stdout, stderr := runIn(t, "", "run", "--model", "openai-compatible:m@"+srv.URL+"/v1",
		"--a2a", "echo="+url, "--permission-mode", "bypass", "say hi")
	if b := bodies(); code != 0 || stdout != "Done.\n" || len(b) != 2 || !strings.Contains(b[0], `"name":"a2a__echo"`) || !strings.Contains(b[1], "echo: hello from go") {
		t.Fatalf("run: exit %d, stdout %q, stderr %q, requests %q", code, stdout, stderr, b)
	}
	// Without a mode that lets it run unattended, the tool asks first.
	srv, _ = toolCallServer(t, "a2a__echo", `{"message":"hello"}`)
	code, _, stderr = runIn(t, "", "run", "--model", "openai-compatible:m@"+srv.URL+"/v1", "--a2a", "echo="+url, "say hi")
	if code != exitFailure || !strings.Contains(stderr, "waits for permission to run a2a__echo") {
		t.Fatalf("run without a mode: exit %d, stderr %q", code, stderr)
	}
	// Named by its card without NAME=.
	srv, bodies = toolCallServer(t, "a2a__Echo", `{"message":"task: again"}`)
	code, _, stderr = runIn(t, "", "run", "--model", "openai-compatible:m@"+srv.URL+"/v1", "--a2a", url, "--permission-mode", "bypass", "go")
	if b := bodies(); code != 0 || len(b) != 2 || !strings.Contains(b[1], "done: again") {
		t.Fatalf("run, unnamed: exit %d, stderr %q, requests %q", code, stderr, b)
	}

	// serve and chat build their agents with the file's (or the flags')
	// a2a list: each run's toolkit has the tool.
	specs := []agentSpec{{ID: "x", Model: "demo", A2A: []string{"echo=" + url}}}
	logger := slog.New(slog.DiscardHandler)
	agents, closeMCP, err := buildAgents(t.Context(), specs, func(int) string { return "" }, mcpSetup{Logger: logger}, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer closeMCP()
	for range 2 {
		a, err := agents[0].New(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := a.Toolkit().Lookup("a2a__echo"); !ok {
			t.Fatal("no a2a__echo in the run's toolkit")
		}
	}
}

// --a2a values are checked as given; an agent that is not there stops
// the command with the flag named.
func TestA2AFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--model", "demo", "--a2a", "x=ftp://h/", "hi"}, exitUsage, "want NAME=URL"},
		{[]string{"run", "--model", "demo", "--a2a", "b@d=http://h/", "hi"}, exitUsage, "NAME must be"},
		{[]string{"run", "--model", "demo", "--a2a", "x=http://127.0.0.1:1/", "hi"}, exitFailure, `--a2a "x=http://127.0.0.1:1/": a2a: agent card`},
		{[]string{"mcp", "--a2a", "x=http://127.0.0.1:1/"}, exitFailure, "--a2a "},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "n.db"), "--a2a", "x=http://127.0.0.1:1/"}, exitUsage, "--a2a "},
		{[]string{"chat", "--server", "http://127.0.0.1:1", "--a2a", "x=http://h/"}, exitUsage, "only for a chat in-process"},
		{[]string{"chat", "--db", filepath.Join(t.TempDir(), "c.db"), "--a2a", "x=http://127.0.0.1:1/"}, exitUsage, `--a2a "x=http://127.0.0.1:1/": a2a: agent card`},
		{[]string{"serve", "--config", filepath.Join("..", "..", "examples", "agents.json"), "--a2a", "x=http://h/", "--addr", "127.0.0.1:0"}, exitUsage, "--config and --a2a"},
	} {
		code, _, stderr := runIn(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
