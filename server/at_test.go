package server_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
)

// page is a GET /messages answer.
type page struct {
	Messages  []map[string]any `json:"messages"`
	IsRunning bool             `json:"is_running"`
	HasMore   bool             `json:"has_more"`
}

func (e *env) messagesPage(sid, query string) page {
	e.t.Helper()
	r := e.do("GET", "/sessions/"+sid+"/messages"+query, user, "")
	if r.code != 200 {
		e.t.Fatalf("messages%s: %d %s", query, r.code, r.body)
	}
	var p page
	if err := json.Unmarshal([]byte(r.body), &p); err != nil {
		e.t.Fatalf("messages%s: %v: %s", query, err, r.body)
	}
	return p
}

func ids(p page) []string {
	out := []string{}
	for _, m := range p.Messages {
		out = append(out, m["id"].(string))
	}
	return out
}

// textOf is the text of a message's text blocks.
func textOf(m map[string]any) string {
	s := ""
	for _, b := range m["content"].([]any) {
		if b := b.(map[string]any); b["type"] == "text" {
			s += b["text"].(string)
		}
	}
	return s
}

// GET /messages?at=SEQ over real HTTP: the transcript as a client of the
// stream saw it after event SEQ. At the log's end it is the stored
// transcript exactly; at 0 it is empty; a user message stands from the
// first event of its reply; a reply mid-stream is its partial fold; a
// parked reply is what the transcript held while parked; before and limit
// page it; a bad at is 422 and another user's session 404.
func TestMessagesAt(t *testing.T) {
	e := newEnv(t, []scripted.Turn{textTurn, noteTurn, doneTurn}, nil)
	sid := e.createSession()
	s := e.openStream(sid, "?since=0")
	if r := e.chat(sid, userMsg("hi")); r.code != 200 {
		t.Fatalf("chat %d %s", r.code, r.body)
	}
	first := s.until(event.TypeReplyEnd)
	afterFirst := e.messagesPage(sid, "")
	if r := e.chat(sid, userMsg("note milk")); r.code != 200 {
		t.Fatalf("chat %d %s", r.code, r.body)
	}
	parked := s.until(event.TypeRequireUserConfirm)
	whileParked := e.messagesPage(sid, "")
	if r := e.chat(sid, confirmJSON(t, e, sid, true)); r.code != 200 {
		t.Fatalf("confirm %d %s", r.code, r.body)
	}
	rest := s.until(event.TypeReplyEnd)
	all := append(append(append([]sseEvent{}, first...), parked...), rest...)
	checkSeqs(t, all, 1)
	last := all[len(all)-1].seq
	final := e.messagesPage(sid, "?limit=200")
	if len(final.Messages) != 4 {
		t.Fatalf("transcript of %d messages, want 4", len(final.Messages))
	}
	at := func(seq int64, query string) page { return e.messagesPage(sid, fmt.Sprintf("?at=%d%s", seq, query)) }

	for _, seq := range []int64{last, last + 1000} {
		if got := at(seq, "&limit=200"); !reflect.DeepEqual(got.Messages, final.Messages) || got.HasMore {
			t.Fatalf("at=%d is not the transcript:\n got %v\nwant %v", seq, got.Messages, final.Messages)
		}
	}
	if got := at(0, ""); len(got.Messages) != 0 {
		t.Fatalf("at=0: %v", got.Messages)
	}
	// The first event: the user's message and the reply just opened.
	got := at(1, "")
	if ids(got)[0] != final.Messages[0]["id"] || len(got.Messages) != 2 || len(got.Messages[1]["content"].([]any)) != 0 {
		t.Fatalf("at=1: %v", got.Messages)
	}
	// Mid-stream: the text as far as the stream had it, the reply open.
	for _, ev := range first {
		if d, ok := ev.ev.(*event.TextBlockDelta); ok {
			got := at(ev.seq, "")
			reply := got.Messages[1]
			if text := textOf(reply); text != d.Delta || reply["finished_reason"] != nil || reply["finished_at"] != nil {
				t.Fatalf("at=%d (the first delta): %q, finished %v %v", ev.seq, text, reply["finished_reason"], reply["finished_at"])
			}
			break
		}
	}
	// The first reply's end: the transcript after it; the next user
	// message is not there yet.
	if got := at(first[len(first)-1].seq, ""); !reflect.DeepEqual(got.Messages, afterFirst.Messages) {
		t.Fatalf("at the first REPLY_END:\n got %v\nwant %v", got.Messages, afterFirst.Messages)
	}
	// Parked: what the transcript held while the reply waited.
	if got := at(parked[len(parked)-1].seq, ""); !reflect.DeepEqual(got.Messages, whileParked.Messages) {
		t.Fatalf("at the park:\n got %v\nwant %v", got.Messages, whileParked.Messages)
	}

	// Paging, newest page first, as without at.
	tail := at(last, "&limit=1")
	if !tail.HasMore || len(tail.Messages) != 1 || tail.Messages[0]["id"] != final.Messages[3]["id"] {
		t.Fatalf("limit=1: %+v", tail)
	}
	prev := at(last, "&limit=2&before="+tail.Messages[0]["id"].(string))
	if !reflect.DeepEqual(ids(prev), ids(final)[1:3]) || !prev.HasMore {
		t.Fatalf("before: %v, want %v", ids(prev), ids(final)[1:3])
	}
	if r := e.do("GET", "/sessions/"+sid+"/messages?at=1&before="+final.Messages[3]["id"].(string), user, ""); r.code != 404 {
		t.Fatalf("before a message that did not stand yet: %d %s", r.code, r.body)
	}
	for _, bad := range []string{"x", "-1", "1.5"} {
		if r := e.do("GET", "/sessions/"+sid+"/messages?at="+bad, user, ""); r.code != 422 {
			t.Fatalf("at=%s: %d %s", bad, r.code, r.body)
		}
	}
	if r := e.do("GET", "/sessions/"+sid+"/messages?at=1", "mallory", ""); r.code != 404 {
		t.Fatalf("another user's session: %d %s", r.code, r.body)
	}
}

