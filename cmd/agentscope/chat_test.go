package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/session/sqlite"
)

// apiServer is the API of package server on SQLite in a temporary
// directory, serving the demo agent exactly as `agentscope serve` builds it.
type apiServer struct {
	t   *testing.T
	url string
}

func startAPIServer(t *testing.T) *apiServer { return startAPIServerWith(t, "", nil) }

// startAPIServerWith serves the API behind token (if not empty) and
// through wrap (if not nil).
func startAPIServerWith(t *testing.T, token string, wrap func(http.Handler) http.Handler) *apiServer {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, sqlite.Config{Path: filepath.Join(t.TempDir(), "chat.db")})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	spec, err := serveAgent("", "", "", "assistant", "demo", nil, logger)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: engine.Config{Store: store, Agents: []engine.Agent{spec}}, Token: token, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	if wrap != nil {
		h = wrap(srv)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close() // ends the SSE streams, which hs.Close would wait for
		hs.Close()
		store.Close()
	})
	return &apiServer{t: t, url: hs.URL}
}

// get decodes a GET of the API as user "tester".
func (s *apiServer) get(path string, out any) {
	s.t.Helper()
	req, _ := http.NewRequest("GET", s.url+path, nil)
	req.Header.Set("X-User-ID", "tester")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		s.t.Fatalf("GET %s: %d %s", path, res.StatusCode, b)
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		s.t.Fatal(err)
	}
}

func (s *apiServer) status(sid string) string {
	var st struct {
		Status string `json:"status"`
	}
	s.get("/sessions/"+sid+"/status?agent_id=demo", &st)
	return st.Status
}

// messages is the session's transcript, as role: texts of each message.
func (s *apiServer) messages(sid string) []string {
	var page struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	s.get("/sessions/"+sid+"/messages", &page)
	var out []string
	for _, m := range page.Messages {
		var texts []string
		for _, b := range m.Content {
			if b.Type == "text" {
				texts = append(texts, b.Text)
			}
		}
		out = append(out, m.Role+": "+strings.Join(texts, " "))
	}
	return out
}

// waitFor polls b until it contains s.
func waitFor(t *testing.T, b *syncBuffer, s string) {
	t.Helper()
	waitForN(t, b, s, 1)
}

