package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/postgres/postgrestest"
)

func TestMain(m *testing.M) {
	if url := os.Getenv(clientEnv); url != "" {
		os.Exit(runBenchClient(url))
	}
	// PostgreSQL for every run: the replicas' tests (replicas_test.go)
	// need one whatever storeEnv says.
	goleak.VerifyTestMain(withPostgres{m})
}

// withPostgres runs the tests with a PostgreSQL server (postgrestest.Run).
type withPostgres struct{ m *testing.M }

func (p withPostgres) Run() int { return postgrestest.Run(p.m) }

var (
	textTurn = scripted.Stream(scripted.Text("Hello"), scripted.Text(" world"))
	noteTurn = scripted.Stream(scripted.ToolCall("c1", "save_note", `{"text":"milk"}`))
	waitTurn = scripted.Stream(scripted.ToolCall("w1", "wait", `{}`))
	doneTurn = scripted.Stream(scripted.Text("Done."))
)

func TestHealthAgentsAndSessions(t *testing.T) {
	e := newEnv(t, nil, nil)
	if r := e.do("GET", "/health", "-", ""); r.code != 200 || r.json(t)["status"] != "ok" {
		t.Fatalf("health %d %s", r.code, r.body)
	}
	r := e.do("GET", "/agent/", user, "")
	if r.code != 200 || !strings.Contains(r.body, `"id":"a1"`) || r.json(t)["total"].(float64) != 1 {
		t.Fatalf("agents %d %s", r.code, r.body)
	}
	sid := e.createSession()
	other := e.do("POST", "/sessions", user, `{"agent_id":"a1","name":"second"}`)
	if other.code != 201 {
		t.Fatalf("create without slash: %d", other.code)
	}
	r = e.do("GET", "/sessions/?agent_id=a1", user, "")
	if r.code != 200 || r.json(t)["total"].(float64) != 2 || !strings.Contains(r.body, `"status":"idle"`) {
		t.Fatalf("list %d %s", r.code, r.body)
	}
	if r := e.do("GET", "/sessions", "bob", ""); r.code != 200 || r.json(t)["total"].(float64) != 0 {
		t.Fatalf("bob sees %s", r.body)
	}
	r = e.do("PATCH", "/sessions/"+sid, user, `{"name":"renamed","chat_model_config":{"model":"x"}}`)
	if r.code != 200 || !strings.Contains(r.body, `"name":"renamed"`) || !strings.Contains(r.body, `"chat_model_config":{"model":"x"}`) {
		t.Fatalf("patch %d %s", r.code, r.body)
	}
	r = e.do("PATCH", "/sessions/"+sid+"/", user, `{"chat_model_config":null}`)
	if r.code != 200 || !strings.Contains(r.body, `"chat_model_config":null`) || !strings.Contains(r.body, `"name":"renamed"`) {
		t.Fatalf("patch clear %d %s", r.code, r.body)
	}
	if r := e.do("DELETE", "/sessions/"+sid, "bob", ""); r.code != 404 {
		t.Fatalf("bob deletes: %d", r.code)
	}
	if r := e.do("DELETE", "/sessions/"+sid+"/", user, ""); r.code != 204 {
		t.Fatalf("delete: %d %s", r.code, r.body)
	}
	if r := e.do("GET", "/sessions/"+sid+"/status?agent_id=a1", user, ""); r.code != 404 {
		t.Fatalf("status after delete: %d", r.code)
	}
}

