package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
)

// ANSI escapes, written only to a terminal.
const (
	ansiDim   = "\x1b[2m"
	ansiReset = "\x1b[0m"
	// ansiClearLine returns to the line's start and clears it.
	ansiClearLine = "\r\x1b[K"
)

// renderer writes a session's events for a person to read: the text as
// it streams (on a colour terminal as Markdown, re-rendered a paragraph at
// a time), thinking dimmed, each tool call once it is complete and each
// tool result summarised (its first lines; /expand or -v shows it whole),
// the runtime's <system-reminder> hints left out (dimmed with -v). It
// keeps only what it needs to lay the output out.
type renderer struct {
	w       io.Writer
	color   bool // ANSI styles and Markdown
	tty     bool // a terminal: the spinner, lines rewritten in place
	verbose bool // hints and whole tool results
	width   func() (cols, rows int)

	midLine bool // the last byte written was not a newline
	dimmed  bool // a thinking block's dimming is on
	tools   toolLog
	md      mdStream
	hints   hintFilter // the text block's
	// noRewrite: text is not rewritten in place (while a prompt is
	// edited below it, where only whole lines can go).
	noRewrite bool

	// The spinner: the line it is on (spinning), since when the stream
	// is silent, and what it waits for.
	spinning bool
	quietAt  time.Time
	frame    int
}

func newRenderer(w io.Writer, color bool) *renderer {
	return &renderer{w: w, color: color, width: func() (int, int) { return 0, 0 }, quietAt: time.Now()}
}

// write puts s on the screen, the spinner's line cleared first.
func (r *renderer) write(s string) {
	if s == "" {
		return
	}
	r.unspin()
	io.WriteString(r.w, s)
	r.midLine = !strings.HasSuffix(s, "\n")
	r.quietAt = time.Now()
}

// style wraps s in an SGR style when in colour.
func (r *renderer) style(on, s, off string) string {
	if !r.color || s == "" {
		return s
	}
	return on + s + off
}

// newline ends the current line, if one is open.
func (r *renderer) newline() {
	if r.midLine {
		r.write("\n")
	}
}

func (r *renderer) dim(s string) { r.write(r.style(ansiDim, s, ansiReset)) }

// startDim turns dimming on until endDim, written once around a block
// rather than around each delta. The escapes do not move the cursor, so
// they leave midLine alone.
func (r *renderer) startDim() {
	if r.color && !r.dimmed {
		r.unspin()
		io.WriteString(r.w, ansiDim)
		r.dimmed = true
	}
}

func (r *renderer) endDim() {
	if r.dimmed {
		io.WriteString(r.w, ansiReset)
		r.dimmed = false
	}
}

func (r *renderer) prompt() {
	r.newline()
	r.write("> ")
}

// showPrompt writes a question's prompt of the plain input.
func (r *renderer) showPrompt(p string) {
	r.newline()
	r.write(p)
}

// confirmHeader introduces a confirmation: the call (its input too when
// this stream has not shown it) and the rules [a]lways would add.
func (r *renderer) confirmHeader(call *block.ToolCall) {
	r.newline()
	what := call.Name
	if !r.tools.shown[call.ID] {
		what += " " + call.Input
	}
	r.write(r.style(sgrYellow+sgrBold, "?", sgrBoldOff+sgrFgOff) + " " + r.style(sgrBold, what, sgrBoldOff) + " needs your permission\n")
	for _, rule := range call.SuggestedRules {
		what := rule.ToolName
		if rule.RuleContent.Valid {
			what += "(" + rule.RuleContent.String + ")"
		}
		r.write(fmt.Sprintf("  [a]lways: %s %s\n", rule.Behavior, what))
	}
}

// notice writes one line of the chat's own (a status, an answer to a
// command), dimmed.
func (r *renderer) notice(s string) {
	r.newline()
	r.md.cut()
	r.write(r.style(ansiDim, s, ansiReset) + "\n")
}

