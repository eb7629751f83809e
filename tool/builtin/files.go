package builtin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

var (
	readDescription  = pycompat.BuiltinText("read.txt")
	readSchema       = pycompat.BuiltinText("read.json")
	writeDescription = pycompat.BuiltinText("write.txt")
	writeSchema      = pycompat.BuiltinText("write.json")
	editDescription  = pycompat.BuiltinText("edit.txt")
	editSchema       = pycompat.BuiltinText("edit.json")
)

// fileRules is the rule side of Read, Write and Edit: rule content is an
// fnmatch glob on file_path, the suggestion the parent directory.
type fileRules struct{ name string }

func (f fileRules) Name() string { return f.name }

func (fileRules) MatchRule(content string, input map[string]any) bool {
	p := stringArg(input, "file_path")
	return p != "" && fnmatch(p, content)
}

func (f fileRules) SuggestRules(input map[string]any) []block.PermissionRule {
	return suggestParent(f.name, input)
}

// editPolicy is Write's and Edit's own check: a safety ASK on a dangerous
// path, ALLOW inside a working directory in ACCEPT_EDITS and DONT_ASK,
// else PASSTHROUGH.
func editPolicy(op string, cfg Config, input map[string]any, pc *permission.Context) permission.Decision {
	p := stringArg(input, "file_path")
	if p == "" {
		return permission.Decision{Behavior: block.Passthrough, Message: "No file path provided"}
	}
	if dangerousPath(p, cfg.files(), cfg.dirs()) {
		return permission.Decision{
			Behavior:     block.Ask,
			Message:      fmt.Sprintf("Permission required: %s operation on sensitive file %s", op, p),
			Reason:       "Safety check: dangerous file or directory",
			BypassImmune: true,
		}
	}
	if pc != nil && (pc.Mode == permission.ModeAcceptEdits || pc.Mode == permission.ModeDontAsk) && pc.InWorkingDirectory(p) {
		return permission.Decision{
			Behavior: block.Allow,
			Message:  fmt.Sprintf("Permission granted for %s %s (in working directory)", editVerb(op), p),
			Reason:   "File is in working directory and not a dangerous path",
		}
	}
	return permission.Decision{Behavior: block.Passthrough}
}

func editVerb(op string) string {
	if op == "Write" {
		return "writing"
	}
	return "editing"
}

func once(c tool.Chunk) iter.Seq2[tool.Chunk, error] {
	return func(yield func(tool.Chunk, error) bool) { yield(c, nil) }
}

func errorText(format string, args ...any) iter.Seq2[tool.Chunk, error] {
	return once(tool.ErrorChunk(fmt.Sprintf(format, args...)))
}

// Read reads a text file with line numbers (cat -n style), keeping what it
// read in the agent state's read cache for Write and Edit.
type Read struct {
	fileRules
	cfg Config
}

// NewRead returns the Read tool.
func NewRead(cfg Config) *Read { return &Read{fileRules: fileRules{"Read"}, cfg: cfg} }

// Description returns the reference's description.
func (*Read) Description() string { return readDescription }

// InputSchema returns {file_path, offset, limit}.
func (*Read) InputSchema() json.RawMessage { return schema(readSchema) }

// Flags: read-only, concurrency-safe, state-injected.
func (*Read) Flags() tool.Flags {
	return tool.Flags{ReadOnly: true, ConcurrencySafe: true, StateInjected: true}
}

// ReadOnly is true but for a secret path ([Config.SecretPath]): reading
// one hands credentials or another process's memory to the model, which
// is not the harmless read the read-only fast path (and EXPLORE) allows.
func (r *Read) ReadOnly(input map[string]any) bool {
	return r.cfg.SecretPath(stringArg(input, "file_path"), r.cfg.Dir) == ""
}

// CheckPermissions asks for a secret path, with a confirmation no allow
// rule silences (DONT_ASK denies it, only BYPASS skips it); other reads
// pass through to the read-only fast path and rules.
func (r *Read) CheckPermissions(_ context.Context, input map[string]any, _ *permission.Context) permission.Decision {
	p := stringArg(input, "file_path")
	if why := r.cfg.SecretPath(p, r.cfg.Dir); why != "" {
		return secretAsk("Read", p, why)
	}
	return permission.Decision{Behavior: block.Passthrough, Message: "File reading is read-only."}
}

// secretAsk is the safety ASK of a read of a secret path.
func secretAsk(op, path, why string) permission.Decision {
	return permission.Decision{
		Behavior:     block.Ask,
		Message:      fmt.Sprintf("Permission required: %s of a sensitive path %s: %s", op, path, why),
		Reason:       "Safety check: the path may expose secrets",
		BypassImmune: true,
	}
}

