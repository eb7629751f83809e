package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/term"
)

// The chat's input: lines of a pipe or a file as they come, or on a
// terminal a line editor. The editor is golang.org/x/term's Terminal
// (maintained with Go, and its only dependency, golang.org/x/sys, is one
// the CLI has anyway): arrows, Home/End, Ctrl+A/E/B/F/K/U/W/L/T,
// Alt+Left/Right by words, bracketed paste, Up/Down through the history,
// and a Write that puts output above the line being edited. What it lacks
// is added here: Ctrl+C tells itself apart from Ctrl+D, a history kept in
// a file per user, and multi-line input (a trailing backslash or
// Alt+Enter continues the prompt on the next line; a pasted text keeps its
// lines).

// errInterruptKey is Ctrl+C typed at the prompt.
var errInterruptKey = errors.New("interrupt")

// inputResult is one prompt's answer: a line, errEOF or errInterruptKey.
type inputResult struct {
	line string
	err  error
}

// chatInput asks for lines. read shows prompt and returns where the answer
// will come; the main prompt (main true) keeps a history and takes
// several lines. Asking again before an answer came (after a Ctrl+C sent
// as a signal) shows the prompt again and waits for the same answer.
type chatInput interface {
	read(prompt string, main bool) <-chan inputResult
	close()
}

// pipeInput reads lines of a pipe or a file, as scripts send them.
type pipeInput struct {
	lines chan inputResult
	show  func(prompt string)
}

func newPipeInput(ctx context.Context, r io.Reader, show func(string)) *pipeInput {
	p := &pipeInput{lines: make(chan inputResult), show: show}
	// The goroutine ends at a read error or EOF once the chat has taken
	// it, or with ctx (after its read returned: a read blocked on a
	// terminal cannot be cancelled, so there that is when the process
	// ends).
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			select {
			case p.lines <- inputResult{line: sc.Text()}:
			case <-ctx.Done():
				return
			}
		}
		select {
		case p.lines <- inputResult{err: errEOF}:
		case <-ctx.Done():
		}
	}()
	return p
}

func (p *pipeInput) read(prompt string, main bool) <-chan inputResult {
	p.show(prompt)
	return p.lines
}

func (p *pipeInput) close() {}

// contPrompt is the prompt of a prompt's next line.
const contPrompt = "… "

// ttyInput is the line editor on the terminal of stdin and stdout. The
// terminal is raw only while a prompt reads: a reply streams in the
// terminal's own mode, where Ctrl+C is a SIGINT.
type ttyInput struct {
	fd      int
	t       *term.Terminal
	keys    *keyReader
	hist    *history
	con     *console
	pending chan inputResult // the answer of the prompt being read, if any

	mu  sync.Mutex
	raw *term.State // the mode to restore while raw
}

func newTTYInput(stdin *os.File, stdout io.Writer, hist *history, con *console) *ttyInput {
	keys := &keyReader{r: stdin}
	t := term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{keys, stdout}, "> ")
	// Bracketed paste stays on for the whole chat (and not only while a
	// prompt reads): the prompt's line then starts with the prompt.
	t.SetBracketedPasteMode(true)
	return &ttyInput{fd: int(stdin.Fd()), t: t, keys: keys, hist: hist, con: con}
}

func (in *ttyInput) read(prompt string, main bool) <-chan inputResult {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.pending != nil {
		return in.pending
	}
	ch := make(chan inputResult, 1)
	in.pending = ch
	go func() { // ends with the line; a read the chat no longer waits for ends with the process
		r := in.readLine(prompt, main)
		in.mu.Lock()
		in.pending = nil // before the answer, so that the next read starts anew
		in.mu.Unlock()
		ch <- r
	}()
	return ch
}

