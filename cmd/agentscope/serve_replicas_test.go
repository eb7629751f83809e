package main

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/session/postgres/postgrestest"
)

// replicaLease is the replicas' --lease: short, so that a killed one's
// run is closed within the test's patience.
const replicaLease = 2 * time.Second

// startReplica execs `agentscope serve` as replica name on db.
func startReplica(t *testing.T, bin, db, name string, extra ...string) *served {
	t.Helper()
	return startServe(t, bin, freeAddr(t), db, append([]string{"--replica", name, "--lease", replicaLease.String()}, extra...)...)
}

// checkGapless fails unless the frames' sequences run on from first.
func checkGapless(t *testing.T, frames []sseFrame, first int64) {
	t.Helper()
	for i, f := range frames {
		if f.seq != first+int64(i) {
			t.Fatalf("frame %d (%s) has seq %d, want %d", i, f.ev.Type(), f.seq, first+int64(i))
		}
	}
}

// endOf is the REPLY_END that ends frames.
func endOf(t *testing.T, frames []sseFrame) *event.ReplyEnd {
	t.Helper()
	end, ok := frames[len(frames)-1].ev.(*event.ReplyEnd)
	if !ok {
		t.Fatalf("the frames end with %s", frames[len(frames)-1].ev.Type())
	}
	return end
}

// everyCallAnswered fails unless each tool call of frames has a result,
// in state want.
func everyCallAnswered(t *testing.T, frames []sseFrame, want block.ToolResultState) {
	t.Helper()
	calls, results := map[string]bool{}, map[string]block.ToolResultState{}
	for _, f := range frames {
		switch ev := f.ev.(type) {
		case *event.ToolCallStart:
			calls[ev.ToolCallID] = true
		case *event.ToolResultEnd:
			results[ev.ToolCallID] = ev.State
		}
	}
	if len(calls) == 0 {
		t.Fatal("no tool call")
	}
	for id := range calls {
		if results[id] != want {
			t.Fatalf("tool call %s: result %q, want %q", id, results[id], want)
		}
	}
}

