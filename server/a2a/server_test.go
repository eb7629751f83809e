package a2a_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server/a2a"
)

func TestSendMessageCompletes(t *testing.T) {
	e := newEnv(t, []scripted.Turn{scripted.Stream(scripted.Text("Hello there."))}, "")
	r := e.call("SendMessage", a2a.SendMessageRequest{Message: userMessage("m1", text("hi"))})
	task := r.task(t)
	if task.Status.State != a2a.TaskStateCompleted || task.Text("") != "Hello there." || task.ContextID == "" {
		t.Fatalf("task %+v", task)
	}
	if !strings.HasPrefix(task.ID, task.ContextID+"-") {
		t.Fatalf("task id %q does not name its context %q", task.ID, task.ContextID)
	}
	if len(task.History) != 1 || task.History[0].MessageID != "m1" || task.History[0].TaskID != task.ID {
		t.Fatalf("history %+v", task.History)
	}
	// GetTask reads the same task back from the log and the transcript.
	got := e.call("GetTask", a2a.GetTaskRequest{ID: task.ID}).task(t)
	if got.Status.State != a2a.TaskStateCompleted || got.Text("") != "Hello there." || len(got.History) != 1 ||
		got.History[0].MessageID != "m1" || got.History[0].Text("") != "hi" {
		t.Fatalf("GetTask %+v", got)
	}
	if r := e.call("GetTask", map[string]any{"id": task.ID, "historyLength": "0"}).task(t); len(r.History) != 0 {
		t.Fatalf("historyLength 0 gave %d messages", len(r.History))
	}
	// The context is the native session: its transcript has both messages.
	res := e.srvGet("/sessions/" + task.ContextID + "/messages")
	if !strings.Contains(res, `"text":"hi"`) || !strings.Contains(res, "Hello there.") {
		t.Fatalf("transcript %s", res)
	}
}

func (e *env) srvGet(path string) string {
	e.t.Helper()
	r, _ := http.NewRequest("GET", e.hs.URL+path, nil)
	r.Header.Set("X-User-ID", user)
	res, err := e.hs.Client().Do(r)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

func TestSendStreamingMessage(t *testing.T) {
	e := newEnv(t, []scripted.Turn{scripted.Stream(scripted.Text("one "), scripted.Text("two"))}, "")
	evs := drain(t, e.streamCall("SendStreamingMessage", a2a.SendMessageRequest{Message: userMessage("m1", text("count"))}))
	if len(evs) < 3 || evs[0].Task == nil || evs[0].Task.Status.State != a2a.TaskStateWorking {
		t.Fatalf("stream %s", dump(evs))
	}
	id := evs[0].Task.ID
	var got strings.Builder
	for _, ev := range evs[1 : len(evs)-1] {
		if ev.ArtifactUpdate == nil || ev.ArtifactUpdate.TaskID != id {
			t.Fatalf("event %s", dump([]a2a.StreamResponse{ev}))
		}
		got.WriteString(a2aText(ev.ArtifactUpdate.Artifact.Parts))
	}
	last := evs[len(evs)-1]
	if last.StatusUpdate == nil || last.StatusUpdate.Status.State != a2a.TaskStateCompleted || got.String() != "one two" {
		t.Fatalf("streamed %q, last %s", got.String(), dump(evs[len(evs)-1:]))
	}
}

func a2aText(parts []a2a.Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Text != nil {
			b.WriteString(*p.Text)
		}
	}
	return b.String()
}

func dump(v any) string { b, _ := json.Marshal(v); return string(b) }