// DefaultMaxLineCharacters is where Read cuts a line.
const DefaultMaxLineCharacters = 2000

// Call reads the file. Only regular files are read: a device, FIFO or
// socket (or a link to one) may never end or never answer. The file is
// streamed: only the lines of the window are kept and each is cut at the
// line limit while reading, so a huge file (or a huge line) costs no more
// memory than the window. The whole file goes into the cache only when it
// fits the cache's byte budget, counted on what is read rather than on
// the size stat reports (zero for /proc files, stale for a growing one).
func (r *Read) Call(ctx context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
	path := stringArg(input, "file_path")
	offset := intArg(input, "offset", 1)
	limit := intArg(input, "limit", 2000)
	maxChars := r.cfg.MaxLineCharacters
	if maxChars <= 0 {
		maxChars = DefaultMaxLineCharacters
	}
	if !isAbs(path) {
		return errorText("Error: file_path must be an absolute path, got: %s", path)
	}
	if fi, err := os.Stat(path); err != nil {
		return errorText("Error: File does not exist: %s", path)
	} else if fi.IsDir() {
		return errorText("Error: Path is a directory, not a file: %s", path)
	}
	f, fi, err := openRegular(path)
	switch {
	case errors.Is(err, errNotRegular):
		return errorText("Error: %s is not a regular file (%s); Read reads regular files only.", path, fileKind(fi.Mode()))
	case err != nil:
		return errorText("Error reading file: %v", err)
	}
	defer f.Close()
	st := stateFrom(ctx)
	var lines []string
	if st != nil {
		lines, _ = getCache(st, path)
	}
	if lines == nil && st != nil && fi.Size() <= budgetBytes(st) {
		data, err := io.ReadAll(io.LimitReader(ctxReader{ctx, f}, budgetBytes(st)+1))
		if err != nil {
			return readError(ctx, err)
		}
		if int64(len(data)) <= budgetBytes(st) {
			lines = splitLinesKeepEnds(normalizeNewlines(decodeReplace(data)))
			cacheFile(st, path, lines)
		} else if _, err := f.Seek(0, io.SeekStart); err != nil {
			return readError(ctx, err)
		}
	}
	if lines == nil {
		text, err := readWindow(ctx, f, offset, limit, maxChars)
		if err != nil {
			return readError(ctx, err)
		}
		return once(tool.Text(text))
	}
	return once(tool.Text(formatLines(lines, offset, limit, maxChars)))
}

func readError(ctx context.Context, err error) iter.Seq2[tool.Chunk, error] {
	if ctx.Err() != nil {
		return errorText("Error reading file: interrupted (%v)", context.Cause(ctx))
	}
	return errorText("Error reading file: %v", err)
}

// fileKind names what a non-regular file is, for the error.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a plain file"
}

// budgetBytes is the cache's byte budget.
func budgetBytes(st *state.AgentState) int64 { return int64(budgetKB(st) * 1024) }

// budgetKB is the cache's byte budget in KB (the reference's unit).
func budgetKB(st *state.AgentState) float64 {
	if st == nil {
		return 0
	}
	if st.Tools.MaxCacheBytes > 0 {
		return st.Tools.MaxCacheBytes
	}
	return state.DefaultMaxCacheBytes
}

// formatLines is the reference's output: each line of the window as a
// 6-wide right-aligned number, a tab and the line (cut to maxChars with
// "[truncated]"), joined by newlines; cut at MaxReadOutputBytes.
func formatLines(lines []string, offset, limit, maxChars int) string {
	start := max(offset-1, 0)
	end := min(addSat(start, max(limit, 0)), len(lines))
	var b strings.Builder
	for i := start; i < end; i++ {
		if i > start {
			b.WriteByte('\n')
		}
		writeLine(&b, i+1, strings.TrimRight(lines[i], "\n\r"), maxChars)
		if b.Len() >= MaxReadOutputBytes && i+1 < end {
			writeCut(&b, i+1)
			break
		}
	}
	return b.String()
}

// writeCut ends a window cut at MaxReadOutputBytes after line n.
func writeCut(b *strings.Builder, n int) {
	fmt.Fprintf(b, "\n\n(output stopped after line %d at %d bytes; read on with offset %d)", n, MaxReadOutputBytes, n+1)
}

