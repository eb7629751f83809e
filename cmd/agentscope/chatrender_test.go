package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
)

func TestRenderMarkdown(t *testing.T) {
	got := renderMarkdown("# Title\n\nSome **bold**, *it*, `code` and [a link](http://x.example).\n\n- one\n- two\n  1. nested\n\n```go\nx := 1\n```\n\n> quoted\n", 0)
	for _, want := range []string{
		sgrBold + sgrUnder + sgrMagenta + "Title",
		sgrBold + "bold" + sgrBoldOff, sgrItalic + "it" + sgrItalicOff, sgrCyan + "code" + sgrFgOff,
		sgrUnder + sgrBlue + "a link", "(http://x.example)",
		sgrYellow + "• " + sgrFgOff + "one", "  " + sgrYellow + "1. " + sgrFgOff + "nested",
		"  " + ansiDim + "go" + ansiReset, "  " + sgrCyan + "x := 1" + sgrFgOff,
		ansiDim + "│ " + ansiReset + "quoted",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%q", want, got)
		}
	}
	if strings.Contains(got, "**") || strings.Contains(got, "```") {
		t.Errorf("Markdown syntax left in\n%q", got)
	}
	// Wrapped to the width, the escapes taking no room.
	for _, l := range strings.Split(renderMarkdown("**word** "+strings.Repeat("abc ", 30), 20), "\n") {
		if w := visibleWidth(l); w > 20 {
			t.Errorf("line %q is %d columns wide", l, w)
		}
	}
}

// A text block on a colour terminal streams raw, and each paragraph is
// rendered in place once complete: the cursor goes back up over the raw
// rows and the rendered text replaces them.
func TestRendererRerendersParagraphs(t *testing.T) {
	var b bytes.Buffer
	r := newRenderer(&b, true)
	r.tty = true
	r.width = func() (int, int) { return 40, 24 }
	r.event(&event.TextBlockStart{BlockID: "x"})
	for _, d := range []string{"# Tit", "le\n", "\nplain ", "words", " and **bo", "ld**"} {
		r.event(&event.TextBlockDelta{BlockID: "x", Delta: d})
	}
	r.event(&event.TextBlockEnd{BlockID: "x"})
	out := b.String()
	want := "# Title\n\nplain " + "\r\x1b[2A\x1b[J" + sgrBold + sgrUnder + sgrMagenta + "Title"
	if !strings.HasPrefix(out, want) {
		t.Fatalf("the heading is not rendered in place:\n%q", out)
	}
	if !strings.HasSuffix(out, "\r\x1b[J"+"plain words and "+sgrBold+"bold"+sgrBoldOff+"\n") {
		t.Fatalf("the last paragraph is not rendered in place:\n%q", out)
	}
	// A plain paragraph that renders as it streamed is left alone.
	b.Reset()
	r.event(&event.TextBlockStart{BlockID: "y"})
	r.event(&event.TextBlockDelta{BlockID: "y", Delta: "just words"})
	r.event(&event.TextBlockEnd{BlockID: "y"})
	if b.String() != "just words\n" {
		t.Errorf("plain text rewritten: %q", b.String())
	}
}

func TestRendererHidesHintsAndSummarisesResults(t *testing.T) {
	var b bytes.Buffer
	r := newRenderer(&b, false)
	r.event(&event.TextBlockStart{BlockID: "x"})
	for _, d := range []string{"before <system-", "reminder>secret", " hint</system-remi", "nder> after"} {
		r.event(&event.TextBlockDelta{BlockID: "x", Delta: d})
	}
	r.event(&event.TextBlockEnd{BlockID: "x"})
	r.event(&event.ToolCallStart{ToolCallID: "c", ToolCallName: "bash"})
	r.event(&event.ToolCallDelta{ToolCallID: "c", Delta: `{"command":"ls"}`})
	r.event(&event.ToolCallEnd{ToolCallID: "c"})
	r.event(&event.ToolResultStart{ToolCallID: "c", ToolCallName: "bash"})
	r.event(&event.ToolResultTextDelta{ToolCallID: "c", Delta: "a\nb\nc\nd\ne\n<system-reminder>x\n```python\nimport json\n```</system-reminder>"})
	r.event(&event.ToolResultEnd{ToolCallID: "c", State: block.ResultSuccess})
	want := "before  after\n→ bash {\"command\":\"ls\"}\n← bash: a\n  b\n  c\n  … 2 more line(s): /expand shows them\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	// A result that is all hint: its first line, not the code it quotes.
	b.Reset()
	r.event(&event.ToolCallStart{ToolCallID: "d", ToolCallName: "calc"})
	r.event(&event.ToolCallEnd{ToolCallID: "d"})
	r.event(&event.ToolResultStart{ToolCallID: "d", ToolCallName: "calc"})
	r.event(&event.ToolResultTextDelta{ToolCallID: "d", Delta: "<system-reminder>Error: bad arguments\n\n```python\nimport json\n```</system-reminder>"})
	r.event(&event.ToolResultEnd{ToolCallID: "d", State: block.ResultError})
	if want := "→ calc \n← calc: Error: bad arguments [error]\n"; b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	// /expand shows the reply's results whole.
	b.Reset()
	r.expand()
	if !strings.Contains(b.String(), "  e\n") || !strings.Contains(b.String(), "import json") {
		t.Errorf("/expand: %q", b.String())
	}
}

func TestHistoryFile(t *testing.T) {
	path := t.TempDir() + "/agentscope/history-me"
	h := loadHistory(path)
	h.add("one")
	h.add("two\nlines")
	h.add("two\nlines") // the same again: once
	again := loadHistory(path)
	if again.Len() != 2 || again.At(0) != "two ↵ lines" || again.At(1) != "one" {
		t.Fatalf("history %q", again.entries)
	}
	if fromHistoryLine(again.At(0)) != "two\nlines" {
		t.Errorf("a recalled prompt's lines: %q", fromHistoryLine(again.At(0)))
	}
	t.Setenv("AGENTSCOPE_HISTORY", "off")
	if historyPath("me") != "" {
		t.Error("AGENTSCOPE_HISTORY=off keeps a file")
	}
	t.Setenv("AGENTSCOPE_HISTORY", "")
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	if p := historyPath("a/b"); p != "/cfg/agentscope/history-a_b" {
		t.Errorf("history path %q", p)
	}
}
