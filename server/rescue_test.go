package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/session"
)

// A run that died in the middle of a tool call (its lease expired, its
// input claimed and not done) is closed as interrupted when the server
// starts: the call answered, REPLY_END(interrupted), the reply in the
// transcript and the state; the session then takes new input.
func TestRescueDeadRun(t *testing.T) {
	var sid, replyID string
	e := newEnv(t, []scripted.Turn{textTurn}, func(c *server.Config) {
		ctx := context.Background()
		st := c.Engine.Store
		rec, err := st.CreateSession(ctx, session.NewSession{UserID: user, AgentID: "a1"})
		if err != nil {
			t.Fatal(err)
		}
		sid = rec.ID
		k := session.Key{UserID: user, SessionID: sid}
		replyID = "r0123456789abcdef0123456789abcde"
		evs := []event.Event{
			&event.ReplyStart{SessionID: sid, ReplyID: replyID, Name: "assistant"},
			&event.ModelCallStart{ReplyID: replyID, ModelName: "scripted"},
			&event.ToolCallStart{ReplyID: replyID, ToolCallID: "w1", ToolCallName: "wait"},
			&event.ToolCallDelta{ReplyID: replyID, ToolCallID: "w1", Delta: "{}"},
			&event.ToolCallEnd{ReplyID: replyID, ToolCallID: "w1"},
			&event.ModelCallEnd{ReplyID: replyID},
			&event.ToolResultStart{ReplyID: replyID, ToolCallID: "w1", ToolCallName: "wait"},
		}
		deadRunOf(t, st, k, "dead-process", 100*time.Millisecond, "["+userMsg("wait")+"]", evs)
		time.Sleep(120 * time.Millisecond) // the lease expires
	})
	k := session.Key{UserID: user, SessionID: sid}
	evs, err := e.store.ReadEvents(context.Background(), k, 7, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range evs {
		d, err := event.Decode(ev.JSON)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(d.Type()))
		if end, ok := d.(*event.ToolResultEnd); ok && end.State != block.ResultInterrupted {
			t.Fatalf("tool result %s", end.State)
		}
		if end, ok := d.(*event.ReplyEnd); ok && end.FinishedReason != event.ReplyInterrupted {
			t.Fatalf("reply end %s", end.FinishedReason)
		}
	}
	if strings.Join(got, " ") != "TOOL_RESULT_TEXT_DELTA TOOL_RESULT_END REPLY_END" {
		t.Fatalf("closing events %v", got)
	}
	if s := e.status(sid); s != "idle" {
		t.Fatalf("status %s", s)
	}
	if n, _ := e.store.PendingInputs(context.Background(), k); n != 0 {
		t.Fatalf("%d inputs pending", n)
	}
	page, _ := e.store.ListMessages(context.Background(), k, session.MessageQuery{Limit: 10})
	if len(page.Messages) != 1 {
		t.Fatalf("transcript has %d messages", len(page.Messages))
	}
	var reply message.Msg
	if err := json.Unmarshal(page.Messages[0].JSON, &reply); err != nil || reply.ID != replyID || reply.FinishedReason != event.ReplyInterrupted {
		t.Fatalf("reply %s", page.Messages[0].JSON)
	}
	// The next input runs on the patched state.
	s := e.openStream(sid, "")
	if r := e.chat(sid, userMsg("hello")); r.code != 200 {
		t.Fatalf("chat after rescue: %d %s", r.code, r.body)
	}
	next := s.until(event.TypeReplyEnd)
	if end := next[len(next)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyCompleted {
		t.Fatalf("next reply %+v", end)
	}
	checkSeqs(t, next, 11)
}

// gatedStore holds every save of a state (a FinishRun with one) until the
// test opens the gate.
type gatedStore struct {
	session.Store
	entered, gate chan struct{}
}

func (g *gatedStore) FinishRun(ctx context.Context, k session.Key, l session.Lease, end session.RunEnd) (session.RunWritten, error) {
	if end.State != nil {
		g.entered <- struct{}{}
		<-g.gate
	}
	return g.Store.FinishRun(ctx, k, l, end)
}

// State first, then the event: while the state of a parking run is being
// saved, its REQUIRE_USER_CONFIRM is in neither the log nor any stream,
// so a replay cannot show a confirmation the store does not hold yet.
func TestParkEventLoggedAfterState(t *testing.T) {
	g := &gatedStore{entered: make(chan struct{}, 1), gate: make(chan struct{})}
	e := newEnv(t, []scripted.Turn{noteTurn}, func(c *server.Config) { g.Store = c.Engine.Store; c.Engine.Store = g })
	var once sync.Once
	open := func() { once.Do(func() { close(g.gate) }) }
	t.Cleanup(open) // before the server's Close, so a failure cannot hang it
	sid := e.createSession()
	live := e.openStream(sid, "")
	if r := e.chat(sid, userMsg("note")); r.code != 200 {
		t.Fatal(r.body)
	}
	<-g.entered
	k := session.Key{UserID: user, SessionID: sid}
	evs, err := e.store.ReadEvents(context.Background(), k, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if strings.Contains(string(ev.JSON), `"type":"REQUIRE_USER_CONFIRM"`) {
			t.Fatal("the park is in the log before the state is saved")
		}
	}
	// The replay gives what is logged: every event before the park, which
	// waits for nothing; then, once the state is saved, the park alone.
	replay := e.openStream(sid, "?since=0")
	var got []sseEvent
	for range evs {
		got = append(got, replay.next())
	}
	open()
	rest := replay.until(event.TypeRequireUserConfirm)
	if len(rest) != 1 {
		t.Errorf("after the state was saved, %d events came (the park and %d held back with it), want the park alone", len(rest), len(rest)-1)
	}
	got = append(got, rest...)
	checkSeqs(t, got, 1)
	live.until(event.TypeRequireUserConfirm)
	if s := e.status(sid); s != "awaiting_permission" {
		t.Fatalf("status %s", s)
	}
}

// endFailingStore fails the one-transaction end of a run (a FinishRun
// with a state) the first fails times, as a store error that passes
// would.
type endFailingStore struct {
	session.Store
	fails atomic.Int32
}

func (f *endFailingStore) FinishRun(ctx context.Context, k session.Key, l session.Lease, end session.RunEnd) (session.RunWritten, error) {
	if end.State != nil && f.fails.Add(-1) >= 0 {
		return session.RunWritten{}, errors.New("injected failure")
	}
	return f.Store.FinishRun(ctx, k, l, end)
}

// When the run's end cannot be stored, it is tried again, whole: the
// state, the reply, the input done, the status, the lease freed and the
// held-back events, in one transaction, then published. Nothing is ever
// stored part by part.
func TestRunEndRetried(t *testing.T) {
	f := &endFailingStore{}
	f.fails.Store(2)
	e := newEnv(t, []scripted.Turn{scripted.Stream(scripted.Text("Hi."))}, func(c *server.Config) { f.Store = c.Engine.Store; c.Engine.Store = f })
	sid := e.createSession()
	s := e.openStream(sid, "")
	if r := e.chat(sid, userMsg("hi")); r.code != 200 {
		t.Fatal(r.body)
	}
	evs := s.until(event.TypeReplyEnd)
	checkSeqs(t, evs, 1)
	k := session.Key{UserID: user, SessionID: sid}
	ctx := context.Background()
	e.waitStatus(sid, "idle")
	if f.fails.Load() >= 0 {
		t.Fatalf("the end was not tried 3 times (%d failures left)", f.fails.Load())
	}
	if l, err := leaseOf(ctx, e.store, k); err != nil || l.Owner != "" {
		t.Fatalf("lease %+v, %v", l, err)
	}
	if n, _ := e.store.PendingInputs(ctx, k); n != 0 {
		t.Fatalf("%d inputs pending", n)
	}
	st, err := e.store.LoadState(ctx, k)
	if err != nil || st.Version != 1 {
		t.Fatalf("state version %d, %v", st.Version, err)
	}
	page, _ := e.store.ListMessages(ctx, k, session.MessageQuery{Limit: 10})
	if len(page.Messages) != 2 {
		t.Fatalf("transcript has %d messages", len(page.Messages))
	}
	var reply message.Msg
	if err := json.Unmarshal(page.Messages[1].JSON, &reply); err != nil || reply.FinishedReason != event.ReplyCompleted {
		t.Fatalf("reply %s", page.Messages[1].JSON)
	}
	if last, _ := e.store.LastSeq(ctx, k); last != evs[len(evs)-1].seq {
		t.Fatalf("log ends at %d, the stream at %d", last, evs[len(evs)-1].seq)
	}
}

// An end that cannot be stored at all is left as a crash at that point
// leaves it: the session running until its lease expires, then closed by
// the rescue from the log (the reply interrupted, its held-back REPLY_END
// never logged), and the session takes new input.
func TestRunEndNeverStored(t *testing.T) {
	f := &endFailingStore{}
	f.fails.Store(3)
	e := newEnv(t, []scripted.Turn{scripted.Stream(scripted.Text("Hi.")), textTurn}, func(c *server.Config) {
		f.Store = c.Engine.Store
		c.Engine.Store = f
		c.Engine.LeaseTTL = 300 * time.Millisecond
		c.Engine.RescueInterval = 50 * time.Millisecond
	})
	sid := e.createSession()
	if r := e.chat(sid, userMsg("hi")); r.code != 200 {
		t.Fatal(r.body)
	}
	e.waitStatus(sid, "idle")
	k := session.Key{UserID: user, SessionID: sid}
	ctx := context.Background()
	evs, err := e.store.ReadEvents(ctx, k, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ends []string
	for _, ev := range evs {
		if d, err := event.Decode(ev.JSON); err == nil {
			if end, ok := d.(*event.ReplyEnd); ok {
				ends = append(ends, string(end.FinishedReason))
			}
		}
	}
	if strings.Join(ends, " ") != string(event.ReplyInterrupted) {
		t.Fatalf("the log's REPLY_ENDs %v, want one interrupted", ends)
	}
	if n, _ := e.store.PendingInputs(ctx, k); n != 0 {
		t.Fatalf("%d inputs pending", n)
	}
	s := e.openStream(sid, "")
	if r := e.chat(sid, userMsg("again")); r.code != 200 {
		t.Fatalf("chat after the rescue: %d %s", r.code, r.body)
	}
	s.until(event.TypeReplyEnd)
}

// A server started under the owner of its previous incarnation closes the
// runs whose leases that owner still holds at once, in New, without
// waiting for the leases (an hour here) to expire; another owner's live
// lease is left alone.
func TestRescueOwnLeasesAtStart(t *testing.T) {
	var mine, theirs session.Key
	e := newEnv(t, []scripted.Turn{textTurn}, func(c *server.Config) {
		ctx := context.Background()
		c.Engine.Owner = "serve@host/127.0.0.1:8080"
		c.Engine.RescueInterval = -1 // only the rescue at start
		dead := func(owner string) session.Key {
			rec, err := c.Engine.Store.CreateSession(ctx, session.NewSession{UserID: user, AgentID: "a1"})
			if err != nil {
				t.Fatal(err)
			}
			k := session.Key{UserID: user, SessionID: rec.ID}
			rid := "r" + rec.ID[1:]
			deadRunOf(t, c.Engine.Store, k, owner, time.Hour, "["+userMsg("wait")+"]", []event.Event{
				&event.ReplyStart{SessionID: rec.ID, ReplyID: rid, Name: "assistant"},
				&event.ToolCallStart{ReplyID: rid, ToolCallID: "w1", ToolCallName: "wait"},
				&event.ToolCallEnd{ReplyID: rid, ToolCallID: "w1"},
				&event.ToolResultStart{ReplyID: rid, ToolCallID: "w1", ToolCallName: "wait"},
			})
			return k
		}
		mine, theirs = dead(c.Engine.Owner), dead("another-replica")
	})
	ctx := context.Background()
	// New has returned: the rescue is done, nothing to wait for.
	if s := e.status(mine.SessionID); s != "idle" {
		t.Fatalf("own dead run: status %s, want idle", s)
	}
	l, err := leaseOf(ctx, e.store, mine)
	if err != nil || l.Owner != "" {
		t.Fatalf("own dead run's lease after the start: %+v, %v", l, err)
	}
	evs, err := e.store.ReadEvents(ctx, mine, 4, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range evs {
		d, err := event.Decode(ev.JSON)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(d.Type()))
	}
	if strings.Join(got, " ") != "TOOL_RESULT_TEXT_DELTA TOOL_RESULT_END REPLY_END" {
		t.Fatalf("closing events %v", got)
	}
	page, err := e.store.ListMessages(ctx, mine, session.MessageQuery{Limit: 10})
	if err != nil || len(page.Messages) != 1 {
		t.Fatalf("transcript: %v, %v", page.Messages, err)
	}
	if n, _ := e.store.PendingInputs(ctx, mine); n != 0 {
		t.Fatalf("%d inputs pending", n)
	}
	// Another owner's lease has not expired: that run may be alive.
	if s := e.status(theirs.SessionID); s != "running" {
		t.Fatalf("another owner's run: status %s, want running", s)
	}
	if n, _ := e.store.PendingInputs(ctx, theirs); n != 1 {
		t.Fatalf("another owner's run: %d inputs pending, want 1", n)
	}
}

// A run that died after claiming its input and before logging anything
// is closed as having opened and been cut there: a chat input's messages
// join the transcript and a REPLY_START opens its reply; a confirmation
// is logged with the REPLY_START that re-opens the parked reply, as is
// an interrupt of it. The reply then ends interrupted, every tool call answered, and the log's
// fold is the transcript and the saved state. No tool runs.
func TestRescueRunDeadBeforeItsFirstEvent(t *testing.T) {
	const ttl = 300 * time.Millisecond
	fast := func(c *server.Config) { c.Engine.LeaseTTL, c.Engine.RescueInterval = ttl, 50*time.Millisecond }
	t.Run("chat", func(t *testing.T) {
		e := newEnv(t, []scripted.Turn{textTurn}, fast)
		sid := e.createSession()
		k := session.Key{UserID: user, SessionID: sid}
		s := e.openStream(sid, "")
		deadRunOf(t, e.store, k, "dead-process", ttl, "["+userMsg("lost?")+"]", nil)
		evs := s.until(event.TypeReplyEnd)
		checkSeqs(t, evs, 1)
		if got := types(evs); got != "REPLY_START REPLY_END" {
			t.Fatalf("rescue logged %s", got)
		}
		if end := evs[1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyInterrupted {
			t.Fatalf("end %+v", end)
		}
		e.waitStatus(sid, "idle")
		msgs := checkLogFold(t, e, k)
		if len(msgs) != 2 || msgs[0].Role != event.RoleUser || !strings.Contains(string(msgs[0].AppendJSON(nil)), "lost?") {
			t.Fatalf("transcript %v", msgs)
		}
		// The session goes on from there.
		if r := e.chat(sid, userMsg("hello")); r.code != 200 {
			t.Fatalf("chat after the rescue: %d %s", r.code, r.body)
		}
		next := s.until(event.TypeReplyEnd)
		checkSeqs(t, next, 3)
		e.waitStatus(sid, "idle")
		if msgs := checkLogFold(t, e, k); len(msgs) != 4 {
			t.Fatalf("transcript has %d messages after the next chat", len(msgs))
		}
	})
	// parkOnNote is a session whose reply is parked on save_note's
	// confirmation, its stream and the events to the park.
	parkOnNote := func(t *testing.T) (*env, string, session.Key, *stream, []sseEvent) {
		t.Helper()
		e := newEnv(t, []scripted.Turn{noteTurn}, fast)
		sid := e.createSession()
		k := session.Key{UserID: user, SessionID: sid}
		s := e.openStream(sid, "")
		if r := e.chat(sid, userMsg("note milk")); r.code != 200 {
			t.Fatalf("chat %d %s", r.code, r.body)
		}
		parked := s.until(event.TypeRequireUserConfirm)
		e.waitStatus(sid, "awaiting_permission")
		return e, sid, k, s, parked
	}
	t.Run("confirm", func(t *testing.T) {
		e, sid, k, s, parked := parkOnNote(t)
		deadRunOf(t, e.store, k, "dead-process", ttl, confirmJSON(t, e, sid, true), nil)
		evs := s.until(event.TypeReplyEnd)
		checkSeqs(t, append(parked, evs...), 1)
		if got := types(evs); got != "USER_CONFIRM_RESULT REPLY_START TOOL_RESULT_START TOOL_RESULT_TEXT_DELTA TOOL_RESULT_END REPLY_END" {
			t.Fatalf("rescue logged %s", got)
		}
		if rs := evs[1].ev.(*event.ReplyStart); rs.ReplyID != parked[0].ev.(*event.ReplyStart).ReplyID {
			t.Fatalf("the rescue opened reply %s, not the parked one", rs.ReplyID)
		}
		if res := evs[4].ev.(*event.ToolResultEnd); res.State != block.ResultInterrupted || res.ToolCallID != "c1" {
			t.Fatalf("tool result %+v", res)
		}
		e.waitStatus(sid, "idle")
		if msgs := checkLogFold(t, e, k); len(msgs) != 2 {
			t.Fatalf("transcript has %d messages", len(msgs))
		}
		if n := e.notes.Load(); n != 0 {
			t.Fatalf("save_note ran %d times", n)
		}
		if n, _ := e.store.PendingInputs(context.Background(), k); n != 0 {
			t.Fatalf("%d inputs pending", n)
		}
	})
	t.Run("interrupt", func(t *testing.T) {
		e, sid, k, s, parked := parkOnNote(t)
		stop := &event.UserInterrupt{}
		event.Stamp(stop, nil)
		deadRunOf(t, e.store, k, "dead-process", ttl, string(event.Marshal(stop)), nil)
		evs := s.until(event.TypeReplyEnd)
		checkSeqs(t, append(parked, evs...), 1)
		if got := types(evs); got != "REPLY_START TOOL_RESULT_START TOOL_RESULT_TEXT_DELTA TOOL_RESULT_END REPLY_END" {
			t.Fatalf("rescue logged %s", got)
		}
		e.waitStatus(sid, "idle")
		if msgs := checkLogFold(t, e, k); len(msgs) != 2 {
			t.Fatalf("transcript has %d messages", len(msgs))
		}
	})
}

// checkLogFold checks that the session's replies, folded from the whole
// log, are the transcript's assistant messages, and that the saved state's
// context is the transcript (message for message; the user's messages and
// the interrupted replies exactly); it returns the transcript.
func checkLogFold(t *testing.T, e *env, k session.Key) []*message.Msg {
	t.Helper()
	ctx := context.Background()
	raw, err := e.store.ReadEvents(ctx, k, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	folds := map[string]*message.Msg{}
	for _, r := range raw {
		ev, err := event.Decode(r.JSON)
		if err != nil {
			t.Fatal(err)
		}
		if rs, ok := ev.(*event.ReplyStart); ok && folds[rs.ReplyID] == nil {
			if folds[rs.ReplyID], err = message.AssistantMsg(rs.Name, nil, message.WithID(rs.ReplyID), message.WithCreatedAt(rs.CreatedAt)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if rid, ok := event.ReplyIDOf(ev); ok && folds[rid] != nil {
			if _, start := ev.(*event.ReplyStart); start {
				continue
			}
			if err := folds[rid].AppendEvent(ev); err != nil {
				t.Fatalf("fold %s: %v", ev.Type(), err)
			}
		}
	}
	page, err := e.store.ListMessages(ctx, k, session.MessageQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []*message.Msg
	replies := 0
	for i, m := range page.Messages {
		var msg message.Msg
		if err := json.Unmarshal(m.JSON, &msg); err != nil {
			t.Fatal(err)
		}
		if err := msg.Validate(); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		msgs = append(msgs, &msg)
		if msg.Role != event.RoleAssistant {
			continue
		}
		replies++
		f := folds[msg.ID]
		if f == nil {
			t.Fatalf("reply %s of the transcript is not in the log", msg.ID)
		}
		if got, want := string(f.AppendJSON(nil)), string(m.JSON); got != want {
			t.Fatalf("reply %s: the log folds to\n%s\nthe transcript holds\n%s", msg.ID, got, want)
		}
	}
	if replies != len(folds) {
		t.Fatalf("the log has %d replies, the transcript %d", len(folds), replies)
	}
	saved, err := e.store.LoadState(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	var st struct{ Context []json.RawMessage }
	if err := json.Unmarshal(saved.JSON, &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Context) != len(page.Messages) {
		t.Fatalf("the state's context has %d messages, the transcript %d", len(st.Context), len(page.Messages))
	}
	for i := range st.Context {
		var a, b map[string]any
		if json.Unmarshal(st.Context[i], &a) != nil || json.Unmarshal(page.Messages[i].JSON, &b) != nil {
			t.Fatalf("context message %d: not JSON objects", i)
		}
		// A reply a run completed is in the state as the agent built it
		// (its own block ids and stamps), in the transcript as the log
		// folds; a user's message and a rescued reply are the same in
		// both.
		exact := b["role"] == "user" || b["finished_reason"] == string(event.ReplyInterrupted)
		if a["id"] != b["id"] || a["role"] != b["role"] || exact && !reflect.DeepEqual(a, b) {
			t.Fatalf("context message %d is\n%s\nthe transcript's\n%s", i, st.Context[i], page.Messages[i].JSON)
		}
	}
	return msgs
}
