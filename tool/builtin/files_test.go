package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// call runs t directly and folds its chunks.
func call(t *testing.T, ctx context.Context, tl tool.Tool, input map[string]any) (string, block.ToolResultState) {
	t.Helper()
	r := tool.NewResponse("call-1", nil)
	for c, err := range tl.Call(ctx, input) {
		if err != nil {
			t.Fatalf("%s: %v", tl.Name(), err)
		}
		if err := r.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	for _, bl := range r.Content {
		if tx, ok := bl.(*block.Text); ok {
			b.WriteString(tx.Text)
		}
	}
	return b.String(), r.State
}

func agentCtx() (context.Context, *state.AgentState) {
	st := state.New(nil)
	return tool.WithState(context.Background(), st), st
}

// touchLater moves path's mtime forward, as a concurrent edit would.
func touchLater(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	later := fi.ModTime().Add(2 * time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

func TestReadFormatsAndCaches(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(p, []byte("one\r\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, st := agentCtx()
	text, s := call(t, ctx, NewRead(Config{}), map[string]any{"file_path": p})
	if want := "     1\tone\n     2\ttwo\n     3\tthree"; text != want || s != block.ResultSuccess {
		t.Fatalf("read = %q (%s), want %q", text, s, want)
	}
	text, _ = call(t, ctx, NewRead(Config{}), map[string]any{"file_path": p, "offset": 2.0, "limit": 1.0})
	if text != "     2\ttwo" {
		t.Errorf("window = %q", text)
	}
	if len(st.Tools.ReadFileCache) != 1 {
		t.Fatalf("cache has %d entries", len(st.Tools.ReadFileCache))
	}
	var e struct {
		Lines    []string `json:"lines"`
		FilePath string   `json:"file_path"`
		Bytes    float64  `json:"bytes"`
	}
	if err := json.Unmarshal(st.Tools.ReadFileCache[0], &e); err != nil {
		t.Fatal(err)
	}
	if e.FilePath != p || strings.Join(e.Lines, "|") != "one\n|two\n|three\n" || e.Bytes != 14.0/1024 {
		t.Errorf("cache entry %+v", e)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	r := NewRead(Config{})
	for in, want := range map[string]string{
		"rel.txt":                     "Error: file_path must be an absolute path, got: rel.txt",
		filepath.Join(dir, "missing"): "Error: File does not exist: " + filepath.Join(dir, "missing"),
		dir:                           "Error: Path is a directory, not a file: " + dir,
	} {
		text, s := call(t, context.Background(), r, map[string]any{"file_path": in})
		if text != want || s != block.ResultError {
			t.Errorf("read %q = %q (%s), want %q", in, text, s, want)
		}
	}
}

func TestReadLongLinesAndBinary(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "long")
	if err := os.WriteFile(p, []byte(strings.Repeat("é", 2500)+"\nshort"), 0o644); err != nil {
		t.Fatal(err)
	}
	text, _ := call(t, context.Background(), NewRead(Config{}), map[string]any{"file_path": p})
	if want := "     1\t" + strings.Repeat("é", 2000) + "[truncated]\n     2\tshort"; text != want {
		t.Errorf("long line read as %d bytes", len(text))
	}
	bin := filepath.Join(dir, "bin")
	if err := os.WriteFile(bin, []byte{'a', 0, 0xff, '\n', 'b'}, 0o644); err != nil {
		t.Fatal(err)
	}
	text, _ = call(t, context.Background(), NewRead(Config{}), map[string]any{"file_path": bin})
	if want := "     1\ta\x00\uFFFD\n     2\tb"; text != want {
		t.Errorf("binary read as %q, want %q", text, want)
	}
}

// A file larger than the cache budget is streamed: the window comes back,
// nothing is cached, and the tool never holds the file.
func TestReadHugeFileStreamed(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "huge")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 99) + "\n"
	for i := 0; i < 300_000; i++ { // 30 MB > the 25,000 KB budget
		f.WriteString(line)
	}
	f.WriteString(strings.Repeat("y", 5_000_000)) // one 5 MB line at the end
	f.Close()
	ctx, st := agentCtx()
	text, s := call(t, ctx, NewRead(Config{}), map[string]any{"file_path": p, "offset": 299_999.0, "limit": 3.0})
	want := "299999\t" + strings.Repeat("x", 99) + "\n300000\t" + strings.Repeat("x", 99) + "\n300001\t" + strings.Repeat("y", 2000) + "[truncated]"
	if text != want || s != block.ResultSuccess {
		t.Errorf("huge window: %d bytes (%s)", len(text), s)
	}
	if len(st.Tools.ReadFileCache) != 0 {
		t.Errorf("huge file cached")
	}
	text, _ = call(t, ctx, NewWrite(Config{}), map[string]any{"file_path": p, "content": "x"})
	if !strings.Contains(text, "has not been read yet") {
		t.Errorf("write over an uncached huge file: %q", text)
	}
}

func TestWriteNeedsPriorRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	os.WriteFile(p, []byte("old\n"), 0o644)
	ctx, _ := agentCtx()
	w := NewWrite(Config{})
	text, s := call(t, ctx, w, map[string]any{"file_path": p, "content": "new\n"})
	want := "Error: File " + p + " exists but has not been read yet. You must read the file first before writing to it."
	if text != want || s != block.ResultError {
		t.Fatalf("write unread = %q (%s)", text, s)
	}
	if b, _ := os.ReadFile(p); string(b) != "old\n" {
		t.Fatalf("file changed to %q", b)
	}
	call(t, ctx, NewRead(Config{}), map[string]any{"file_path": p})
	text, s = call(t, ctx, w, map[string]any{"file_path": p, "content": "a\nb\n"})
	if text != "The file "+p+" has been written successfully (3 lines)." || s != block.ResultSuccess {
		t.Fatalf("write after read = %q (%s)", text, s)
	}
	// A new file (parents created) needs no read.
	q := filepath.Join(dir, "sub", "dir", "g.txt")
	if text, s = call(t, ctx, w, map[string]any{"file_path": q, "content": "x"}); s != block.ResultSuccess {
		t.Fatalf("new file: %q", text)
	}
	if b, _ := os.ReadFile(q); string(b) != "x" {
		t.Errorf("new file holds %q", b)
	}
	if text, _ = call(t, ctx, w, map[string]any{"file_path": "rel", "content": "x"}); text != "Error: file_path must be an absolute path, got: rel" {
		t.Errorf("relative: %q", text)
	}
}

func TestEditConflictsAndReads(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.go")
	os.WriteFile(p, []byte("a := 1\nb := 1\n"), 0o644)
	ctx, _ := agentCtx()
	e, r := NewEdit(Config{}), NewRead(Config{})
	edit := func(old, new string, all bool) (string, block.ToolResultState) {
		return call(t, ctx, e, map[string]any{"file_path": p, "old_string": old, "new_string": new, "replace_all": all})
	}
	if text, _ := edit("a", "c", false); text != "Error: To edit a file, you must first read it using the Read tool." {
		t.Fatalf("edit unread = %q", text)
	}
	call(t, ctx, r, map[string]any{"file_path": p})
	if text, _ := edit(":= 1", ":= 2", false); text != "Error: old_string appears 2 times in "+p+". Set replace_all=true to replace all occurrences, or make old_string more specific." {
		t.Errorf("ambiguous = %q", text)
	}
	if text, _ := edit("zzz", "y", false); text != "Error: old_string not found in "+p {
		t.Errorf("missing = %q", text)
	}
	if text, _ := edit("a", "a", false); text != "Error: old_string and new_string are identical. No changes to make." {
		t.Errorf("identical = %q", text)
	}
	// Someone else changes the file after our read: the edit is refused
	// and the file keeps their change.
	os.WriteFile(p, []byte("a := 1\nb := 1\n// theirs\n"), 0o644)
	touchLater(t, p)
	if text, s := edit("a := 1", "a := 9", false); s != block.ResultError || !strings.Contains(text, "must first read it") {
		t.Fatalf("conflicting edit = %q (%s)", text, s)
	}
	if b, _ := os.ReadFile(p); !strings.Contains(string(b), "// theirs") {
		t.Fatalf("their change lost: %q", b)
	}
	call(t, ctx, r, map[string]any{"file_path": p})
	text, s := edit(":= 1", ":= 2", true)
	if text != "Successfully replaced all 2 occurrences in "+p || s != block.ResultSuccess {
		t.Fatalf("replace_all = %q", text)
	}
	if b, _ := os.ReadFile(p); string(b) != "a := 2\nb := 2\n// theirs\n" {
		t.Errorf("file = %q", b)
	}
	// Our own write moved the mtime too: edit again only after a read.
	touchLater(t, p)
	if text, _ := edit("a := 2", "a := 3", false); !strings.Contains(text, "must first read it") {
		t.Errorf("edit after own write without re-read = %q", text)
	}
}

func TestEditRefusesBinary(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "b.bin")
	os.WriteFile(p, []byte{'a', 0, 0xfe, 'b'}, 0o644)
	ctx, _ := agentCtx()
	call(t, ctx, NewRead(Config{}), map[string]any{"file_path": p})
	text, s := call(t, ctx, NewEdit(Config{}), map[string]any{"file_path": p, "old_string": "a", "new_string": "c"})
	if s != block.ResultError || !strings.Contains(text, "binary") {
		t.Fatalf("edit binary = %q (%s)", text, s)
	}
	if b, _ := os.ReadFile(p); string(b) != "a\x00\xfeb" {
		t.Errorf("binary file changed: %q", b)
	}
}

func TestCacheEviction(t *testing.T) {
	dir := t.TempDir()
	ctx, st := agentCtx()
	st.Tools.MaxCacheFiles = 2
	r := NewRead(Config{})
	var paths []string
	for i := range 3 {
		p := filepath.Join(dir, string(rune('a'+i)))
		os.WriteFile(p, []byte("x\n"), 0o644)
		paths = append(paths, p)
		call(t, ctx, r, map[string]any{"file_path": p})
	}
	if _, ok := getCache(st, paths[0]); ok {
		t.Errorf("oldest entry not evicted")
	}
	for _, p := range paths[1:] {
		if _, ok := getCache(st, p); !ok {
			t.Errorf("%s evicted", p)
		}
	}
}

// Paths outside the working directories, and symlinks inside them that
// point out, are not auto-allowed in ACCEPT_EDITS; a symlinked working
// directory still counts as itself.
func TestWorkingDirectoriesAndSymlinks(t *testing.T) {
	work, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(work, "out")); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(outside, "alias")
	if err := os.Symlink(work, alias); err != nil {
		t.Fatal(err)
	}
	pc := permission.NewContext(permission.ModeAcceptEdits)
	pc.AddWorkingDirectory(work, "test")
	e := permission.NewEngine(pc)
	w := NewWrite(Config{})
	for path, want := range map[string]block.Behavior{
		filepath.Join(work, "f.txt"):           block.Allow,
		filepath.Join(work, "new", "f.txt"):    block.Allow,
		filepath.Join(outside, "f.txt"):        block.Ask,
		filepath.Join(work, "out", "f.txt"):    block.Ask, // symlink pointing out
		filepath.Join(alias, "f.txt"):          block.Allow,
		filepath.Join(work, "..", "f.txt"):     block.Ask,
		filepath.Join(work, ".git", "config"):  block.Ask,
		filepath.Join(work, "x", ".env.local"): block.Ask,
	} {
		d := e.Check(context.Background(), w, map[string]any{"file_path": path})
		if d.Behavior != want {
			t.Errorf("write %s: %s (%s), want %s", path, d.Behavior, d.Message, want)
		}
	}
	b := NewBash(Config{})
	for cmd, want := range map[string]block.Behavior{
		"touch " + filepath.Join(work, "a"):                                  block.Allow,
		"touch " + filepath.Join(work, "out", "a"):                           block.Ask,
		"cp " + filepath.Join(work, "a") + " " + filepath.Join(outside, "b"): block.Ask,
	} {
		if d := e.Check(context.Background(), b, map[string]any{"command": cmd}); d.Behavior != want {
			t.Errorf("%s: %s (%s), want %s", cmd, d.Behavior, d.Message, want)
		}
	}
}

