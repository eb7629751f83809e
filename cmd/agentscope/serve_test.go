package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/session/postgres/postgrestest"
)

// buildBinary builds the command into a temporary directory.
func buildBinary(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agentscope")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// served is one `agentscope serve` process.
type served struct {
	t      testing.TB
	cmd    *exec.Cmd
	url    string
	stderr *syncBuffer
	exited chan struct{}
}

func freeAddr(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServe execs the binary on addr and db and waits for /health.
func startServe(t testing.TB, bin, addr, db string, extra ...string) *served {
	t.Helper()
	args := append([]string{"serve", "--addr", addr, "--db", db}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "AGENTSCOPE_MODEL=", "AGENTSCOPE_TOKEN=")
	s := &served{t: t, cmd: cmd, url: "http://" + addr, stderr: new(syncBuffer), exited: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			cmd.Process.Kill()
			<-s.exited
		}
	})
	// Ready when /health answers, failed when the process exits: an event
	// either way, never a deadline (a loaded machine only makes it later;
	// go test's -timeout ends a real hang, with every goroutine's stack).
	for {
		res, err := http.Get(s.url + "/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return s
			}
		}
		select {
		case <-s.exited:
			t.Fatalf("serve exited: %s", s.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (s *served) call(method, path, body string) (int, string) {
	s.t.Helper()
	req, _ := http.NewRequest(method, s.url+path, strings.NewReader(body))
	req.Header.Set("X-User-ID", "newcomer")
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

type sseFrame struct {
	seq int64
	ev  event.Event
}

// sse reads a session's stream, from the event after lastID (a negative
// lastID: only what comes next), into a channel until it closes.
func (s *served) sse(sid string, lastID int64) (<-chan sseFrame, func()) {
	s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", s.url+"/sessions/"+sid+"/stream", nil)
	req.Header.Set("X-User-ID", "newcomer")
	if lastID >= 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(lastID, 10))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		cancel()
		s.t.Fatalf("stream: %v %v", err, res)
	}
	ch := make(chan sseFrame, 4096)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(ch)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		var seq int64
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "id: "); ok {
				seq, _ = strconv.ParseInt(v, 10, 64)
			}
			if v, ok := strings.CutPrefix(line, "data: "); ok {
				ev, err := event.Decode([]byte(v))
				if err == nil {
					ch <- sseFrame{seq, ev}
				}
			}
		}
	}()
	stop := func() { cancel(); res.Body.Close(); <-done }
	s.t.Cleanup(stop)
	return ch, stop
}

func until(t *testing.T, ch <-chan sseFrame, typ event.Type) []sseFrame {
	t.Helper()
	var out []sseFrame
	for f := range ch {
		out = append(out, f)
		if f.ev.Type() == typ {
			return out
		}
	}
	t.Fatalf("stream closed after %d events, before a %s", len(out), typ)
	return nil
}

func confirmFor(t *testing.T, frames []sseFrame) string {
	t.Helper()
	rq, ok := frames[len(frames)-1].ev.(*event.RequireUserConfirm)
	if !ok {
		t.Fatalf("last event %s", frames[len(frames)-1].ev.Type())
	}
	c := &event.UserConfirmResult{ReplyID: rq.ReplyID, ConfirmResults: []event.ConfirmResult{{Confirmed: true, ToolCall: rq.ToolCalls[0]}}}
	event.Stamp(c, nil)
	return string(event.Marshal(c))
}

const noteInput = `{"role":"user","name":"newcomer","content":[{"type":"text","text":"please save a note: buy milk"}]}`

func createAndChat(t *testing.T, s *served) (string, <-chan sseFrame, func()) {
	t.Helper()
	code, body := s.call("POST", "/sessions/", `{"agent_id":"demo"}`)
	if code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	var created struct {
		SessionID string `json:"session_id"`
	}
	json.Unmarshal([]byte(body), &created)
	sid := created.SessionID
	ch, stop := s.sse(sid, 0)
	if code, body := s.call("POST", "/chat/", fmt.Sprintf(`{"agent_id":"demo","session_id":%q,"input":%s}`, sid, noteInput)); code != 200 {
		t.Fatalf("chat: %d %s", code, body)
	}
	return sid, ch, stop
}