func (in *ttyInput) readLine(prompt string, main bool) inputResult {
	in.mu.Lock()
	st, err := term.MakeRaw(in.fd)
	if err == nil {
		in.raw = st
	}
	in.mu.Unlock()
	if w, h, err := term.GetSize(in.fd); err == nil && w > 0 {
		in.t.SetSize(w, h)
	}
	if main {
		in.t.History = in.hist
	} else {
		in.t.History = noHistory{}
	}
	in.con.attach(in.t)
	defer func() {
		in.con.detach()
		in.restore()
	}()
	in.t.SetPrompt(prompt)
	var lines []string
	for {
		line, err := in.t.ReadLine()
		if errors.Is(err, term.ErrPasteIndicator) {
			lines = append(lines, line)
			in.t.SetPrompt(contPrompt)
			continue
		}
		if err != nil {
			return inputResult{err: errEOF}
		}
		if line == "" && in.keys.interrupted() {
			return inputResult{err: errInterruptKey}
		}
		if main && strings.HasSuffix(line, `\`) {
			lines = append(lines, strings.TrimSuffix(line, `\`))
			in.t.SetPrompt(contPrompt)
			continue
		}
		lines = append(lines, line)
		break
	}
	text := fromHistoryLine(strings.Join(lines, "\n"))
	if main {
		in.hist.add(text)
	}
	return inputResult{line: text}
}

// restore leaves raw mode, if the terminal is in it.
func (in *ttyInput) restore() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.raw != nil {
		term.Restore(in.fd, in.raw)
		in.raw = nil
	}
}

// close gives the terminal back as it was, a read still waiting or not.
func (in *ttyInput) close() {
	in.restore()
	in.con.detach()
	in.t.SetBracketedPasteMode(false)
}

// keyReader is the editor's stdin. x/term reads Ctrl+C as EOF, as
// Ctrl+D on an empty line; here Ctrl+C becomes End, Ctrl+U and Enter (the
// line is cleared, as a shell does, and ends empty) and is counted, so
// that the empty line it ends is told from one typed. Alt+Enter becomes a
// backslash and Enter: a continued line.
type keyReader struct {
	r    io.Reader
	mu   sync.Mutex
	intr int // Ctrl+Cs read whose empty line is still to come
	buf  []byte
}

func (k *keyReader) Read(p []byte) (int, error) {
	if len(p) < 4 {
		return k.r.Read(p)
	}
	if cap(k.buf) < len(p)/3 {
		k.buf = make([]byte, len(p)/3)
	}
	buf := k.buf[:len(p)/3]
	n, err := k.r.Read(buf)
	out := p[:0]
	for i := 0; i < n; i++ {
		switch c := buf[i]; {
		case c == 3:
			k.mu.Lock()
			k.intr++
			k.mu.Unlock()
			out = append(out, 5, 21, '\r')
		case c == 0x1b && i+1 < n && (buf[i+1] == '\r' || buf[i+1] == '\n'):
			out = append(out, '\\', '\r')
			i++
		default:
			out = append(out, c)
		}
	}
	return len(out), err
}

// interrupted reports whether an empty line the editor returned was a
// Ctrl+C's.
func (k *keyReader) interrupted() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.intr == 0 {
		return false
	}
	k.intr--
	return true
}

// console is the chat's output on a terminal. While a prompt is read,
// what comes meanwhile (a reconnection's status, another client's run on
// the session) goes through the editor's Write, which moves the line
// being edited below it; only whole lines go, the rest waits for its
// newline or the prompt's end.
type console struct {
	mu      sync.Mutex
	w       io.Writer
	t       *term.Terminal
	partial []byte
}

func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.t == nil {
		return c.w.Write(p)
	}
	c.partial = append(c.partial, p...)
	if i := bytes.LastIndexByte(c.partial, '\n'); i >= 0 {
		if _, err := c.t.Write(c.partial[:i+1]); err != nil {
			return 0, err
		}
		c.partial = append(c.partial[:0], c.partial[i+1:]...)
	}
	return len(p), nil
}

func (c *console) attach(t *term.Terminal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func (c *console) detach() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.t == nil {
		return
	}
	c.t = nil
	if len(c.partial) > 0 {
		c.w.Write(c.partial)
		c.partial = c.partial[:0]
	}
}

// history is the main prompt's history, kept in a file of one JSON
// string a line (a prompt may have several lines), most recent last. In
// the editor a prompt's line breaks show as ↵, and a recalled prompt sent
// again gets them back.
type history struct {
	path    string
	mu      sync.Mutex
	entries []string // oldest first
}

// historyMax is how many prompts the history keeps.
const historyMax = 1000

// historyPath is the history file of user: $AGENTSCOPE_HISTORY if set
// ("off": none), else agentscope/history-USER in the user's configuration
// directory ($XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application
// Support on macOS, %AppData% on Windows).
func historyPath(user string) string {
	switch p := os.Getenv("AGENTSCOPE_HISTORY"); p {
	case "off":
		return ""
	case "":
	default:
		return p
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' || r == '@' {
			return r
		}
		return '_'
	}, user)
	return filepath.Join(dir, "agentscope", "history-"+safe)
}

// loadHistory reads the file at path (none: a history in memory only).
func loadHistory(path string) *history {
	h := &history{path: path}
	if path == "" {
		return h
	}
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
			h.entries = append(h.entries, s)
		}
	}
	if len(h.entries) > historyMax {
		h.entries = h.entries[len(h.entries)-historyMax:]
	}
	return h
}

// add records a prompt sent: in memory, and appended to the file (which
// is rewritten when it has grown to twice what is kept).
func (h *history) add(s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.entries); n > 0 && h.entries[n-1] == s {
		return
	}
	h.entries = append(h.entries, s)
	if h.path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return
	}
	line, _ := json.Marshal(s)
	if len(h.entries) > 2*historyMax {
		h.entries = h.entries[len(h.entries)-historyMax:]
		var b bytes.Buffer
		for _, e := range h.entries {
			j, _ := json.Marshal(e)
			b.Write(j)
			b.WriteByte('\n')
		}
		tmp := h.path + ".tmp"
		if os.WriteFile(tmp, b.Bytes(), 0o600) == nil {
			os.Rename(tmp, h.path)
		}
		return
	}
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	f.Write(append(line, '\n'))
	f.Close()
}

// Add, Len and At are x/term's History: the editor adds every line it
// reads, a continued prompt's lines one by one, so the chat adds whole
// prompts itself (add) and Add does nothing.
func (h *history) Add(string) {}

func (h *history) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.entries)
}

func (h *history) At(i int) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return toHistoryLine(h.entries[len(h.entries)-1-i])
}

// historyBreak shows a prompt's line break on the editor's one line.
const historyBreak = " ↵ "

func toHistoryLine(s string) string   { return strings.ReplaceAll(s, "\n", historyBreak) }
func fromHistoryLine(s string) string { return strings.ReplaceAll(s, historyBreak, "\n") }

// noHistory is the history of a question's prompt: none.
type noHistory struct{}

func (noHistory) Add(string)    {}
func (noHistory) Len() int      { return 0 }
func (noHistory) At(int) string { panic("no history") }
