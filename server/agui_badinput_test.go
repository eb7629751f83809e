package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/session"
)

// Every bad POST /agui gets its 4xx before anything is stored: the parked
// thread, the finished one and another user's stay as they were, and no
// session is created; the parked thread then still resumes.
func TestAGUIBadInputs(t *testing.T) {
	e := newEnv(t, []scripted.Turn{textTurn, noteTurn, doneTurn}, func(c *server.Config) { c.MaxBodyBytes = 64 << 10 })
	if r := e.agui("a1", aguiInput("done", "r0", []map[string]any{aguiUser("d1", "hi")}), user); r.outcome() != "success" {
		t.Fatalf("setup: %d %s", r.code, r.body)
	}
	if r := e.agui("a1", aguiInput("parked", "r0", []map[string]any{aguiUser("p1", "save")}), user); r.outcome() != "interrupt" {
		t.Fatalf("setup: %d %s", r.code, r.body)
	}
	ctx := context.Background()
	if _, err := e.srv.Engine().CreateSession(ctx, engine.NewSession{ID: "theirs", UserID: "bob", AgentID: "a1"}); err != nil {
		t.Fatal(err)
	}
	mine := e.do("POST", "/agent/", user, `{"name":"helper"}`)
	if mine.code != 201 {
		t.Fatalf("create agent: %d %s", mine.code, mine.body)
	}
	myAgent := mine.json(t)["agent_id"].(string)

	msg := func(thread string, msgs ...map[string]any) string { return aguiInput(thread, "r1", msgs) }
	resume := func(thread string, entries ...map[string]any) string { return aguiInput(thread, "r1", nil, entries...) }
	ok := map[string]any{"interruptId": "confirm:c1", "status": "resolved"}
	type tc struct {
		name, path, user, body string
		hdr                    []string
		want                   int
		// detail is a part of the answer's body it must hold.
		detail string
	}
	cases := []tc{
		{"malformed JSON", "/agui/a1", user, `{"threadId":`, nil, 422, `"loc":["body"]`},
		{"not an object", "/agui/a1", user, `[]`, nil, 422, `"loc":["body"]`},
		{"wrong content type", "/agui/a1", user, msg("new", aguiUser("n1", "x")), []string{"Content-Type", "text/plain"}, 422, "content-type"},
		{"invalid UTF-8", "/agui/a1", user, "{\"threadId\":\"\xff\"}", nil, 422, "UTF-8"},
		{"no runId", "/agui/a1", user, `{"threadId":"new","messages":[],"tools":[],"context":[]}`, nil, 422, `"loc":["body","runId"]`},
		{"a null member", "/agui/a1", user, `{"threadId":"new","runId":"r","parentRunId":null,"messages":[],"tools":[],"context":[]}`, nil, 422, `"parentRunId"`},
		{"an unknown role", "/agui/a1", user, msg("new", map[string]any{"id": "x", "role": "robot", "content": "x"}), nil, 422, `"loc":["body","messages",0,"role"]`},
		{"a bad resume status", "/agui/a1", user, resume("parked", map[string]any{"interruptId": "confirm:c1", "status": "maybe"}), nil, 422, `"loc":["body","resume",0,"status"]`},
		{"an empty threadId", "/agui/a1", user, msg("", aguiUser("n1", "x")), nil, 422, `"threadId"`},
		{"a threadId that is not a path segment", "/agui/a1", user, msg("a/b", aguiUser("n1", "x")), nil, 422, ""},
		{"no messages and no resume", "/agui/a1", user, msg("new"), nil, 422, `"missing"`},
		{"only a system message", "/agui/a1", user, msg("new", map[string]any{"id": "s", "role": "system", "content": "obey"}), nil, 422, "nothing to run"},
		{"only messages the thread holds", "/agui/a1", user, msg("done", aguiUser("d1", "hi")), nil, 422, "nothing to run"},
		{"a provider file id", "/agui/a1", user, msg("new", map[string]any{"id": "f", "role": "user", "content": []any{map[string]any{"type": "image", "source": map[string]any{"type": "file", "value": "file-1"}}}}), nil, 422, `"messages",0,"content",0`},
		{"an unknown agent", "/agui/nope", user, msg("new", aguiUser("n1", "x")), nil, 404, "Agent not found"},
		{"another user's thread", "/agui/a1", user, msg("theirs", aguiUser("n1", "x")), nil, 409, "already used"},
		{"another user's thread, resumed", "/agui/a1", user, resume("theirs", ok), nil, 422, "nothing_parked"},
		{"a thread of another agent", "/agui/" + myAgent, user, msg("done", aguiUser("n1", "x")), nil, 409, "not of"},
		{"a thread of another agent, unknown", "/agui/nope", user, msg("parked", aguiUser("n1", "x")), nil, 409, "not of"},
		{"a resume with nothing parked", "/agui/a1", user, resume("done", ok), nil, 422, "nothing_parked"},
		{"a resume of a new thread", "/agui/a1", user, resume("new", ok), nil, 422, "nothing_parked"},
		{"an unknown interrupt id", "/agui/a1", user, resume("parked", map[string]any{"interruptId": "confirm:zz", "status": "resolved"}), nil, 422, `"type":"unknown_interrupt","loc":["body","resume",0,"interruptId"]`},
		{"an interrupt of the wrong kind", "/agui/a1", user, resume("parked", map[string]any{"interruptId": "external:c1", "status": "resolved"}), nil, 422, "unknown_interrupt"},
		{"an interrupt answered twice", "/agui/a1", user, resume("parked", ok, ok), nil, 422, `"type":"interrupt_answered_twice","loc":["body","resume",1,"interruptId"]`},
		{"a resume payload of the wrong shape", "/agui/a1", user, resume("parked", map[string]any{"interruptId": "confirm:c1", "status": "resolved", "payload": map[string]any{"editedArgs": "rm -rf"}}), nil, 422, `"resume",0,"payload"`},
		{"a resume with a new message", "/agui/a1", user, aguiInput("parked", "r1", []map[string]any{aguiUser("p2", "and this")}, ok), nil, 422, "next run"},
		{"a new message to a parked thread", "/agui/a1", user, msg("parked", aguiUser("p2", "and this")), nil, 422, ""},
		{"an oversize body", "/agui/a1", user, msg("new", aguiUser("n1", strings.Repeat("x", 100<<10))), nil, 413, ""},
		{"no X-User-ID", "/agui/a1", "-", msg("new", aguiUser("n1", "x")), nil, 422, "x-user-id"},
		{"an empty X-User-ID", "/agui/a1", "", msg("new", aguiUser("n1", "x")), nil, 401, ""},
	}
	snaps := func() string {
		var b strings.Builder
		for _, sid := range []string{"done", "parked"} {
			fmt.Fprintf(&b, "%+v;", e.snap(sid))
		}
		fmt.Fprintf(&b, "%+v;", bobSnap(t, e, "theirs"))
		for _, u := range []string{user, "bob"} {
			recs, _, err := e.store.ListSessions(ctx, session.ListQuery{UserID: u})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s:%d;", u, len(recs))
		}
		return b.String()
	}
	before := snaps()
	for _, c := range cases {
		r := e.do("POST", c.path, c.user, c.body, c.hdr...)
		if r.code != c.want || !strings.Contains(r.body, c.detail) {
			t.Errorf("%s: %d %s, want %d with %s", c.name, r.code, r.body, c.want, c.detail)
			continue
		}
		var d struct{ Detail json.RawMessage }
		if err := json.Unmarshal([]byte(r.body), &d); err != nil || d.Detail == nil {
			t.Errorf("%s: body %s is not {\"detail\"}", c.name, r.body)
		}
		if after := snaps(); after != before {
			t.Errorf("%s changed something: %s -> %s", c.name, before, after)
		}
	}
	if e.notes.Load() != 0 {
		t.Fatal("a refused request ran the parked call")
	}
	// The parked thread still resumes.
	if r := e.agui("a1", resume("parked", ok), user); r.outcome() != "success" || e.notes.Load() != 1 {
		t.Fatalf("the good resume after the bad ones: %d %s", r.code, r.body)
	}
}

// With a token configured, POST /agui requires it as every route does,
// and nothing is created without it.
func TestAGUIToken(t *testing.T) {
	e := newEnv(t, []scripted.Turn{textTurn}, func(c *server.Config) { c.Token = "s3cret" })
	body := aguiInput("t1", "r1", []map[string]any{aguiUser("m1", "hi")})
	for _, h := range [][]string{nil, {"Authorization", "Bearer wrong"}} {
		if r := e.do("POST", "/agui/a1", user, body, h...); r.code != 401 {
			t.Fatalf("%v: %d %s", h, r.code, r.body)
		}
	}
	if recs, _, _ := e.store.ListSessions(context.Background(), session.ListQuery{UserID: user}); len(recs) != 0 {
		t.Fatal("a thread was created without the token")
	}
	if r := e.agui("a1", body, user, "Authorization", "Bearer s3cret"); r.code != 200 || r.outcome() != "success" {
		t.Fatalf("with the token: %d %s", r.code, r.body)
	}
}
