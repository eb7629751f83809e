package mcp_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/mcp"
)

// alive reports whether pid is a live process (a zombie counts as dead).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// Close kills the server's whole process group: a process the server
// started dies with it.
func TestCloseKillsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	c := connect(t, mcp.Config{
		Name:    "everything",
		Command: "sh",
		// A grandchild that ignores stdin closing, SIGTERM and its parent's
		// death.
		Args: []string{"-c", `trap '' TERM; sleep 300 & echo $! > "$0"; exec node "$1" stdio`, pidFile, everythingJS(t)},
	})
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if !alive(pid) {
		t.Fatal("the grandchild is not running")
	}
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("Close took %s", took)
	}
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatal("the server's child outlived Close")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