// A reply streams over SSE with gapless sequences; its input and reply are
// in the transcript, and folding its events gives the stored reply.
func TestChatStreamsAndPersists(t *testing.T) {
	e := newEnv(t, []scripted.Turn{textTurn}, nil)
	sid := e.createSession()
	s := e.openStream(sid, "")
	if r := e.chat(sid, userMsg("hi")); r.code != 200 || r.body != fmt.Sprintf(`{"status":"started","session_id":%q}`, sid) {
		t.Fatalf("chat %d %s", r.code, r.body)
	}
	evs := s.until(event.TypeReplyEnd)
	checkSeqs(t, evs, 1)
	if got := types(evs); got != "REPLY_START MODEL_CALL_START TEXT_BLOCK_START TEXT_BLOCK_DELTA TEXT_BLOCK_DELTA TEXT_BLOCK_END MODEL_CALL_END REPLY_END" {
		t.Fatalf("events %s", got)
	}
	if s := e.status(sid); s != "idle" {
		t.Fatalf("status after REPLY_END %s", s)
	}
	r := e.do("GET", "/sessions/"+sid+"/messages", user, "")
	var page struct {
		Messages  []json.RawMessage `json:"messages"`
		IsRunning bool              `json:"is_running"`
		HasMore   bool              `json:"has_more"`
	}
	if err := json.Unmarshal([]byte(r.body), &page); err != nil || len(page.Messages) != 2 || page.IsRunning || page.HasMore {
		t.Fatalf("messages %s (%v)", r.body, err)
	}
	var in, reply message.Msg
	if err := json.Unmarshal(page.Messages[0], &in); err != nil || in.Role != event.RoleUser {
		t.Fatalf("first message %s", page.Messages[0])
	}
	if err := json.Unmarshal(page.Messages[1], &reply); err != nil {
		t.Fatal(err)
	}
	folded := foldReply(t, evs)
	if got, want := string(folded.AppendJSON(nil)), string(reply.AppendJSON(nil)); got != want {
		t.Fatalf("fold of the events\n%s\nstored reply\n%s", got, want)
	}
	if text, _ := reply.TextContent(""); text != "Hello world" || reply.FinishedReason != event.ReplyCompleted {
		t.Fatalf("reply %q %s", text, reply.FinishedReason)
	}
	// Pagination walks backwards.
	r = e.do("GET", "/sessions/"+sid+"/messages?limit=1", user, "")
	if err := json.Unmarshal([]byte(r.body), &page); err != nil || len(page.Messages) != 1 || !page.HasMore {
		t.Fatalf("page %s", r.body)
	}
	r = e.do("GET", "/sessions/"+sid+"/messages?limit=1&before="+reply.ID, user, "")
	if err := json.Unmarshal([]byte(r.body), &page); err != nil || len(page.Messages) != 1 || page.HasMore || !strings.Contains(string(page.Messages[0]), `"role":"user"`) {
		t.Fatalf("page before %s", r.body)
	}
}

// foldReply applies a reply's events to an empty assistant message.
func foldReply(t testing.TB, evs []sseEvent) *message.Msg {
	t.Helper()
	start := evs[0].ev.(*event.ReplyStart)
	m, err := message.AssistantMsg(start.Name, nil, message.WithID(start.ReplyID), message.WithCreatedAt(start.CreatedAt))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if err := m.AppendEvent(e.ev); err != nil {
			t.Fatalf("fold %s: %v", e.ev.Type(), err)
		}
	}
	return m
}

