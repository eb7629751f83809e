package mcp_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/model/scripted"
)

// netnsEnv marks the copy of the test binary that runs inside a private
// network namespace.
const netnsEnv = "AGENTSCOPE_MCP_NETNS"

// inNetns reruns the calling test inside a private network namespace
// (service.md §7: server-everything's HTTP modes bind all interfaces) and
// reports whether the caller is that rerun. The outer run fails with the
// inner output when the inner run fails.
func inNetns(t *testing.T) bool {
	t.Helper()
	if os.Getenv(netnsEnv) == "1" {
		return true
	}
	everythingJS(t) // install the peers out here: the namespace has no network
	cmd := exec.Command("unshare", "-rn", "sh", "-c", `ip link set lo up && exec "$@"`, "sh",
		os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), netnsEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the test inside the private network namespace (unshare -rn) failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("the test did not run inside the namespace:\n%s", out)
	}
	return false
}

// startEverything runs server-everything in mode (streamableHttp, sse) on
// port and waits until it listens; the returned func kills it.
func startEverything(t *testing.T, mode string, port int) (stop func()) {
	t.Helper()
	cmd := exec.Command("node", everythingJS(t), mode)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { // drains the log so the server never blocks on it; ends at its exit
		sc := bufio.NewScanner(out)
		for sc.Scan() {
		}
	}()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			return stop
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything %s did not listen on %d: %v", mode, port, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestEverythingHTTP(t *testing.T) {
	if !inNetns(t) {
		return
	}
	for _, tc := range []struct{ mode, path string }{
		{"streamableHttp", "/mcp"},
		{"sse", "/sse"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			const port = 3101
			stop := startEverything(t, tc.mode, port)
			url := fmt.Sprintf("http://127.0.0.1:%d%s", port, tc.path)
			c := connect(t, mcp.Config{Name: "everything", URL: url, ReconnectBackoff: 50 * time.Millisecond})
			checkEverything(t, c)

			// The server goes away: an error result; back: the next call
			// reconnects.
			stop()
			a, _ := newAgent(t, []scripted.Turn{
				call("c1", "mcp__everything__echo", `{"message":"gone"}`), done(),
				call("c2", "mcp__everything__echo", `{"message":"back"}`), done(),
			}, []*mcp.Client{c})
			ask(t, a, "echo")
			if r := results(t, a)["c1"]; r.State != block.ResultError || !strings.HasPrefix(resultText(r), mcp.ErrorPrefix) {
				t.Fatalf("call to a stopped server: %s %q", r.State, resultText(r))
			}
			startEverything(t, tc.mode, port)
			time.Sleep(100 * time.Millisecond) // past the reconnection backoff
			ask(t, a, "echo")
			if r := results(t, a)["c2"]; r.State != block.ResultSuccess || !strings.Contains(resultText(r), "back") {
				t.Fatalf("no reconnection: %s %q", r.State, resultText(r))
			}
		})
	}
}