// A parked reply is an input-required task; "yes" on the task resumes it
// and it completes with the tool's result.
func TestInputRequiredThenResume(t *testing.T) {
	e := newEnv(t, []scripted.Turn{
		scripted.Stream(scripted.ToolCall("c1", "save_note", `{"text":"buy milk"}`)),
		scripted.Stream(scripted.Text("Saved.")),
	}, "")
	task := e.call("SendMessage", a2a.SendMessageRequest{Message: userMessage("m1", text("save a note"))}).task(t)
	if task.Status.State != a2a.TaskStateInputRequired || task.Status.Message == nil {
		t.Fatalf("task %s", dump(task))
	}
	msg := task.Status.Message
	if !strings.Contains(msg.Text(""), "save_note") || len(msg.Parts) != 2 || !strings.Contains(string(msg.Parts[1].Data), `"toolCallId":"c1"`) ||
		!strings.Contains(string(msg.Parts[1].Data), `"awaiting":"confirmation"`) || !strings.Contains(string(msg.Parts[1].Data), `"suggestedRules"`) {
		t.Fatalf("status message %s", dump(msg))
	}
	// GetTask agrees.
	if got := e.call("GetTask", a2a.GetTaskRequest{ID: task.ID}).task(t); got.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("GetTask of a parked task: %s", got.Status.State)
	}
	// An answer that is not one leaves everything as it was.
	before := e.snap()
	bad := userMessage("m2", text("maybe"))
	bad.TaskID = task.ID
	if r := e.call("SendMessage", a2a.SendMessageRequest{Message: bad}); r.code() != a2a.CodeInvalidParams {
		t.Fatalf("answer maybe: %s", r.body)
	}
	if after := e.snap(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("a refused answer changed %v to %v", before, after)
	}
	yes := userMessage("m3", text("yes"))
	yes.TaskID, yes.ContextID = task.ID, task.ContextID
	done := e.call("SendMessage", a2a.SendMessageRequest{Message: yes}).task(t)
	if done.ID != task.ID || done.Status.State != a2a.TaskStateCompleted || !strings.Contains(done.Text(" "), "Saved.") || e.notes.Load() != 1 {
		t.Fatalf("resumed %s, notes %d", dump(done), e.notes.Load())
	}
	// Answering a finished task is refused, and changes nothing.
	before = e.snap()
	if r := e.call("SendMessage", a2a.SendMessageRequest{Message: yes}); r.code() != a2a.CodeUnsupportedOperation {
		t.Fatalf("resume of a completed task: %s", r.body)
	}
	if after := e.snap(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("a refused resume changed %v to %v", before, after)
	}
}

// The answer to a call the client runs is a data part of results.
func TestExternalResults(t *testing.T) {
	e := newEnv(t, []scripted.Turn{
		scripted.Stream(scripted.ToolCall("x1", "lookup", `{"key":"answer"}`)),
		scripted.Stream(scripted.Text("It is 42.")),
	}, "")
	task := e.call("SendMessage", a2a.SendMessageRequest{Message: userMessage("m1", text("look it up"))}).task(t)
	if task.Status.State != a2a.TaskStateInputRequired || !strings.Contains(string(task.Status.Message.Parts[1].Data), `"awaiting":"result"`) {
		t.Fatalf("task %s", dump(task))
	}
	ans := userMessage("m2", a2a.DataPart(map[string]any{"results": []map[string]any{{"toolCallId": "x1", "output": "the client says 42"}}}))
	ans.TaskID = task.ID
	// Streamed this time: the task first, working again, then the rest.
	evs := drain(t, e.streamCall("SendStreamingMessage", a2a.SendMessageRequest{Message: ans}))
	if evs[0].Task == nil || evs[0].Task.ID != task.ID || evs[0].Task.Status.State != a2a.TaskStateWorking {
		t.Fatalf("first %s", dump(evs[:1]))
	}
	if last := evs[len(evs)-1]; last.StatusUpdate == nil || last.StatusUpdate.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("last %s", dump(evs[len(evs)-1:]))
	}
	got := e.call("GetTask", a2a.GetTaskRequest{ID: task.ID}).task(t)
	if got.Text("") != "It is 42." {
		t.Fatalf("GetTask %s", dump(got))
	}
}

// CancelTask interrupts a running reply and answers once it ended.
func TestCancelTask(t *testing.T) {
	e := newEnv(t, []scripted.Turn{scripted.Stream(scripted.ToolCall("w1", "wait", `{}`))}, "")
	r := e.call("SendMessage", map[string]any{"message": userMessage("m1", text("wait")), "configuration": map[string]any{"returnImmediately": true}})
	task := r.task(t)
	if task.Status.State != a2a.TaskStateWorking {
		t.Fatalf("returnImmediately gave %s", task.Status.State)
	}
	select {
	case <-e.waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("the wait tool did not start")
	}
	// Another stream follows the task meanwhile.
	sub := e.streamCall("SubscribeToTask", a2a.SubscribeToTaskRequest{ID: task.ID})
	c := e.call("CancelTask", a2a.CancelTaskRequest{ID: task.ID}).task(t)
	if c.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("canceled task %s", dump(c))
	}
	evs := drain(t, sub)
	if evs[0].Task == nil || evs[len(evs)-1].StatusUpdate == nil || evs[len(evs)-1].StatusUpdate.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("subscriber saw %s", dump(evs))
	}
	before := e.snap()
	if r := e.call("CancelTask", a2a.CancelTaskRequest{ID: task.ID}); r.code() != a2a.CodeTaskNotCancelable {
		t.Fatalf("second cancel: %s", r.body)
	}
	if r := e.call("SubscribeToTask", a2a.SubscribeToTaskRequest{ID: task.ID}); r.code() != a2a.CodeUnsupportedOperation {
		t.Fatalf("subscribe to a canceled task: %s", r.body)
	}
	if after := e.snap(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("refused calls changed %v to %v", before, after)
	}
}