// waitForN polls b until it contains s n times.
func waitForN(t *testing.T, b *syncBuffer, s string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(b.String(), s) < n {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the output:\n%s", s, b.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var sessionLine = regexp.MustCompile(`session ([0-9a-f]+) \(agent demo\)`)

// runChatCmd runs `agentscope chat` through the command's entry point
// with stdin as its input, and returns its exit status, stdout and the
// session id it printed on stderr.
func runChatCmd(t *testing.T, s *apiServer, stdin string, extra ...string) (code int, stdout, sid string) {
	t.Helper()
	var out, errb syncBuffer
	args := append([]string{"chat", "--server", s.url, "--user", "tester"}, extra...)
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	if m := sessionLine.FindStringSubmatch(errb.String()); m != nil {
		sid = m[1]
	}
	if code != exitOK {
		t.Fatalf("chat exited %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	return code, out.String(), sid
}

func TestChatStreamedReply(t *testing.T) {
	s := startAPIServer(t)
	_, out, sid := runChatCmd(t, s, "hello there\n")
	if sid == "" {
		t.Fatal("chat printed no session id")
	}
	want := `You said: "hello there".`
	if !strings.Contains(out, want) {
		t.Fatalf("no %q in the reply:\n%s", want, out)
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("ANSI escapes written to a pipe:\n%q", out)
	}
	msgs := s.messages(sid)
	if len(msgs) != 2 || msgs[0] != "user: hello there" || !strings.Contains(msgs[1], want) {
		t.Errorf("transcript = %q", msgs)
	}
	// What the terminal showed is the stored reply's text, whole.
	if reply := strings.TrimPrefix(msgs[1], "assistant: "); !strings.Contains(out, reply) {
		t.Errorf("output lacks the stored reply %q:\n%s", reply, out)
	}
}

func TestChatConfirmYes(t *testing.T) {
	s := startAPIServer(t)
	_, out, sid := runChatCmd(t, s, "save a note: buy milk\ny\n")
	for _, want := range []string{
		`→ save_note {"text":"buy milk"}`,
		"needs your permission",
		`← save_note: saved the note "buy milk"`,
		`The save_note tool says: saved the note "buy milk". That is all I can tell from it.`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the output:\n%s", want, out)
		}
	}
	if st := s.status(sid); st != "idle" {
		t.Errorf("status after the reply = %q, want idle", st)
	}
}

func TestChatConfirmNo(t *testing.T) {
	s := startAPIServer(t)
	_, out, sid := runChatCmd(t, s, "save a note: buy milk\nn\n")
	if !strings.Contains(out, "[denied]") || !strings.Contains(out, "did not give me an answer (denied)") {
		t.Errorf("the denial is not shown:\n%s", out)
	}
	if strings.Contains(out, "saved the note") {
		t.Errorf("the denied tool ran:\n%s", out)
	}
	if st := s.status(sid); st != "idle" {
		t.Errorf("status after the reply = %q, want idle", st)
	}
}

func TestChatConfirmAlwaysRemembersTheRule(t *testing.T) {
	s := startAPIServer(t)
	_, out, _ := runChatCmd(t, s, "save a note: one\na\nsave a note: two\n")
	if n := strings.Count(out, "needs your permission"); n != 1 {
		t.Errorf("asked %d times, want once (the rule allows the second call):\n%s", n, out)
	}
	if !strings.Contains(out, `saved the note "one"`) || !strings.Contains(out, `saved the note "two"`) {
		t.Errorf("both notes should be saved:\n%s", out)
	}
}

// An edit is checked before it is sent: JSON, and, with --server, the
// tool's schema as the server gives it (GET /agent/{id}/tools).
func TestChatConfirmEdit(t *testing.T) {
	s := startAPIServer(t)
	_, out, _ := runChatCmd(t, s, "save a note: one\ne\nnot json\n{\"txt\":\"typo\"}\n{\"text\":\"edited\"}\n")
	if !strings.Contains(out, "not valid JSON") {
		t.Errorf("invalid JSON was accepted:\n%s", out)
	}
	if !strings.Contains(out, "'text' is a required property; try again") {
		t.Errorf("an edit the schema refuses was accepted:\n%s", out)
	}
	if !strings.Contains(out, `saved the note "edited"`) || strings.Contains(out, `saved the note "one"`) {
		t.Errorf("the tool did not run on the edited input:\n%s", out)
	}
}

func TestChatResumeSession(t *testing.T) {
	s := startAPIServer(t)
	_, _, sid := runChatCmd(t, s, "hello there\n")
	_, out, _ := runChatCmd(t, s, "what time is it\n", "--session", sid)
	hist := strings.Index(out, "> hello there")
	if hist < 0 || !strings.Contains(out[hist:], `You said: "hello there"`) {
		t.Fatalf("no history of the session before the new reply:\n%s", out)
	}
	if tc := strings.Index(out, "→ get_time"); tc < hist || !strings.Contains(out, "The get_time tool says:") {
		t.Errorf("the new reply is missing or before the history:\n%s", out)
	}
	if msgs := s.messages(sid); len(msgs) != 4 {
		t.Errorf("transcript has %d messages, want 4 (two turns): %q", len(msgs), msgs)
	}
}

func TestChatEOFAtConfirmationParksAndSessionResumesIt(t *testing.T) {
	s := startAPIServer(t)
	var out, errb syncBuffer
	code := run(context.Background(), []string{"chat", "--server", s.url, "--user", "tester"},
		strings.NewReader("save a note: later\n"), &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s", code, errb.String())
	}
	m := sessionLine.FindStringSubmatch(errb.String())
	if m == nil {
		t.Fatalf("no session id:\n%s", errb.String())
	}
	if st := s.status(m[1]); st != "awaiting_permission" {
		t.Errorf("status = %q, want awaiting_permission", st)
	}
	if !strings.Contains(errb.String(), "stays parked") {
		t.Errorf("no word that the reply stays parked:\n%s", errb.String())
	}

	// Continued, the session asks the parked confirmation again.
	_, resumed, _ := runChatCmd(t, s, "y\n", "--session", m[1])
	if !strings.Contains(resumed, "needs your permission") || !strings.Contains(resumed, `The save_note tool says: saved the note "later"`) {
		t.Errorf("the parked reply was not confirmed and completed:\n%s", resumed)
	}
	if st := s.status(m[1]); st != "idle" {
		t.Errorf("status after the resumed reply = %q, want idle", st)
	}
	if msgs := s.messages(m[1]); len(msgs) != 2 || !strings.Contains(msgs[1], `saved the note "later"`) {
		t.Errorf("transcript = %q, want the user's message and one complete reply", msgs)
	}
}

// TestChatInterruptKeepsTheContext: Ctrl+C during a reply ends it
// interrupted, and the next prompt gets a normal reply.
func TestChatInterruptKeepsTheContext(t *testing.T) {
	s := startAPIServer(t)
	inR, inW := io.Pipe()
	var out, errb syncBuffer
	interrupts := make(chan struct{}, 1)
	inv := &invocation{Name: "chat", Stdin: inR, Stdout: &out, Stderr: &errb}
	cfg := chatConfig{Server: s.url, User: "tester", Agent: demoAgentID, Stdin: inR, Stdout: &out, Stderr: &errb, Interrupts: interrupts}
	done := make(chan int, 1)
	go func() { done <- chat(context.Background(), cfg, inv) }()

	io.WriteString(inW, "hello there\n")
	waitFor(t, &out, "Hello! I am") // the reply streams (15 ms a chunk)
	interrupts <- struct{}{}
	waitFor(t, &out, "[reply interrupted]")
	if strings.Contains(out.String(), "You said:") {
		t.Errorf("the reply ran to its end despite the interrupt:\n%s", out.String())
	}
	time.Sleep(quitWindow) // not a second Ctrl+C
	io.WriteString(inW, "what time is it\n")
	waitFor(t, &out, "The get_time tool says:")
	inW.Close()
	if code := <-done; code != exitOK {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	sid := sessionLine.FindStringSubmatch(errb.String())[1]
	if msgs := s.messages(sid); len(msgs) != 4 {
		t.Errorf("transcript = %q, want 4 messages", msgs)
	}
}

// TestChatSIGINT sends real signals to a built binary: the first
// interrupts the reply, a second one soon after quits.
func TestChatSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	s := startAPIServer(t)
	bin := buildBinary(t)
	cmd := exec.Command(bin, "chat", "--server", s.url, "--user", "tester")
	inW, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer inW.Close()
	io.WriteString(inW, "hello there\n")
	waitFor(t, &out, "Hello! I am")
	cmd.Process.Signal(syscall.SIGINT)
	waitFor(t, &out, "[reply interrupted]")
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("exit %d (%v), want %d\nstdout:\n%s\nstderr:\n%s", code, err, exitInterrupted, out.String(), errb.String())
	}
}

func TestRendererDimsThinkingOnlyInColor(t *testing.T) {
	evs := []event.Event{
		&event.ThinkingBlockStart{BlockID: "t"},
		&event.ThinkingBlockDelta{BlockID: "t", Delta: "hmm"},
		&event.ThinkingBlockEnd{BlockID: "t"},
		&event.TextBlockStart{BlockID: "x"},
		&event.TextBlockDelta{BlockID: "x", Delta: "Hi"},
		&event.TextBlockDelta{BlockID: "x", Delta: "!"},
		&event.TextBlockEnd{BlockID: "x"},
		&event.ToolCallStart{ToolCallID: "c", ToolCallName: "calc"},
		&event.ToolCallDelta{ToolCallID: "c", Delta: `{"expr":`},
		&event.ToolCallDelta{ToolCallID: "c", Delta: `"1+1"}`},
		&event.ToolCallEnd{ToolCallID: "c"},
		&event.ToolResultStart{ToolCallID: "c", ToolCallName: "calc"},
		&event.ToolResultTextDelta{ToolCallID: "c", Delta: "2"},
		&event.ToolResultEnd{ToolCallID: "c", State: block.ResultError},
		&event.ReplyEnd{FinishedReason: event.ReplyInterrupted},
	}
	for _, tc := range []struct {
		color bool
		want  string
	}{
		{false, "hmm\nHi!\n→ calc {\"expr\":\"1+1\"}\n← calc: 2 [error]\n[reply interrupted]\n"},
		{true, "\x1b[2mhmm\x1b[0m\nHi!\n\x1b[36m→ calc {\"expr\":\"1+1\"}\x1b[39m\n\x1b[31m← calc:\x1b[39m 2 \x1b[31m[error]\x1b[39m\n\x1b[31m[reply interrupted]\x1b[39m\n"},
	} {
		var b bytes.Buffer
		r := newRenderer(&b, tc.color)
		for _, e := range evs {
			r.event(e)
		}
		if b.String() != tc.want {
			t.Errorf("color=%v:\n got %q\nwant %q", tc.color, b.String(), tc.want)
		}
	}
}

// A reply cut inside a thinking block must not leave the terminal dim.
func TestRendererResetsDimWhenThinkingIsCut(t *testing.T) {
	var b bytes.Buffer
	r := newRenderer(&b, true)
	r.event(&event.ThinkingBlockStart{BlockID: "t"})
	r.event(&event.ThinkingBlockDelta{BlockID: "t", Delta: "a"})
	r.event(&event.ThinkingBlockDelta{BlockID: "t", Delta: "b"})
	r.event(&event.ReplyEnd{FinishedReason: event.ReplyInterrupted})
	if want := "\x1b[2mab\x1b[0m\n\x1b[31m[reply interrupted]\x1b[39m\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// TestChatInPseudoTerminal runs the binary in a pseudo-terminal (util-linux
// script): thinking is dimmed, a confirmation is answered y, and a Ctrl+C
// typed on the terminal interrupts the reply, streaming and then while a
// tool runs, after which the session still answers.
func TestChatInPseudoTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Fatalf("script(1), which makes the pseudo-terminal, is missing (Debian's bsdutils): %v", err)
	}
	s := startAPIServer(t)
	bin := buildBinary(t)
	// script(1) runs its command through $SHELL. exec makes the chat the
	// terminal's only foreground process: a shell that forks instead (dash,
	// Debian's /bin/sh) would take each Ctrl+C itself and exit 130 at the end.
	cmd := exec.Command(scriptBin, "-qfec", "exec "+shellQuote(bin)+" chat --server "+shellQuote(s.url)+" --user tester", "/dev/null")
	cmd.Env = append(os.Environ(), "SHELL=/bin/sh", "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=")
	inW, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitFor(t, &out, "continue it with --session")
	io.WriteString(inW, "save a note: pty\n")
	waitFor(t, &out, "needs your permission")
	io.WriteString(inW, "y\n")
	waitFor(t, &out, `The save_note tool says: saved the note "pty"`)
	if !strings.Contains(out.String(), ansiDim+"The user wants a note saved.") {
		t.Errorf("thinking is not dimmed on a terminal:\n%q", out.String())
	}
	io.WriteString(inW, "hello there\n")
	waitFor(t, &out, "Hello! I am")
	io.WriteString(inW, "\x03") // Ctrl+C, which the terminal turns into SIGINT
	waitFor(t, &out, "[reply interrupted]")
	time.Sleep(quitWindow)
	io.WriteString(inW, "what time is it\n")
	waitFor(t, &out, "The get_time tool says:")
	if strings.Contains(out.String(), "You said:") {
		t.Errorf("the interrupted reply ran to its end:\n%s", out.String())
	}

	// Ctrl+C while a tool runs: the call is answered as interrupted.
	io.WriteString(inW, "wait 30 seconds\n")
	waitFor(t, &out, `→ wait {"seconds":30}`)
	time.Sleep(300 * time.Millisecond) // the tool is running
	start := time.Now()
	io.WriteString(inW, "\x03")
	waitForN(t, &out, "[reply interrupted]", 2)
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the interrupt took %v: the tool was not cancelled", d)
	}
	if !strings.Contains(out.String(), "[interrupted]") || strings.Contains(out.String(), "waited 30 seconds") {
		t.Errorf("the wait tool's call is not answered as interrupted:\n%s", out.String())
	}
	time.Sleep(quitWindow)
	io.WriteString(inW, "calculate 12*(3+4)\n")
	waitFor(t, &out, "The calculate tool says:")
	// The terminal's EOF: Ctrl+D on an empty line (script(1) passes its
	// own stdin's end on only to a terminal in canonical mode, and the
	// line editor reads in raw mode).
	io.WriteString(inW, "\x04")
	inW.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chat in the terminal: %v\n%s", err, out.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("chat did not exit at EOF:\n%s", out.String())
	}
}

