package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/session"
)

// A reply that calls a tool the client runs parks on
// REQUIRE_EXTERNAL_EXECUTION with the status awaiting_external_result; an
// EXTERNAL_EXECUTION_RESULT posted to /chat/ resumes it (the input echoed,
// REPLY_START again with the same id), the model gets the client's
// result, and the reply completes as the fold of its events.
func TestExternalExecutionResume(t *testing.T) {
	e := newEnvWith(t, envOpts{external: true, record: true, turns: []scripted.Turn{
		scripted.Stream(scripted.ToolCall("x1", "lookup", `{"key":"answer"}`)),
		scripted.Stream(scripted.Text("It is 42.")),
	}})
	sid := e.createSession()
	s := e.openStream(sid, "")
	if r := e.chat(sid, userMsg("look it up")); r.code != 200 {
		t.Fatalf("chat %d %s", r.code, r.body)
	}
	first := s.until(event.TypeRequireExternalExecution)
	// The park is published only once the state is stored: the status
	// already says so.
	if st := e.status(sid); st != "awaiting_external_result" {
		t.Fatalf("status %q while parked on an external tool", st)
	}
	k := session.Key{UserID: user, SessionID: sid}
	if l, err := leaseOf(context.Background(), e.store, k); err != nil || l.Held(time.Now()) {
		t.Fatalf("parked session still leased: %+v %v", l, err)
	}
	rq := first[len(first)-1].ev.(*event.RequireExternalExecution)
	replyID := first[0].ev.(*event.ReplyStart).ReplyID
	if rq.ReplyID != replyID || len(rq.ToolCalls) != 1 || rq.ToolCalls[0].ID != "x1" || rq.ToolCalls[0].Name != "lookup" {
		t.Fatalf("REQUIRE_EXTERNAL_EXECUTION %+v", rq)
	}
	res := &event.ExternalExecutionResult{ReplyID: rq.ReplyID, ExecutionResults: []*block.ToolResult{
		{ID: "x1", Name: "lookup", State: block.ResultSuccess, Output: block.Body{Plain: true, Text: "the client says 42"}}}}
	event.Stamp(res, nil)

	// A confirmation is not what this reply waits for.
	before := e.snap(sid)
	wrong := &event.UserConfirmResult{ReplyID: rq.ReplyID, ConfirmResults: []event.ConfirmResult{{Confirmed: true, ToolCall: rq.ToolCalls[0]}}}
	event.Stamp(wrong, nil)
	if r := e.chat(sid, string(event.Marshal(wrong))); r.code != 422 {
		t.Fatalf("confirm of an external call: %d %s", r.code, r.body)
	}
	if after := e.snap(sid); after != before {
		t.Fatalf("a refused confirm changed %+v to %+v", before, after)
	}

	if r := e.chat(sid, string(event.Marshal(res))); r.code != 200 {
		t.Fatalf("external result: %d %s", r.code, r.body)
	}
	second := s.until(event.TypeReplyEnd)
	all := append(first, second...)
	checkSeqs(t, all, 1)
	if got := types(second[:2]); got != "EXTERNAL_EXECUTION_RESULT REPLY_START" {
		t.Fatalf("resume starts %s", got)
	}
	for _, ev := range second {
		if rs, ok := ev.ev.(*event.ReplyStart); ok && rs.ReplyID != replyID {
			t.Fatalf("resume REPLY_START %s, want %s", rs.ReplyID, replyID)
		}
	}
	if end := second[len(second)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyCompleted || end.ReplyID != replyID {
		t.Fatalf("end %+v", end)
	}
	if st := e.status(sid); st != "idle" {
		t.Fatalf("status %q after the reply", st)
	}
	calls := e.model.Calls()
	if len(calls) != 2 || !strings.Contains(string(calls[1].Messages), "the client says 42") {
		t.Fatalf("the model's second call did not carry the client's result: %d calls", len(calls))
	}
	r := e.do("GET", "/sessions/"+sid+"/messages", user, "")
	var page struct{ Messages []json.RawMessage }
	if err := json.Unmarshal([]byte(r.body), &page); err != nil || len(page.Messages) != 2 {
		t.Fatalf("transcript %s", r.body)
	}
	var reply message.Msg
	if err := json.Unmarshal(page.Messages[1], &reply); err != nil {
		t.Fatal(err)
	}
	if got, want := string(foldReply(t, all).AppendJSON(nil)), string(reply.AppendJSON(nil)); got != want {
		t.Fatalf("fold\n%s\nstored\n%s", got, want)
	}
	var result *block.ToolResult
	for _, b := range reply.Content {
		if r, ok := b.(*block.ToolResult); ok {
			result = r
		}
	}
	if result == nil || result.ID != "x1" || result.State != block.ResultSuccess || !strings.Contains(string(result.Output.AppendJSON(nil)), "the client says 42") {
		t.Fatalf("stored result %+v", result)
	}
	if text, _ := reply.TextContent(""); text != "It is 42." || reply.FinishedReason != event.ReplyCompleted {
		t.Fatalf("reply %q %s", text, reply.FinishedReason)
	}
	// The same result again finds nothing parked.
	before = e.snap(sid)
	if r := e.chat(sid, string(event.Marshal(res))); r.code != 422 {
		t.Fatalf("second external result %d %s", r.code, r.body)
	}
	if after := e.snap(sid); after != before {
		t.Fatalf("a second external result changed %+v to %+v", before, after)
	}
}

// A list of user messages is one input: all of them join the transcript,
// in order, before the reply, and the model sees all of them.
func TestListOfMessagesInput(t *testing.T) {
	e := newEnvWith(t, envOpts{record: true, turns: []scripted.Turn{textTurn}})
	sid := e.createSession()
	s := e.openStream(sid, "")
	if r := e.chat(sid, fmt.Sprintf("[%s,%s,%s]", userMsg("one"), userMsg("two"), userMsg("three"))); r.code != 200 {
		t.Fatalf("list input: %d %s", r.code, r.body)
	}
	evs := s.until(event.TypeReplyEnd)
	checkSeqs(t, evs, 1)
	if st := e.status(sid); st != "idle" {
		t.Fatalf("status %q", st)
	}
	r := e.do("GET", "/sessions/"+sid+"/messages", user, "")
	var page struct{ Messages []*message.Msg }
	if err := json.Unmarshal([]byte(r.body), &page); err != nil || len(page.Messages) != 4 {
		t.Fatalf("transcript %s", r.body)
	}
	for i, want := range []string{"one", "two", "three"} {
		m := page.Messages[i]
		if text, _ := m.TextContent(""); m.Role != event.RoleUser || text != want {
			t.Fatalf("message %d: %s %q, want user %q", i, m.Role, text, want)
		}
	}
	if reply := page.Messages[3]; reply.Role != event.RoleAssistant || reply.ID != evs[0].ev.(*event.ReplyStart).ReplyID {
		t.Fatalf("last message %s %s", reply.Role, reply.ID)
	}
	calls := e.model.Calls()
	if len(calls) != 1 {
		t.Fatalf("%d model calls", len(calls))
	}
	var sent []*message.Msg
	if err := json.Unmarshal(calls[0].Messages, &sent); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range sent {
		if m.Role == event.RoleUser {
			text, _ := m.TextContent("")
			texts = append(texts, text)
		}
	}
	if got := strings.Join(texts, ","); got != "one,two,three" {
		t.Fatalf("the model saw the user messages %q", got)
	}
}
