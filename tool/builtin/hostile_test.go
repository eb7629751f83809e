package builtin

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

// Tests of issue 18: whatever a model asks of Read, Glob and Grep, the
// call ends soon, in bounded memory, and reads no secret unasked.

// callEnds runs the call in the background and waits for it to end. A
// call that never ends fails the test, named, shortly before the test's
// deadline (go test -timeout) rather than as the binary's panic: the
// test waits for the call's end, never for a chosen time, which a loaded
// machine would overrun.
func callEnds(t *testing.T, ctx context.Context, tl tool.Tool, input map[string]any) (string, block.ToolResultState) {
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
	var timeout <-chan time.Time
	if end, ok := t.Deadline(); ok {
		timer := time.NewTimer(time.Until(end) * 9 / 10)
		defer timer.Stop()
		timeout = timer.C
	}
	select {
	case r := <-done:
		return r.text, r.state
	case <-timeout:
		t.Fatalf("%s %.200v has not ended by the test's deadline", tl.Name(), input)
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
		text, s := callEnds(t, ctx, NewRead(Config{}), map[string]any{"file_path": path})
		want := "Error: " + path + " is not a regular file (" + kind + "); Read reads regular files only."
		if text != want || s != block.ResultError {
			t.Errorf("read %s = %q (%s), want %q", path, text, s, want)
		}
		if len(st.Tools.ReadFileCache) != 0 {
			t.Errorf("read %s cached something", path)
		}
	}
}

// A FIFO swapped in after the first check is still not read, and does
// not block the open.
func TestOpenCheckedRefusesWhatItOpened(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, "/dev/zero"} {
		done := make(chan error, 1)
		go func() {
			f, _, err := openChecked(p)
			if f != nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err != errNotRegular {
				t.Errorf("openChecked(%s) = %v", p, err)
			}
		case <-time.After(time.Second):
			t.Fatalf("openChecked(%s) blocked", p)
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

// mkTree creates the files (and their directories) under dir.
func mkTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// deepTree is a chain of 100 directories named "aaaa…a", a file "f" and
// a file "aaaaaaaaaaab" in each, and a link from the bottom back to the top.
func deepTree(t *testing.T) (dir string, files int) {
	t.Helper()
	dir = t.TempDir()
	p := dir
	for i := 0; i < 100; i++ {
		p = filepath.Join(p, strings.Repeat("a", 20))
		mkTree(t, p, map[string]string{"f": "x\n", "aaaaaaaaaaab": "needle\n"})
		files += 2
	}
	if err := os.Symlink(dir, filepath.Join(p, "loop")); err != nil {
		t.Fatal(err)
	}
	return dir, files
}

// Patterns with many "**" or many "*" match in one walk of the tree (the
// old recursion took one walk per way of splitting a path among the
// "**"s: C(104, 5) ways to the bottom of this tree), each file once, and
// the link back to the top is not followed.
func TestGlobPathologicalPatterns(t *testing.T) {
	dir, files := deepTree(t)
	g := NewGlob(Config{Dir: dir})
	for pattern, want := range map[string]int{
		"**/**/**/**/**/*":                      files,
		"**/**/**/**/**/**/**/**/aaaaaaaaaaab":  files / 2,
		"**/*a*a*a*a*a*a*a*a*a*a*b":             files / 2,
		"**/a*/**/a*/**/a*/**/a*/**/f":          files/2 - 3,
		"**/" + strings.Repeat("*a", 300) + "b": 0,
	} {
		reads := 0
		enterDirHook = func(string) bool { reads++; return false }
		text, s := callEnds(t, context.Background(), g, map[string]any{"pattern": pattern})
		enterDirHook = nil
		if reads > 101 {
			t.Errorf("glob %.40q read %d directories of 101", pattern, reads)
		}
		got := 0
		if !strings.HasPrefix(text, "No files found") {
			got = len(strings.Split(text, "\n"))
		}
		if s != block.ResultSuccess || got != want {
			t.Errorf("glob %.40q: %d files (%s), want %d", pattern, got, s, want)
		}
	}
}

func TestGlobBudgets(t *testing.T) {
	dir, _ := deepTree(t)
	text, s := call(t, context.Background(), NewGlob(Config{Dir: dir, GlobMaxMatches: 10}), map[string]any{"pattern": "**/*"})
	lines := strings.Split(text, "\n")
	if s != block.ResultSuccess || len(lines) != 12 || lines[11] != "(search stopped at 10 matches; results are incomplete)" {
		t.Errorf("match budget: %d lines, ending %q", len(lines), lines[len(lines)-1])
	}
	text, s = call(t, context.Background(), NewGlob(Config{Dir: dir, SearchTimeout: time.Nanosecond}), map[string]any{"pattern": "**/*"})
	if s != block.ResultSuccess || !strings.HasSuffix(text, "\n\n(search stopped after 1ns; results are incomplete)") {
		t.Errorf("time budget: %q", text)
	}
	// Within budget, no note.
	text, _ = call(t, context.Background(), NewGlob(Config{Dir: dir, GlobMaxMatches: 200}), map[string]any{"pattern": "**/*"})
	if strings.Contains(text, "search stopped") {
		t.Errorf("a search within its budget says it stopped")
	}
}

// cancelAt returns a context cancelled when a search enters the
// directory named at, and the number of directories entered after it.
func cancelAt(t *testing.T, at string) (context.Context, *int) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	after, seen := 0, false
	enterDirHook = func(dir string) bool {
		if seen {
			after++
		}
		if filepath.Base(dir) == at {
			seen = true
			cancel()
		}
		return false
	}
	t.Cleanup(func() { enterDirHook = nil })
	return ctx, &after
}

func TestGlobAndGrepStopWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 10; i++ {
		files[filepath.Join("d"+string(rune('0'+i)), "sub", "f.txt")] = "needle\n"
	}
	mkTree(t, dir, files)
	for _, tl := range []tool.Tool{NewGlob(Config{Dir: dir}), NewGrep(Config{Dir: dir})} {
		ctx, after := cancelAt(t, "d3")
		text, s := callEnds(t, ctx, tl, map[string]any{"pattern": map[string]string{"Glob": "**/*.txt", "Grep": "needle"}[tl.Name()]})
		if s != block.ResultError || !strings.Contains(text, "interrupted") {
			t.Errorf("%s cancelled mid-walk = %q (%s)", tl.Name(), text, s)
		}
		if *after > 1 {
			t.Errorf("%s entered %d directories after the cancellation", tl.Name(), *after)
		}
	}
}

