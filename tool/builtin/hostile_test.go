package builtin

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/tool"
)

// Tests of issue 18: whatever a model asks of Read, Glob and Grep, the
// call ends soon, in bounded memory, and reads no secret unasked.

// callWithin runs call in the background and fails the test when it has
// not returned within d (a read that blocks must fail the test, not hang
// it).
func callWithin(t *testing.T, d time.Duration, ctx context.Context, tl tool.Tool, input map[string]any) (string, block.ToolResultState) {
	t.Helper()
	type res struct {
		text  string
		state block.ToolResultState
	}
	done := make(chan res, 1)
	go func() {
		r := tool.NewResponse("c", nil)
		for c, err := range tl.Call(ctx, input) {
			if err != nil {
				break
			}
			r.Append(c)
		}
		var b strings.Builder
		for _, bl := range r.Content {
			if tx, ok := bl.(*block.Text); ok {
				b.WriteString(tx.Text)
			}
		}
		done <- res{b.String(), r.State}
	}()
	select {
	case r := <-done:
		return r.text, r.state
	case <-time.After(d):
		t.Fatalf("%s %v did not return within %s", tl.Name(), input, d)
		return "", ""
	}
}

func TestReadRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Without the fix the reader blocks in open(2); a writer opened
	// afterwards would release it, so none is opened.
	sock := filepath.Join(dir, "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	link := filepath.Join(dir, "zero-link")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{
		"/dev/zero": "a character device",
		fifo:        "a FIFO",
		sock:        "a socket",
		link:        "a character device",
	} {
		// Inside an agent, where /dev/zero used to be read whole into
		// the cache (size 0 fits any budget) until the process died.
		ctx, st := agentCtx()
		text, s := callWithin(t, time.Second, ctx, NewRead(Config{}), map[string]any{"file_path": path})
		want := "Error: " + path + " is not a regular file (" + kind + "); Read reads regular files only."
		if text != want || s != block.ResultError {
			t.Errorf("read %s = %q (%s), want %q", path, text, s, want)
		}
		if len(st.Tools.ReadFileCache) != 0 {
			t.Errorf("read %s cached something", path)
		}
	}
}

// writeLines writes n lines of width bytes (newline included) to path.
func writeLines(t *testing.T, path string, n, width int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("x", width-1) + "\n")
	chunk := make([]byte, 0, 1<<20)
	for i := 0; i < n; i++ {
		chunk = append(chunk, line...)
		if len(chunk) >= 1<<20-width || i == n-1 {
			if _, err := f.Write(chunk); err != nil {
				t.Fatal(err)
			}
			chunk = chunk[:0]
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// drain runs tl and returns its first text, allocating nothing itself.
func drain(ctx context.Context, tl tool.Tool, input map[string]any) string {
	for c, err := range tl.Call(ctx, input) {
		if err == nil && len(c.Content) > 0 {
			if tx, ok := c.Content[0].(*block.Text); ok {
				return tx.Text
			}
		}
	}
	return ""
}

// A 50 MB file costs a Read the window, not the file: with the default
// limit, and with a limit as large as the model likes.
func TestReadBoundedMemory(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	writeLines(t, p, 500_000, 100) // 50 MB
	ctx, st := agentCtx()
	r := NewRead(Config{})
	var text string
	n := allocated(func() { text = drain(ctx, r, map[string]any{"file_path": p}) })
	if !strings.HasPrefix(text, "     1\t") || strings.Count(text, "\n") != 1999 {
		t.Fatalf("default window: %d lines", strings.Count(text, "\n")+1)
	}
	if n > 4<<20 {
		t.Errorf("default window of a 50 MB file allocated %d bytes", n)
	}
	n = allocated(func() { text = drain(ctx, r, map[string]any{"file_path": p, "limit": 1e12}) })
	if n > 20<<20 {
		t.Errorf("an unlimited window of a 50 MB file allocated %d bytes", n)
	}
	if len(text) > MaxReadOutputBytes+200 || !strings.HasSuffix(text, "bytes; read on with offset 39201)") {
		t.Errorf("unlimited window: %d bytes ending %q", len(text), text[max(0, len(text)-100):])
	}
	if len(st.Tools.ReadFileCache) != 0 {
		t.Errorf("a file over the cache budget was cached")
	}
	// Offsets and limits beyond int's range neither wrap nor panic.
	for _, in := range []map[string]any{
		{"offset": 1e300, "limit": 1e300},
		{"offset": -1e300, "limit": 1e300},
		{"offset": 9.2e18, "limit": 9.2e18},
		{"offset": 2.0, "limit": -5.0},
	} {
		in["file_path"] = p
		if _, s := call(t, ctx, r, in); s != block.ResultSuccess {
			t.Errorf("read %v: %s", in, s)
		}
	}
}

// The cache budget counts the bytes read, not the size stat reports:
// /proc files report 0 whatever they hold.
func TestReadCacheBudgetCountsBytesRead(t *testing.T) {
	const p = "/proc/self/maps"
	if b, err := os.ReadFile(p); err != nil || len(b) <= 2048 {
		t.Skipf("%s: %d bytes, %v", p, len(b), err)
	}
	ctx, st := agentCtx()
	st.Tools.MaxCacheBytes = 1 // KB
	text, s := call(t, ctx, NewRead(Config{}), map[string]any{"file_path": p})
	if s != block.ResultSuccess || !strings.HasPrefix(text, "     1\t") {
		t.Fatalf("read %s = %q (%s)", p, text, s)
	}
	if len(st.Tools.ReadFileCache) != 0 {
		t.Errorf("%s cached past a 1 KB budget", p)
	}
}

func TestReadHonoursCancellation(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	writeLines(t, p, 1000, 10)
	for _, withState := range []bool{false, true} {
		ctx := context.Background()
		if withState {
			ctx, _ = agentCtx()
		}
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		text, s := call(t, ctx, NewRead(Config{}), map[string]any{"file_path": p})
		if s != block.ResultError || !strings.Contains(text, "interrupted") {
			t.Errorf("read with a cancelled context (state %v) = %.40q (%s)", withState, text, s)
		}
	}
}
