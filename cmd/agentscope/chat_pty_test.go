package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/event"
)

// Keys as a terminal sends them.
const (
	keyLeft  = "\x1b[D"
	keyUp    = "\x1b[A"
	keyEnter = "\r"
	keyEOF   = "\x04" // Ctrl+D
)

// sgr matches an ANSI style (Select Graphic Rendition) sequence.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// TestChatLineEditorInPseudoTerminal types at the chat in a real
// pseudo-terminal as a person does: a line with a typo mended with the
// Left arrow, Up to send the last prompt again, a prompt on two lines,
// Markdown in the answer rendered with ANSI styles, a confirmation's
// edit refused (against the tool's schema) and asked again, a denial
// whose hint for the model stays hidden; then a second chat recalls the
// last prompt from the history file with Up.
func TestChatLineEditorInPseudoTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "editor.db")
	config := filepath.Join(dir, "config")
	c := startPTYChat(t, bin, "--db "+db+" --user tester", "XDG_CONFIG_HOME="+config)
	c.nextPrompt()
	sid := anySessionLine.FindStringSubmatch(c.out.String())[1]

	// "hllo there", nine Lefts to the h, the missing e: "hello there".
	c.send("hllo there" + strings.Repeat(keyLeft, 9) + "e" + keyEnter)
	waitFor(t, c.out, `You said: "hello there".`)
	c.nextPrompt()
	// Up recalls it; Enter sends it again.
	c.send(keyUp + keyEnter)
	waitForN(t, c.out, `You said: "hello there".`, 2)
	c.nextPrompt()

	// A trailing backslash goes on on the next line.
	c.send(`line one\` + keyEnter + "line two" + keyEnter)
	waitFor(t, c.out, `You said: "line one\nline two".`)
	c.nextPrompt()

	// The demo model says back what it was told, Markdown included.
	c.send("say **loud** and `code`" + keyEnter)
	waitFor(t, c.out, "\x1b[1mloud\x1b[22m")
	waitFor(t, c.out, "\x1b[36mcode\x1b[39m")
	c.nextPrompt()

	// An edit the tool's schema refuses is asked again, with the reason.
	c.send("save a note: original" + keyEnter)
	waitFor(t, c.out, "needs your permission")
	c.send("e" + keyEnter)
	waitFor(t, c.out, "new input (JSON")
	c.send(`{"txt":"typo"}` + keyEnter)
	waitFor(t, c.out, "'text' is a required property; try again")
	waitForN(t, c.out, "new input (JSON", 2)
	c.send(`{"text":"edited"}` + keyEnter)
	waitFor(t, c.out, `The save_note tool says: saved the note "edited"`)
	c.nextPrompt()

	// A denial: the tool result's text is a <system-reminder> for the
	// model, which the chat does not show.
	c.send("save a note: never" + keyEnter)
	waitForN(t, c.out, "needs your permission", 2)
	c.send("n" + keyEnter)
	waitFor(t, c.out, "did not give me an answer (denied)")
	c.nextPrompt()
	c.send("what time is it" + keyEnter)
	waitFor(t, c.out, "The get_time tool says:")
	c.nextPrompt() // Ctrl+D typed during a reply is lost: the terminal is not the editor's then
	c.eof()

	out := c.out.String()
	for _, bad := range []string{"system-reminder", "^[[", `saved the note "original"`, `saved the note "typo"`} {
		if strings.Contains(out, bad) {
			t.Errorf("the transcript shows %q:\n%s", bad, out)
		}
	}
	var users []string
	for _, m := range storedTranscript(t, db, "tester", sid) {
		if m.Role == event.RoleUser {
			text, _ := m.TextContent(" ")
			users = append(users, text)
		}
	}
	want := []string{"hello there", "hello there", "line one\nline two", "say **loud** and `code`", "save a note: original", "save a note: never", "what time is it"}
	if strings.Join(users, "|") != strings.Join(want, "|") {
		t.Errorf("the prompts sent: %q, want %q", users, want)
	}

	// The history is the user's, in a file: a new chat recalls it.
	hist, err := os.ReadFile(filepath.Join(config, "agentscope", "history-tester"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(hist), `"line one\nline two"`) || strings.Contains(string(hist), `"y"`) {
		t.Errorf("history file:\n%s", hist)
	}
	again := startPTYChat(t, bin, "--db "+db+" --user tester", "XDG_CONFIG_HOME="+config)
	again.nextPrompt()
	again.send(keyUp + keyEnter)
	waitFor(t, again.out, "The get_time tool says:")
	again.nextPrompt()
	again.eof()
}

// With NO_COLOR the terminal gets no styles and no rendered Markdown
// (the line editor still works), and a chat on pipes writes plain text:
// no escape sequence at all, no hint.
func TestChatPlainWithNoColorAndOffATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "plain.db")
	c := startPTYChat(t, bin, "--db "+db+" --user tester", "NO_COLOR=1")
	c.nextPrompt()
	c.send("say **loud**" + keyEnter)
	waitFor(t, c.out, `You said: "say **loud**".`)
	c.nextPrompt()
	c.send("save a note: no" + keyEnter)
	waitFor(t, c.out, "needs your permission")
	c.send("n" + keyEnter)
	waitFor(t, c.out, "[denied]")
	waitFor(t, c.out, "did not give me an answer (denied)")
	c.nextPrompt()
	c.eof()
	if m := sgr.FindString(c.out.String()); m != "" {
		t.Errorf("NO_COLOR: a style %q in\n%q", m, c.out.String())
	}
	if strings.Contains(c.out.String(), "system-reminder") {
		t.Errorf("NO_COLOR: a hint shown:\n%s", c.out.String())
	}

	s := startAPIServer(t)
	_, out, _ := runChatCmd(t, s, "say **loud**\nsave a note: no\nn\n")
	if strings.Contains(out, "\x1b") {
		t.Errorf("off a terminal: an escape sequence in\n%q", out)
	}
	for _, want := range []string{`You said: "say **loud**".`, `→ save_note {"text":"no"}`, "← save_note: [denied]"} {
		if !strings.Contains(out, want) {
			t.Errorf("off a terminal: no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "system-reminder") {
		t.Errorf("off a terminal: a hint shown:\n%s", out)
	}
}

// eof types Ctrl+D on an empty line, which ends the chat (exit 0).
func (c *ptyChat) eof() {
	c.t.Helper()
	c.send(keyEOF)
	select {
	case err := <-c.done:
		c.done <- err // for the cleanup
		if err != nil {
			c.t.Fatalf("chat at Ctrl+D: %v\n%s", err, c.out.String())
		}
	case <-time.After(20 * time.Second):
		c.t.Fatalf("chat did not end at Ctrl+D:\n%s", c.out.String())
	}
}

// prompts counts the editor's main prompts in s: the first, after the
// bracketed-paste switch, and each at a line's start.
func prompts(s string) int {
	return strings.Count(s, "\x1b[?2004h> ") + strings.Count(s, "\r\n> ")
}

// nextPrompt waits for the next main prompt: the editor reads, so what
// is typed now is the editor's (typed earlier, during a reply, it is the
// terminal's: echoed as it is, Ctrl+C a signal, Ctrl+D lost).
func (c *ptyChat) nextPrompt() {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for prompts(c.out.String()) <= c.prompts {
		if time.Now().After(deadline) {
			c.t.Fatalf("no prompt %d in the output:\n%s", c.prompts+1, c.out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.prompts++
}