func TestGrepBudgets(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 10; i++ {
		files[filepath.Join("d"+string(rune('0'+i)), "f.txt")] = "needle\n"
	}
	mkTree(t, dir, files)
	many := filepath.Join(dir, "many.txt")
	writeLines(t, many, 2*GrepMaxResults, 7) // "xxxxxx\n"
	for _, c := range []struct {
		cfg  Config
		in   map[string]any
		note string
	}{
		{Config{GrepMaxFiles: 3}, map[string]any{"pattern": "needle"}, "(search stopped after 3 files; results are incomplete)"},
		{Config{GrepMaxBytes: 20}, map[string]any{"pattern": "needle"}, "(search stopped after reading 20 bytes; results are incomplete)"},
		{Config{SearchTimeout: time.Nanosecond}, map[string]any{"pattern": "needle"}, "(search stopped after 1ns; results are incomplete)"},
		{Config{}, map[string]any{"pattern": "x", "path": many, "output_mode": "content", "head_limit": 0.0}, "(search stopped at 10000 results; results are incomplete)"},
		{Config{}, map[string]any{"pattern": "x", "path": many, "output_mode": "count", "multiline": true}, "(search stopped at 10000 results; results are incomplete)"},
	} {
		c.cfg.Dir = dir
		text, s := callEnds(t, context.Background(), NewGrep(c.cfg), c.in)
		if s != block.ResultSuccess || !strings.HasSuffix(text, "\n\n"+c.note) {
			t.Errorf("grep %v with %+v: %.200q (%s), want it to end with %q", c.in, c.cfg, text, s, c.note)
		}
	}
	// Within budget, no note; a page is collected, not the whole search.
	text, _ := call(t, context.Background(), NewGrep(Config{Dir: dir}), map[string]any{"pattern": "x", "path": many, "output_mode": "content"})
	if strings.Contains(text, "search stopped") || !strings.HasSuffix(text, "[Showing results with pagination = limit: 250]") {
		t.Errorf("paged search: %q", text[max(0, len(text)-200):])
	}
}