// errorLine writes one line about a failure, red.
func (r *renderer) errorLine(s string) {
	r.newline()
	r.md.cut()
	r.write(r.style(sgrRed, s, sgrFgOff) + "\n")
}

// spinnerFrames turn while the stream is silent.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// spinnerAfter is how long the stream stays silent before the spinner shows.
const spinnerAfter = 400 * time.Millisecond

// tick draws the spinner, on a terminal, when the stream has been silent
// a while and the cursor is at a line's start: what it waits for and for
// how long.
func (r *renderer) tick(now time.Time) {
	if !r.tty || r.midLine || now.Sub(r.quietAt) < spinnerAfter {
		return
	}
	r.frame = (r.frame + 1) % len(spinnerFrames)
	secs := int(now.Sub(r.quietAt).Seconds())
	line := fmt.Sprintf("%s %s… %ds", spinnerFrames[r.frame], r.tools.waitingFor(), secs)
	io.WriteString(r.w, ansiClearLine+r.style(ansiDim, line, ansiReset))
	r.spinning = true
}

// unspin clears the spinner's line.
func (r *renderer) unspin() {
	if r.spinning {
		io.WriteString(r.w, ansiClearLine)
		r.spinning = false
	}
}

// quiet restarts the spinner's clock: the chat waits from now.
func (r *renderer) quiet() { r.quietAt = time.Now() }

// event renders one event of the stream.
func (r *renderer) event(ev event.Event) {
	switch ev.(type) {
	case *event.ThinkingBlockStart, *event.ThinkingBlockDelta:
	default: // whatever ends a thinking block, even without its end event
		r.endDim()
	}
	r.quietAt = time.Now()
	switch e := ev.(type) {
	case *event.ReplyStart:
		r.tools.reset()
	case *event.TextBlockStart:
		r.newline()
		r.md.start(r)
		r.hints = hintFilter{}
	case *event.TextBlockDelta:
		d := r.hints.filter(e.Delta)
		if r.color {
			r.md.delta(r, d)
		} else {
			r.write(d)
		}
	case *event.TextBlockEnd:
		r.md.delta(r, r.hints.flush())
		r.md.end(r)
		r.newline()
		r.showHints()
	case *event.ThinkingBlockStart:
		r.newline()
		r.startDim()
		r.hints = hintFilter{}
	case *event.ThinkingBlockDelta:
		r.startDim()
		r.write(sanitize(r.hints.filter(e.Delta), r.tty))
	case *event.ThinkingBlockEnd:
		r.write(sanitize(r.hints.flush(), r.tty))
		r.newline()
		r.endDim()
		r.showHints()
	case *event.ToolCallStart:
		r.tools.callStart(e.ToolCallID, e.ToolCallName)
	case *event.ToolCallDelta:
		r.tools.callDelta(e.ToolCallID, e.Delta)
	case *event.ToolCallEnd:
		name, input := r.tools.callEnd(e.ToolCallID)
		r.newline()
		r.write(r.callLine(name, input) + "\n")
	case *event.ToolResultStart:
		r.tools.resultStart(e.ToolCallID, e.ToolCallName)
	case *event.ToolResultTextDelta:
		r.tools.resultText(e.ToolCallID, e.Delta)
	case *event.ToolResultDataDelta:
		r.tools.resultData(e.ToolCallID, e.MediaType)
	case *event.ToolResultEnd:
		res := r.tools.resultEnd(e.ToolCallID, e.State)
		r.newline()
		r.write(r.resultLines(res))
	case *event.DataBlockStart:
		r.newline()
		r.write(r.style(ansiDim, "["+e.MediaType+" data]", ansiReset))
		r.newline()
	case *event.ExceedMaxIters:
		r.errorLine("[the reply reached its iteration limit]")
	case *event.ReplyEnd:
		r.newline()
		switch e.FinishedReason {
		case "", event.ReplyCompleted:
		default:
			msg := "[reply " + string(e.FinishedReason)
			if e.Error != nil {
				msg += ": " + e.Error.Message
			}
			r.errorLine(msg + "]")
		}
	}
}

