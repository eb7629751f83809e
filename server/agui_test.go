package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// aguiEvent is one AG-UI event of a POST /agui run.
type aguiEvent map[string]any

func (a aguiEvent) typ() string { s, _ := a["type"].(string); return s }

func (a aguiEvent) str(k string) string { s, _ := a[k].(string); return s }

// aguiRun is the answer to one POST /agui/{agent}.
type aguiRun struct {
	code   int
	ctype  string
	body   string
	events []aguiEvent
}

func (r aguiRun) types() string {
	var b []string
	for _, e := range r.events {
		b = append(b, e.typ())
	}
	return strings.Join(b, " ")
}

// last is the run's last event.
func (r aguiRun) last() aguiEvent {
	if len(r.events) == 0 {
		return nil
	}
	return r.events[len(r.events)-1]
}

// outcome is the RUN_FINISHED outcome's type ("" when the run did not
// end with RUN_FINISHED).
func (r aguiRun) outcome() string {
	l := r.last()
	if l.typ() != "RUN_FINISHED" {
		return ""
	}
	o, _ := l["outcome"].(map[string]any)
	s, _ := o["type"].(string)
	return s
}

// interrupts are the ids of the RUN_FINISHED interrupt outcome.
func (r aguiRun) interrupts() []map[string]any {
	o, _ := r.last()["outcome"].(map[string]any)
	list, _ := o["interrupts"].([]any)
	var out []map[string]any
	for _, in := range list {
		out = append(out, in.(map[string]any))
	}
	return out
}

// find is the first event of type typ, or nil.
func (r aguiRun) find(typ string) aguiEvent {
	for _, e := range r.events {
		if e.typ() == typ {
			return e
		}
	}
	return nil
}

// aguiInput is a RunAgentInput body.
func aguiInput(thread, run string, msgs []map[string]any, resume ...map[string]any) string {
	in := map[string]any{"threadId": thread, "runId": run, "messages": msgs, "tools": []any{}, "context": []any{}, "state": map[string]any{}, "forwardedProps": map[string]any{}}
	if msgs == nil {
		in["messages"] = []any{}
	}
	if len(resume) > 0 {
		in["resume"] = resume
	}
	b, _ := json.Marshal(in)
	return string(b)
}

func aguiUser(id, text string) map[string]any {
	return map[string]any{"id": id, "role": "user", "content": text}
}

// agui posts one run as u and reads its stream to the end, checking the
// framing and the run's shape as @ag-ui/client's verifyEvents does.
func (e *env) agui(agentID, body, u string, hdr ...string) aguiRun {
	e.t.Helper()
	r := e.do("POST", "/agui/"+agentID, u, body, append([]string{"Accept", "text/event-stream"}, hdr...)...)
	return e.aguiParse(r)
}

func (e *env) aguiParse(r response) aguiRun {
	e.t.Helper()
	out := aguiRun{code: r.code, body: r.body}
	if r.code != 200 {
		return out
	}
	out.events = parseAGUIFrames(e.t, r.body)
	verifyAGUIRun(e.t, out.events)
	return out
}

