package server_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/session"
)

// race runs post n times at once and returns the codes.
func (e *env) race(n int, post func() response) []int {
	codes := make([]int, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range codes {
		wg.Go(func() {
			<-start
			codes[i] = post().code
		})
	}
	close(start)
	wg.Wait()
	return codes
}

func count(codes []int, code int) int {
	n := 0
	for _, c := range codes {
		if c == code {
			n++
		}
	}
	return n
}

// Chats posted at once on one idle session: exactly one starts (200), the
// others find it running (409) and store nothing; the session holds one
// input, one user message and one reply.
func TestConcurrentChatsOneSession(t *testing.T) {
	for round := range 10 {
		e := newEnv(t, []scripted.Turn{waitTurn}, nil)
		sid := e.createSession()
		s := e.openStream(sid, "")
		codes := e.race(8, func() response { return e.chat(sid, userMsg("wait")) })
		if count(codes, 200) != 1 || count(codes, 409) != len(codes)-1 {
			t.Fatalf("round %d: codes %v, want one 200 and the rest 409", round, codes)
		}
		<-e.waiting // the one run is in its tool
		k := session.Key{UserID: user, SessionID: sid}
		if n, err := e.store.PendingInputs(context.Background(), k); err != nil || n != 1 {
			t.Fatalf("round %d: %d inputs pending (%v), want the running one", round, n, err)
		}
		if sn := e.snap(sid); sn.messages != 1 || sn.status != "running" {
			t.Fatalf("round %d: %+v while running", round, sn)
		}
		if r := e.do("POST", "/sessions/"+sid+"/interrupt", user, ""); r.code != 202 {
			t.Fatalf("interrupt %d", r.code)
		}
		evs := s.until(event.TypeReplyEnd)
		starts := 0
		for _, ev := range evs {
			if ev.ev.Type() == event.TypeReplyStart {
				starts++
			}
		}
		if starts != 1 || len(e.waiting) != 0 {
			t.Fatalf("round %d: %d replies started, %d more tool runs", round, starts, len(e.waiting))
		}
		e.waitStatus(sid, "idle")
		if sn := e.snap(sid); sn.messages != 2 {
			t.Fatalf("round %d: %d messages, want the one input and its reply", round, sn.messages)
		}
		if n, _ := e.store.PendingInputs(context.Background(), k); n != 0 {
			t.Fatalf("round %d: %d inputs pending", round, n)
		}
	}
}

// The same confirmation posted at once: exactly one resumes the reply
// (200); the others find it running (409) or nothing parked (422); the
// tool runs once and the log holds one USER_CONFIRM_RESULT.
func TestConcurrentConfirmsOneReply(t *testing.T) {
	for round := range 10 {
		e := newEnv(t, []scripted.Turn{noteTurn, doneTurn}, nil)
		sid := e.createSession()
		s := e.openStream(sid, "")
		if r := e.chat(sid, userMsg("note")); r.code != 200 {
			t.Fatal(r.body)
		}
		confirm := confirmJSON2(t, s.until(event.TypeRequireUserConfirm))
		codes := e.race(8, func() response { return e.chat(sid, confirm) })
		if count(codes, 200) != 1 || count(codes, 409)+count(codes, 422) != len(codes)-1 {
			t.Fatalf("round %d: codes %v, want one 200 and the rest 409 or 422", round, codes)
		}
		rest := s.until(event.TypeReplyEnd)
		if end := rest[len(rest)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyCompleted {
			t.Fatalf("round %d: end %+v", round, end)
		}
		e.waitStatus(sid, "idle")
		k := session.Key{UserID: user, SessionID: sid}
		log, err := e.store.ReadEvents(context.Background(), k, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		confirms, results := 0, 0
		for _, le := range log {
			ev, err := event.Decode(le.JSON)
			if err != nil {
				t.Fatal(err)
			}
			switch ev.Type() {
			case event.TypeUserConfirmResult:
				confirms++
			case event.TypeToolResultStart:
				results++
			}
		}
		if n := e.notes.Load(); n != 1 || confirms != 1 || results != 1 {
			t.Fatalf("round %d: save_note ran %d times; the log has %d USER_CONFIRM_RESULT, %d TOOL_RESULT_START", round, n, confirms, results)
		}
		if sn := e.snap(sid); sn.messages != 2 || sn.lastSeq != log[len(log)-1].Seq {
			t.Fatalf("round %d: %+v", round, sn)
		}
		if n, _ := e.store.PendingInputs(context.Background(), k); n != 0 {
			t.Fatalf("round %d: %d inputs pending", round, n)
		}
	}
}

// A resume, null or an empty list posted to a session that never ran is
// refused (422) and changes nothing: no event, no state, no message, no
// queued input. null is refused on purpose: the reference accepts it and
// then fails the run (service.md §1.10).
func TestResumeOnFreshSession(t *testing.T) {
	e := newEnv(t, []scripted.Turn{textTurn}, nil)
	const rid = "0123456789abcdef0123456789abcdef"
	for name, in := range map[string]string{
		"confirm":         fmt.Sprintf(`{"type":"USER_CONFIRM_RESULT","reply_id":%q,"confirm_results":[{"confirmed":true,"tool_call":{"type":"tool_call","id":"c1","name":"save_note","input":"{}","state":"asking"}}]}`, rid),
		"external result": fmt.Sprintf(`{"type":"EXTERNAL_EXECUTION_RESULT","reply_id":%q,"execution_results":[{"type":"tool_result","id":"c1","name":"save_note","output":"x","state":"success"}]}`, rid),
		"null":            "null",
		"empty list":      "[]",
	} {
		sid := e.createSession()
		k := session.Key{UserID: user, SessionID: sid}
		before := e.snap(sid)
		if r := e.chat(sid, in); r.code != 422 || r.json(t)["detail"] == nil {
			t.Errorf("%s on a fresh session: %d %s, want 422 {detail}", name, r.code, r.body)
		}
		if after := e.snap(sid); after != before || after != (snapshot{status: "idle", record: " {}"}) {
			t.Errorf("%s on a fresh session changed %+v to %+v", name, before, after)
		}
		if n, _ := e.store.PendingInputs(context.Background(), k); n != 0 {
			t.Errorf("%s: %d inputs pending", name, n)
		}
		if l, _ := leaseOf(context.Background(), e.store, k); l.Held(time.Now()) {
			t.Errorf("%s: the session is left leased: %+v", name, l)
		}
		// The session is still usable.
		s := e.openStream(sid, "")
		e.model.Append(textTurn)
		if r := e.chat(sid, userMsg("hi")); r.code != 200 {
			t.Fatalf("%s: chat after the refusal: %d %s", name, r.code, r.body)
		}
		checkSeqs(t, s.until(event.TypeReplyEnd), 1)
		s.close()
	}
}
