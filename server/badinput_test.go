package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/session"
)

// Every bad request gets its documented 4xx, and neither the parked
// session it aims at nor another user's session changes.
func TestBadInputs(t *testing.T) {
	e := newEnv(t, []scripted.Turn{noteTurn, doneTurn}, func(c *server.Config) { c.MaxBodyBytes = 64 << 10 })
	sid := e.createSession()
	s := e.openStream(sid, "")
	if r := e.chat(sid, userMsg("note")); r.code != 200 {
		t.Fatal(r.body)
	}
	parked := s.until(event.TypeRequireUserConfirm)
	good := confirmJSON2(t, parked)
	bob, err := e.store.CreateSession(context.Background(), session.NewSession{UserID: "bob", AgentID: "a1"})
	if err != nil {
		t.Fatal(err)
	}
	chat := func(sessionID, input string) string {
		return fmt.Sprintf(`{"agent_id":"a1","session_id":%q,"input":%s}`, sessionID, input)
	}
	replyID := parked[0].ev.(*event.ReplyStart).ReplyID
	unknownCall := strings.Replace(good, `"id":"c1"`, `"id":"nope"`, 1)
	otherReply := strings.Replace(good, replyID, "0123456789abcdef0123456789abcdef", 1)
	external := fmt.Sprintf(`{"type":"EXTERNAL_EXECUTION_RESULT","reply_id":%q,"execution_results":[{"type":"tool_result","id":"c1","name":"save_note","output":"x","state":"success"}]}`, replyID)
	big := chat(sid, userMsg(strings.Repeat("x", 100<<10)))
	// An agent of each user, created over the API.
	mine := e.do("POST", "/agent/", user, `{"name":"helper"}`)
	if mine.code != 201 {
		t.Fatalf("create agent: %d %s", mine.code, mine.body)
	}
	myAgent := mine.json(t)["agent_id"].(string)
	bobs := e.do("POST", "/agent/", "bob", `{"name":"bobs"}`)
	if bobs.code != 201 {
		t.Fatalf("create agent: %d %s", bobs.code, bobs.body)
	}
	bobAgent := bobs.json(t)["agent_id"].(string)

	type tc struct {
		name               string
		method, path, user string
		body, ctype        string
		hdr                []string
		want               int
	}
	cases := []tc{
		{"malformed JSON", "POST", "/chat/", user, `{"agent_id":`, "", nil, 422},
		{"wrong content type", "POST", "/chat/", user, chat(sid, userMsg("x")), "text/plain", nil, 422},
		{"body is a list", "POST", "/chat/", user, `[]`, "", nil, 422},
		{"body is a string", "POST", "/chat/", user, `"hi"`, "", nil, 422},
		{"missing agent_id", "POST", "/chat/", user, fmt.Sprintf(`{"session_id":%q,"input":%s}`, sid, userMsg("x")), "", nil, 422},
		{"agent_id not a string", "POST", "/chat/", user, fmt.Sprintf(`{"agent_id":1,"session_id":%q,"input":%s}`, sid, userMsg("x")), "", nil, 422},
		{"missing session_id", "POST", "/chat/", user, fmt.Sprintf(`{"agent_id":"a1","input":%s}`, userMsg("x")), "", nil, 422},
		{"missing input", "POST", "/chat/", user, fmt.Sprintf(`{"agent_id":"a1","session_id":%q}`, sid), "", nil, 422},
		{"null input", "POST", "/chat/", user, chat(sid, "null"), "", nil, 422},
		{"empty list input", "POST", "/chat/", user, chat(sid, "[]"), "", nil, 422},
		{"assistant message input", "POST", "/chat/", user, chat(sid, `{"name":"a","role":"assistant","content":[{"type":"text","text":"x"}]}`), "", nil, 422},
		{"unknown event type", "POST", "/chat/", user, chat(sid, `{"type":"NOPE","reply_id":"x"}`), "", nil, 422},
		{"event that is not an input", "POST", "/chat/", user, chat(sid, fmt.Sprintf(`{"type":"REPLY_START","session_id":%q,"reply_id":"r","name":"n","role":"assistant"}`, sid)), "", nil, 422},
		{"unknown block type", "POST", "/chat/", user, chat(sid, `{"name":"u","role":"user","content":[{"type":"video","text":"x"}]}`), "", nil, 422},
		{"input a number", "POST", "/chat/", user, chat(sid, "42"), "", nil, 422},
		{"unknown session", "POST", "/chat/", user, chat("nosuchsession", userMsg("x")), "", nil, 404},
		{"another user's session", "POST", "/chat/", user, chat(bob.ID, userMsg("x")), "", nil, 404},
		{"unknown agent", "POST", "/chat/", user, fmt.Sprintf(`{"agent_id":"zz","session_id":%q,"input":%s}`, sid, userMsg("x")), "", nil, 404},
		{"user message while parked", "POST", "/chat/", user, chat(sid, userMsg("x")), "", nil, 422},
		{"confirm of an unknown tool call", "POST", "/chat/", user, chat(sid, unknownCall), "", nil, 422},
		{"confirm for another reply", "POST", "/chat/", user, chat(sid, otherReply), "", nil, 422},
		{"empty confirm_results", "POST", "/chat/", user, chat(sid, fmt.Sprintf(`{"type":"USER_CONFIRM_RESULT","reply_id":%q,"confirm_results":[]}`, replyID)), "", nil, 422},
		{"external result while asking", "POST", "/chat/", user, chat(sid, external), "", nil, 422},
		{"oversize body", "POST", "/chat/", user, big, "", nil, 413},
		{"missing X-User-ID", "GET", "/sessions/" + sid + "/status?agent_id=a1", "-", "", "", nil, 422},
		{"empty X-User-ID", "GET", "/sessions/" + sid + "/status?agent_id=a1", "", "", "", nil, 401},
		{"status of an unknown session", "GET", "/sessions/nope/status?agent_id=a1", user, "", "", nil, 404},
		{"status of another user's session", "GET", "/sessions/" + bob.ID + "/status?agent_id=a1", user, "", "", nil, 404},
		{"status without agent_id", "GET", "/sessions/" + sid + "/status", user, "", "", nil, 422},
		{"status with another agent_id", "GET", "/sessions/" + sid + "/status?agent_id=a2", user, "", "", nil, 404},
		{"messages limit 0", "GET", "/sessions/" + sid + "/messages?limit=0", user, "", "", nil, 422},
		{"messages limit 201", "GET", "/sessions/" + sid + "/messages?limit=201", user, "", "", nil, 422},
		{"messages limit not a number", "GET", "/sessions/" + sid + "/messages?limit=ten", user, "", "", nil, 422},
		{"messages of another user's session", "GET", "/sessions/" + bob.ID + "/messages", user, "", "", nil, 404},
		{"messages before an unknown id", "GET", "/sessions/" + sid + "/messages?before=nope", user, "", "", nil, 404},
		{"stream with a bad Last-Event-ID", "GET", "/sessions/" + sid + "/stream", user, "", "", []string{"Last-Event-ID", "abc"}, 422},
		{"stream with a negative since", "GET", "/sessions/" + sid + "/stream?since=-1", user, "", "", nil, 422},
		{"stream of another user's session", "GET", "/sessions/" + bob.ID + "/stream", user, "", "", nil, 404},
		{"interrupt of another user's session", "POST", "/sessions/" + bob.ID + "/interrupt", user, "", "", nil, 404},
		{"delete of another user's session", "DELETE", "/sessions/" + bob.ID, user, "", "", nil, 404},
		{"patch of another user's session", "PATCH", "/sessions/" + bob.ID, user, `{"name":"x"}`, "", nil, 404},
		{"patch with a non-string name", "PATCH", "/sessions/" + sid, user, `{"name":5}`, "", nil, 422},
		{"create for an unknown agent", "POST", "/sessions/", user, `{"agent_id":"zz"}`, "", nil, 404},
		{"create without agent_id", "POST", "/sessions/", user, `{}`, "", nil, 422},
		{"create agent: malformed JSON", "POST", "/agent/", user, `{"name":`, "", nil, 422},
		{"create agent: wrong content type", "POST", "/agent/", user, `{"name":"x"}`, "text/plain", nil, 422},
		{"create agent: no name", "POST", "/agent/", user, `{"system_prompt":"x"}`, "", nil, 422},
		{"create agent: null name", "POST", "/agent/", user, `{"name":null}`, "", nil, 422},
		{"create agent: name not a string", "POST", "/agent/", user, `{"name":1}`, "", nil, 422},
		{"create agent: blank name", "POST", "/agent/", user, `{"name":"  "}`, "", nil, 422},
		{"create agent: system_prompt not a string", "POST", "/agent/", user, `{"name":"x","system_prompt":[]}`, "", nil, 422},
		{"create agent: react_config not an object", "POST", "/agent/", user, `{"name":"x","react_config":3}`, "", nil, 422},
		{"create agent: max_iters 0", "POST", "/agent/", user, `{"name":"x","react_config":{"max_iters":0}}`, "", nil, 422},
		{"create agent: max_iters not a number", "POST", "/agent/", user, `{"name":"x","react_config":{"max_iters":"5"}}`, "", nil, 422},
		{"create agent: unknown base", "POST", "/agent/", user, `{"name":"x","base_agent_id":"zz"}`, "", nil, 422},
		{"create agent: a user's agent as base", "POST", "/agent/", user, fmt.Sprintf(`{"name":"x","base_agent_id":%q}`, myAgent), "", nil, 422},
		{"patch a configured agent", "PATCH", "/agent/a1", user, `{"name":"x"}`, "", nil, 403},
		{"delete a configured agent", "DELETE", "/agent/a1", user, "", "", nil, 403},
		{"patch an unknown agent", "PATCH", "/agent/nope", user, `{"name":"x"}`, "", nil, 404},
		{"delete an unknown agent", "DELETE", "/agent/nope", user, "", "", nil, 404},
		{"patch another user's agent", "PATCH", "/agent/" + bobAgent, user, `{"name":"x"}`, "", nil, 404},
		{"delete another user's agent", "DELETE", "/agent/" + bobAgent, user, "", "", nil, 404},
		{"patch agent: malformed JSON", "PATCH", "/agent/" + myAgent, user, `{"name"`, "", nil, 422},
		{"patch agent: blank name", "PATCH", "/agent/" + myAgent, user, `{"name":""}`, "", nil, 422},
		{"patch agent: max_iters -1", "PATCH", "/agent/" + myAgent, user, `{"react_config":{"max_iters":-1}}`, "", nil, 422},
		{"patch agent: another base", "PATCH", "/agent/" + myAgent, user, `{"base_agent_id":"other"}`, "", nil, 422},
		{"create a session for another user's agent", "POST", "/sessions/", user, fmt.Sprintf(`{"agent_id":%q}`, bobAgent), "", nil, 404},
		{"chat naming another user's agent", "POST", "/chat/", user, fmt.Sprintf(`{"agent_id":%q,"session_id":%q,"input":%s}`, bobAgent, sid, userMsg("x")), "", nil, 404},
		{"wrong method on an agent", "GET", "/agent/" + myAgent, user, "", "", nil, 405},
		{"wrong method", "PUT", "/chat/", user, `{}`, "", nil, 405},
		{"wrong method on a session", "POST", "/sessions/" + sid + "/status", user, `{}`, "", nil, 405},
		{"patch: unknown permission_mode", "PATCH", "/sessions/" + sid, user, `{"permission_mode":"yolo","name":"x"}`, "", nil, 422},
		{"patch: permission_mode not a string", "PATCH", "/sessions/" + sid, user, `{"permission_mode":3}`, "", nil, 422},
		{"patch: invalid UTF-8", "PATCH", "/sessions/" + sid, user, "{\"name\":\"\xff\"}", "", nil, 422},
		{"chat: invalid UTF-8", "POST", "/chat/", user, chat(sid, "{\"name\":\"u\",\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"\xfe\"}]}"), "", nil, 422},
		{"unknown route", "GET", "/nope", user, "", "", nil, 404},
	}
	k := session.Key{UserID: user, SessionID: sid}
	before, bobBefore := e.snap(sid), bobSnap(t, e, bob.ID)
	agentsBefore := agentsSnap(t, e)
	for _, c := range cases {
		hdr := append([]string{}, c.hdr...)
		if c.ctype != "" {
			hdr = append(hdr, "Content-Type", c.ctype)
		}
		r := e.do(c.method, c.path, c.user, c.body, hdr...)
		if r.code != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, r.code, r.body, c.want)
			continue
		}
		if !strings.HasPrefix(r.body, `{"detail":`) {
			t.Errorf("%s: body %s is not {\"detail\"}", c.name, r.body)
		}
		if after := e.snap(sid); after != before {
			t.Errorf("%s changed the session: %+v -> %+v", c.name, before, after)
		}
		if after := bobSnap(t, e, bob.ID); after != bobBefore {
			t.Errorf("%s changed bob's session: %+v -> %+v", c.name, bobBefore, after)
		}
		if after := agentsSnap(t, e); after != agentsBefore {
			t.Errorf("%s changed the agents: %s -> %s", c.name, agentsBefore, after)
		}
	}
	if n, _ := e.store.PendingInputs(context.Background(), k); n != 0 {
		t.Fatalf("%d inputs left pending", n)
	}
	// The parked reply still resumes.
	if r := e.chat(sid, good); r.code != 200 {
		t.Fatalf("good confirm after the bad ones: %d %s", r.code, r.body)
	}
	s.until(event.TypeReplyEnd)
	if e.notes.Load() != 1 {
		t.Fatalf("save_note ran %d times", e.notes.Load())
	}
}

