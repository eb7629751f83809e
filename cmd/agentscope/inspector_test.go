package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/session/postgres/postgrestest"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// agentscopeBin builds the command once for the tests that run it as a
// process.
func agentscopeBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agentscope-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "agentscope")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = &buildError{out: string(out), err: err}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + e.out }

// inspector runs @modelcontextprotocol/inspector-cli (a real MCP client)
// with args and decodes its JSON answer. It runs from its build folder,
// where it finds its package.json (service.md §4).
func inspector(t *testing.T, args ...string) map[string]any {
	t.Helper()
	js := everythingJS(t) // installs the peers
	build := filepath.Join(filepath.Dir(js), "..", "..", "inspector-cli", "build")
	cmd := exec.Command("node", append([]string{"index.js"}, args...)...)
	cmd.Dir = build
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("inspector %q: %v\n%s\n%s", args, err, out, stderr)
	}
	var v map[string]any
	if err := json.Unmarshal(out[strings.IndexByte(string(out), '{'):], &v); err != nil {
		t.Fatalf("inspector output %q: %v", out, err)
	}
	return v
}

func resultText(v map[string]any) (string, bool) {
	var sb strings.Builder
	content, _ := v["content"].([]any)
	for _, c := range content {
		if m, ok := c.(map[string]any); ok && m["type"] == "text" {
			sb.WriteString(m["text"].(string))
		}
	}
	isErr, _ := v["isError"].(bool)
	return sb.String(), isErr
}

func checkInspector(t *testing.T, target ...string) {
	t.Helper()
	list := inspector(t, append(target, "--method", "tools/list")...)
	tools, _ := list["tools"].([]any)
	if len(tools) != 1 || tools[0].(map[string]any)["name"] != "ask" {
		t.Fatalf("tools/list %v", list)
	}
	ans := inspector(t, append(target, "--method", "tools/call", "--tool-name", "ask", "--tool-arg", "message=What is 2+3?")...)
	if txt, isErr := resultText(ans); isErr || !strings.Contains(txt, "2+3 = 5") {
		t.Fatalf("tools/call: %v", ans)
	}
	parked := inspector(t, append(target, "--method", "tools/call", "--tool-name", "ask", "--tool-arg", "message=Save a note: buy milk")...)
	if txt, isErr := resultText(parked); !isErr || !strings.Contains(txt, "permission to run: save_note") {
		t.Fatalf("parked reply: %v", parked)
	}
}

func TestInspectorStdio(t *testing.T) {
	checkInspector(t, agentscopeBin(t), "mcp")
}

// listening starts the command and returns the URL of its "listening on"
// line; the command is interrupted when the test ends.
func listening(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(agentscopeBin(t), args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	lines := make(chan string, 16)
	go func() { // ends when the command exits
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("%q exited", args)
			}
			if _, u, found := strings.Cut(l, "listening on "); found {
				go func() { // keep draining
					for range lines {
					}
				}()
				u, _, _ = strings.Cut(u, ",")
				return u
			}
		case <-timeout:
			t.Fatalf("%q did not listen", args)
		}
	}
}

func TestInspectorHTTP(t *testing.T) {
	checkInspector(t, listening(t, "mcp", "--http", "127.0.0.1:0"), "--transport", "http")
}

// agentscope serve mounts the same MCP handler at /mcp, behind its token.
func TestInspectorServeMount(t *testing.T) {
	base := listening(t, "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "s.db"), "--token", "s3cret")
	checkInspector(t, base+"/mcp", "--transport", "http", "--header", "Authorization: Bearer s3cret")
	cmd := exec.Command("node", "index.js", base+"/mcp", "--transport", "http", "--method", "tools/list")
	cmd.Dir = filepath.Join(filepath.Dir(everythingJS(t)), "..", "..", "inspector-cli", "build")
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("tools/list without the token succeeded: %s", out)
	}
}

// TestMain gives the tests a PostgreSQL (the server's crash tests run on
// it) and removes the binary agentscopeBin built. With fakeMCPEnv set the
// binary is a stdio MCP server instead (mcpfake_test.go).
func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeMCPEnv); mode != "" {
		fakeMCPServer(mode)
		os.Exit(0)
	}
	code := postgrestest.Run(m)
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}