// Patterns, globs and numbers chosen to exhaust the process end in an
// error or a bounded search instead.
func TestGrepHostileInputs(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.txt")
	mkTree(t, dir, map[string]string{"long.txt": strings.Repeat("a", 1<<20) + "c\n", "f.txt": "a\nb\nneedle\n"})
	g := NewGrep(Config{Dir: dir})
	for _, c := range []struct {
		in   map[string]any
		want string // prefix of the result
		s    block.ToolResultState
	}{
		// 21 bytes of pattern, 3 million instructions of program.
		{map[string]any{"pattern": strings.Repeat("a{1000}", 3000)}, "ripgrep error (code 2): regex parse error: compiled regex exceeds size limit", block.ResultError},
		// 2^30 alternatives.
		{map[string]any{"pattern": "x", "glob": strings.Repeat("{a,b}", 30)}, "ripgrep error (code 2): glob", block.ResultError},
		// Thousands of steps a byte over a megabyte line: matched on a
		// prefix (so the match at its end is not found), the call stays
		// short.
		{map[string]any{"pattern": "[ab]{1000}c", "path": long}, "No matches found", block.ResultSuccess},
		{map[string]any{"pattern": "needle", "output_mode": "content", "-B": 1e12, "-A": 1e12, "head_limit": 1e300}, dir + "/f.txt-1-a", block.ResultSuccess},
		{map[string]any{"pattern": "needle", "offset": 1e300}, "", block.ResultSuccess},
	} {
		var text string
		var s block.ToolResultState
		n := allocated(func() { text, s = callEnds(t, context.Background(), g, c.in) })
		if s != c.s || !strings.HasPrefix(text, c.want) {
			t.Errorf("grep %.60v = %.120q (%s), want %q… (%s)", c.in, text, s, c.want, c.s)
		}
		if n > 64<<20 {
			t.Errorf("grep %.60v allocated %d bytes", c.in, n)
		}
	}
}