// cutWriter fails the second write of a stream that carries a text
// delta, which ends that SSE response mid-reply as a dropped connection
// would, after the client has had some of the reply (the first delta may
// come in one write with every event before it).
type cutWriter struct {
	http.ResponseWriter
	cut     *atomic.Bool
	deltas  int
	cutHere bool
}

func (w *cutWriter) Write(p []byte) (int, error) {
	if !w.cutHere && bytes.Contains(p, []byte("TEXT_BLOCK_DELTA")) {
		w.deltas++
		if w.deltas == 2 && w.cut.CompareAndSwap(false, true) {
			w.cutHere = true
		}
	}
	if w.cutHere {
		return 0, errors.New("cut by the test")
	}
	return w.ResponseWriter.Write(p)
}

func (w *cutWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestChatReconnectsWithLastEventID: the stream drops mid-reply; chat
// reconnects with Last-Event-ID and shows the reply whole, nothing twice.
func TestChatReconnectsWithLastEventID(t *testing.T) {
	var cut atomic.Bool
	var mu sync.Mutex
	var cursors []string // Last-Event-ID of each stream request
	s := startAPIServerWith(t, "", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/stream") {
				mu.Lock()
				cursors = append(cursors, r.Header.Get("Last-Event-ID"))
				mu.Unlock()
				w = &cutWriter{ResponseWriter: w, cut: &cut}
			}
			h.ServeHTTP(w, r)
		})
	})
	var out, errb syncBuffer
	code := run(context.Background(), []string{"chat", "--server", s.url, "--user", "tester"},
		strings.NewReader("hello there\n"), &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	if !cut.Load() {
		t.Fatal("the stream was never cut")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(cursors) < 2 || cursors[0] != "" || cursors[1] == "" {
		t.Fatalf("stream requests' Last-Event-ID = %q, want none then a cursor", cursors)
	}
	if !strings.Contains(errb.String(), "reconnecting") {
		t.Errorf("no word of the reconnection:\n%s", errb.String())
	}
	sid := sessionLine.FindStringSubmatch(errb.String())[1]
	msgs := s.messages(sid)
	if len(msgs) != 2 {
		t.Fatalf("transcript = %q", msgs)
	}
	reply := strings.TrimPrefix(msgs[1], "assistant: ")
	if n := strings.Count(out.String(), reply); n != 1 {
		t.Errorf("the reply appears %d times in the output, want once whole:\n%s", n, out.String())
	}
	if n := strings.Count(out.String(), "Hello!"); n != 1 {
		t.Errorf("%q appears %d times: a duplicate after the reconnect:\n%s", "Hello!", n, out.String())
	}
}

func TestChatRefusals(t *testing.T) {
	s := startAPIServer(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"in-process flags with a server", []string{"chat", "--server", s.url, "--model", "demo"}, exitUsage, "--model: only for a chat in-process"},
		{"unknown session", []string{"chat", "--server", s.url, "--user", "tester", "--session", "nosuch"}, exitFailure, "HTTP 404"},
		{"unknown agent", []string{"chat", "--server", s.url, "--user", "tester", "--agent", "nosuch"}, exitFailure, "create a session: HTTP 404"},
		{"no server there", []string{"chat", "--server", "http://127.0.0.1:1", "--user", "tester"}, exitFailure, "create a session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb syncBuffer
			code := run(context.Background(), tc.args, strings.NewReader("hello\n"), &out, &errb)
			if code != tc.code || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errb.String(), tc.code, tc.want)
			}
		})
	}
}

func TestChatToken(t *testing.T) {
	s := startAPIServerWith(t, "s3cret", nil)
	var out, errb syncBuffer
	code := run(context.Background(), []string{"chat", "--server", s.url, "--user", "tester", "--token", "wrong"},
		strings.NewReader("hello\n"), &out, &errb)
	if code != exitFailure || !strings.Contains(errb.String(), "HTTP 401") {
		t.Errorf("wrong token: exit %d, stderr %q; want 1 and HTTP 401", code, errb.String())
	}
	_, got, _ := runChatCmd(t, s, "hello there\n", "--token", "s3cret")
	if !strings.Contains(got, `You said: "hello there"`) {
		t.Errorf("no reply with the token:\n%s", got)
	}
}

// shellQuote quotes s as one word of a POSIX shell command line.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
