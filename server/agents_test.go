package server_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/server/api"
)

func listAgents(t *testing.T, e *env, u string) api.AgentList {
	t.Helper()
	r := e.do("GET", "/agent/", u, "")
	var l api.AgentList
	if err := json.Unmarshal([]byte(r.body), &l); r.code != 200 || err != nil {
		t.Fatalf("GET /agent/: %d %s %v", r.code, r.body, err)
	}
	return l
}

// An agent created over POST /agent/ is listed for its user only, serves
// sessions with its own name (over the configured agent it is based on),
// changes with PATCH, and is in the store: a server started later on the
// same store serves it.
func TestAgentLifecycle(t *testing.T) {
	e := newEnv(t, []scripted.Turn{textTurn, textTurn}, nil)
	r := e.do("POST", "/agent/", user, `{"name":"helper","system_prompt":"Be brief.","react_config":{"max_iters":3}}`)
	if r.code != 201 {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	id := r.json(t)["agent_id"].(string)

	l := listAgents(t, e, user)
	if l.Total != 2 || len(l.Agents) != 2 {
		t.Fatalf("list: %+v", l)
	}
	if a := l.Agents[0]; a.ID != "a1" || a.Source != "server" || a.UserID != nil || a.Data.Name != "assistant" {
		t.Errorf("configured agent listed as %+v", a)
	}
	a := l.Agents[1]
	if a.ID != id || a.Data.Name != "helper" || a.Source != "user" || a.UserID == nil || *a.UserID != user ||
		a.Data.SystemPrompt == nil || *a.Data.SystemPrompt != "Be brief." || a.Data.ReactConfig == nil ||
		*a.Data.ReactConfig.MaxIters != 3 || a.Data.BaseAgentID != "a1" || a.CreatedAt == nil {
		t.Fatalf("created agent listed as %+v (data %+v)", a, a.Data)
	}
	if l := listAgents(t, e, "bob"); l.Total != 1 || l.Agents[0].ID != "a1" {
		t.Errorf("bob sees %+v", l)
	}

	// A session of it: the reply is authored by the agent's name.
	r = e.do("POST", "/sessions/", user, fmt.Sprintf(`{"agent_id":%q}`, id))
	if r.code != 201 {
		t.Fatalf("create session: %d %s", r.code, r.body)
	}
	sid := r.json(t)["session_id"].(string)
	chat := func(e *env) []sseEvent {
		s := e.openStream(sid, "")
		defer s.cancel()
		if r := e.do("POST", "/chat/", user, fmt.Sprintf(`{"agent_id":%q,"session_id":%q,"input":%s}`, id, sid, userMsg("hi"))); r.code != 200 {
			t.Fatalf("chat: %d %s", r.code, r.body)
		}
		return s.until(event.TypeReplyEnd)
	}
	evs := chat(e)
	if st := evs[0].ev.(*event.ReplyStart); st.Name != "helper" {
		t.Fatalf("reply by %q, want helper", st.Name)
	}
	if end := evs[len(evs)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyCompleted {
		t.Fatalf("reply ended %s", end.FinishedReason)
	}
	e.waitStatus(sid, "idle")

	// PATCH: an omitted field stays, null leaves it, a given one changes.
	r = e.do("PATCH", "/agent/"+id, user, `{"system_prompt":"Be kind.","react_config":null}`)
	if r.code != 200 {
		t.Fatalf("patch: %d %s", r.code, r.body)
	}
	var view api.AgentRecord
	if err := json.Unmarshal([]byte(r.body), &view); err != nil || view.ID != id || view.Source != "user" ||
		view.Data.Name != "helper" || view.Data.SystemPrompt == nil || *view.Data.SystemPrompt != "Be kind." ||
		view.Data.ReactConfig == nil || *view.Data.ReactConfig.MaxIters != 3 {
		t.Fatalf("patched view %s", r.body)
	}
	r = e.do("PATCH", "/agent/"+id, user, `{"name":"renamed"}`)
	if r.code != 200 {
		t.Fatalf("rename while idle: %d %s", r.code, r.body)
	}

	// Another server on the same store (a restart) serves the agent.
	srv2, err := server.New(server.Config{Engine: engine.Config{Store: e.store, Agents: []engine.Agent{{ID: "a1", Name: "assistant", New: e.newAgent, Derive: e.deriveAgent}}},
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	hs2 := httptest.NewServer(srv2)
	e2 := &env{t: t, store: e.store, srv: srv2, hs: hs2, model: e.model, waiting: e.waiting}
	t.Cleanup(func() { hs2.CloseClientConnections(); srv2.Close(); hs2.Close() })
	if l := listAgents(t, e2, user); l.Total != 2 || l.Agents[1].ID != id || l.Agents[1].Data.Name != "renamed" {
		t.Fatalf("after a restart: %+v", l)
	}
	evs = chat(e2)
	if st := evs[0].ev.(*event.ReplyStart); st.Name != "renamed" {
		t.Fatalf("reply after the restart by %q, want renamed", st.Name)
	}
	e2.waitStatus(sid, "idle")

	// DELETE: the agent and its sessions go.
	if r := e2.do("DELETE", "/agent/"+id, user, ""); r.code != 204 {
		t.Fatalf("delete: %d %s", r.code, r.body)
	}
	if r := e2.do("GET", "/sessions/"+sid+"/status?agent_id="+id, user, ""); r.code != 404 {
		t.Fatalf("the deleted agent's session: %d %s", r.code, r.body)
	}
	if l := listAgents(t, e2, user); l.Total != 1 {
		t.Fatalf("after delete: %+v", l)
	}
	if r := e2.do("POST", "/sessions/", user, fmt.Sprintf(`{"agent_id":%q}`, id)); r.code != 404 {
		t.Fatalf("a session for the deleted agent: %d %s", r.code, r.body)
	}
}

// What cannot change under a session: a rename while a reply waits on a
// confirmation (the parked reply is found by its author's name), and a
// delete while a run is active, are 409 and change nothing; a parked
// session is deleted with its agent.
func TestAgentConflicts(t *testing.T) {
	e := newEnv(t, []scripted.Turn{noteTurn, waitTurn}, nil)
	create := func(name string) (agentID, sid string) {
		r := e.do("POST", "/agent/", user, fmt.Sprintf(`{"name":%q}`, name))
		if r.code != 201 {
			t.Fatalf("create agent: %d %s", r.code, r.body)
		}
		agentID = r.json(t)["agent_id"].(string)
		r = e.do("POST", "/sessions/", user, fmt.Sprintf(`{"agent_id":%q}`, agentID))
		if r.code != 201 {
			t.Fatalf("create session: %d %s", r.code, r.body)
		}
		return agentID, r.json(t)["session_id"].(string)
	}
	post := func(agentID, sid, text string) {
		if r := e.do("POST", "/chat/", user, fmt.Sprintf(`{"agent_id":%q,"session_id":%q,"input":%s}`, agentID, sid, userMsg(text))); r.code != 200 {
			t.Fatalf("chat: %d %s", r.code, r.body)
		}
	}

	parkedAgent, parked := create("noter")
	s := e.openStream(parked, "")
	post(parkedAgent, parked, "note")
	s.until(event.TypeRequireUserConfirm)
	e.waitStatus(parked, "awaiting_permission")
	before := agentsSnap(t, e)
	if r := e.do("PATCH", "/agent/"+parkedAgent, user, `{"name":"other"}`); r.code != 409 {
		t.Fatalf("rename while parked: %d %s", r.code, r.body)
	}
	if r := e.do("PATCH", "/agent/"+parkedAgent, user, `{"system_prompt":"x"}`); r.code != 200 {
		t.Fatalf("a new prompt while parked: %d %s", r.code, r.body)
	}
	if agentsSnap(t, e) == before {
		t.Fatal("the prompt did not change")
	}

	runningAgent, running := create("waiter")
	post(runningAgent, running, "wait")
	<-e.waiting
	before = agentsSnap(t, e)
	if r := e.do("DELETE", "/agent/"+runningAgent, user, ""); r.code != 409 {
		t.Fatalf("delete while running: %d %s", r.code, r.body)
	}
	if after := agentsSnap(t, e); after != before {
		t.Fatalf("a refused delete changed the agents: %s -> %s", before, after)
	}
	if st := e.status(running); st != "running" {
		t.Fatalf("the running session after a refused delete: %s", st)
	}
	if r := e.do("POST", "/sessions/"+running+"/interrupt", user, ""); r.code != 202 {
		t.Fatalf("interrupt: %d", r.code)
	}
	e.waitStatus(running, "idle")
	if r := e.do("DELETE", "/agent/"+runningAgent, user, ""); r.code != 204 {
		t.Fatalf("delete once idle: %d %s", r.code, r.body)
	}

	// Parked holds nothing: the agent goes, with its parked session.
	if r := e.do("DELETE", "/agent/"+parkedAgent, user, ""); r.code != 204 {
		t.Fatalf("delete while parked: %d %s", r.code, r.body)
	}
	if r := e.do("GET", "/sessions/"+parked+"/status?agent_id="+parkedAgent, user, ""); r.code != 404 {
		t.Fatalf("the parked session after its agent's delete: %d", r.code)
	}
	if n := e.notes.Load(); n != 0 {
		t.Fatalf("save_note ran %d times", n)
	}
}

// GET /agent/{id}/tools gives an agent's tools as its model sees them,
// a user's own agent's (its base's tools) included; an agent the user
// does not have is 404.
func TestAgentTools(t *testing.T) {
	e := newEnv(t, nil, nil)
	tools := func(u, id string) (int, api.AgentTools, string) {
		r := e.do("GET", "/agent/"+id+"/tools", u, "")
		var out api.AgentTools
		if r.code == 200 {
			if err := json.Unmarshal([]byte(r.body), &out); err != nil {
				t.Fatalf("%s: %v", r.body, err)
			}
		}
		return r.code, out, r.body
	}
	code, got, body := tools(user, "a1")
	names := map[string]string{}
	for _, tl := range got.Tools {
		names[tl.Name] = string(tl.Parameters)
	}
	if code != 200 || len(got.Tools) == 0 {
		t.Fatalf("a1's tools: %d %s", code, body)
	}
	if p, ok := names["save_note"]; !ok || !json.Valid([]byte(p)) || !strings.Contains(p, `"text"`) {
		t.Fatalf("save_note's schema: %q in %s", p, body)
	}
	r := e.do("POST", "/agent/", user, `{"name":"helper"}`)
	if r.code != 201 {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	id := r.json(t)["agent_id"].(string)
	if code, mine, body := tools(user, id); code != 200 || len(mine.Tools) != len(got.Tools) {
		t.Fatalf("the user's agent's tools: %d %s", code, body)
	}
	for _, c := range []struct{ user, id string }{{user, "nope"}, {"bob", id}} {
		if code, _, body := tools(c.user, c.id); code != 404 || !strings.Contains(body, `"detail"`) {
			t.Errorf("%s's tools for %s: %d %s, want 404", c.id, c.user, code, body)
		}
	}
}