// A reply in progress is in ?at= (after the stored transcript, with its
// user message) before it is stored, where GET /messages has only the
// user message.
func TestMessagesAtRunning(t *testing.T) {
	e := newEnv(t, []scripted.Turn{waitTurn}, nil)
	sid := e.createSession()
	s := e.openStream(sid, "?since=0")
	if r := e.chat(sid, userMsg("wait")); r.code != 200 {
		t.Fatalf("chat %d %s", r.code, r.body)
	}
	<-e.waiting
	evs := s.until(event.TypeToolResultStart)
	now := e.messagesPage(sid, "")
	if len(now.Messages) != 1 || !now.IsRunning {
		t.Fatalf("while running, the transcript is %v (running %v)", now.Messages, now.IsRunning)
	}
	got := at2(e, sid, evs[len(evs)-1].seq)
	if len(got.Messages) != 2 || got.Messages[0]["id"] != now.Messages[0]["id"] || !got.IsRunning {
		t.Fatalf("at the running tool: %v", got.Messages)
	}
	content := got.Messages[1]["content"].([]any)
	call := content[len(content)-2].(map[string]any)
	result := content[len(content)-1].(map[string]any)
	if call["type"] != "tool_call" || call["name"] != "wait" || result["type"] != "tool_result" || result["state"] != "running" {
		t.Fatalf("the running reply's tail: %v %v", call, result)
	}
	if r := e.do("POST", "/sessions/"+sid+"/interrupt", user, ""); r.code != 202 {
		t.Fatalf("interrupt %d", r.code)
	}
	s.until(event.TypeReplyEnd)
}

func at2(e *env, sid string, seq int64) page { return e.messagesPage(sid, fmt.Sprintf("?at=%d", seq)) }
