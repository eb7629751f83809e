package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
)

// SIGTERM while a tool runs longer than the drain: the server interrupts
// the reply properly once the drain is over, before it exits 0 — the stream gets every tool call answered
// (interrupted) and REPLY_END(interrupted), the transcript holds the
// closed reply — and a server restarted on the database finds the session
// idle and takes the next chat.
func TestServeSIGTERMDuringTool(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and execs the binary")
	}
	bin := buildBinary(t)
	db, addr := filepath.Join(t.TempDir(), "agentscope.db"), freeAddr(t)
	// A short drain: the tool outlasts it, and is interrupted after it.
	s := startServe(t, bin, addr, db, "--drain", "200ms")
	sid := createSession(t, s)
	ch, _ := s.sse(sid, 0)
	// The longest wait the tool takes: only the SIGTERM may end it, however
	// slow the machine.
	postChat(t, s, sid, "please wait 600 seconds")
	before := until(t, ch, event.TypeToolResultStart)
	if _, body := s.call("GET", "/sessions/"+sid+"/status?agent_id=demo", ""); !strings.Contains(body, `"running"`) {
		t.Fatalf("status while the tool runs: %s", body)
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	after := until(t, ch, event.TypeReplyEnd)
	<-s.exited
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d after SIGTERM: %s", code, s.stderr)
	}

	// The stream: gapless, every tool call answered, one REPLY_END, and
	// it is interrupted.
	frames := append(before, after...)
	calls, ended := map[string]bool{}, map[string]block.ToolResultState{}
	for i, f := range frames {
		if f.seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, f.seq)
		}
		switch ev := f.ev.(type) {
		case *event.ToolCallStart:
			calls[ev.ToolCallID] = true
		case *event.ToolResultEnd:
			ended[ev.ToolCallID] = ev.State
		case *event.ReplyEnd:
			if i != len(frames)-1 {
				t.Fatalf("REPLY_END at %d of %d", i, len(frames))
			}
			if ev.FinishedReason != event.ReplyInterrupted {
				t.Fatalf("reply ended %s", ev.FinishedReason)
			}
		}
	}
	if len(calls) == 0 || len(ended) != len(calls) {
		t.Fatalf("tool calls %v, results %v", calls, ended)
	}
	for id := range calls {
		if ended[id] != block.ResultInterrupted {
			t.Fatalf("tool call %s: result %q", id, ended[id])
		}
	}

	// Restarted on the same database: nothing to rescue, the session is
	// idle, the transcript holds the closed reply, and it goes on.
	s2 := startServe(t, bin, addr, db)
	if code, body := s2.call("GET", "/sessions/"+sid+"/status?agent_id=demo", ""); code != 200 || !strings.Contains(body, `"idle"`) {
		t.Fatalf("status after the restart: %d %s", code, body)
	}
	msgs := transcript(t, s2, sid)
	if len(msgs) != 2 || msgs[0].Role != event.RoleUser || msgs[1].FinishedReason != event.ReplyInterrupted {
		t.Fatalf("transcript after the restart: %d messages", len(msgs))
	}
	results := map[string]block.ToolResultState{}
	for _, b := range msgs[1].Content {
		if r, ok := b.(*block.ToolResult); ok {
			results[r.ID] = r.State
		}
	}
	for id := range calls {
		if results[id] != block.ResultInterrupted {
			t.Fatalf("stored result of %s: %q", id, results[id])
		}
	}
	ch2, _ := s2.sse(sid, frames[len(frames)-1].seq)
	postChat(t, s2, sid, "what is 12*(3+4)")
	next := until(t, ch2, event.TypeReplyEnd)
	if next[0].seq != frames[len(frames)-1].seq+1 || next[0].ev.Type() != event.TypeReplyStart {
		t.Fatalf("the next reply starts with seq %d %s", next[0].seq, next[0].ev.Type())
	}
	if end := next[len(next)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyCompleted {
		t.Fatalf("next reply ended %s", end.FinishedReason)
	}
	if msgs := transcript(t, s2, sid); len(msgs) != 4 {
		t.Fatalf("transcript after the next chat: %d messages", len(msgs))
	}
}