func TestGlob(t *testing.T) {
	dir := t.TempDir()
	for i, p := range []string{"a.go", "sub/b.go", "sub/deep/c.go", "sub/d.txt", ".hidden/e.go"} {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, nil, 0o644)
		at := time.Unix(1_700_000_000+int64(i), 0)
		os.Chtimes(full, at, at)
	}
	g := NewGlob(Config{Dir: dir})
	text, _ := call(t, context.Background(), g, map[string]any{"pattern": "**/*.go"})
	want := strings.Join([]string{".hidden/e.go", "sub/deep/c.go", "sub/b.go", "a.go"}, "\n"+dir+"/")
	if text != dir+"/"+want {
		t.Errorf("glob = %q", text)
	}
	text, _ = call(t, context.Background(), g, map[string]any{"pattern": "sub/*.go"})
	if text != filepath.Join(dir, "sub/b.go") {
		t.Errorf("glob sub = %q", text)
	}
	if text, _ = call(t, context.Background(), g, map[string]any{"pattern": "*.rs"}); text != "No files found matching pattern: *.rs" {
		t.Errorf("no match = %q", text)
	}
	if text, s := call(t, context.Background(), g, map[string]any{"pattern": "*", "path": filepath.Join(dir, "nope")}); s != block.ResultError || !strings.HasPrefix(text, "Directory not found: ") {
		t.Errorf("missing dir = %q", text)
	}
}