func writeLine(b *strings.Builder, n int, line string, maxChars int) {
	// Grow doubles the buffer when it must grow; left to append, a large
	// window would be copied a dozen times over at 1.25× steps.
	b.Grow(len(line) + 32)
	var num [20]byte
	d := strconv.AppendInt(num[:0], int64(n), 10)
	for i := len(d); i < 6; i++ {
		b.WriteByte(' ')
	}
	b.Write(d)
	b.WriteByte('\t')
	if utf8.RuneCountInString(line) > maxChars {
		i, k := 0, 0
		for ; k < maxChars; k++ {
			_, size := utf8.DecodeRuneInString(line[i:])
			i += size
		}
		b.WriteString(line[:i])
		b.WriteString("[truncated]")
		return
	}
	b.WriteString(line)
}

// readWindow streams f and formats lines offset…offset+limit-1 without
// holding more than the window (a line is kept up to maxChars characters
// plus a little, whatever its length), stopping at MaxReadOutputBytes of
// text and when ctx ends.
func readWindow(ctx context.Context, f io.Reader, offset, limit, maxChars int) (string, error) {
	br := bufio.NewReaderSize(ctxReader{ctx, f}, 64*1024)
	start := max(offset-1, 0)
	end := addSat(start, max(limit, 0))
	var b strings.Builder
	keepBytes := maxChars*utf8.UTFMax + 1
	var buf []byte
	for n := 0; n < end; n++ {
		line, eof, err := readCappedLine(br, keepBytes, buf[:0])
		if err != nil {
			return "", err
		}
		if eof && line == nil {
			break
		}
		buf = line
		if n >= start {
			if n > start {
				b.WriteByte('\n')
			}
			text := strings.TrimRight(normalizeNewlines(decodeReplace(line)), "\n\r")
			writeLine(&b, n+1, text, maxChars)
			if b.Len() >= MaxReadOutputBytes && n+1 < end && !eof {
				if _, err := br.Peek(1); err == nil {
					writeCut(&b, n+1)
				}
				break
			}
		}
		if eof {
			break
		}
	}
	return b.String(), nil
}

// readCappedLine reads one line (through "\n") into buf, keeping at most
// keep bytes of it. line is nil at the end of the input.
func readCappedLine(br *bufio.Reader, keep int, buf []byte) (line []byte, eof bool, err error) {
	line = buf[:0]
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line) < keep {
			line = append(line, chunk[:min(len(chunk), keep-len(line))]...)
		}
		switch {
		case err == nil:
			return line, false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(chunk) == 0 && len(line) == 0 {
				return nil, true, nil
			}
			return line, true, nil
		default:
			return nil, false, err
		}
	}
}

// decodeReplace is bytes.decode("utf-8", errors="replace").
func decodeReplace(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.Write(b[:size])
		}
		b = b[size:]
	}
	return sb.String()
}