// agentsSnap is every agent alice and bob created, as stored.
func agentsSnap(t *testing.T, e *env) string {
	var b strings.Builder
	for _, u := range []string{user, "bob"} {
		recs, err := e.store.ListAgents(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			fmt.Fprintf(&b, "%s %s %s %v;", r.UserID, r.ID, r.Config, r.UpdatedAt)
		}
	}
	return b.String()
}

func bobSnap(t *testing.T, e *env, sid string) snapshot {
	k := session.Key{UserID: "bob", SessionID: sid}
	ctx := context.Background()
	last, _ := e.store.LastSeq(ctx, k)
	st, _ := e.store.LoadState(ctx, k)
	page, err := e.store.ListMessages(ctx, k, session.MessageQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := e.store.GetSession(ctx, k)
	return snapshot{last, st.Version, len(page.Messages), "", rec.Name + " " + string(rec.Config)}
}

// A token, when configured, is required on every route but /health.
func TestToken(t *testing.T) {
	e := newEnv(t, nil, func(c *server.Config) { c.Token = "s3cret" })
	if r := e.do("GET", "/agent/", user, ""); r.code != 401 {
		t.Fatalf("no token: %d", r.code)
	}
	if r := e.do("GET", "/agent/", user, "", "Authorization", "Bearer wrong"); r.code != 401 {
		t.Fatalf("wrong token: %d", r.code)
	}
	if r := e.do("POST", "/sessions/", user, `{"agent_id":"a1"}`); r.code != 401 {
		t.Fatalf("create without a token: %d", r.code)
	}
	if n, _, _ := e.store.ListSessions(context.Background(), session.ListQuery{UserID: user}); len(n) != 0 {
		t.Fatal("a session was created without the token")
	}
	if r := e.do("GET", "/agent/", user, "", "Authorization", "Bearer s3cret"); r.code != 200 {
		t.Fatalf("good token: %d", r.code)
	}
	if r := e.do("GET", "/health", "-", ""); r.code != 200 {
		t.Fatalf("health: %d", r.code)
	}
}

// The scheme of "Authorization: Bearer <token>" is matched without regard
// to case (RFC 7235 §2.1), on the API and on /metrics; the token is not.
func TestTokenSchemeAnyCase(t *testing.T) {
	e := newEnv(t, nil, func(c *server.Config) { c.Token = "s3cret" })
	for _, h := range []string{"bearer s3cret", "BEARER s3cret", "bEaReR  s3cret"} {
		if r := e.do("GET", "/agent/", user, "", "Authorization", h); r.code != 200 {
			t.Errorf("%q on /agent/: %d %s", h, r.code, r.body)
		}
		if r := e.do("GET", "/metrics", "-", "", "Authorization", h); r.code != 200 {
			t.Errorf("%q on /metrics: %d %s", h, r.code, r.body)
		}
	}
	for _, h := range []string{"bearer S3CRET", "Basic s3cret", "Bearers3cret", "s3cret"} {
		if r := e.do("GET", "/agent/", user, "", "Authorization", h); r.code != 401 || r.json(t)["detail"] == nil {
			t.Errorf("%q on /agent/: %d %s, want 401", h, r.code, r.body)
		}
	}
}
