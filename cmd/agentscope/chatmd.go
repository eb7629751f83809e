package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"golang.org/x/text/width"
)

// The chat renders a reply's Markdown for the terminal itself: goldmark
// (CommonMark and GFM's tables, strikethrough and task lists; no
// dependencies of its own) parses it, and this file writes the tree as
// ANSI-styled lines wrapped to the terminal's width. A terminal renderer
// such as glamour brings some thirty modules (a syntax highlighter, an
// HTML sanitizer, a style system) for what is here a few hundred lines.

// SGR attributes, each with its own off switch so that styles nest.
const (
	sgrBold      = "\x1b[1m"
	sgrBoldOff   = "\x1b[22m"
	sgrItalic    = "\x1b[3m"
	sgrItalicOff = "\x1b[23m"
	sgrUnder     = "\x1b[4m"
	sgrUnderOff  = "\x1b[24m"
	sgrStrike    = "\x1b[9m"
	sgrStrikeOff = "\x1b[29m"
	sgrFgOff     = "\x1b[39m"
	sgrRed       = "\x1b[31m"
	sgrGreen     = "\x1b[32m"
	sgrYellow    = "\x1b[33m"
	sgrBlue      = "\x1b[34m"
	sgrMagenta   = "\x1b[35m"
	sgrCyan      = "\x1b[36m"
)

// markdown is built on the first reply rendered: every command of the one
// binary links the chat, and serve should not build its parser.
var markdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList))
})

// renderMarkdown renders src as styled terminal lines wrapped to width
// columns (0: no wrapping). The result ends with one newline, blocks are
// separated by a blank line.
func renderMarkdown(src string, width int) string {
	source := []byte(src)
	doc := markdown().Parser().Parse(text.NewReader(source))
	m := &mdWriter{src: source, width: width}
	var out []string
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if lines := m.block(n, max(width, 0)); len(lines) > 0 {
			if len(out) > 0 {
				out = append(out, "")
			}
			out = append(out, lines...)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

type mdWriter struct {
	src   []byte
	width int
}

// block renders one block node as lines of at most width columns (0: any).
func (m *mdWriter) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Heading:
		style, off := sgrBold, sgrBoldOff
		switch n.Level {
		case 1:
			style, off = sgrBold+sgrUnder+sgrMagenta, sgrFgOff+sgrUnderOff+sgrBoldOff
		case 2:
			style, off = sgrBold+sgrMagenta, sgrFgOff+sgrBoldOff
		}
		return wrapStyled(style+m.inlines(n)+off, width)
	case *ast.Paragraph, *ast.TextBlock:
		return wrapStyled(m.inlines(n), width)
	case *ast.ThematicBreak:
		w := 40
		if width > 0 {
			w = min(w, width)
		}
		return []string{ansiDim + strings.Repeat("─", w) + ansiReset}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var lines []string
		if fc, ok := n.(*ast.FencedCodeBlock); ok {
			if lang := fc.Language(m.src); len(lang) > 0 {
				lines = append(lines, "  "+ansiDim+string(lang)+ansiReset)
			}
		}
		for _, l := range m.rawLines(n) {
			lines = append(lines, "  "+sgrCyan+expandTabs(l)+sgrFgOff)
		}
		return lines
	case *ast.HTMLBlock:
		var lines []string
		for _, l := range m.rawLines(n) {
			lines = append(lines, ansiDim+l+ansiReset)
		}
		if n.HasClosure() {
			seg := n.ClosureLine
			lines = append(lines, ansiDim+strings.TrimRight(string(seg.Value(m.src)), "\r\n")+ansiReset)
		}
		return lines
	case *ast.Blockquote:
		return prefixLines(m.children(n, width-2), ansiDim+"│ "+ansiReset, ansiDim+"│ "+ansiReset)
	case *ast.List:
		return m.list(n, width)
	case *east.Table:
		return m.table(n)
	default:
		if n.HasChildren() {
			return m.children(n, width)
		}
		return nil
	}
}

// children renders a container's blocks, a blank line between two of them.
func (m *mdWriter) children(n ast.Node, width int) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		lines := m.block(c, width)
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 {
			if l, ok := n.(*ast.ListItem); !ok || !tightItem(l) {
				out = append(out, "")
			}
		}
		out = append(out, lines...)
	}
	return out
}

func tightItem(l *ast.ListItem) bool {
	list, ok := l.Parent().(*ast.List)
	return ok && list.IsTight
}

func (m *mdWriter) list(n *ast.List, width int) []string {
	var out []string
	num := n.Start
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "• "
		if n.IsOrdered() {
			marker = fmt.Sprintf("%d. ", num)
			num++
		}
		indent := strings.Repeat(" ", utf8.RuneCountInString(marker))
		lines := m.children(item, width-len(indent))
		if len(lines) == 0 {
			lines = []string{""}
		}
		if !n.IsTight && len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, prefixLines(lines, sgrYellow+marker+sgrFgOff, indent)...)
	}
	return out
}