// parseAGUIFrames reads an AG-UI SSE body: "data: <json>\n\n" frames and
// ":" heartbeats, LF only, no null anywhere.
func parseAGUIFrames(t testing.TB, body string) []aguiEvent {
	t.Helper()
	if strings.Contains(body, "\r") {
		t.Fatalf("CR in the stream: %q", body)
	}
	if !strings.HasSuffix(body, "\n\n") {
		t.Fatalf("the stream does not end with a frame's end: %q", body)
	}
	var evs []aguiEvent
	for _, frame := range strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n") {
		if frame == ":" {
			continue
		}
		data, ok := strings.CutPrefix(frame, "data: ")
		if !ok || strings.Contains(data, "\n") {
			t.Fatalf("frame %q is not one data line", frame)
		}
		if strings.Contains(data, "null") {
			t.Fatalf("a null in %s", data)
		}
		var ev aguiEvent
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("frame %q: %v", frame, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// verifyAGUIRun holds a run to what @ag-ui/client's verifyEvents checks:
// RUN_STARTED first and once, one end last, a lane's content and end only
// while it is open, nothing open at the end, a step finished by its name.
func verifyAGUIRun(t testing.TB, evs []aguiEvent) {
	t.Helper()
	if len(evs) == 0 || evs[0].typ() != "RUN_STARTED" {
		t.Fatalf("the run does not start with RUN_STARTED: %v", evs)
	}
	open := map[string]bool{}
	step := ""
	for i, ev := range evs {
		lane := func(kind, idKey string) string { return kind + ":" + ev.str(idKey) }
		switch typ := ev.typ(); typ {
		case "RUN_STARTED":
			if i != 0 {
				t.Fatalf("event %d: a second RUN_STARTED", i)
			}
		case "RUN_FINISHED", "RUN_ERROR":
			if i != len(evs)-1 {
				t.Fatalf("event %d: %s before the end: %v", i, typ, evs[i+1:])
			}
			if typ == "RUN_FINISHED" && (len(open) > 0 || step != "") {
				t.Fatalf("RUN_FINISHED with %v and step %q open", open, step)
			}
		case "TEXT_MESSAGE_START", "REASONING_MESSAGE_START", "TOOL_CALL_START":
			idKey := "messageId"
			if typ == "TOOL_CALL_START" {
				idKey = "toolCallId"
			}
			id := lane(strings.SplitN(typ, "_", 2)[0], idKey)
			if open[id] {
				t.Fatalf("event %d: %s opened twice", i, id)
			}
			open[id] = true
		case "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END":
			id := lane(strings.SplitN(typ, "_", 2)[0], "messageId")
			if !open[id] {
				t.Fatalf("event %d: %s for %s, not open", i, typ, id)
			}
			if strings.HasSuffix(typ, "_END") {
				delete(open, id)
			}
		case "TOOL_CALL_ARGS", "TOOL_CALL_END":
			id := lane("TOOL", "toolCallId")
			if !open[id] {
				t.Fatalf("event %d: %s for %s, not open", i, typ, id)
			}
			if typ == "TOOL_CALL_END" {
				delete(open, id)
			}
		case "STEP_STARTED":
			if step != "" {
				t.Fatalf("event %d: a step in step %q", i, step)
			}
			step = ev.str("stepName")
		case "STEP_FINISHED":
			if step == "" || ev.str("stepName") != step {
				t.Fatalf("event %d: STEP_FINISHED %q, open %q", i, ev.str("stepName"), step)
			}
			step = ""
		}
	}
	if end := evs[len(evs)-1].typ(); end != "RUN_FINISHED" && end != "RUN_ERROR" {
		t.Fatalf("the run ends with %s", end)
	}
}

// transcript is the user's session's messages, oldest first.
func (e *env) transcript(sid string) []*message.Msg {
	e.t.Helper()
	page, err := e.store.ListMessages(context.Background(), session.Key{UserID: user, SessionID: sid}, session.MessageQuery{Limit: 1000})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []*message.Msg
	for _, m := range page.Messages {
		var msg message.Msg
		if err := json.Unmarshal(m.JSON, &msg); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, &msg)
	}
	return out
}

// A run streams the reply as AG-UI events: RUN_STARTED with the thread
// and the request's runId, the model's step, the text, RUN_FINISHED with
// success. The thread is created as the user's session of the agent, with
// the client's message under its id; the next run, carrying the whole
// history as clients do, gives the model only the new message.
func TestAGUIStreamedText(t *testing.T) {
	e := newEnvWith(t, envOpts{record: true, turns: []scripted.Turn{textTurn, doneTurn}})
	r := e.agui("a1", aguiInput("thread-1", "run-1", []map[string]any{aguiUser("m1", "hi")}), user)
	if r.code != 200 {
		t.Fatalf("run: %d %s", r.code, r.body)
	}
	if got := r.types(); got != "RUN_STARTED STEP_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END STEP_FINISHED RUN_FINISHED" {
		t.Fatalf("events %s", got)
	}
	if s := r.events[0]; s.str("threadId") != "thread-1" || s.str("runId") != "run-1" {
		t.Fatalf("RUN_STARTED %v", s)
	}
	if end := r.last(); end.str("threadId") != "thread-1" || end.str("runId") != "run-1" || r.outcome() != "success" {
		t.Fatalf("RUN_FINISHED %v", end)
	}
	var text string
	for _, ev := range r.events {
		if ev.typ() == "TEXT_MESSAGE_CONTENT" {
			text += ev.str("delta")
		}
	}
	if text != "Hello world" {
		t.Fatalf("text %q", text)
	}
	msgs := e.transcript("thread-1")
	if len(msgs) != 2 || msgs[0].ID != "m1" || msgs[0].Role != event.RoleUser || msgs[1].FinishedReason != event.ReplyCompleted {
		t.Fatalf("transcript %v", msgs)
	}
	// runId is the client's; the reply's id is in RUN_STARTED's metadata.
	if md, _ := r.events[0]["metadata"].(map[string]any); md["replyId"] != msgs[1].ID {
		t.Fatalf("RUN_STARTED %v, the reply %s", r.events[0], msgs[1].ID)
	}
	if got := e.agentOf("thread-1"); got != "a1" {
		t.Fatalf("the thread is a session of %q", got)
	}

	// The client's history: its message, the reply as it built it, a new
	// message. Only m2 is new.
	reply := map[string]any{"id": r.find("TEXT_MESSAGE_START").str("messageId"), "role": "assistant", "content": "Hello world"}
	r = e.agui("a1", aguiInput("thread-1", "run-2", []map[string]any{aguiUser("m1", "hi"), reply, aguiUser("m2", "again")}), user)
	if r.code != 200 || r.outcome() != "success" || r.events[0].str("runId") != "run-2" {
		t.Fatalf("second run: %d %s", r.code, r.body)
	}
	msgs = e.transcript("thread-1")
	if len(msgs) != 4 || msgs[2].ID != "m2" {
		t.Fatalf("transcript after the second run: %d messages", len(msgs))
	}
	calls := e.model.Calls()
	if len(calls) != 2 || strings.Count(string(calls[1].Messages), `"again"`) != 1 || strings.Count(string(calls[1].Messages), `"hi"`) != 1 {
		t.Fatalf("the model's calls (%d): the history doubled or lost: %s", len(calls), calls[len(calls)-1].Messages)
	}
	// The same request again (a retry) holds nothing new: refused, and
	// nothing runs.
	before := e.snap("thread-1")
	r = e.agui("a1", aguiInput("thread-1", "run-3", []map[string]any{aguiUser("m1", "hi"), aguiUser("m2", "again")}), user)
	if r.code != 422 || !strings.Contains(r.body, "nothing to run") {
		t.Fatalf("a retry: %d %s", r.code, r.body)
	}
	if after := e.snap("thread-1"); after != before {
		t.Fatalf("a refused retry changed %+v to %+v", before, after)
	}
}

// A call that asks parks the run: RUN_FINISHED with an interrupt for it;
// resume[] approving it runs the tool and completes the reply in the next
// run, which a second resume then finds nothing parked for.
func TestAGUIConfirmApprove(t *testing.T) {
	e := newEnv(t, []scripted.Turn{noteTurn, doneTurn}, nil)
	r := e.agui("a1", aguiInput("t-ok", "run-1", []map[string]any{aguiUser("m1", "save milk")}), user)
	if r.code != 200 || r.outcome() != "interrupt" {
		t.Fatalf("run: %d %s", r.code, r.body)
	}
	ins := r.interrupts()
	if len(ins) != 1 || ins[0]["id"] != "confirm:c1" || ins[0]["toolCallId"] != "c1" || ins[0]["reason"] != "tool_call" {
		t.Fatalf("interrupts %v", ins)
	}
	if tc := r.find("TOOL_CALL_START"); tc == nil || tc.str("toolCallName") != "save_note" {
		t.Fatalf("no TOOL_CALL_START for save_note: %s", r.types())
	}
	if st := e.status("t-ok"); st != "awaiting_permission" || e.notes.Load() != 0 {
		t.Fatalf("status %s, notes %d", st, e.notes.Load())
	}
	r = e.agui("a1", aguiInput("t-ok", "run-2", []map[string]any{aguiUser("m1", "save milk")},
		map[string]any{"interruptId": "confirm:c1", "status": "resolved", "payload": map[string]any{"approved": true}}), user)
	if r.code != 200 || r.outcome() != "success" {
		t.Fatalf("resume: %d %s", r.code, r.body)
	}
	if md, _ := r.events[0]["metadata"].(map[string]any); md["replyId"] != ins[0]["metadata"].(map[string]any)["replyId"] {
		t.Fatalf("the resume's RUN_STARTED %v: not the parked reply's (%v)", r.events[0], ins[0]["metadata"])
	}
	res := r.find("TOOL_CALL_RESULT")
	if res == nil || res.str("toolCallId") != "c1" || res.str("content") != "saved: milk" || res.str("messageId") != "c1-result" {
		t.Fatalf("TOOL_CALL_RESULT %v in %s", res, r.types())
	}
	if e.notes.Load() != 1 || e.status("t-ok") != "idle" {
		t.Fatalf("notes %d, status %s", e.notes.Load(), e.status("t-ok"))
	}
	if msgs := e.transcript("t-ok"); len(msgs) != 2 || msgs[1].FinishedReason != event.ReplyCompleted {
		t.Fatalf("transcript %v", msgs)
	}
	before := e.snap("t-ok")
	r = e.agui("a1", aguiInput("t-ok", "run-3", nil, map[string]any{"interruptId": "confirm:c1", "status": "resolved"}), user)
	if r.code != 422 || !strings.Contains(r.body, "nothing_parked") {
		t.Fatalf("a second resume: %d %s", r.code, r.body)
	}
	if after := e.snap("t-ok"); after != before || e.notes.Load() != 1 {
		t.Fatalf("a refused resume changed %+v to %+v", before, after)
	}
}

// A cancelled interrupt denies the call: it does not run, the model gets
// the denial, the reply completes.
func TestAGUIConfirmDeny(t *testing.T) {
	e := newEnv(t, []scripted.Turn{noteTurn, doneTurn}, nil)
	if r := e.agui("a1", aguiInput("t-no", "run-1", []map[string]any{aguiUser("m1", "save milk")}), user); r.outcome() != "interrupt" {
		t.Fatalf("run: %d %s", r.code, r.body)
	}
	r := e.agui("a1", aguiInput("t-no", "run-2", nil, map[string]any{"interruptId": "confirm:c1", "status": "cancelled"}), user)
	if r.code != 200 || r.outcome() != "success" {
		t.Fatalf("resume: %d %s", r.code, r.body)
	}
	res := r.find("TOOL_CALL_RESULT")
	if res == nil || res.str("toolCallId") != "c1" || !strings.Contains(res.str("content"), "save_note") {
		t.Fatalf("TOOL_CALL_RESULT %v", res)
	}
	if e.notes.Load() != 0 {
		t.Fatalf("a denied call ran")
	}
	msgs := e.transcript("t-no")
	var denied bool
	for _, b := range msgs[len(msgs)-1].Content {
		if strings.Contains(string(b.AppendJSON(nil)), `"denied"`) {
			denied = true
		}
	}
	if !denied || msgs[len(msgs)-1].FinishedReason != event.ReplyCompleted {
		t.Fatalf("the stored reply has no denied result: %s", msgs[len(msgs)-1].AppendJSON(nil))
	}
}

// A call the client runs parks with an external interrupt; its result in
// resume[] reaches the model and the reply completes.
func TestAGUIExternalResult(t *testing.T) {
	e := newEnvWith(t, envOpts{external: true, record: true, turns: []scripted.Turn{
		scripted.Stream(scripted.ToolCall("x1", "lookup", `{"key":"answer"}`)),
		scripted.Stream(scripted.Text("It is 42.")),
	}})
	r := e.agui("a1", aguiInput("t-ext", "run-1", []map[string]any{aguiUser("m1", "look it up")}), user)
	ins := r.interrupts()
	if r.outcome() != "interrupt" || len(ins) != 1 || ins[0]["id"] != "external:x1" || ins[0]["reason"] != "agentscope:external_execution" {
		t.Fatalf("run: %d %s", r.code, r.body)
	}
	if st := e.status("t-ext"); st != "awaiting_external_result" {
		t.Fatalf("status %s", st)
	}
	r = e.agui("a1", aguiInput("t-ext", "run-2", nil, map[string]any{"interruptId": "external:x1", "status": "resolved", "payload": map[string]any{"result": "the client says 42"}}), user)
	if r.code != 200 || r.outcome() != "success" {
		t.Fatalf("resume: %d %s", r.code, r.body)
	}
	if res := r.find("TOOL_CALL_RESULT"); res == nil || res.str("content") != "the client says 42" {
		t.Fatalf("TOOL_CALL_RESULT %v", res)
	}
	calls := e.model.Calls()
	if len(calls) != 2 || !strings.Contains(string(calls[1].Messages), "the client says 42") {
		t.Fatalf("the model's second call did not carry the client's result (%d calls)", len(calls))
	}
}

// aguiLive is a run read as it streams.
type aguiLive struct {
	t      testing.TB
	res    *http.Response
	cancel context.CancelFunc
	events chan aguiEvent
	done   chan struct{}
	raw    strings.Builder
}

// aguiOpen posts a run and reads its events as they come; the test owns
// it (closed at cleanup).
func (e *env) aguiOpen(agentID, body string) *aguiLive {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", e.hs.URL+"/agui/"+agentID, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-User-ID", user)
	res, err := e.hs.Client().Do(req)
	if err != nil {
		cancel()
		e.t.Fatal(err)
	}
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		cancel()
		e.t.Fatalf("run: %d %s", res.StatusCode, b)
	}
	l := &aguiLive{t: e.t, res: res, cancel: cancel, events: make(chan aguiEvent, 1024), done: make(chan struct{})}
	go l.read()
	e.t.Cleanup(l.close)
	return l
}