// Two built `agentscope serve` processes on one PostgreSQL database, as
// behind a load balancer: a reply parked via A is resumed via B; a run
// on A is interrupted via B; a stream on B follows a run on A, and
// reconnects to A with Last-Event-ID missing nothing; A killed with
// SIGKILL mid-run has its run closed as interrupted by B within the
// lease; a restarted A drains on SIGTERM (503 and /ready 503 meanwhile)
// and its run in flight finishes.
func TestServeReplicasOnOnePostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and execs the binary")
	}
	bin := buildBinary(t)
	db := postgrestest.Schema(t)
	a, b := startReplica(t, bin, db, "A"), startReplica(t, bin, db, "B")

	t.Run("park via A, resume via B", func(t *testing.T) {
		sid := createSession(t, a)
		onB, _ := b.sse(sid, 0)
		postChat(t, a, sid, "please save a note: buy milk")
		first := until(t, onB, event.TypeRequireUserConfirm)
		if code, body := b.call("POST", "/chat/", fmt.Sprintf(`{"agent_id":"demo","session_id":%q,"input":%s}`, sid, confirmFor(t, first))); code != 200 {
			t.Fatalf("confirm via B: %d %s", code, body)
		}
		all := append(first, until(t, onB, event.TypeReplyEnd)...)
		checkGapless(t, all, 1)
		if end := endOf(t, all); end.FinishedReason != event.ReplyCompleted {
			t.Fatalf("reply ended %s", end.FinishedReason)
		}
		everyCallAnswered(t, all, block.ResultSuccess)
	})

	t.Run("interrupt via B of a run on A", func(t *testing.T) {
		sid := createSession(t, a)
		onA, _ := a.sse(sid, 0)
		postChat(t, a, sid, "please wait 600 seconds")
		before := until(t, onA, event.TypeToolResultStart)
		if code, body := b.call("POST", "/sessions/"+sid+"/interrupt", ""); code != 202 {
			t.Fatalf("interrupt via B: %d %s", code, body)
		}
		all := append(before, until(t, onA, event.TypeReplyEnd)...)
		checkGapless(t, all, 1)
		if end := endOf(t, all); end.FinishedReason != event.ReplyInterrupted {
			t.Fatalf("reply ended %s", end.FinishedReason)
		}
		everyCallAnswered(t, all, block.ResultInterrupted)
	})

	t.Run("a stream on B of A's run, then on A from Last-Event-ID", func(t *testing.T) {
		sid := createSession(t, a)
		onB, stopB := b.sse(sid, 0)
		postChat(t, a, sid, "please wait 1 seconds")
		got := until(t, onB, event.TypeToolResultStart)
		stopB()
		onA, _ := a.sse(sid, got[len(got)-1].seq)
		got = append(got, until(t, onA, event.TypeReplyEnd)...)
		checkGapless(t, got, 1)
		if end := endOf(t, got); end.FinishedReason != event.ReplyCompleted {
			t.Fatalf("reply ended %s", end.FinishedReason)
		}
	})

	t.Run("SIGKILL of A mid-run: B closes the run", func(t *testing.T) {
		sid := createSession(t, a)
		onB, _ := b.sse(sid, 0)
		postChat(t, a, sid, "please wait 600 seconds")
		before := until(t, onB, event.TypeToolResultStart)
		a.cmd.Process.Signal(syscall.SIGKILL)
		<-a.exited
		killed := time.Now()
		all := append(before, until(t, onB, event.TypeReplyEnd)...)
		// The lease runs out within replicaLease of the last renewal, and
		// B's rescue looks every replicaLease/2.
		if took := time.Since(killed); took > 2*replicaLease+time.Second {
			t.Errorf("closed %v after the kill, lease %v", took, replicaLease)
		}
		checkGapless(t, all, 1)
		if end := endOf(t, all); end.FinishedReason != event.ReplyInterrupted {
			t.Fatalf("reply ended %s", end.FinishedReason)
		}
		everyCallAnswered(t, all, block.ResultInterrupted)
		if code, body := b.call("GET", "/sessions/"+sid+"/status?agent_id=demo", ""); code != 200 || !strings.Contains(body, `"idle"`) {
			t.Fatalf("status after the rescue: %d %s", code, body)
		}
		if msgs := transcript(t, b, sid); len(msgs) != 2 || msgs[1].FinishedReason != event.ReplyInterrupted {
			t.Fatalf("transcript after the rescue: %d messages", len(msgs))
		}
	})

	t.Run("SIGTERM of A drains it", func(t *testing.T) {
		a := startReplica(t, bin, db, "A", "--drain", "20s")
		sid, other := createSession(t, a), createSession(t, a)
		onB, _ := b.sse(sid, 0)
		postChat(t, a, sid, "please wait 2 seconds")
		before := until(t, onB, event.TypeToolResultStart)
		a.cmd.Process.Signal(syscall.SIGTERM)
		for {
			code, _ := a.call("GET", "/ready", "")
			if code == 503 {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		if code, body := a.call("POST", "/chat/", fmt.Sprintf(`{"agent_id":"demo","session_id":%q,"input":%s}`, other, `{"role":"user","name":"newcomer","content":[{"type":"text","text":"hi"}]}`)); code != 503 || !strings.Contains(body, "draining") {
			t.Fatalf("chat on a draining replica: %d %s", code, body)
		}
		postChat(t, b, other, "what is 2+2")
		all := append(before, until(t, onB, event.TypeReplyEnd)...)
		checkGapless(t, all, 1)
		if end := endOf(t, all); end.FinishedReason != event.ReplyCompleted {
			t.Fatalf("the drained run ended %s", end.FinishedReason)
		}
		<-a.exited
		if code := a.cmd.ProcessState.ExitCode(); code != 0 {
			t.Fatalf("exit %d after SIGTERM: %s", code, a.stderr)
		}
		if code, body := b.call("GET", "/sessions/"+sid+"/status?agent_id=demo", ""); code != 200 || !strings.Contains(body, `"idle"`) {
			t.Fatalf("status after the drain: %d %s", code, body)
		}
	})
}