func checkCompleted(t *testing.T, s *served, sid string, frames []sseFrame) {
	t.Helper()
	end := frames[len(frames)-1].ev.(*event.ReplyEnd)
	if end.FinishedReason != event.ReplyCompleted {
		t.Fatalf("reply ended %s", end.FinishedReason)
	}
	code, body := s.call("GET", "/sessions/"+sid+"/messages", "")
	var page struct{ Messages []json.RawMessage }
	if err := json.Unmarshal([]byte(body), &page); code != 200 || err != nil || len(page.Messages) != 2 {
		t.Fatalf("transcript %d %s", code, body)
	}
	var in, reply message.Msg
	json.Unmarshal(page.Messages[0], &in)
	json.Unmarshal(page.Messages[1], &reply)
	text, _ := reply.TextContent(" ")
	if in.Role != event.RoleUser || reply.Role != event.RoleAssistant || reply.FinishedReason != event.ReplyCompleted || !strings.Contains(text, `saved the note \"buy milk\"`) && !strings.Contains(text, `saved the note "buy milk"`) {
		t.Fatalf("transcript: %s / %s (%q)", in.Role, reply.FinishedReason, text)
	}
	if code, body := s.call("GET", "/sessions/"+sid+"/status?agent_id=demo", ""); !strings.Contains(body, `"idle"`) {
		t.Fatalf("status %d %s", code, body)
	}
}

// The README's walk-through against the real binary: the demo agent
// streams, parks on save_note, resumes on the confirmation and answers;
// SIGTERM then ends the process cleanly.
func TestServeDemoEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and execs the binary")
	}
	s := startServe(t, buildBinary(t), freeAddr(t), filepath.Join(t.TempDir(), "agentscope.db"))
	if code, body := s.call("GET", "/agent/", ""); code != 200 || !strings.Contains(body, `"id":"demo"`) || !strings.Contains(body, "DEMO") {
		t.Fatalf("agents %d %s", code, body)
	}
	sid, ch, _ := createAndChat(t, s)
	first := until(t, ch, event.TypeRequireUserConfirm)
	var text bool
	for _, f := range first {
		text = text || f.ev.Type() == event.TypeThinkingBlockDelta
	}
	if !text || first[0].seq != 1 {
		t.Fatalf("first run: %d events from seq %d", len(first), first[0].seq)
	}
	if _, body := s.call("GET", "/sessions/"+sid+"/status?agent_id=demo", ""); !strings.Contains(body, "awaiting_permission") {
		t.Fatalf("status %s", body)
	}
	if code, body := s.call("POST", "/chat/", fmt.Sprintf(`{"agent_id":"demo","session_id":%q,"input":%s}`, sid, confirmFor(t, first))); code != 200 {
		t.Fatalf("confirm: %d %s", code, body)
	}
	checkCompleted(t, s, sid, until(t, ch, event.TypeReplyEnd))
	start := time.Now()
	s.cmd.Process.Signal(syscall.SIGTERM)
	<-s.exited
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d after SIGTERM (%v): %s", code, time.Since(start), s.stderr)
	}
}

// crashStores are the stores the crash tests run on: a SQLite file and a
// fresh Postgres schema, each a --db argument.
var crashStores = []struct {
	name string
	db   func(t *testing.T) string
}{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "agentscope.db") }},
	{"postgres", func(t *testing.T) string { return postgrestest.Schema(t) }},
}

// Crash test: a reply parks; the server is killed with SIGKILL; a new one
// on the same database serves the stream from Last-Event-ID, takes the
// confirmation and completes the reply: one user message, one assistant
// reply, and the tool ran once.
func TestServeSurvivesSIGKILLWhileParked(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and execs the binary")
	}
	bin := buildBinary(t)
	for _, store := range crashStores {
		t.Run(store.name, func(t *testing.T) {
			db, addr := store.db(t), freeAddr(t)
			s := startServe(t, bin, addr, db)
			sid, ch, stop := createAndChat(t, s)
			first := until(t, ch, event.TypeRequireUserConfirm)
			stop()
			s.cmd.Process.Kill()
			<-s.exited

			s2 := startServe(t, bin, addr, db)
			last := first[len(first)-1].seq
			ch2, _ := s2.sse(sid, last)
			if code, body := s2.call("POST", "/chat/", fmt.Sprintf(`{"agent_id":"demo","session_id":%q,"input":%s}`, sid, confirmFor(t, first))); code != 200 {
				t.Fatalf("confirm after restart: %d %s", code, body)
			}
			rest := until(t, ch2, event.TypeReplyEnd)
			for i, f := range rest {
				if f.seq != last+1+int64(i) {
					t.Fatalf("event %d has seq %d, want %d", i, f.seq, last+1+int64(i))
				}
			}
			checkCompleted(t, s2, sid, rest)
			results := 0
			for _, f := range append(first, rest...) {
				if f.ev.Type() == event.TypeToolResultStart {
					results++
				}
			}
			if results != 1 {
				t.Fatalf("the tool ran %d times", results)
			}
		})
	}
}

