package builtin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/tool"
)

func TestBashOutputAndFailure(t *testing.T) {
	b := NewBash(Config{Dir: t.TempDir()})
	text, s := call(t, context.Background(), b, map[string]any{"command": "echo out; echo err >&2; printf 'a\\r\\nb'"})
	if text != "out\nerr\na\nb" || s != block.ResultSuccess {
		t.Errorf("output = %q (%s)", text, s)
	}
	text, s = call(t, context.Background(), b, map[string]any{"command": "echo partial; exit 3"})
	if text != "partial\n\nCommand failed: echo partial; exit 3\nExit code: 3" || s != block.ResultError {
		t.Errorf("failure = %q (%s)", text, s)
	}
	text, s = call(t, context.Background(), b, map[string]any{"command": "pwd"})
	if resolved, _ := filepath.EvalSymlinks(b.cfg.Dir); strings.TrimSpace(text) != b.cfg.Dir && strings.TrimSpace(text) != resolved {
		t.Errorf("pwd = %q, want %q", text, b.cfg.Dir)
	}
	if text, s = call(t, context.Background(), b, map[string]any{"command": "true"}); text != "" || s != block.ResultSuccess {
		t.Errorf("silent = %q (%s)", text, s)
	}
}

func TestBashOutputCapped(t *testing.T) {
	b := NewBash(Config{})
	text, s := call(t, context.Background(), b, map[string]any{"command": "yes é | head -c 200000"})
	if s != block.ResultSuccess || !strings.HasSuffix(text, TruncatedMarker) {
		t.Fatalf("state %s, tail %q", s, text[max(0, len(text)-40):])
	}
	if n := len([]rune(strings.TrimSuffix(text, TruncatedMarker))); n != MaxOutputChars {
		t.Errorf("kept %d characters, want %d", n, MaxOutputChars)
	}
}

// The first output reaches the consumer while the command still runs: the
// command waits for a file the test creates only after the first delta.
func TestBashStreamsDeltas(t *testing.T) {
	dir := t.TempDir()
	b := NewBash(Config{Dir: dir})
	in := map[string]any{"command": "echo first; while [ ! -f go ]; do sleep 0.02; done; echo second", "timeout": 20000.0}
	var chunks []tool.Chunk
	for c, err := range b.Call(context.Background(), in) {
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) == 0 {
			if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		chunks = append(chunks, c)
	}
	if len(chunks) < 2 {
		t.Fatalf("%d chunks", len(chunks))
	}
	first := chunks[0].Content[0].(*block.Text)
	last := chunks[len(chunks)-1].Content[0].(*block.Text)
	if first.Text != "first\n" || first.ID == "" || last.ID != first.ID {
		t.Errorf("deltas %q (id %s) … (id %s)", first.Text, first.ID, last.ID)
	}
	for _, c := range chunks {
		if c.State == block.ResultError {
			t.Errorf("error chunk %+v", c)
		}
	}
}

// childPID starts cmd, which must write the pid of a grandchild that
// sleeps into pidfile, and returns that pid once written.
func waitPID(t *testing.T, pidfile string) int {
	t.Helper()
	for i := 0; i < 500; i++ {
		if b, err := os.ReadFile(pidfile); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no pid file")
	return 0
}

// gone reports whether pid has exited (no process, or a zombie nobody
// reaped yet), polling for up to 5 s.
func gone(pid int) bool {
	for i := 0; i < 500; i++ {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && f[0] == "Z" {
				return true
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

const spawnsSleeper = "sleep 300 & echo $! > pid; echo started; wait"

func TestBashTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	b := NewBash(Config{Dir: dir})
	done := make(chan struct{})
	var text string
	var s block.ToolResultState
	go func() {
		defer close(done)
		text, s = call(t, context.Background(), b, map[string]any{"command": spawnsSleeper, "timeout": 300.0})
	}()
	pid := waitPID(t, filepath.Join(dir, "pid"))
	<-done
	if s != block.ResultError || text != "started\n\nCommand timed out after 300ms: "+spawnsSleeper {
		t.Errorf("timeout result %q (%s)", text, s)
	}
	if !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("grandchild %d outlived the timeout", pid)
	}
}

func TestBashInterruptKillsGroup(t *testing.T) {
	dir := t.TempDir()
	b := NewBash(Config{Dir: dir})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range b.Call(ctx, map[string]any{"command": spawnsSleeper}) {
		}
	}()
	pid := waitPID(t, filepath.Join(dir, "pid"))
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Call did not return after cancellation")
	}
	if !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("grandchild %d outlived the interrupt", pid)
	}
}

// Through tool.Run, an interrupted Bash call ends with the interrupted
// result.
func TestBashInterruptThroughRun(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last tool.Chunk
	n := 0
	for c := range tool.Run(ctx, NewBash(Config{Dir: dir}), map[string]any{"command": spawnsSleeper}) {
		if n == 0 {
			cancel()
		}
		n++
		last = c
	}
	if last.State != block.ResultInterrupted {
		t.Errorf("last chunk %+v", last)
	}
	pid := waitPID(t, filepath.Join(dir, "pid"))
	if !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("grandchild %d outlived the interrupt", pid)
	}
}

// A consumer that stops early also kills the group.
func TestBashConsumerStopKillsGroup(t *testing.T) {
	dir := t.TempDir()
	for range NewBash(Config{Dir: dir}).Call(context.Background(), map[string]any{"command": spawnsSleeper}) {
		break
	}
	pid := waitPID(t, filepath.Join(dir, "pid"))
	if !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("grandchild %d outlived the consumer", pid)
	}
}

// A process that leaves the group (setsid) and keeps the output open
// cannot hold the call: after the timeout the tool stops reading within
// pipeGrace.
func TestBashEscapedProcessDoesNotHang(t *testing.T) {
	dir := t.TempDir()
	b := NewBash(Config{Dir: dir})
	done := make(chan struct{})
	var text string
	go func() {
		defer close(done)
		text, _ = call(t, context.Background(), b, map[string]any{"command": "setsid sleep 30 & echo $! > pid; echo started", "timeout": 200.0})
	}()
	pid := waitPID(t, filepath.Join(dir, "pid"))
	defer syscall.Kill(pid, syscall.SIGKILL)
	select {
	case <-done:
	case <-time.After(pipeGrace + 10*time.Second):
		t.Fatal("the call waited for a process outside its group")
	}
	if !strings.Contains(text, "Command timed out after 200ms") {
		t.Errorf("result %q", text)
	}
}