// callLine is a tool call as shown: → name input.
func (r *renderer) callLine(name, input string) string {
	return r.style(sgrCyan, "→ "+name+" "+sanitize(input, r.tty), sgrFgOff)
}

// resultSummaryLines is how many lines of a tool result are shown.
const resultSummaryLines = 3

// resultLines is a tool result as shown: ← name: its first lines, its
// state when not a success, and how much is left out.
func (r *renderer) resultLines(res *toolResult) string {
	text, hints := stripHints(res.text.String())
	lines := nonEmptyLines(text)
	if len(lines) == 0 && len(hints) > 0 && res.state != block.ResultDenied && res.state != block.ResultInterrupted {
		// All the result says is in a hint (a tool's error for the
		// model): its first line, without the code it quotes.
		if first := nonEmptyLines(hints[0]); len(first) > 0 {
			lines = first[:1]
		}
	}
	for _, m := range res.data {
		lines = append(lines, "["+m+" data]")
	}
	shown, more := lines, 0
	if !r.verbose && len(lines) > resultSummaryLines {
		shown, more = lines[:resultSummaryLines], len(lines)-resultSummaryLines
	}
	ok := res.state == "" || res.state == block.ResultSuccess
	arrow := r.style(sgrGreen, "← "+res.name+":", sgrFgOff)
	if !ok {
		arrow = r.style(sgrRed, "← "+res.name+":", sgrFgOff)
	}
	var b strings.Builder
	b.WriteString(arrow)
	maxW := 0
	if cols, _ := r.width(); cols > 0 && !r.verbose {
		maxW = max(cols-4, 20)
	}
	for i, l := range shown {
		l = sanitize(l, r.tty)
		if maxW > 0 && visibleWidth(l) > maxW {
			l = truncateWidth(l, maxW-1) + "…"
		}
		if i == 0 {
			b.WriteString(" " + l)
		} else {
			b.WriteString("\n  " + l)
		}
	}
	if !ok {
		b.WriteString(" " + r.style(sgrRed, "["+string(res.state)+"]", sgrFgOff))
	}
	b.WriteString("\n")
	if more > 0 {
		b.WriteString(r.style(ansiDim, fmt.Sprintf("  … %d more line(s): /expand shows them", more), ansiReset) + "\n")
	}
	if r.verbose {
		for _, h := range hints {
			for _, l := range strings.Split(strings.TrimSpace(h), "\n") {
				b.WriteString(r.style(ansiDim, "  │ "+sanitize(l, r.tty), ansiReset) + "\n")
			}
		}
	}
	return b.String()
}

// expand writes the last reply's tool results whole, hints included.
func (r *renderer) expand() {
	if len(r.tools.done) == 0 {
		r.notice("(no tool results in the last reply)")
		return
	}
	r.newline()
	for _, res := range r.tools.done {
		r.write(r.style(sgrCyan, "← "+res.name, sgrFgOff) + r.style(ansiDim, " ("+string(orSuccess(res.state))+")", ansiReset) + "\n")
		text := strings.TrimRight(res.text.String(), "\n")
		for _, l := range strings.Split(text, "\n") {
			r.write("  " + sanitize(l, r.tty) + "\n")
		}
		for _, m := range res.data {
			r.write("  [" + m + " data]\n")
		}
	}
}

func orSuccess(s block.ToolResultState) block.ToolResultState {
	if s == "" {
		return block.ResultSuccess
	}
	return s
}

