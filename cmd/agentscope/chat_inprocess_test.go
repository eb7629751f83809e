package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/sqlite"
)

var anySessionLine = regexp.MustCompile(`session ([0-9a-f]+) \(agent ([^)]+)\)`)

// storedTranscript reads a session's transcript from the SQLite file a
// chat in-process left.
func storedTranscript(t *testing.T, db, user, sid string) []*message.Msg {
	t.Helper()
	st, err := sqlite.Open(context.Background(), sqlite.Config{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	page, err := st.ListMessages(context.Background(), session.Key{UserID: user, SessionID: sid}, session.MessageQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []*message.Msg
	for _, m := range page.Messages {
		var msg message.Msg
		if err := json.Unmarshal(m.JSON, &msg); err != nil {
			t.Fatal(err)
		}
		out = append(out, &msg)
	}
	return out
}

// Without --server the chat runs the server in-process on --db: a reply
// parks when stdin ends at its confirmation, and a second chat on the
// same file continues the session, shows its history, asks the
// confirmation again and completes the reply.
func TestChatInProcess(t *testing.T) {
	t.Setenv("AGENTSCOPE_SERVER", "")
	t.Setenv("AGENTSCOPE_MODEL", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the chat's owner lock
	db := filepath.Join(t.TempDir(), "chat.db")
	var out, errb syncBuffer
	code := run(context.Background(), []string{"chat", "--db", db, "--user", "tester"}, strings.NewReader("save a note: in process\n"), &out, &errb)
	if code != exitOK {
		t.Fatalf("first chat: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	m := anySessionLine.FindStringSubmatch(errb.String())
	if m == nil || m[2] != "demo" {
		t.Fatalf("no session of the demo agent in %q", errb.String())
	}
	sid := m[1]
	if !strings.Contains(out.String(), "needs your permission") || !strings.Contains(errb.String(), "the reply stays parked") {
		t.Fatalf("first chat did not park:\n%s\n%s", out.String(), errb.String())
	}

	var out2, errb2 syncBuffer
	code = run(context.Background(), []string{"chat", "--db", db, "--user", "tester", "--session", sid}, strings.NewReader("y\n"), &out2, &errb2)
	if code != exitOK {
		t.Fatalf("second chat: exit %d\n%s\n%s", code, out2.String(), errb2.String())
	}
	for _, want := range []string{"save a note: in process", "(the session is awaiting permission)", `saved the note "in process"`} {
		if !strings.Contains(out2.String()+errb2.String(), want) {
			t.Errorf("second chat: no %q in\n%s\n%s", want, out2.String(), errb2.String())
		}
	}
	msgs := storedTranscript(t, db, "tester", sid)
	if len(msgs) != 2 || msgs[0].Role != event.RoleUser || msgs[1].FinishedReason != event.ReplyCompleted {
		t.Fatalf("stored transcript: %d messages", len(msgs))
	}
	if text, _ := msgs[1].TextContent(" "); !strings.Contains(text, `saved the note "in process"`) {
		t.Fatalf("stored reply %q", text)
	}

	// The in-process flags are refused with --server.
	code, _, stderr := runIn(t, "", "chat", "--server", "http://127.0.0.1:1", "--db", db)
	if code != exitUsage || !strings.Contains(stderr, "--db: only for a chat in-process") {
		t.Fatalf("--server with --db: exit %d, %s", code, stderr)
	}
}

// ptyChat is one `agentscope chat` in a pseudo-terminal (util-linux
// script).
type ptyChat struct {
	t    *testing.T
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *syncBuffer
	done chan error
	// prompts is how many main prompts of the editor a test has waited
	// for (nextPrompt).
	prompts int
}

// startPTYChat runs the chat with args in a pseudo-terminal; env adds
// to (or overrides) its environment. The prompt history goes to a
// folder of the test's own unless env names one (XDG_CONFIG_HOME).
func startPTYChat(t *testing.T, bin string, args string, env ...string) *ptyChat {
	t.Helper()
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Fatalf("script(1), which makes the pseudo-terminal, is missing (Debian's bsdutils): %v", err)
	}
	cmd := exec.Command(scriptBin, "-qfec", bin+" chat "+args, "/dev/null")
	cmd.Env = append(cmd.Environ(), "AGENTSCOPE_SERVER=", "AGENTSCOPE_MODEL=", "AGENTSCOPE_HISTORY=", "XDG_CACHE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=", "COLUMNS=")
	cmd.Env = append(cmd.Env, env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &ptyChat{t: t, cmd: cmd, in: in, out: new(syncBuffer), done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = c.out, c.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-c.done
	})
	return c
}

func (c *ptyChat) send(s string) { io.WriteString(c.in, s) }

// quit types Ctrl+C twice, which quits the chat (exit 130).
func (c *ptyChat) quit() {
	c.t.Helper()
	c.send("\x03")
	waitFor(c.t, c.out, "(Ctrl+C again to quit)")
	c.send("\x03")
	select {
	case err := <-c.done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
			c.t.Fatalf("chat quit with %v, want exit %d\n%s", err, exitInterrupted, c.out.String())
		}
		c.done <- err // for the cleanup
	case <-time.After(20 * time.Second):
		c.t.Fatalf("chat did not quit on a second Ctrl+C:\n%s", c.out.String())
	}
}

// In a pseudo-terminal, in-process: a confirmation answered n (the tool
// does not run, the model hears it was denied); a reply left parked when
// the chat quits; and a second chat process with --session that shows the
// history, asks the parked confirmation again, and completes the reply
// when it is answered y.
func TestChatInPseudoTerminalDenyAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "pty.db")
	first := startPTYChat(t, bin, "--db "+db+" --user tester")
	waitFor(t, first.out, "continue it with --session")
	m := anySessionLine.FindStringSubmatch(first.out.String())
	if m == nil {
		t.Fatalf("no session line in %q", first.out.String())
	}
	sid := m[1]
	first.send("save a note: denied\n")
	waitFor(t, first.out, "needs your permission")
	first.send("n\n")
	waitFor(t, first.out, "[denied]")
	waitFor(t, first.out, "That is all I can tell from it.")
	if strings.Contains(first.out.String(), `saved the note "denied"`) {
		t.Fatalf("the denied tool ran:\n%s", first.out.String())
	}
	first.send("save a note: parked\n")
	waitForN(t, first.out, "needs your permission", 2)
	first.quit()

	second := startPTYChat(t, bin, "--db "+db+" --user tester --session "+sid)
	waitFor(t, second.out, "(the session is awaiting permission)")
	for _, want := range []string{"save a note: denied", "[denied]", "save a note: parked"} {
		if !strings.Contains(second.out.String(), want) {
			t.Errorf("the resumed chat does not show %q of the history:\n%s", want, second.out.String())
		}
	}
	waitFor(t, second.out, "needs your permission")
	second.send("y\n")
	// The reply's end: its last words, then the next prompt.
	waitFor(t, second.out, `The save_note tool says: saved the note "parked". That is all I can tell from it.`+"\r\n> ")
	second.quit()

	msgs := storedTranscript(t, db, "tester", sid)
	if len(msgs) != 4 {
		t.Fatalf("stored transcript has %d messages, want 4", len(msgs))
	}
	for i, want := range []event.ReplyReason{"", event.ReplyCompleted, "", event.ReplyCompleted} {
		if msgs[i].FinishedReason != want {
			t.Errorf("message %d (%s) finished %q, want %q", i, msgs[i].Role, msgs[i].FinishedReason, want)
		}
	}
	if text, _ := msgs[1].TextContent(" "); !strings.Contains(text, "denied") {
		t.Errorf("the denied reply says %q", text)
	}
}

// A chat in-process killed with SIGKILL while a tool runs leaves the run
// leased; the next chat on the store takes the same lease owner (its lock
// slot is free again) and so closes the dead reply as it starts: the reply
// is interrupted with its call answered, and the next prompt is answered
// at once, not refused as running until the lease expires.
func TestChatInProcessSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and execs the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "crash.db")
	env := append(os.Environ(), "AGENTSCOPE_SERVER=", "AGENTSCOPE_MODEL=", "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "HOME="+dir)
	cmd := exec.Command(bin, "chat", "--db", db, "--user", "tester")
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := new(syncBuffer)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, out, "continue it with --session")
	sid := anySessionLine.FindStringSubmatch(out.String())[1]
	io.WriteString(in, "wait 30 seconds\n")
	waitFor(t, out, `→ wait {"seconds":30}`)
	time.Sleep(200 * time.Millisecond) // the tool runs
	cmd.Process.Kill()
	cmd.Wait()

	next := exec.Command(bin, "chat", "--db", db, "--user", "tester", "--session", sid)
	next.Env = env
	next.Stdin = strings.NewReader("calculate 2+3\n")
	got, err := next.CombinedOutput()
	if err != nil {
		t.Fatalf("the chat after the kill: %v\n%s", err, got)
	}
	if !strings.Contains(string(got), "The calculate tool says: 2+3 = 5") || strings.Contains(string(got), "409") {
		t.Fatalf("the chat after the kill did not answer at once:\n%s", got)
	}
	msgs := storedTranscript(t, db, "tester", sid)
	if len(msgs) != 4 || msgs[1].FinishedReason != event.ReplyInterrupted || msgs[3].FinishedReason != event.ReplyCompleted {
		t.Fatalf("stored transcript: %d messages", len(msgs))
	}
	var calls, interrupted int
	for _, b := range msgs[1].Content {
		switch b := b.(type) {
		case *block.ToolCall:
			calls++
		case *block.ToolResult:
			if b.State == block.ResultInterrupted {
				interrupted++
			}
		}
	}
	if calls != 1 || interrupted != 1 {
		t.Fatalf("the killed reply: %d calls, %d interrupted results", calls, interrupted)
	}
}

// Two live chats on one store never share a lease owner; a slot freed is
// taken again, with the same owner.
func TestChatOwnerSlots(t *testing.T) {
	dir := t.TempDir()
	a, releaseA, ok := lockOwner(dir, "h", "k")
	if !ok {
		t.Fatal("no slot")
	}
	b, releaseB, ok := lockOwner(dir, "h", "k")
	if !ok || b == a {
		t.Fatalf("second owner %q (ok %v), first %q", b, ok, a)
	}
	defer releaseB()
	releaseA()
	again, releaseAgain, ok := lockOwner(dir, "h", "k")
	if !ok || again != a {
		t.Fatalf("after a release: %q, want %q", again, a)
	}
	releaseAgain()
}