func (m *mdWriter) table(n *east.Table) []string {
	var rows [][]string
	for r := n.FirstChild(); r != nil; r = r.NextSibling() {
		var row []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cell := m.inlines(c)
			if _, head := r.(*east.TableHeader); head {
				cell = sgrBold + cell + sgrBoldOff
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], visibleWidth(c))
		}
	}
	sep := ansiDim + " │ " + ansiReset
	var out []string
	for ri, row := range rows {
		var b strings.Builder
		for i, c := range row {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(c)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-visibleWidth(c)))
			}
		}
		out = append(out, b.String())
		if ri == 0 {
			var rule []string
			for _, w := range widths {
				rule = append(rule, strings.Repeat("─", w))
			}
			out = append(out, ansiDim+strings.Join(rule, "─┼─")+ansiReset)
		}
	}
	return out
}

// rawLines is a code or HTML block's text, line by line.
func (m *mdWriter) rawLines(n ast.Node) []string {
	var out []string
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		out = append(out, strings.TrimRight(string(seg.Value(m.src)), "\r\n"))
	}
	return out
}

// inlines renders a block's inline content as one styled string; soft
// line breaks become spaces, hard ones newlines.
func (m *mdWriter) inlines(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		m.inline(&b, c)
	}
	return b.String()
}

func (m *mdWriter) inline(b *strings.Builder, n ast.Node) {
	switch n := n.(type) {
	case *ast.Text:
		b.Write(n.Value(m.src))
		switch {
		case n.HardLineBreak():
			b.WriteString("\n")
		case n.SoftLineBreak():
			b.WriteString(" ")
		}
	case *ast.String:
		b.Write(n.Value)
	case *ast.CodeSpan:
		b.WriteString(sgrCyan)
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				b.Write(t.Value(m.src))
			} else if s, ok := c.(*ast.String); ok {
				b.Write(s.Value)
			}
		}
		b.WriteString(sgrFgOff)
	case *ast.Emphasis:
		on, off := sgrItalic, sgrItalicOff
		if n.Level >= 2 {
			on, off = sgrBold, sgrBoldOff
		}
		b.WriteString(on)
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			m.inline(b, c)
		}
		b.WriteString(off)
	case *east.Strikethrough:
		b.WriteString(sgrStrike)
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			m.inline(b, c)
		}
		b.WriteString(sgrStrikeOff)
	case *ast.Link:
		label := m.inlines(n)
		b.WriteString(sgrUnder + sgrBlue + label + sgrFgOff + sgrUnderOff)
		if dest := string(n.Destination); dest != "" && dest != label {
			b.WriteString(" " + ansiDim + "(" + dest + ")" + ansiReset)
		}
	case *ast.AutoLink:
		b.WriteString(sgrUnder + sgrBlue + string(n.URL(m.src)) + sgrFgOff + sgrUnderOff)
	case *ast.Image:
		fmt.Fprintf(b, "%s[image: %s]%s", ansiDim, m.inlines(n), ansiReset)
		if len(n.Destination) > 0 {
			b.WriteString(" " + ansiDim + "(" + string(n.Destination) + ")" + ansiReset)
		}
	case *ast.RawHTML:
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b.Write(seg.Value(m.src))
		}
	case *east.TaskCheckBox:
		if n.IsChecked {
			b.WriteString(sgrGreen + "☑" + sgrFgOff + " ")
		} else {
			b.WriteString("☐ ")
		}
	default:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			m.inline(b, c)
		}
	}
}

// prefixLines puts first before the first line and rest before the others.
func prefixLines(lines []string, first, rest string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		p := rest
		if i == 0 {
			p = first
		}
		if l == "" {
			out[i] = strings.TrimRight(p, " ")
			continue
		}
		out[i] = p + l
	}
	return out
}

// wrapStyled breaks s at spaces into lines of at most width visible
// columns (0 or less: at its newlines only); escape sequences take no
// room, and a word longer than the width gets a line of its own.
func wrapStyled(s string, width int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		if width <= 0 {
			out = append(out, para)
			continue
		}
		var line strings.Builder
		w := 0
		for _, word := range strings.Split(para, " ") {
			ww := visibleWidth(word)
			switch {
			case w == 0 && line.Len() == 0:
			case w+1+ww > width && w > 0:
				out = append(out, line.String())
				line.Reset()
				w = 0
			default:
				line.WriteByte(' ')
				w++
			}
			line.WriteString(word)
			w += ww
		}
		out = append(out, line.String())
	}
	return out
}

// visibleWidth is how many columns s takes: escape sequences none, wide
// (East Asian) runes two.
func visibleWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			i += escapeLen(s[i:])
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		n += runeWidth(r)
		i += size
	}
	return n
}

// escapeLen is the length of the escape sequence at the start of s: a
// CSI sequence (ESC [ … final byte) or ESC and one byte.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	if s[1] != '[' {
		return 2
	}
	for j := 2; j < len(s); j++ {
		if s[j] >= 0x40 && s[j] <= 0x7e {
			return j + 1
		}
	}
	return len(s)
}

func runeWidth(r rune) int {
	switch {
	case r < 0x20 || r == 0x7f:
		return 0
	case r < 0x300:
		return 1
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b bytes.Buffer
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}
