package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// everythingJS locates server-everything among the npm test peers,
// installing them with scripts/peers.sh when missing (failing, never
// skipping, when that is impossible).
func everythingJS(t *testing.T) string {
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
	p := filepath.Join(strings.TrimSpace(string(out)), "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// toolCallServer is an OpenAI-compatible endpoint that answers its first
// request with one tool call and every later one with "Done."; it records
// the request bodies.
func toolCallServer(t *testing.T, name, args string) (*httptest.Server, func() []string) {
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
		if first {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":%q,\"arguments\":%q}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n", name, args)
			return
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Done.\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), bodies...)
	}
}

func TestRunMCP(t *testing.T) {
	js := everythingJS(t)
	srv, bodies := toolCallServer(t, "mcp__ev__echo", `{"message":"hi from mcp"}`)
	code, stdout, stderr := runIn(t, "", "run", "--model", "openai-compatible:m@"+srv.URL+"/v1",
		"--mcp", "ev=node "+js+" stdio", "say", "hi")
	if code != 0 || stdout != "Done.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	b := bodies()
	if len(b) != 2 || !strings.Contains(b[0], `"name":"mcp__ev__echo"`) || !strings.Contains(b[1], "Echo: hi from mcp") {
		t.Fatalf("requests %q", b)
	}
}

func TestRunMCPServerNamedByItself(t *testing.T) {
	js := everythingJS(t)
	srv, bodies := toolCallServer(t, "mcp__mcp-serversxeverything__get-sum", `{"a":2,"b":40}`)
	code, _, stderr := runIn(t, "", "run", "--model", "openai-compatible:m@"+srv.URL+"/v1", "--mcp", "node "+js+" stdio", "add")
	if b := bodies(); code != 0 || len(b) != 2 || !strings.Contains(b[1], "42") {
		t.Fatalf("exit %d, stderr %q, requests %q", code, stderr, b)
	}
}

// --permission-mode: dont_ask denies a tool that would ask; bypass runs it.
func TestRunPermissionMode(t *testing.T) {
	js := everythingJS(t)
	for _, tc := range []struct {
		mode, want string
	}{
		{"dont_ask", "Permission denied for mcp__ev__toggle-simulated-logging"},
		{"bypass", "Started simulated, random-leveled logging"},
	} {
		srv, bodies := toolCallServer(t, "mcp__ev__toggle-simulated-logging", `{}`)
		code, _, stderr := runIn(t, "", "run", "--model", "openai-compatible:m@"+srv.URL+"/v1",
			"--mcp", "ev=node "+js+" stdio", "--permission-mode", tc.mode, "toggle")
		b := bodies()
		if code != 0 || len(b) != 2 || !strings.Contains(b[1], tc.want) {
			t.Fatalf("%s: exit %d, stderr %q, requests %q", tc.mode, code, stderr, b)
		}
		if tc.mode == "bypass" && strings.Contains(b[1], "Permission denied") {
			t.Fatalf("bypass denied: %s", b[1])
		}
	}
}

func TestRunMCPErrors(t *testing.T) {
	code, _, stderr := runIn(t, "", "run", "--model", "demo", "--mcp", "/nonexistent/server --x", "hi")
	if code != exitFailure || !strings.Contains(stderr, `"/nonexistent/server --x"`) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runIn(t, "", "run", "--model", "demo", "--permission-mode", "yolo", "hi")
	if code != exitUsage || !strings.Contains(stderr, "dont_ask") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runIn(t, "", "run", "--model", "demo", "--mcp", "x='unterminated", "hi")
	if code != exitUsage || !strings.Contains(stderr, "unterminated quote") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// serve's agent gets the --mcp servers' tools in every run's toolkit.
func TestServeAgentMCPTools(t *testing.T) {
	js := everythingJS(t)
	clients, closeMCP, err := connectMCP(t.Context(), mcpSetup{Specs: []string{"ev=node " + js + " stdio"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer closeMCP()
	spec, err := serveAgent("", "", "", "assistant", "demo", nil, slog.New(slog.DiscardHandler), clients...)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // each run its own toolkit
		a, err := spec.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := a.Toolkit().Lookup("mcp__ev__echo"); !ok {
			t.Fatal("no mcp__ev__echo in the run's toolkit")
		}
		if _, ok := a.Toolkit().Lookup("calculate"); !ok {
			t.Fatal("the demo tools are gone")
		}
	}
}

// In the default mode a tool that asks parks the reply: run says which
// tool and how to run unattended.
func TestRunMCPParkedSaysHow(t *testing.T) {
	js := everythingJS(t)
	srv, _ := toolCallServer(t, "mcp__ev__toggle-simulated-logging", `{}`)
	code, _, stderr := runIn(t, "", "run", "--model", "openai-compatible:m@"+srv.URL+"/v1", "--mcp", "ev=node "+js+" stdio", "toggle")
	if code != exitFailure || !strings.Contains(stderr, "waits for permission to run mcp__ev__toggle-simulated-logging") || !strings.Contains(stderr, "--permission-mode bypass") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}
