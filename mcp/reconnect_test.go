package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/mcp"
)

// A server that cannot be restarted: each failed reconnection pushes the
// next attempt back; calls in between fail at once, saying so; once the
// server can start again, a call after the backoff reconnects.
func TestReconnectBackoff(t *testing.T) {
	dir := t.TempDir()
	pidFile, broken := filepath.Join(dir, "pid"), filepath.Join(dir, "broken")
	cfg := fakeConfig("sdk")
	cfg.Command, cfg.Args = "sh", append([]string{"-c", `echo $$ > "$0"; [ -f "$1" ] && { echo "cannot start" >&2; exit 1; }; shift; exec "$@"`,
		pidFile, broken, os.Args[0]}, cfg.Args...)
	cfg.ReconnectBackoff = 300 * time.Millisecond
	c := connect(t, cfg)
	echo := lookup(t, c, "mcp__fake__echo")
	in := map[string]any{"s": "x"}
	callText := func() (block.ToolResultState, string) {
		r := fold(t, run(t.Context(), echo, in))
		return r.State, text(r)
	}
	if st, txt := callText(); st != block.ResultSuccess || txt != "echo: x" {
		t.Fatalf("first call: %s %q", st, txt)
	}

	if err := os.WriteFile(broken, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The call that finds the connection gone, then the failed
	// reconnection (naming the command and its stderr).
	for _, want := range []string{"the next call reconnects", "cannot start"} {
		st, txt := callText()
		for st == block.ResultSuccess { // the kill may not have landed yet
			st, txt = callText()
		}
		if st != block.ResultError || !strings.HasPrefix(txt, mcp.ErrorPrefix) || !strings.Contains(txt, want) {
			t.Fatalf("want an error with %q: %s %q", want, st, txt)
		}
	}
	// Within the backoff the call answers without trying: its text says
	// when the next attempt is.
	if st, txt := callText(); st != block.ResultError || !strings.Contains(txt, "the next reconnection attempt is in") {
		t.Fatalf("within the backoff: %s %q", st, txt)
	}
	if err := os.Remove(broken); err != nil {
		t.Fatal(err)
	}
	time.Sleep(350 * time.Millisecond)
	if st, txt := callText(); st != block.ResultSuccess || txt != "echo: x" {
		t.Fatalf("after the backoff: %s %q", st, txt)
	}
}

// Nothing the client started outlives Close: calls, a cancelled call, a
// lost connection and its reconnection.
func TestNoGoroutineLeft(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	pidFile := filepath.Join(t.TempDir(), "pid")
	cfg := fakeConfig("sdk")
	cfg.Command, cfg.Args = "sh", append([]string{"-c", `echo $$ > "$0"; exec "$@"`, pidFile, os.Args[0]}, cfg.Args...)
	c, err := mcp.Connect(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	echo := lookup(t, c, "mcp__fake__echo")
	for range 3 {
		run(t.Context(), echo, map[string]any{"s": "x"})
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if r := fold(t, run(ctx, lookup(t, c, "mcp__fake__block"), map[string]any{"s": "x"})); r.State != block.ResultInterrupted {
		t.Fatalf("cancelled call: %s", r.State)
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for fold(t, run(t.Context(), echo, map[string]any{"s": "x"})).State != block.ResultError {
	}
	if r := fold(t, run(t.Context(), echo, map[string]any{"s": "x"})); r.State != block.ResultSuccess {
		t.Fatalf("after the reconnection: %s %q", r.State, text(r))
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if r := fold(t, run(t.Context(), echo, map[string]any{"s": "x"})); r.State != block.ResultError || !strings.Contains(text(r), "client closed") {
		t.Fatalf("after Close: %s %q", r.State, text(r))
	}
}