// A stream subscribed to a working task ends once the task parks, with
// every call of a parked batch: it is not the run this request started,
// so the store says when the park is complete.
func TestSubscribeEndsWithTheWholePark(t *testing.T) {
	e := newEnv(t, []scripted.Turn{
		scripted.Stream(scripted.ToolCall("g1", "gate", `{}`)),
		scripted.Stream(scripted.ToolCall("c1", "save_note", `{"text":"a"}`), scripted.ToolCall("c2", "tag", `{"text":"b"}`)),
	}, "")
	task := e.call("SendMessage", map[string]any{"message": userMessage("m1", text("open the gate, then save two notes")), "configuration": map[string]any{"returnImmediately": true}}).task(t)
	select {
	case <-e.waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("the gate tool did not start")
	}
	sub := e.streamCall("SubscribeToTask", a2a.SubscribeToTaskRequest{ID: task.ID})
	close(e.gate)
	evs := drain(t, sub)
	if evs[0].Task == nil || evs[0].Task.ID != task.ID {
		t.Fatalf("the subscription began with %s", dump(evs[0]))
	}
	last := evs[len(evs)-1]
	if last.StatusUpdate == nil || last.StatusUpdate.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("the subscription ended on %s", dump(last))
	}
	if data := string(last.StatusUpdate.Status.Message.Parts[1].Data); !strings.Contains(data, `"toolCallId":"c1"`) || !strings.Contains(data, `"toolCallId":"c2"`) {
		t.Fatalf("the subscription's park waits on %s, want c1 and c2", data)
	}
}

// "always" allows the call and keeps its suggested rule: the next task's
// same call does not ask.
func TestAnswerAlways(t *testing.T) {
	e := newEnv(t, []scripted.Turn{
		scripted.Stream(scripted.ToolCall("c1", "save_note", `{"text":"a"}`)),
		scripted.Stream(scripted.Text("Saved.")),
		scripted.Stream(scripted.ToolCall("c2", "save_note", `{"text":"b"}`)),
		scripted.Stream(scripted.Text("Saved again.")),
	}, "")
	task := e.call("SendMessage", a2a.SendMessageRequest{Message: userMessage("m1", text("save a"))}).task(t)
	ans := userMessage("m2", text("Always"))
	ans.TaskID = task.ID
	if done := e.call("SendMessage", a2a.SendMessageRequest{Message: ans}).task(t); done.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("always: %s", dump(done))
	}
	m := userMessage("m3", text("save b"))
	m.ContextID = task.ContextID
	if next := e.call("SendMessage", a2a.SendMessageRequest{Message: m}).task(t); next.Status.State != a2a.TaskStateCompleted || next.Text("") != "Saved again." || e.notes.Load() != 2 {
		t.Fatalf("the next call asked again: %s", dump(next))
	}
}

// The other answers: a text part as the result of the one call the
// client runs, the native event, and CancelTask on a parked task.
func TestOtherAnswers(t *testing.T) {
	e := newEnv(t, []scripted.Turn{
		scripted.Stream(scripted.ToolCall("x1", "lookup", `{"key":"k"}`)),
		scripted.Stream(scripted.Text("It is 42.")),
		scripted.Stream(scripted.ToolCall("c1", "save_note", `{"text":"n"}`)),
		scripted.Stream(scripted.Text("Saved.")),
		scripted.Stream(scripted.ToolCall("c2", "save_note", `{"text":"never"}`)),
	}, "")
	send := func(m *a2a.Message) *a2a.Task {
		t.Helper()
		return e.call("SendMessage", a2a.SendMessageRequest{Message: m}).task(t)
	}
	first := send(userMessage("m1", text("look k up")))
	ctxID := first.ContextID
	ans := userMessage("m2", text("42"))
	ans.TaskID = first.ID
	if done := send(ans); done.Status.State != a2a.TaskStateCompleted || done.Text("") != "It is 42." {
		t.Fatalf("text result: %s", dump(done))
	}
	m := userMessage("m3", text("save n"))
	m.ContextID = ctxID
	parked := send(m)
	native := fmt.Sprintf(`{"type":"USER_CONFIRM_RESULT","id":"e1","created_at":"2026-01-01T00:00:00","metadata":{},"reply_id":%q,"confirm_results":[{"confirmed":true,"tool_call":{"type":"tool_call","id":"c1","name":"save_note","input":"{\"text\":\"n\"}","state":"asking","suggested_rules":[],"created_at":"2026-01-01T00:00:00","finished_at":null},"rules":[]}]}`,
		parked.Metadata["agentscope"].(map[string]any)["replyId"])
	ans = userMessage("m4", a2a.Part{Data: json.RawMessage(native)})
	ans.TaskID = parked.ID
	if done := send(ans); done.Status.State != a2a.TaskStateCompleted || done.Text("") != "Saved." {
		t.Fatalf("native answer: %s", dump(done))
	}
	m = userMessage("m5", text("save never"))
	m.ContextID = ctxID
	parked = send(m)
	if parked.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("not parked: %s", dump(parked))
	}
	if c := e.call("CancelTask", a2a.CancelTaskRequest{ID: parked.ID}).task(t); c.Status.State != a2a.TaskStateCanceled || e.notes.Load() != 1 {
		t.Fatalf("cancel of a parked task: %s, notes %d", dump(c), e.notes.Load())
	}
}