func TestGrep(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.go":         "package a\n// TODO one\nfunc A() {}\n",
		"b.py":         "# TODO two\n# todo three\n",
		".git/x":       "TODO in git\n",
		"bin.dat":      "TODO\x00",
		"sub/c.go":     "x\ny\nTODO four\nz\n",
		"sub/skip.txt": "nothing\n",
	}
	for p, c := range files {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(c), 0o644)
	}
	g := NewGrep(Config{Dir: dir})
	run := func(in map[string]any) string {
		in["pattern"] = "TODO"
		text, _ := call(t, context.Background(), g, in)
		return text
	}
	if got := run(map[string]any{}); got != strings.Join([]string{dir + "/a.go", dir + "/b.py", dir + "/sub/c.go"}, "\n") {
		t.Errorf("files = %q", got)
	}
	if got := run(map[string]any{"output_mode": "count", "i": true}); got != dir+"/a.go:1\n"+dir+"/b.py:2\n"+dir+"/sub/c.go:1" {
		t.Errorf("count = %q", got)
	}
	if got := run(map[string]any{"output_mode": "content", "glob": "*.go", "-B": 1.0}); got != dir+"/a.go-1-package a\n"+dir+"/a.go:2:// TODO one\n"+dir+"/sub/c.go-2-y\n"+dir+"/sub/c.go:3:TODO four" {
		t.Errorf("content = %q", got)
	}
	if got := run(map[string]any{"type": "py", "output_mode": "content", "path": filepath.Join(dir, "b.py")}); got != "1:# TODO two" {
		t.Errorf("single file = %q", got)
	}
	if got := run(map[string]any{"head_limit": 1.0, "offset": 1.0}); got != dir+"/b.py\n\n[Showing results with pagination = limit: 1, offset: 1]" {
		t.Errorf("paged = %q", got)
	}
	if got := run(map[string]any{"output_mode": "content", "path": filepath.Join(dir, "sub"), "-A": 1.0, "glob": "*.go"}); got != dir+"/sub/c.go:3:TODO four\n"+dir+"/sub/c.go-4-z" {
		t.Errorf("after = %q", got)
	}
	if got := run(map[string]any{"glob": "*.rs"}); got != "No matches found for pattern: TODO" {
		t.Errorf("none = %q", got)
	}
}