// normalizeNewlines folds "\r\n" and lone "\r" to "\n".
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// splitLinesKeepEnds is str.splitlines(keepends=True) for text whose
// line ends are "\n" (the other separators Python knows are kept inside
// lines; the reference's Edit joins the lines back, so nothing is lost).
func splitLinesKeepEnds(s string) []string {
	out := []string{}
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// Write writes a whole file. An existing file must have been read (and not
// changed since) when the tool runs inside an agent.
type Write struct {
	fileRules
	cfg Config
}

// NewWrite returns the Write tool.
func NewWrite(cfg Config) *Write { return &Write{fileRules: fileRules{"Write"}, cfg: cfg} }

// Description returns the reference's description.
func (*Write) Description() string { return writeDescription }

// InputSchema returns {file_path, content}.
func (*Write) InputSchema() json.RawMessage { return schema(writeSchema) }

// Flags: state-injected.
func (*Write) Flags() tool.Flags { return tool.Flags{StateInjected: true} }

// ReadOnly is always false.
func (*Write) ReadOnly(map[string]any) bool { return false }

// CheckPermissions: see editPolicy.
func (w *Write) CheckPermissions(_ context.Context, input map[string]any, pc *permission.Context) permission.Decision {
	return editPolicy("Write", w.cfg, input, pc)
}

// Call writes content to file_path, creating parent directories.
func (w *Write) Call(ctx context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
	path := stringArg(input, "file_path")
	content := stringArg(input, "content")
	if !isAbs(path) {
		return errorText("Error: file_path must be an absolute path, got: %s", path)
	}
	_, statErr := os.Stat(path)
	exists := statErr == nil
	if st := stateFrom(ctx); exists && st != nil {
		if _, ok := getCache(st, path); !ok {
			return errorText("Error: File %s exists but has not been read yet. You must read the file first before writing to it.", path)
		}
	}
	// The previous text, for the diff: empty for a new file, and for one
	// that is not valid UTF-8 (a best-effort "all added" diff, as the
	// reference renders it).
	previous, from := "", "/dev/null"
	if exists {
		from = "a/" + path
		if b, err := os.ReadFile(path); err == nil && utf8.Valid(b) && len(b) <= maxDiffBytes {
			previous = string(b)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return errorText("Error writing file: %v", err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return errorText("Error writing file: %v", err)
	}
	lines := strings.Count(content, "\n") + 1
	return once(tool.Chunk{
		Content:  []block.Block{block.NewText(fmt.Sprintf("The file %s has been written successfully (%d lines).", path, lines))},
		Metadata: map[string]any{"diff": unifiedDiff(previous, content, from, "b/"+path), "file_path": path, "occurrences": 1},
	})
}

// Edit replaces exact text in a file that was read first.
type Edit struct {
	fileRules
	cfg Config
}

// NewEdit returns the Edit tool.
func NewEdit(cfg Config) *Edit { return &Edit{fileRules: fileRules{"Edit"}, cfg: cfg} }

// Description returns the reference's description.
func (*Edit) Description() string { return editDescription }

// InputSchema returns {file_path, old_string, new_string, replace_all}.
func (*Edit) InputSchema() json.RawMessage { return schema(editSchema) }

// Flags: state-injected.
func (*Edit) Flags() tool.Flags { return tool.Flags{StateInjected: true} }

// ReadOnly is always false.
func (*Edit) ReadOnly(map[string]any) bool { return false }

// CheckPermissions: see editPolicy.
func (e *Edit) CheckPermissions(_ context.Context, input map[string]any, pc *permission.Context) permission.Decision {
	return editPolicy("Edit", e.cfg, input, pc)
}

// Call replaces old_string with new_string (once, or everywhere with
// replace_all). Inside an agent it edits the content Read cached, and
// refuses when the file changed since (its mtime moved): the model must
// read it again rather than overwrite a change it has not seen. Binary
// files are refused, because the cached text of one is lossy.
func (e *Edit) Call(ctx context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
	path := stringArg(input, "file_path")
	oldS, newS := stringArg(input, "old_string"), stringArg(input, "new_string")
	all := boolArg(input, "replace_all", false)
	if !isAbs(path) {
		return errorText("Error: file_path must be an absolute path, got: %s", path)
	}
	if _, err := os.Stat(path); err != nil {
		return errorText("Error: File not found: %s", path)
	}
	if oldS == newS {
		return errorText("Error: old_string and new_string are identical. No changes to make.")
	}
	if isBinaryFile(path) {
		return errorText("Error: %s is a binary file; Edit changes text files only.", path)
	}
	var content string
	if st := stateFrom(ctx); st != nil {
		lines, ok := getCache(st, path)
		if !ok {
			return errorText("Error: To edit a file, you must first read it using the Read tool.")
		}
		content = strings.Join(lines, "")
	} else {
		data, err := os.ReadFile(path)
		if err != nil {
			return errorText("Error reading file: %v", err)
		}
		content = normalizeNewlines(decodeReplace(data))
	}
	n := strings.Count(content, oldS)
	switch {
	case n == 0:
		return errorText("Error: old_string not found in %s", path)
	case n > 1 && !all:
		return errorText("Error: old_string appears %d times in %s. Set replace_all=true to replace all occurrences, or make old_string more specific.", n, path)
	}
	var updated, what string
	occurrences := 1
	if all {
		updated, what, occurrences = strings.ReplaceAll(content, oldS, newS), fmt.Sprintf("all %d occurrences", n), n
	} else {
		updated, what = strings.Replace(content, oldS, newS, 1), "1 occurrence"
	}
	if err := os.WriteFile(path, []byte(updated), 0o644); err != nil {
		return errorText("Error writing file: %v", err)
	}
	return once(tool.Chunk{
		Content:  []block.Block{block.NewText(fmt.Sprintf("Successfully replaced %s in %s", what, path))},
		Metadata: map[string]any{"diff": unifiedDiff(content, updated, "a/"+path, "b/"+path), "file_path": path, "occurrences": occurrences},
	})
}

// isBinaryFile reports whether the first 8 KB of path hold a NUL byte.
func isBinaryFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 8192)
	n, _ := io.ReadFull(f, buf)
	return bytes.IndexByte(buf[:n], 0) >= 0
}