// Crash test: the server is killed with SIGKILL while a tool runs. The
// server restarted on the same database and address (the same lease
// owner) closes the dead run as it starts, before it serves, without
// waiting for the lease (a minute) to expire: the reply ends
// REPLY_END(interrupted) in the log and in the transcript, every tool call
// has a result (interrupted), nothing is half-written, the tool did not
// run again, and the session takes a new chat. A chat posted at once
// after the restart (the same address: the same lease owner) does not wait
// for the rescue: it closes the dead reply itself, then runs.
func TestServeSurvivesSIGKILLDuringTool(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and execs the binary")
	}
	bin := buildBinary(t)
	for _, tc := range []struct {
		store  string
		db     func(t *testing.T) string
		atOnce bool
	}{
		{crashStores[0].name + "/rescued-at-start", crashStores[0].db, false},
		{crashStores[0].name + "/next-chat-at-once", crashStores[0].db, true},
		{crashStores[1].name + "/rescued-at-start", crashStores[1].db, false},
		{crashStores[1].name + "/next-chat-at-once", crashStores[1].db, true},
	} {
		t.Run(tc.store, func(t *testing.T) {
			db, addr := tc.db(t), freeAddr(t)
			s := startServe(t, bin, addr, db, "--lease", "1m")
			sid := createSession(t, s)
			ch, stop := s.sse(sid, 0)
			postChat(t, s, sid, "please wait 30 seconds")
			before := until(t, ch, event.TypeToolResultStart)
			stop()
			s.cmd.Process.Kill()
			<-s.exited

			s2 := startServe(t, bin, addr, db, "--lease", "1m")
			const next = "what is 12*(3+4)"
			want := 2
			if tc.atOnce {
				postChat(t, s2, sid, next)
				want = 4
			} else {
				// Rescued before /health answered: the dead reply is closed
				// and the session free.
				code, status := s2.call("GET", "/sessions/"+sid+"/status?agent_id=demo", "")
				if msgs := transcript(t, s2, sid); code != 200 || !strings.Contains(status, `"idle"`) || len(msgs) != 2 {
					t.Fatalf("at the restart: status %d %s, %d messages, want idle and 2\n%s", code, status, len(msgs), s2.stderr)
				}
			}
			// The next chat's reply is stored before its lease is freed,
			// so the test waits for both.
			var msgs []*message.Msg
			for deadline := time.Now().Add(15 * time.Second); ; {
				msgs = transcript(t, s2, sid)
				code, status := s2.call("GET", "/sessions/"+sid+"/status?agent_id=demo", "")
				if len(msgs) >= want && code == 200 && strings.Contains(status, `"idle"`) {
					break
				}
				if time.Now().After(deadline) {
					dump, _ := json.Marshal(msgs)
					t.Fatalf("15s after the restart: %d messages, status %d %s\n%s\n%s", len(msgs), code, status, dump, s2.stderr)
				}
				time.Sleep(50 * time.Millisecond)
			}

			// The transcript: the user's message and the reply, closed as
			// interrupted, with every tool call answered.
			if len(msgs) != want || msgs[0].Role != event.RoleUser || msgs[1].Role != event.RoleAssistant || msgs[1].FinishedReason != event.ReplyInterrupted {
				t.Fatalf("transcript: %d messages %+v", len(msgs), msgs)
			}
			calls, results := map[string]string{}, map[string]block.ToolResultState{}
			for _, b := range msgs[1].Content {
				switch b := b.(type) {
				case *block.ToolCall:
					calls[b.ID] = b.Name
				case *block.ToolResult:
					results[b.ID] = b.State
				}
			}
			if len(calls) != 1 || len(results) != len(calls) {
				t.Fatalf("calls %v, results %v", calls, results)
			}
			for id, name := range calls {
				if name != "wait" || results[id] != block.ResultInterrupted {
					t.Fatalf("call %s (%s) has result %q", id, name, results[id])
				}
			}

			// The log, replayed from the start: gapless, the events seen
			// before the kill, one tool run, and one REPLY_END(interrupted)
			// closing the reply after every tool result ended.
			ch2, _ := s2.sse(sid, 0)
			log := until(t, ch2, event.TypeReplyEnd)
			for i, f := range log {
				if f.seq != int64(i+1) {
					t.Fatalf("replayed event %d has seq %d", i, f.seq)
				}
				if i < len(before) && f.ev.Type() != before[i].ev.Type() {
					t.Fatalf("replayed event %d is %s, before the kill %s", i, f.ev.Type(), before[i].ev.Type())
				}
			}
			started, ended := 0, map[string]block.ToolResultState{}
			for _, f := range log {
				switch ev := f.ev.(type) {
				case *event.ToolResultStart:
					started++
				case *event.ToolResultEnd:
					ended[ev.ToolCallID] = ev.State
				}
			}
			if end := log[len(log)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyInterrupted {
				t.Fatalf("reply ended %s", end.FinishedReason)
			}
			if started != 1 || len(ended) != len(calls) {
				t.Fatalf("%d tool runs started, results ended %v", started, ended)
			}
			for id := range calls {
				if ended[id] != block.ResultInterrupted {
					t.Fatalf("TOOL_RESULT_END of %s: %q", id, ended[id])
				}
			}

			// The session goes on.
			if !tc.atOnce {
				postChat(t, s2, sid, next)
			}
			after := until(t, ch2, event.TypeReplyEnd)
			if end := after[len(after)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyCompleted {
				t.Fatalf("next reply ended %s", end.FinishedReason)
			}
			if msgs := transcript(t, s2, sid); len(msgs) != 4 || msgs[3].FinishedReason != event.ReplyCompleted {
				t.Fatalf("transcript after the next chat: %d messages", len(msgs))
			}
		})
	}
}

func createSession(t *testing.T, s *served) string {
	t.Helper()
	code, body := s.call("POST", "/sessions/", `{"agent_id":"demo"}`)
	if code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	var created struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(body), &created); err != nil {
		t.Fatal(err)
	}
	return created.SessionID
}