func TestGrepContextAndMultiline(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	os.WriteFile(p, []byte("a\nhit 1\nb\nc\nd\nhit 2\nstart\nend\n"+strings.Repeat("z", 600)+" hit\n"), 0o644)
	g := NewGrep(Config{})
	text, _ := call(t, context.Background(), g, map[string]any{"pattern": "hit", "path": p, "output_mode": "content", "context": 1.0})
	want := "1-a\n2:hit 1\n3-b\n--\n5-d\n6:hit 2\n7-start\n8-end\n9:[Omitted long line with 1 matches]"
	if text != want {
		t.Errorf("context = %q, want %q", text, want)
	}
	text, _ = call(t, context.Background(), g, map[string]any{"pattern": "start.end", "path": p, "output_mode": "content", "multiline": true})
	if text != "7:start\n8:end" {
		t.Errorf("multiline = %q", text)
	}
	text, _ = call(t, context.Background(), g, map[string]any{"pattern": "start.end", "path": p, "output_mode": "count", "multiline": true})
	if text != "2" {
		t.Errorf("multiline count = %q", text)
	}
	text, _ = call(t, context.Background(), g, map[string]any{"pattern": "start.end", "path": p})
	if text != "No matches found for pattern: start.end" {
		t.Errorf("no multiline = %q", text)
	}
	text, s := call(t, context.Background(), g, map[string]any{"pattern": "(", "path": p})
	if s != block.ResultError || !strings.HasPrefix(text, "ripgrep error (code 2): regex parse error") {
		t.Errorf("bad regex = %q", text)
	}
}