// A multiline search holds the text it reads, not a slice per line.
func TestGrepMultilineMemory(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lines")
	if err := os.WriteFile(p, append(bytes.Repeat([]byte("\n"), 4<<20), "start\nend\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	var text string
	n := allocated(func() {
		text = drain(context.Background(), NewGrep(Config{}), map[string]any{"pattern": "start.end", "path": p, "multiline": true, "output_mode": "content"})
	})
	if want := "4194305:start\n4194306:end"; text != want {
		t.Errorf("multiline = %q, want %q", text, want)
	}
	if n > 12<<20 {
		t.Errorf("a multiline search of a 4 MB file allocated %d bytes", n)
	}
}

func TestGrepRefusesNonRegularPath(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	text, s := callEnds(t, context.Background(), NewGrep(Config{}), map[string]any{"pattern": "x", "path": fifo})
	if want := "ripgrep error (code 2): " + fifo + ": not a regular file"; text != want || s != block.ResultError {
		t.Errorf("grep a FIFO = %q (%s)", text, s)
	}
}

// A recursive Grep never opens a secret file: not through a link to
// /proc/self/environ, not a .env file, not the environment files of a
// process directory it walks.
func TestGrepSkipsSecrets(t *testing.T) {
	dir := t.TempDir()
	mkTree(t, dir, map[string]string{".env": "PATH=/secret/hunter2\n", "sub/.env.local": "PATH=/secret/hunter3\n", "notes.txt": "PATH=/usr/bin\n"})
	if err := os.Symlink("/proc/self/environ", filepath.Join(dir, "env-link")); err != nil {
		t.Fatal(err)
	}
	procDir := "/proc/" + strconv.Itoa(os.Getpid())
	for _, root := range []string{dir, procDir} {
		text, _ := callEnds(t, context.Background(), NewGrep(Config{}), map[string]any{"pattern": "PATH=", "path": root, "output_mode": "content", "head_limit": 0.0})
		for _, leak := range []string{"hunter", os.Getenv("PATH"), "environ"} {
			if leak != "" && strings.Contains(text, leak) {
				t.Errorf("grep under %s printed %q: %.300q", root, leak, text)
			}
		}
		if root == dir && text != filepath.Join(dir, "notes.txt")+":1:PATH=/usr/bin" {
			t.Errorf("grep under %s = %q", root, text)
		}
	}
}

// A search path that is itself secret was confirmed as such (or runs in
// bypass): what lies below it is searched.
func TestGrepConfirmedSecretDirectory(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	mkTree(t, home, map[string]string{".ssh/id_ed25519": "BEGIN KEY\n", ".ssh/.env": "BEGIN ENV\n"})
	text, _ := call(t, context.Background(), NewGrep(Config{}), map[string]any{"pattern": "BEGIN", "path": filepath.Join(home, ".ssh")})
	if want := filepath.Join(home, ".ssh", ".env") + "\n" + filepath.Join(home, ".ssh", "id_ed25519"); text != want {
		t.Errorf("grep of a confirmed secret directory = %q, want %q", text, want)
	}
	text, _ = call(t, context.Background(), NewGrep(Config{}), map[string]any{"pattern": "BEGIN", "path": home})
	if text != "No matches found for pattern: BEGIN" {
		t.Errorf("grep of the home directory = %q", text)
	}
}

// A search from / passes /dev by (the walk's wiring of skipVirtual; the
// search is cancelled once it is past /dev, at the next top-level
// directory, and the other top-level directories are pruned where they
// are entered, so the walk's length does not depend on the machine's
// tree).
func TestSearchFromRootSkipsDev(t *testing.T) {
	if fi, err := os.Stat("/dev"); err != nil || !fi.IsDir() {
		t.Skip("no /dev")
	}
	for _, tl := range []tool.Tool{NewGlob(Config{}), NewGrep(Config{})} {
		ctx, cancel := context.WithCancel(context.Background())
		var entered []string
		enterDirHook = func(dir string) bool {
			entered = append(entered, dir)
			top := dir != "/" && filepath.Dir(dir) == "/"
			if top && filepath.Base(dir) > "dev" {
				cancel()
			}
			return top && !within(dir, "/dev")
		}
		pattern := map[string]string{"Glob": "**/no such needle", "Grep": "no such needle"}[tl.Name()]
		callEnds(t, ctx, tl, map[string]any{"pattern": pattern, "path": "/"})
		if len(entered) < 2 {
			t.Errorf("%s from / entered %v", tl.Name(), entered)
		}
		enterDirHook = nil
		cancel()
		for _, d := range entered {
			if within(d, "/dev") {
				t.Errorf("%s from / entered %s", tl.Name(), d)
				break
			}
		}
	}
}

// Grep follows no symlinked directory: a link from the bottom of a deep
// tree to its top is not a loop.
func TestGrepDoesNotFollowLinks(t *testing.T) {
	dir, files := deepTree(t)
	text, _ := callEnds(t, context.Background(), NewGrep(Config{Dir: dir}), map[string]any{"pattern": "needle", "head_limit": 0.0})
	if got := len(strings.Split(text, "\n")); got != files/2 {
		t.Errorf("grep of the deep tree: %d files, want %d", got, files/2)
	}
}

func TestSkipVirtual(t *testing.T) {
	for _, c := range []struct {
		dir, root string
		skip      bool
	}{
		{"/proc", "/", true},
		{"/dev", "/", true},
		{"/sys", "/", true},
		{"/proc", "/proc", false},
		{"/home/u/proc", "/", false},
		{"/usr", "/", false},
	} {
		if got := skipVirtual(c.dir, c.root); got != c.skip {
			t.Errorf("skipVirtual(%s, %s) = %v", c.dir, c.root, got)
		}
	}
}

// Reading a secret path is never read-only: through a real engine it
// asks in default and accept_edits (an allow rule does not silence it),
// is denied in explore and dont_ask, and runs only in bypass. Other
// reads stay allowed everywhere.
func TestSecretPathPermissions(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	wd := t.TempDir()
	store := filepath.Join(wd, "store.db")
	cfg := Config{Dir: wd, SecretPaths: []string{store}}
	mkTree(t, wd, map[string]string{".env": "KEY=v\n", "main.go": "package main\n"})
	mkTree(t, home, map[string]string{".ssh/id_ed25519": "key\n"})
	if err := os.Symlink("/proc/self/environ", filepath.Join(wd, "env-link")); err != nil {
		t.Fatal(err)
	}
	read, glob, grep := tool.PermissionSubject(NewRead(cfg)), tool.PermissionSubject(NewGlob(cfg)), tool.PermissionSubject(NewGrep(cfg))
	type call struct {
		s  permission.Subject
		in map[string]any
	}
	secret := []call{
		{read, map[string]any{"file_path": "/proc/self/environ"}},
		{read, map[string]any{"file_path": filepath.Join(wd, "env-link")}},
		{read, map[string]any{"file_path": filepath.Join(wd, ".env")}},
		{read, map[string]any{"file_path": filepath.Join(home, ".ssh", "id_ed25519")}},
		{read, map[string]any{"file_path": "/proc/1/mem"}},
		{read, map[string]any{"file_path": store}},
		{grep, map[string]any{"pattern": "x", "path": filepath.Join(wd, ".env")}},
		{grep, map[string]any{"pattern": "x", "path": "env-link"}},
		{grep, map[string]any{"pattern": "x", "path": filepath.Join(home, ".ssh")}},
		{glob, map[string]any{"pattern": "*", "path": filepath.Join(home, ".ssh")}},
		{glob, map[string]any{"pattern": "*", "path": "/proc/self/fd"}},
	}
	plain := []call{
		{read, map[string]any{"file_path": filepath.Join(wd, "main.go")}},
		{read, map[string]any{"file_path": "/proc/self/status"}},
		{grep, map[string]any{"pattern": "x"}},
		{grep, map[string]any{"pattern": "x", "path": home}}, // its secrets are skipped
		{glob, map[string]any{"pattern": "**/*.go"}},
	}
	want := map[permission.Mode]block.Behavior{
		permission.ModeDefault:     block.Ask,
		permission.ModeAcceptEdits: block.Ask,
		permission.ModeExplore:     block.Deny,
		permission.ModeBypass:      block.Allow,
		permission.ModeDontAsk:     block.Deny,
	}
	for mode, behavior := range want {
		pc := permission.NewContext(mode)
		pc.AddWorkingDirectory(wd, "test")
		e := permission.NewEngine(pc)
		for _, name := range []string{"Read", "Grep", "Glob"} {
			e.AddRule(block.PermissionRule{ToolName: name, RuleContent: block.Some("**"), Behavior: block.Allow, Source: "test"})
		}
		for _, c := range secret {
			d := e.Check(context.Background(), c.s, c.in)
			if d.Behavior != behavior {
				t.Errorf("%s: %s %v = %s (%s), want %s", mode, c.s.Name(), c.in, d.Behavior, d.Message, behavior)
			}
			if d.Behavior == block.Ask && !strings.HasPrefix(d.Message, "Permission required: "+c.s.Name()+" of a sensitive path ") {
				t.Errorf("%s: %s %v asks with %q", mode, c.s.Name(), c.in, d.Message)
			}
		}
		for _, c := range plain {
			if d := e.Check(context.Background(), c.s, c.in); d.Behavior != block.Allow {
				t.Errorf("%s: %s %v = %s (%s), want allow", mode, c.s.Name(), c.in, d.Behavior, d.Message)
			}
		}
	}
}