func confirmJSON(t testing.TB, e *env, sid string, approve bool) string {
	t.Helper()
	st, err := e.store.LoadState(context.Background(), session.Key{UserID: user, SessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	var probe struct {
		ReplyContext struct {
			ReplyID string `json:"reply_id"`
		} `json:"reply_context"`
		Context []json.RawMessage `json:"context"`
	}
	if err := json.Unmarshal(st.JSON, &probe); err != nil {
		t.Fatal(err)
	}
	var tail message.Msg
	if err := json.Unmarshal(probe.Context[len(probe.Context)-1], &tail); err != nil {
		t.Fatal(err)
	}
	var call *block.ToolCall
	for _, b := range tail.Content {
		if c, ok := b.(*block.ToolCall); ok && c.State == block.CallAsking {
			call = c
		}
	}
	if call == nil {
		t.Fatal("no asking call in the saved state")
	}
	ev := &event.UserConfirmResult{ReplyID: probe.ReplyContext.ReplyID,
		ConfirmResults: []event.ConfirmResult{{Confirmed: approve, ToolCall: call}}}
	event.Stamp(ev, nil)
	return string(event.Marshal(ev))
}

// A reply parks on a confirmation (no goroutine, no lease), resumes with
// REPLY_START under the same id exactly once, and completes; the tool ran
// once.
func TestParkConfirmResume(t *testing.T) {
	e := newEnv(t, []scripted.Turn{noteTurn, doneTurn}, nil)
	sid := e.createSession()
	s := e.openStream(sid, "")
	if r := e.chat(sid, userMsg("note milk")); r.code != 200 {
		t.Fatalf("chat %d %s", r.code, r.body)
	}
	first := s.until(event.TypeRequireUserConfirm)
	if st := e.status(sid); st != "awaiting_permission" {
		t.Fatalf("status %s", st)
	}
	if l, err := leaseOf(context.Background(), e.store, session.Key{UserID: user, SessionID: sid}); err != nil || l.Held(time.Now()) {
		t.Fatalf("parked session still leased: %+v %v", l, err)
	}
	replyID := first[0].ev.(*event.ReplyStart).ReplyID
	if r := e.chat(sid, confirmJSON(t, e, sid, true)); r.code != 200 {
		t.Fatalf("confirm %d %s", r.code, r.body)
	}
	second := s.until(event.TypeReplyEnd)
	all := append(first, second...)
	checkSeqs(t, all, 1)
	if got := types(second[:3]); got != "USER_CONFIRM_RESULT REPLY_START TOOL_RESULT_START" {
		t.Fatalf("resume starts %s", got)
	}
	starts := 0
	for _, ev := range second {
		if rs, ok := ev.ev.(*event.ReplyStart); ok {
			starts++
			if rs.ReplyID != replyID {
				t.Fatalf("resume REPLY_START id %s, want %s", rs.ReplyID, replyID)
			}
		}
	}
	if starts != 1 {
		t.Fatalf("%d REPLY_STARTs in the resume", starts)
	}
	if end := second[len(second)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyCompleted {
		t.Fatalf("end %+v", end)
	}
	if n := e.notes.Load(); n != 1 {
		t.Fatalf("save_note ran %d times", n)
	}
	// The stored reply is the fold of every event of the reply.
	r := e.do("GET", "/sessions/"+sid+"/messages", user, "")
	var page struct{ Messages []json.RawMessage }
	json.Unmarshal([]byte(r.body), &page)
	if len(page.Messages) != 2 {
		t.Fatalf("transcript %s", r.body)
	}
	var reply message.Msg
	json.Unmarshal(page.Messages[1], &reply)
	if got, want := string(foldReply(t, all).AppendJSON(nil)), string(reply.AppendJSON(nil)); got != want {
		t.Fatalf("fold\n%s\nstored\n%s", got, want)
	}
	// A second confirm finds nothing parked: refused, nothing changes.
	before := e.snap(sid)
	if r := e.chat(sid, confirmJSON2(t, all)); r.code != 422 {
		t.Fatalf("double confirm %d %s", r.code, r.body)
	}
	if after := e.snap(sid); after != before {
		t.Fatalf("double confirm changed %+v to %+v", before, after)
	}
}

// confirmJSON2 rebuilds the confirm from the REQUIRE_USER_CONFIRM event.
func confirmJSON2(t testing.TB, evs []sseEvent) string {
	for _, ev := range evs {
		if rq, ok := ev.ev.(*event.RequireUserConfirm); ok {
			c := &event.UserConfirmResult{ReplyID: rq.ReplyID, ConfirmResults: []event.ConfirmResult{{Confirmed: true, ToolCall: rq.ToolCalls[0]}}}
			event.Stamp(c, nil)
			return string(event.Marshal(c))
		}
	}
	t.Fatal("no REQUIRE_USER_CONFIRM")
	return ""
}

// Dropping the connection after event k and reconnecting with
// Last-Event-ID: k (or ?since=k) gives k+1… with no gap and no duplicate,
// also while the run is live.
func TestReconnectWithLastEventID(t *testing.T) {
	steps := []scripted.Step{}
	for i := range 40 {
		steps = append(steps, scripted.Text(fmt.Sprintf("w%d ", i)))
		if i%10 == 5 {
			steps = append(steps, scripted.Pause(5*time.Millisecond))
		}
		if i == 3 {
			// The reconnect below happens while the run is live.
			steps = append(steps, scripted.Pause(400*time.Millisecond))
		}
	}
	e := newEnv(t, []scripted.Turn{scripted.Stream(steps...), textTurn}, nil)
	sid := e.createSession()
	s := e.openStream(sid, "")
	if r := e.chat(sid, userMsg("go")); r.code != 200 {
		t.Fatal(r.body)
	}
	var got []sseEvent
	for range 7 {
		got = append(got, s.next())
	}
	s.close()
	if st := e.status(sid); st != "running" {
		t.Fatalf("status %q at the reconnect: the run is not live", st)
	}
	k := got[len(got)-1].seq
	s2 := e.openStream(sid, "", "Last-Event-ID", fmt.Sprint(k))
	got = append(got, s2.until(event.TypeReplyEnd)...)
	checkSeqs(t, got, 1)
	// After the run, ?since= replays from the log.
	s3 := e.openStream(sid, "?since=3")
	rest := s3.until(event.TypeReplyEnd)
	checkSeqs(t, rest, 4)
	if len(rest) != len(got)-3 {
		t.Fatalf("replay of %d events, want %d", len(rest), len(got)-3)
	}
	// Across runs: the second reply continues the sequence.
	if r := e.chat(sid, userMsg("again")); r.code != 200 {
		t.Fatal(r.body)
	}
	next := s3.until(event.TypeReplyEnd)
	checkSeqs(t, next, got[len(got)-1].seq+1)
	if s3.beats.Load() == 0 {
		time.Sleep(120 * time.Millisecond)
	}
	if b := s3.beats.Load(); b == 0 {
		t.Fatal("no heartbeat")
	}
}

// A stream opened without a cursor while a run is live starts at that
// run's first event, on the session's first run (seq 1) as on later ones;
// opened between runs, it starts with the next event.
func TestStreamWithoutCursorJoinsTheRun(t *testing.T) {
	slow := scripted.Stream(scripted.Text("a"), scripted.Pause(300*time.Millisecond), scripted.Text("b"))
	e := newEnv(t, []scripted.Turn{slow, slow}, nil)
	sid := e.createSession()
	var end int64
	for run := range 2 {
		if run == 1 {
			idle := e.openStream(sid, "")
			if r := e.chat(sid, userMsg("again")); r.code != 200 {
				t.Fatal(r.body)
			}
			if first := idle.next(); first.ev.Type() != event.TypeReplyStart || first.seq != end+1 {
				t.Fatalf("opened between runs: first event seq %d %s, want REPLY_START seq %d", first.seq, first.ev.Type(), end+1)
			}
			idle.close()
		} else if r := e.chat(sid, userMsg("go")); r.code != 200 {
			t.Fatal(r.body)
		}
		time.Sleep(50 * time.Millisecond) // inside the model's pause
		if st := e.status(sid); st != "running" {
			t.Fatalf("run %d: status %q, want running", run, st)
		}
		s := e.openStream(sid, "")
		got := s.until(event.TypeReplyEnd)
		s.close()
		if got[0].ev.Type() != event.TypeReplyStart || got[0].seq != end+1 {
			t.Fatalf("run %d: joined mid-run without a cursor: first event seq %d %s, want REPLY_START seq %d", run, got[0].seq, got[0].ev.Type(), end+1)
		}
		checkSeqs(t, got, end+1)
		end = got[len(got)-1].seq
	}
}

// 100 concurrent SSE clients on one session all receive the same sequence.
func TestHundredClients(t *testing.T) {
	var steps []scripted.Step
	for i := range 200 {
		steps = append(steps, scripted.Text(fmt.Sprint(i)))
	}
	e := newEnv(t, []scripted.Turn{scripted.Stream(steps...)}, nil)
	sid := e.createSession()
	streams := make([]*stream, 100)
	for i := range streams {
		streams[i] = e.openStream(sid, "")
	}
	if r := e.chat(sid, userMsg("go")); r.code != 200 {
		t.Fatal(r.body)
	}
	want := streams[0].until(event.TypeReplyEnd)
	checkSeqs(t, want, 1)
	var wg sync.WaitGroup
	errs := make(chan error, len(streams))
	for _, s := range streams[1:] {
		wg.Go(func() {
			got := s.until(event.TypeReplyEnd)
			if len(got) != len(want) {
				errs <- fmt.Errorf("got %d events, want %d", len(got), len(want))
				return
			}
			for i := range got {
				if got[i].seq != want[i].seq || got[i].raw != want[i].raw {
					errs <- fmt.Errorf("event %d differs", i)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// Interrupting a running reply cancels it properly: the running tool gets
// an interrupted result and the reply ends with REPLY_END(interrupted).
func TestInterruptRunning(t *testing.T) {
	e := newEnv(t, []scripted.Turn{waitTurn}, nil)
	sid := e.createSession()
	s := e.openStream(sid, "")
	if r := e.chat(sid, userMsg("wait")); r.code != 200 {
		t.Fatal(r.body)
	}
	<-e.waiting
	if st := e.status(sid); st != "running" {
		t.Fatalf("status %s", st)
	}
	if r := e.chat(sid, userMsg("again")); r.code != 409 {
		t.Fatalf("chat while running: %d %s", r.code, r.body)
	}
	if r := e.do("PATCH", "/sessions/"+sid, user, `{"name":"x"}`); r.code != 409 {
		t.Fatalf("patch while running: %d", r.code)
	}
	if r := e.do("POST", "/sessions/"+sid+"/interrupt", user, ""); r.code != 202 {
		t.Fatalf("interrupt %d %s", r.code, r.body)
	}
	evs := s.until(event.TypeReplyEnd)
	checkInterruptedEnd(t, evs)
	e.waitStatus(sid, "idle")
}

// Interrupting a parked reply closes it: REPLY_START (same id), the
// pending call answered, REPLY_END(interrupted); the tool never ran.
func TestInterruptParked(t *testing.T) {
	e := newEnv(t, []scripted.Turn{noteTurn}, nil)
	sid := e.createSession()
	s := e.openStream(sid, "")
	e.chat(sid, userMsg("note"))
	first := s.until(event.TypeRequireUserConfirm)
	if r := e.do("POST", "/sessions/"+sid+"/interrupt/", user, ""); r.code != 202 {
		t.Fatalf("interrupt %d", r.code)
	}
	evs := s.until(event.TypeReplyEnd)
	if evs[0].ev.Type() != event.TypeReplyStart || evs[0].ev.(*event.ReplyStart).ReplyID != first[0].ev.(*event.ReplyStart).ReplyID {
		t.Fatalf("interrupt of a parked reply: %s", types(evs))
	}
	if end := evs[len(evs)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyInterrupted {
		t.Fatalf("end %+v", end)
	}
	if e.status(sid) != "idle" || e.notes.Load() != 0 {
		t.Fatalf("status %s, notes %d", e.status(sid), e.notes.Load())
	}
	// An interrupt of an idle session changes nothing.
	before := e.snap(sid)
	if r := e.do("POST", "/sessions/"+sid+"/interrupt", user, ""); r.code != 202 {
		t.Fatal(r.code)
	}
	if after := e.snap(sid); after != before {
		t.Fatalf("idle interrupt changed %+v to %+v", before, after)
	}
}

// A model failure after REPLY_START closes the reply with a typed
// REPLY_END(error).
func TestFailedReplyIsClosed(t *testing.T) {
	broken := scripted.Stream(scripted.Text("par"), scripted.Fail(&model.Error{Type: event.ErrRateLimit, Message: "slow down"}))
	e := newEnv(t, []scripted.Turn{broken}, nil)
	sid := e.createSession()
	s := e.openStream(sid, "")
	e.chat(sid, userMsg("hi"))
	evs := s.until(event.TypeReplyEnd)
	end := evs[len(evs)-1].ev.(*event.ReplyEnd)
	if end.FinishedReason != event.ReplyError || end.Error == nil || end.Error.Type != event.ErrRateLimit {
		t.Fatalf("end %+v", end)
	}
	e.waitStatus(sid, "idle")
	r := e.do("GET", "/sessions/"+sid+"/messages", user, "")
	if !strings.Contains(r.body, `"finished_reason":"error"`) {
		t.Fatalf("stored reply %s", r.body)
	}
}

// Shutdown interrupts a running reply properly and leaves a parked one
// parked; no goroutine outlives it (goleak in TestMain).
func TestShutdown(t *testing.T) {
	e := newEnv(t, []scripted.Turn{noteTurn, waitTurn}, nil)
	parked, busy := e.createSession(), e.createSession()
	ps := e.openStream(parked, "")
	e.chat(parked, userMsg("note"))
	ps.until(event.TypeRequireUserConfirm)
	bs := e.openStream(busy, "")
	e.chat(busy, userMsg("wait"))
	<-e.waiting
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	evs := bs.until(event.TypeReplyEnd)
	if end := evs[len(evs)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyInterrupted {
		t.Fatalf("end %+v", end)
	}
	if r := e.chat(parked, userMsg("x")); r.code != 503 {
		t.Fatalf("chat after shutdown %d", r.code)
	}
	k := session.Key{UserID: user, SessionID: busy}
	if l, _ := leaseOf(context.Background(), e.store, k); l.Held(time.Now()) {
		t.Fatal("lease kept after shutdown")
	}
	if n, _ := e.store.PendingInputs(context.Background(), k); n != 0 {
		t.Fatalf("%d inputs pending", n)
	}
	st, _ := e.store.LoadState(context.Background(), session.Key{UserID: user, SessionID: parked})
	if !strings.Contains(string(st.JSON), `"state":"asking"`) {
		t.Fatal("the parked reply is no longer parked")
	}
}

// Deleting a running session cancels its run first.
func TestDeleteRunning(t *testing.T) {
	e := newEnv(t, []scripted.Turn{waitTurn}, nil)
	sid := e.createSession()
	e.chat(sid, userMsg("wait"))
	<-e.waiting
	if r := e.do("DELETE", "/sessions/"+sid, user, ""); r.code != 204 {
		t.Fatalf("delete %d %s", r.code, r.body)
	}
	if _, err := e.store.GetSession(context.Background(), session.Key{UserID: user, SessionID: sid}); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("session still there: %v", err)
	}
}

// Whoever sees a park, live or in a replay, can answer it at once: the
// park is logged only after the session is free (50 rounds, each
// confirming the moment the event arrives).
func TestConfirmAtOnce(t *testing.T) {
	e := newEnv(t, nil, nil)
	for i := range 50 {
		sid := e.createSession()
		e.model.Append(noteTurn, doneTurn)
		if r := e.chat(sid, userMsg("note")); r.code != 200 {
			t.Fatal(r.body)
		}
		// Connected after the run started: the park may come from the
		// replay of the log.
		s := e.openStream(sid, "?since=0")
		parked := s.until(event.TypeRequireUserConfirm)
		if r := e.chat(sid, confirmJSON2(t, parked)); r.code != 200 {
			t.Fatalf("round %d: confirm at once: %d %s", i, r.code, r.body)
		}
		s.until(event.TypeReplyEnd)
		s.close()
	}
}

// A session's permission_mode (PATCH) tightens the agent's mode and never
// loosens it: explore denies the call the agent would ask for; bypass
// asked for by a user leaves the agent asking; an unknown mode is 422.
func TestSessionPermissionModeOnlyTightens(t *testing.T) {
	e := newEnv(t, []scripted.Turn{noteTurn, doneTurn, noteTurn}, nil)
	sid := e.createSession()
	if r := e.do("PATCH", "/sessions/"+sid, user, `{"permission_mode":"explore"}`); r.code != 200 || !strings.Contains(r.body, `"permission_mode":"explore"`) {
		t.Fatalf("patch explore: %d %s", r.code, r.body)
	}
	s := e.openStream(sid, "")
	if r := e.chat(sid, userMsg("note milk")); r.code != 200 {
		t.Fatalf("chat: %d %s", r.code, r.body)
	}
	evs := s.until(event.TypeReplyEnd)
	denied := false
	for _, ev := range evs {
		if end, ok := ev.ev.(*event.ToolResultEnd); ok && end.State == block.ResultDenied {
			denied = true
		}
		if ev.ev.Type() == event.TypeRequireUserConfirm {
			t.Fatalf("explore asked instead of denying")
		}
	}
	if !denied || e.notes.Load() != 0 {
		t.Fatalf("denied %v, notes %d", denied, e.notes.Load())
	}

	other := e.createSession()
	if r := e.do("PATCH", "/sessions/"+other, user, `{"permission_mode":"bypass"}`); r.code != 200 {
		t.Fatalf("patch bypass: %d %s", r.code, r.body)
	}
	s2 := e.openStream(other, "")
	if r := e.chat(other, userMsg("note milk")); r.code != 200 {
		t.Fatalf("chat: %d %s", r.code, r.body)
	}
	s2.until(event.TypeRequireUserConfirm)
	if e.notes.Load() != 0 {
		t.Fatalf("a user's bypass ran the tool unasked")
	}
}