func postChat(t *testing.T, s *served, sid, text string) {
	t.Helper()
	in, _ := json.Marshal(message.UserText("newcomer", text))
	if code, body := s.call("POST", "/chat/", fmt.Sprintf(`{"agent_id":"demo","session_id":%q,"input":%s}`, sid, in)); code != 200 {
		t.Fatalf("chat: %d %s", code, body)
	}
}

func transcript(t *testing.T, s *served, sid string) []*message.Msg {
	t.Helper()
	code, body := s.call("GET", "/sessions/"+sid+"/messages", "")
	var page struct{ Messages []*message.Msg }
	if err := json.Unmarshal([]byte(body), &page); code != 200 || err != nil {
		t.Fatalf("messages: %d %v %s", code, err, body)
	}
	return page.Messages
}

// Off loopback, serve refuses to start without a token.
func TestServeRefusesOpenAddressWithoutToken(t *testing.T) {
	t.Setenv("AGENTSCOPE_TOKEN", "")
	code, _, stderr := runIn(t, "", "serve", "--addr", "0.0.0.0:0", "--db", filepath.Join(t.TempDir(), "x.db"))
	if code != exitUsage || !strings.Contains(stderr, "requires a token") {
		t.Fatalf("code %d, stderr %s", code, stderr)
	}
	for addr, want := range map[string]bool{"127.0.0.1:80": true, "localhost:1": true, "[::1]:8080": true, ":8080": false, "0.0.0.0:1": false, "10.0.0.1:1": false} {
		if got := isLoopback(addr); got != want {
			t.Errorf("isLoopback(%q) = %v", addr, got)
		}
	}
}