// message renders one stored message of the transcript, for the history
// of a resumed session. Unknown blocks are skipped.
func (r *renderer) message(raw json.RawMessage) {
	var m struct {
		Role    string `json:"role"`
		Name    string `json:"name"`
		Content []struct {
			Type     string          `json:"type"`
			ID       string          `json:"id"`
			Text     string          `json:"text"`
			Thinking string          `json:"thinking"`
			Name     string          `json:"name"`
			Input    string          `json:"input"`
			Output   json.RawMessage `json:"output"`
			State    string          `json:"state"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return
	}
	r.newline()
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			text, hints := stripHints(b.Text)
			if r.verbose {
				for _, h := range hints {
					r.dim(strings.TrimSpace(h) + "\n")
				}
			}
			if strings.TrimSpace(text) == "" {
				continue
			}
			if m.Role == "user" {
				r.write("> " + sanitize(strings.TrimSpace(text), r.tty))
			} else if r.color {
				r.write(renderMarkdown(sanitize(text, true), r.cols()))
			} else {
				r.write(text)
			}
			r.newline()
		case "thinking":
			r.dim(sanitize(b.Thinking, r.tty))
			r.newline()
		case "tool_call":
			r.write(r.callLine(b.Name, b.Input) + "\n")
			r.tools.init()
			r.tools.shown[b.ID] = true
		case "tool_result":
			res := &toolResult{name: b.Name, state: block.ToolResultState(b.State)}
			res.text.WriteString(outputText(b.Output))
			r.write(r.resultLines(res))
		}
	}
}

func (r *renderer) cols() int {
	c, _ := r.width()
	return c
}

// outputText is a tool result's output as text: a plain string or the
// text blocks of a list.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var b strings.Builder
	for _, x := range blocks {
		if x.Type == "text" {
			b.WriteString(x.Text)
		}
	}
	return b.String()
}

// toolLog follows a reply's tool calls and results: a call's input as it
// streams (shown once, whole, at its end) and each result's text.
type toolLog struct {
	names  map[string]string // call id → tool name
	inputs map[string]*strings.Builder
	shown  map[string]bool // calls whose line is on the screen
	open   map[string]*toolResult
	done   []*toolResult // the reply's results, for /expand
	// what the stream waits for, for the spinner
	calling, running string
}

type toolResult struct {
	name  string
	text  strings.Builder
	data  []string
	state block.ToolResultState
}

func (l *toolLog) init() {
	if l.names == nil {
		l.names, l.inputs, l.shown, l.open = map[string]string{}, map[string]*strings.Builder{}, map[string]bool{}, map[string]*toolResult{}
	}
}

// reset starts a new reply: the last one's results are forgotten.
func (l *toolLog) reset() {
	l.init()
	l.done = nil
}

func (l *toolLog) callStart(id, name string) {
	l.init()
	l.names[id] = name
	l.inputs[id] = &strings.Builder{}
	l.calling = name
}

func (l *toolLog) callDelta(id, delta string) {
	l.init()
	if b := l.inputs[id]; b != nil {
		b.WriteString(delta)
	}
}

// callEnd returns the call's name and whole input.
func (l *toolLog) callEnd(id string) (name, input string) {
	l.init()
	name = l.names[id]
	if b := l.inputs[id]; b != nil {
		input = b.String()
		delete(l.inputs, id)
	}
	l.shown[id] = true
	l.calling = ""
	return name, input
}

func (l *toolLog) resultStart(id, name string) {
	l.init()
	if name == "" {
		name = l.names[id]
	}
	l.open[id] = &toolResult{name: name}
	l.running = name
}

func (l *toolLog) resultText(id, delta string) {
	l.init()
	if r := l.open[id]; r != nil {
		r.text.WriteString(delta)
	}
}

func (l *toolLog) resultData(id, mediaType string) {
	l.init()
	if r := l.open[id]; r != nil {
		r.data = append(r.data, mediaType)
	}
}

func (l *toolLog) resultEnd(id string, state block.ToolResultState) *toolResult {
	l.init()
	r := l.open[id]
	if r == nil {
		r = &toolResult{name: l.names[id]}
	}
	delete(l.open, id)
	r.state = state
	l.done = append(l.done, r)
	l.running = ""
	for _, o := range l.open {
		l.running = o.name
	}
	return r
}

// waitingFor says what a silent stream waits for.
func (l *toolLog) waitingFor() string {
	switch {
	case l.calling != "":
		return "writing the " + l.calling + " call"
	case l.running != "":
		return "running " + l.running
	}
	return "thinking"
}

// mdStream shows a text block on a colour terminal: the text as it
// streams, and each paragraph (a run of blocks ended by a blank line
// outside a code fence) rendered as Markdown once complete, in place of
// its raw text. Where the raw text cannot be taken back (it left the
// screen, or something else was written below it) it stays as it is.
type mdStream struct {
	active  bool
	pending string // the raw text shown since the last render
	rows    int    // rows below the first the raw text took
	col     int
	scanned int  // how much of pending was scanned for complete lines
	fence   bool // inside a code fence at scanned
	fenceBy string
	cutOff  bool // the raw text can no longer be rewritten
}

func (m *mdStream) start(r *renderer) {
	*m = mdStream{active: r.color, cutOff: r.noRewrite}
}

// cut marks the raw text as final: something was written after it.
func (m *mdStream) cut() {
	if m.active {
		m.cutOff = true
	}
}

func (m *mdStream) delta(r *renderer, d string) {
	if !m.active {
		m.start(r)
		m.active = true
	}
	d = sanitize(d, true)
	r.write(d)
	m.pending += d
	m.advance(r, d)
	for {
		end := m.boundary()
		if end < 0 {
			return
		}
		chunk, rest := m.pending[:end], m.pending[end:]
		m.rewrite(r, chunk, rest)
	}
}

// advance tracks where the cursor is after s was written.
func (m *mdStream) advance(r *renderer, s string) {
	cols := r.cols()
	for _, c := range s {
		switch c {
		case '\n':
			m.rows++
			m.col = 0
		case '\r':
			m.col = 0
		case '\t':
			m.col = (m.col/8 + 1) * 8
			if cols > 0 && m.col >= cols {
				m.col = cols
			}
		default:
			w := runeWidth(c)
			if cols > 0 && m.col+w > cols {
				m.rows++
				m.col = 0
			}
			m.col += w
		}
	}
}

// boundary is the end of the first complete paragraph in pending (after
// its blank line), or -1.
func (m *mdStream) boundary() int {
	for {
		nl := strings.IndexByte(m.pending[m.scanned:], '\n')
		if nl < 0 {
			return -1
		}
		lineStart := m.scanned
		line := m.pending[lineStart : lineStart+nl]
		m.scanned = lineStart + nl + 1
		t := strings.TrimSpace(line)
		if marker := fenceMarker(t); marker != "" && (!m.fence || strings.HasPrefix(t, m.fenceBy)) {
			if m.fence && strings.Trim(t, m.fenceBy[:1]) == "" {
				m.fence = false
			} else if !m.fence {
				m.fence, m.fenceBy = true, marker
			}
			continue
		}
		if t == "" && !m.fence && strings.TrimSpace(m.pending[:lineStart]) != "" {
			return m.scanned
		}
	}
}

func fenceMarker(t string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			return f
		}
	}
	return ""
}

// rewrite replaces the raw chunk (and rest, shown after it) on the screen
// with the chunk rendered and rest raw again.
func (m *mdStream) rewrite(r *renderer, chunk, rest string) {
	rendered := renderMarkdown(chunk, r.cols())
	raw := strings.TrimRight(chunk, "\n") + "\n"
	_, screenRows := r.width()
	canErase := !m.cutOff && (screenRows == 0 || m.rows < screenRows-1)
	if rendered != raw && canErase {
		r.unspin()
		up := ""
		if m.rows > 0 {
			up = fmt.Sprintf("\x1b[%dA", m.rows)
		}
		io.WriteString(r.w, "\r"+up+"\x1b[J")
		r.midLine = false
		if strings.HasSuffix(chunk, "\n\n") {
			rendered += "\n"
		}
		r.write(rendered + rest)
	}
	// Either way only rest is still raw, from a line's start.
	fence, fenceBy := m.fence, m.fenceBy
	scannedRest := m.scanned - len(chunk)
	*m = mdStream{active: true, pending: rest, fence: fence, fenceBy: fenceBy, scanned: max(scannedRest, 0), cutOff: m.cutOff || r.noRewrite}
	m.advance(r, rest)
}

// end renders what is left of the block.
func (m *mdStream) end(r *renderer) {
	if !m.active {
		return
	}
	if strings.TrimSpace(m.pending) != "" {
		m.rewrite(r, m.pending, "")
	}
	m.active = false
}

// stripHints takes the runtime's <system-reminder> hints out of s: the
// text without them, and their contents.
func stripHints(s string) (string, []string) {
	const open, closing = "<system-reminder>", "</system-reminder>"
	if !strings.Contains(s, open) {
		return s, nil
	}
	var b strings.Builder
	var hints []string
	for {
		i := strings.Index(s, open)
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i+len(open):]
		j := strings.Index(s, closing)
		if j < 0 {
			hints = append(hints, s)
			break
		}
		hints = append(hints, s[:j])
		s = s[j+len(closing):]
	}
	return b.String(), hints
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// sanitize makes text safe to write to a terminal: control characters
// other than newline and tab (an escape sequence a model or a tool wrote
// could move the cursor or retitle the window) are shown as ^X. Off a
// terminal the text is left as it is.
func sanitize(s string, tty bool) string {
	if !tty {
		return s
	}
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '\n' || c == '\t':
			b.WriteRune(c)
		case c < 0x20:
			b.WriteByte('^')
			b.WriteRune(c + '@')
		case c == 0x7f:
			b.WriteString("^?")
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// truncateWidth cuts s to at most w visible columns.
func truncateWidth(s string, w int) string {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			i += escapeLen(s[i:])
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if n+runeWidth(c) > w {
			return s[:i]
		}
		n += runeWidth(c)
		i += size
	}
	return s
}

// showHints writes, with -v, the hints a text block carried, dimmed.
func (r *renderer) showHints() {
	if r.verbose {
		for _, h := range r.hints.hints {
			for _, l := range strings.Split(strings.TrimSpace(h), "\n") {
				r.write(r.style(ansiDim, "│ "+sanitize(l, r.tty), ansiReset) + "\n")
			}
		}
	}
	r.hints.hints = nil
}

// hintFilter takes the runtime's <system-reminder> hints out of a text
// as it streams (a model may quote one): what could be the start of a
// tag waits for the next delta.
type hintFilter struct {
	held  string // text not yet known to be outside a hint
	in    bool   // inside a hint
	hint  strings.Builder
	hints []string
}

const (
	hintOpen  = "<system-reminder>"
	hintClose = "</system-reminder>"
)

// filter returns what of d (and what was held) is shown now.
func (f *hintFilter) filter(d string) string {
	s := f.held + d
	f.held = ""
	var out strings.Builder
	for s != "" {
		if f.in {
			if i := strings.Index(s, hintClose); i >= 0 {
				f.hint.WriteString(s[:i])
				f.hints = append(f.hints, f.hint.String())
				f.hint.Reset()
				f.in = false
				s = s[i+len(hintClose):]
				continue
			}
			k := partialSuffix(s, hintClose)
			f.hint.WriteString(s[:len(s)-k])
			f.held = s[len(s)-k:]
			break
		}
		if i := strings.Index(s, hintOpen); i >= 0 {
			out.WriteString(s[:i])
			f.in = true
			s = s[i+len(hintOpen):]
			continue
		}
		k := partialSuffix(s, hintOpen)
		out.WriteString(s[:len(s)-k])
		f.held = s[len(s)-k:]
		break
	}
	return out.String()
}

// flush returns what is held at the block's end; an unclosed hint stays
// hidden.
func (f *hintFilter) flush() string {
	held := f.held
	f.held = ""
	if f.in {
		f.hint.WriteString(held)
		f.hints = append(f.hints, f.hint.String())
		f.hint.Reset()
		f.in = false
		return ""
	}
	return held
}

// partialSuffix is the length of the longest suffix of s that is a proper
// prefix of tag.
func partialSuffix(s, tag string) int {
	for k := min(len(s), len(tag)-1); k > 0; k-- {
		if strings.HasSuffix(s, tag[:k]) {
			return k
		}
	}
	return 0
}