// PE-51: working dir the real directory, Write through a symlink to it →
// allow; working dir the symlink, Edit through the real path → allow.
func TestSymlinkedWorkingDirectoryPE51(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		wd   string
		tl   tool.Tool
		path string
	}{
		{real, NewWrite(Config{}), filepath.Join(link, "f.txt")},
		{link, NewEdit(Config{}), filepath.Join(real, "f.txt")},
	} {
		pc := permission.NewContext(permission.ModeAcceptEdits)
		pc.AddWorkingDirectory(c.wd, "test")
		d := permission.NewEngine(pc).Check(context.Background(), tool.PermissionSubject(c.tl), map[string]any{"file_path": c.path})
		if d.Behavior != block.Allow {
			t.Errorf("%s %s with working dir %s: %s (%s)", c.tl.Name(), c.path, c.wd, d.Behavior, d.Message)
		}
	}
}

// Write and Edit put the reference's unified diff in their metadata.
func TestWriteEditDiffMetadata(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	ctx, _ := agentCtx()
	meta := func(tl tool.Tool, in map[string]any) map[string]any {
		r := tool.NewResponse("c", nil)
		for c, err := range tl.Call(ctx, in) {
			if err != nil {
				t.Fatal(err)
			}
			r.Append(c)
		}
		if r.State != block.ResultSuccess {
			t.Fatalf("%s failed: %+v", tl.Name(), r.Content)
		}
		return r.Metadata
	}
	m := meta(NewWrite(Config{}), map[string]any{"file_path": p, "content": "a\nb\n"})
	if want := "--- /dev/null\n+++ b/" + p + "\n@@ -0,0 +1,2 @@\n+a\n+b\n"; m["diff"] != want || m["file_path"] != p || m["occurrences"] != 1 {
		t.Errorf("write metadata %q", m)
	}
	call(t, ctx, NewRead(Config{}), map[string]any{"file_path": p})
	m = meta(NewEdit(Config{}), map[string]any{"file_path": p, "old_string": "b", "new_string": "c"})
	if want := "--- a/" + p + "\n+++ b/" + p + "\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"; m["diff"] != want {
		t.Errorf("edit diff %q, want %q", m["diff"], want)
	}
}