// Data-part answers: per call, and for every call.
func TestDataAnswers(t *testing.T) {
	e := newEnv(t, []scripted.Turn{
		scripted.Stream(scripted.ToolCall("c1", "save_note", `{"text":"one"}`)),
		scripted.Stream(scripted.Text("Not saved.")),
		scripted.Stream(scripted.ToolCall("c2", "save_note", `{"text":"two"}`)),
		scripted.Stream(scripted.Text("Saved.")),
	}, "")
	task := e.call("SendMessage", a2a.SendMessageRequest{Message: userMessage("m1", text("save one"))}).task(t)
	ans := userMessage("m2", a2a.DataPart(map[string]any{"confirmations": []map[string]any{{"toolCallId": "c1", "confirmed": false}}}))
	ans.TaskID = task.ID
	if done := e.call("SendMessage", a2a.SendMessageRequest{Message: ans}).task(t); done.Status.State != a2a.TaskStateCompleted || done.Text("") != "Not saved." || e.notes.Load() != 0 {
		t.Fatalf("denied per call: %s, notes %d", dump(done), e.notes.Load())
	}
	m := userMessage("m3", text("save two"))
	m.ContextID = task.ContextID
	task = e.call("SendMessage", a2a.SendMessageRequest{Message: m}).task(t)
	ans = userMessage("m4", a2a.DataPart(map[string]any{"confirmed": true}))
	ans.TaskID = task.ID
	if done := e.call("SendMessage", a2a.SendMessageRequest{Message: ans}).task(t); done.Status.State != a2a.TaskStateCompleted || e.notes.Load() != 1 {
		t.Fatalf("confirmed all: %s, notes %d", dump(done), e.notes.Load())
	}
}

// A concurrent batch asks once per call (of another tool: a second call
// of the same tool waits behind the first's suggested rule): the task
// waits on every call it asked about — SendMessage answers, and the
// stream ends, only once the whole park is in — and one "yes" confirms
// them all.
func TestInputRequiredForEveryCallOfABatch(t *testing.T) {
	batch := scripted.Stream(scripted.ToolCall("c1", "save_note", `{"text":"a"}`), scripted.ToolCall("c2", "tag", `{"text":"b"}`))
	e := newEnv(t, []scripted.Turn{batch, scripted.Stream(scripted.Text("Both saved.")), batch}, "")
	waitsOnBoth := func(how string, st a2a.TaskStatus) {
		t.Helper()
		if st.State != a2a.TaskStateInputRequired || st.Message == nil || len(st.Message.Parts) != 2 {
			t.Fatalf("%s: %s", how, dump(st))
		}
		if data := string(st.Message.Parts[1].Data); !strings.Contains(data, `"toolCallId":"c1"`) || !strings.Contains(data, `"toolCallId":"c2"`) {
			t.Fatalf("%s: the task waits on %s, want c1 and c2", how, data)
		}
	}
	task := e.call("SendMessage", a2a.SendMessageRequest{Message: userMessage("m1", text("save two notes"))}).task(t)
	waitsOnBoth("SendMessage", task.Status)
	waitsOnBoth("GetTask", e.call("GetTask", a2a.GetTaskRequest{ID: task.ID}).task(t).Status)
	yes := userMessage("m2", text("yes"))
	yes.TaskID, yes.ContextID = task.ID, task.ContextID
	done := e.call("SendMessage", a2a.SendMessageRequest{Message: yes}).task(t)
	if done.Status.State != a2a.TaskStateCompleted || e.notes.Load() != 2 {
		t.Fatalf("after one yes: %s, notes %d", dump(done), e.notes.Load())
	}
	// Streamed, the last update is the whole park.
	again := userMessage("m3", text("save two more"))
	again.ContextID = task.ContextID
	evs := drain(t, e.streamCall("SendStreamingMessage", a2a.SendMessageRequest{Message: again}))
	last := evs[len(evs)-1]
	if last.StatusUpdate == nil {
		t.Fatalf("the stream ended on %s", dump(last))
	}
	waitsOnBoth("SendStreamingMessage", last.StatusUpdate.Status)
}
