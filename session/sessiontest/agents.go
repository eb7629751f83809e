package sessiontest

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/session"
)

func testAgents(t *testing.T, e *env) {
	created := e.clock.Now()
	a, err := e.s.CreateAgent(e.ctx, "u1", json.RawMessage(`{"name":"helper", "system_prompt":"be brief"}`))
	must(t, "CreateAgent", err)
	if !hexID.MatchString(a.ID) || a.UserID != "u1" || !a.CreatedAt.Equal(created) || !a.UpdatedAt.Equal(created) {
		t.Errorf("created %+v", a)
	}
	if string(a.Config) != `{"name":"helper", "system_prompt":"be brief"}` {
		t.Errorf("config stored as %s, want the bytes given", a.Config)
	}
	k := session.AgentKey{UserID: "u1", AgentID: a.ID}
	got, err := e.s.GetAgent(e.ctx, k)
	must(t, "GetAgent", err)
	if got.ID != a.ID || string(got.Config) != string(a.Config) || !got.CreatedAt.Equal(created) {
		t.Errorf("GetAgent %+v, want %+v", got, a)
	}
	empty, err := e.s.CreateAgent(e.ctx, "u1", nil)
	must(t, "CreateAgent(nil)", err)
	if string(empty.Config) != "{}" {
		t.Errorf("nil config stored as %s, want {}", empty.Config)
	}
	other, err := e.s.CreateAgent(e.ctx, "u2", json.RawMessage(`{}`))
	must(t, "CreateAgent u2", err)

	list, err := e.s.ListAgents(e.ctx, "u1")
	must(t, "ListAgents", err)
	var ids []string
	for _, r := range list {
		ids = append(ids, r.ID)
	}
	if want := []string{a.ID, empty.ID}; !slices.Equal(ids, want) {
		t.Errorf("ListAgents u1: %v, want %v (oldest first, only u1's)", ids, want)
	}
	none, err := e.s.ListAgents(e.ctx, "nobody")
	must(t, "ListAgents nobody", err)
	if len(none) != 0 {
		t.Errorf("ListAgents of a user with none: %v", none)
	}

	// Another user's agent is not found, for every operation.
	foreign := session.AgentKey{UserID: "u1", AgentID: other.ID}
	_, err = e.s.GetAgent(e.ctx, foreign)
	wantErr(t, "GetAgent of another user's agent", err, session.ErrNotFound)
	_, err = e.s.UpdateAgent(e.ctx, foreign, json.RawMessage(`{}`))
	wantErr(t, "UpdateAgent of another user's agent", err, session.ErrNotFound)
	wantErr(t, "DeleteAgent of another user's agent", e.s.DeleteAgent(e.ctx, foreign), session.ErrNotFound)

	e.clock.Advance(time.Second)
	up, err := e.s.UpdateAgent(e.ctx, k, json.RawMessage(`{"name":"renamed"}`))
	must(t, "UpdateAgent", err)
	if string(up.Config) != `{"name":"renamed"}` || !up.CreatedAt.Equal(created) || !up.UpdatedAt.Equal(created.Add(time.Second)) {
		t.Errorf("updated %+v", up)
	}
	got, err = e.s.GetAgent(e.ctx, k)
	must(t, "GetAgent after update", err)
	if string(got.Config) != `{"name":"renamed"}` {
		t.Errorf("after update: %s", got.Config)
	}

	// Bad arguments.
	_, err = e.s.CreateAgent(e.ctx, "", nil)
	wantErr(t, "CreateAgent with no user", err, session.ErrInvalid)
	_, err = e.s.CreateAgent(e.ctx, "u1", json.RawMessage(`{`))
	wantErr(t, "CreateAgent with bad JSON", err, session.ErrInvalid)
	_, err = e.s.UpdateAgent(e.ctx, k, json.RawMessage(`nope`))
	wantErr(t, "UpdateAgent with bad JSON", err, session.ErrInvalid)
	_, err = e.s.UpdateAgent(e.ctx, k, nil)
	wantErr(t, "UpdateAgent with no config", err, session.ErrInvalid)
	_, err = e.s.GetAgent(e.ctx, session.AgentKey{UserID: "u1"})
	wantErr(t, "GetAgent with no id", err, session.ErrInvalid)
	_, err = e.s.ListAgents(e.ctx, "")
	wantErr(t, "ListAgents with no user", err, session.ErrInvalid)
	got, err = e.s.GetAgent(e.ctx, k)
	must(t, "GetAgent after bad updates", err)
	if string(got.Config) != `{"name":"renamed"}` {
		t.Errorf("a refused update changed the agent: %s", got.Config)
	}
}