func (l *aguiLive) read() {
	defer close(l.done)
	defer close(l.events)
	br := bufio.NewReader(l.res.Body)
	for {
		line, err := br.ReadString('\n')
		l.raw.WriteString(line)
		if err != nil {
			return
		}
		if data, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "data: "); ok {
			var ev aguiEvent
			if json.Unmarshal([]byte(data), &ev) == nil {
				l.events <- ev
			}
		}
	}
}

func (l *aguiLive) close() {
	l.cancel()
	l.res.Body.Close()
	<-l.done
}

// rest reads the run to its end and returns every event.
func (l *aguiLive) rest(have []aguiEvent) []aguiEvent {
	l.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-l.events:
			if !ok {
				return have
			}
			have = append(have, ev)
		case <-timeout:
			l.t.Fatalf("the run did not end within 10s: %v", have)
		}
	}
}

// The native interrupt ends a streaming AG-UI run as cancelled, the open
// tool call answered and every lane closed; while it runs, another run
// of the thread is refused as busy.
func TestAGUINativeInterrupt(t *testing.T) {
	e := newEnv(t, []scripted.Turn{waitTurn}, nil)
	l := e.aguiOpen("a1", aguiInput("t-int", "run-1", []map[string]any{aguiUser("m1", "wait")}))
	select {
	case <-e.waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("the tool did not start")
	}
	if r := e.agui("a1", aguiInput("t-int", "run-2", []map[string]any{aguiUser("m2", "and now?")}), user); r.code != 409 {
		t.Fatalf("a run of a busy thread: %d %s", r.code, r.body)
	}
	if r := e.do("POST", "/sessions/t-int/interrupt?agent_id=a1", user, ""); r.code != 202 {
		t.Fatalf("interrupt: %d %s", r.code, r.body)
	}
	evs := l.rest(nil)
	verifyAGUIRun(t, evs)
	run := aguiRun{events: evs}
	if run.outcome() != "cancelled" {
		t.Fatalf("outcome %q: %s", run.outcome(), run.types())
	}
	if res := run.find("TOOL_CALL_RESULT"); res == nil || res.str("toolCallId") != "w1" {
		t.Fatalf("the interrupted call has no result: %s", run.types())
	}
	if st := e.status("t-int"); st != "idle" {
		t.Fatalf("status %s", st)
	}
}