// An agent is deleted with its user's sessions that talk to it, and nothing
// else.
func testDeleteAgent(t *testing.T, e *env) {
	a, err := e.s.CreateAgent(e.ctx, "u1", nil)
	must(t, "CreateAgent", err)
	k := session.AgentKey{UserID: "u1", AgentID: a.ID}
	gone := e.create(t, "u1", a.ID)
	populate(t, e, gone)
	keepOtherAgent := e.create(t, "u1", "configured")
	populate(t, e, keepOtherAgent)
	// Another user's session naming the same agent id is not this user's
	// agent's session.
	keepOtherUser := e.create(t, "u2", a.ID)
	populate(t, e, keepOtherUser)
	before := snapshot(t, e, keepOtherAgent) + snapshot(t, e, keepOtherUser)

	must(t, "DeleteAgent", e.s.DeleteAgent(e.ctx, k))
	_, err = e.s.GetAgent(e.ctx, k)
	wantErr(t, "GetAgent after delete", err, session.ErrNotFound)
	wantErr(t, "DeleteAgent twice", e.s.DeleteAgent(e.ctx, k), session.ErrNotFound)
	for _, o := range ops() {
		wantErr(t, o.name+" on a deleted agent's session", o.fn(e.ctx, e.s, gone), session.ErrNotFound)
	}
	if after := snapshot(t, e, keepOtherAgent) + snapshot(t, e, keepOtherUser); after != before {
		t.Errorf("deleting an agent changed other sessions:\nbefore %s\nafter  %s", before, after)
	}
	// The totals count what is left: the agent's sessions are gone from
	// them, the others' stay.
	for _, c := range []struct {
		q    session.ListQuery
		want int
	}{{session.ListQuery{UserID: "u1"}, 1}, {session.ListQuery{UserID: "u1", AgentID: a.ID}, 0}, {session.ListQuery{UserID: "u2", AgentID: a.ID}, 1}} {
		page, total, err := e.s.ListSessions(e.ctx, c.q)
		must(t, "ListSessions", err)
		if total != c.want || len(page) != c.want {
			t.Errorf("ListSessions %+v after deleting an agent: total %d, %d records, want %d", c.q, total, len(page), c.want)
		}
	}
	list, err := e.s.ListAgents(e.ctx, "u1")
	must(t, "ListAgents", err)
	if len(list) != 0 {
		t.Errorf("ListAgents after delete: %v", list)
	}
	held, err := e.s.HeldBy(e.ctx, "owner", 10)
	must(t, "HeldBy", err)
	if want := []session.Key{keepOtherAgent, keepOtherUser}; !slices.Equal(held, want) {
		t.Errorf("leases after deleting an agent: %v, want %v", held, want)
	}
}

func testHeldBy(t *testing.T, e *env) {
	live := e.create(t, "u1", "a1") // held by me, not expired
	e.begin(t, live, "me", time.Hour, "")
	expired := e.create(t, "u2", "a1") // held by me, expired, never released
	e.begin(t, expired, "me", time.Second, "")
	released := e.create(t, "u1", "a1") // mine once, released
	e.finish(t, released, e.begin(t, released, "me", time.Hour, "").Lease)
	theirs := e.create(t, "u1", "a1") // another owner's
	e.begin(t, theirs, "other", time.Hour, "")
	takenOver := e.create(t, "u1", "a1") // mine, expired, then taken by another
	e.begin(t, takenOver, "me", time.Second, "")
	e.clock.Advance(2 * time.Second)
	e.begin(t, takenOver, "other", time.Hour, "")
	e.create(t, "u1", "a1") // never leased

	keys, err := e.s.HeldBy(e.ctx, "me", 10)
	must(t, "HeldBy", err)
	if want := []session.Key{live, expired}; !slices.Equal(keys, want) {
		t.Errorf("HeldBy(me): %v, want %v (oldest session first)", keys, want)
	}
	keys, err = e.s.HeldBy(e.ctx, "me", 1)
	must(t, "HeldBy limit 1", err)
	if want := []session.Key{live}; !slices.Equal(keys, want) {
		t.Errorf("HeldBy(me) limit 1: %v, want %v", keys, want)
	}
	keys, err = e.s.HeldBy(e.ctx, "other", 10)
	must(t, "HeldBy other", err)
	if want := []session.Key{theirs, takenOver}; !slices.Equal(keys, want) {
		t.Errorf("HeldBy(other): %v, want %v", keys, want)
	}
	_, err = e.s.HeldBy(e.ctx, "", 10)
	wantErr(t, "HeldBy with no owner", err, session.ErrInvalid)
	_, err = e.s.HeldBy(e.ctx, "me", 0)
	wantErr(t, "HeldBy limit 0", err, session.ErrInvalid)
	must(t, "DeleteSession", e.s.DeleteSession(e.ctx, live))
	keys, err = e.s.HeldBy(e.ctx, "me", 10)
	must(t, "HeldBy after delete", err)
	if want := []session.Key{expired}; !slices.Equal(keys, want) {
		t.Errorf("HeldBy(me) after deleting a session: %v, want %v", keys, want)
	}
}