// A client that leaves mid-run interrupts the run: the reply closes as
// interrupted with its call answered, and the thread takes the next run.
func TestAGUIClientDisconnect(t *testing.T) {
	e := newEnv(t, []scripted.Turn{waitTurn, doneTurn}, nil)
	l := e.aguiOpen("a1", aguiInput("t-gone", "run-1", []map[string]any{aguiUser("m1", "wait")}))
	select {
	case <-e.waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("the tool did not start")
	}
	if ev := <-l.events; ev.typ() != "RUN_STARTED" {
		t.Fatalf("first event %v", ev)
	}
	l.close()
	e.waitStatus("t-gone", "idle")
	msgs := e.transcript("t-gone")
	if len(msgs) != 2 || msgs[1].FinishedReason != event.ReplyInterrupted {
		t.Fatalf("transcript after the client left: %d messages", len(msgs))
	}
	var last event.Event
	evs, err := e.store.ReadEvents(context.Background(), session.Key{UserID: user, SessionID: "t-gone"}, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if last, err = event.Decode(evs[len(evs)-1].JSON); err != nil {
		t.Fatal(err)
	}
	if end, ok := last.(*event.ReplyEnd); !ok || end.FinishedReason != event.ReplyInterrupted {
		t.Fatalf("the log ends with %s", evs[len(evs)-1].JSON)
	}
	r := e.agui("a1", aguiInput("t-gone", "run-2", []map[string]any{aguiUser("m1", "wait"), aguiUser("m2", "done?")}), user)
	if r.code != 200 || r.outcome() != "success" {
		t.Fatalf("the next run: %d %s", r.code, r.body)
	}
}

// A reply whose turn calls a tool that asks and one the client runs parks
// twice: on the confirmation (the calls run in order, so the external one
// waits), then, once approved, on the external execution. Each park is
// the run's interrupts, and each resume answers only the park it
// continues: a resume replayed from the first park finds nothing of its.
func TestAGUIParkTwice(t *testing.T) {
	var e *env
	e = newEnv(t, []scripted.Turn{
		scripted.Stream(scripted.ToolCall("c1", "save_note", `{"text":"milk"}`), scripted.ToolCall("x1", "lookup", `{"key":"k"}`)),
		doneTurn,
	}, func(c *server.Config) {
		c.Engine.Agents[0].New = func(st *state.AgentState) (*agent.Agent, error) { return e.mixedAgent(st) }
	})
	ids := func(r aguiRun) string {
		var out []string
		for _, in := range r.interrupts() {
			out = append(out, in["id"].(string))
		}
		return strings.Join(out, " ")
	}
	r := e.agui("a1", aguiInput("t-mix", "run-1", []map[string]any{aguiUser("m1", "both")}), user)
	if r.outcome() != "interrupt" || ids(r) != "confirm:c1" {
		t.Fatalf("run 1: %s %s", r.outcome(), ids(r))
	}
	approve := map[string]any{"interruptId": "confirm:c1", "status": "resolved"}
	r = e.agui("a1", aguiInput("t-mix", "run-2", nil, approve), user)
	if r.outcome() != "interrupt" || ids(r) != "external:x1" || e.notes.Load() != 1 {
		t.Fatalf("run 2: %s %s, notes %d\n%s", r.outcome(), ids(r), e.notes.Load(), r.body)
	}
	if res := r.find("TOOL_CALL_RESULT"); res == nil || res.str("content") != "saved: milk" {
		t.Fatalf("run 2 has no result for c1: %s", r.types())
	}
	before := e.snap("t-mix")
	if again := e.agui("a1", aguiInput("t-mix", "run-2b", nil, approve), user); again.code != 422 || !strings.Contains(again.body, "unknown_interrupt") {
		t.Fatalf("the first park's resume again: %d %s", again.code, again.body)
	}
	if after := e.snap("t-mix"); after != before {
		t.Fatalf("a refused resume changed %+v to %+v", before, after)
	}
	r = e.agui("a1", aguiInput("t-mix", "run-3", nil, map[string]any{"interruptId": "external:x1", "status": "resolved", "payload": map[string]any{"result": "k is 7"}}), user)
	if r.code != 200 || r.outcome() != "success" {
		t.Fatalf("run 3: %d %s", r.code, r.body)
	}
	if res := r.find("TOOL_CALL_RESULT"); res == nil || res.str("toolCallId") != "x1" || res.str("content") != "k is 7" {
		t.Fatalf("run 3 has no result for x1: %s", r.types())
	}
	if st := e.status("t-mix"); st != "idle" || e.notes.Load() != 1 {
		t.Fatalf("status %s, notes %d", st, e.notes.Load())
	}
}

// One park can hold both kinds when the calls run as one batch
// (concurrency-safe tools): a confirmation and an external execution, two
// interrupts. One resume answering both is delivered in the park's order
// within one run: the confirmation, then, once the reply parks again on
// what is left, the external result; the run ends with the reply.
func TestAGUIMixedPark(t *testing.T) {
	var e *env
	e = newEnv(t, []scripted.Turn{
		scripted.Stream(scripted.ToolCall("c1", "save_note", `{"text":"milk"}`), scripted.ToolCall("x1", "lookup", `{"key":"k"}`)),
		doneTurn,
	}, func(c *server.Config) {
		c.Engine.Agents[0].New = func(st *state.AgentState) (*agent.Agent, error) { return e.mixedAgent(st, tool.ConcurrencySafe(true)) }
	})
	r := e.agui("a1", aguiInput("t-mix", "run-1", []map[string]any{aguiUser("m1", "both")}), user)
	var ids []string
	for _, in := range r.interrupts() {
		ids = append(ids, in["id"].(string))
	}
	if r.outcome() != "interrupt" || strings.Join(ids, " ") != "confirm:c1 external:x1" {
		t.Fatalf("run: %s %v\n%s", r.outcome(), ids, r.body)
	}
	r = e.agui("a1", aguiInput("t-mix", "run-2", nil,
		map[string]any{"interruptId": "external:x1", "status": "resolved", "payload": map[string]any{"result": "k is 7"}},
		map[string]any{"interruptId": "confirm:c1", "status": "resolved"}), user)
	if r.code != 200 || r.outcome() != "success" {
		t.Fatalf("resume: %d %s", r.code, r.body)
	}
	results := map[string]string{}
	for _, ev := range r.events {
		if ev.typ() == "TOOL_CALL_RESULT" {
			results[ev.str("toolCallId")] = ev.str("content")
		}
	}
	if results["c1"] != "saved: milk" || results["x1"] != "k is 7" || e.notes.Load() != 1 {
		t.Fatalf("results %v, notes %d: %s", results, e.notes.Load(), r.types())
	}
	if st := e.status("t-mix"); st != "idle" {
		t.Fatalf("status %s", st)
	}
}

// mixedAgent is the test agent with save_note (asks first) and lookup
// (run by the client), each with opts.
func (e *env) mixedAgent(st *state.AgentState, opts ...tool.Option) (*agent.Agent, error) {
	note, err := tool.Func("save_note", "Save a note.", func(ctx context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		e.notes.Add(1)
		return "saved: " + in.Text, nil
	}, opts...)
	if err != nil {
		return nil, err
	}
	lookup, err := tool.New("lookup", "Look a value up (run by the client).", json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}}}`),
		func(ctx context.Context, _ map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) { e.t.Error("the server ran the external tool") }
		}, append([]tool.Option{tool.External(), tool.ReadOnly()}, opts...)...)
	if err != nil {
		return nil, err
	}
	tk, err := tool.NewToolkit([]tool.Tool{note, lookup})
	if err != nil {
		return nil, err
	}
	return agent.New(agent.Config{Name: "assistant", Model: e.model, Toolkit: tk, State: st,
		RuntimeState: agent.RuntimeStateConfig{Disabled: true}, Logger: slog.New(slog.DiscardHandler)})
}
