package sessiontest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/session"
)

// New opens a fresh, empty store for one test, reading time from now. It
// registers the store's cleanup with t.
type New func(t *testing.T, now func() time.Time) session.Store

// Run runs the whole contract against the backend New opens. Every subtest
// opens its own store and runs in parallel with the others.
func Run(t *testing.T, open New) {
	tests := []struct {
		name string
		fn   func(*testing.T, *env)
	}{
		{"Sessions", testSessions},
		{"List", testList},
		{"ChosenID", testChosenID},
		{"UserIsolation", testIsolation},
		{"UnknownSession", testUnknown},
		{"Cancelled", testCancelled},
		{"BadInput", testBadInput},
		{"State", testState},
		{"StateConcurrentSaves", testStateRace},
		{"Transcript", testTranscript},
		{"Events", testEvents},
		{"EventsConcurrent", testEventsConcurrent},
		{"Lease", testLease},
		{"LeaseConcurrent", testLeaseRace},
		{"Inputs", testInputs},
		{"Runs", testRuns},
		{"RunWriteAtomic", testRunWriteAtomic},
		{"Recoverable", testRecoverable},
		{"DeleteCascade", testDelete},
		{"CallerBuffers", testBuffers},
		{"Agents", testAgents},
		{"DeleteAgent", testDeleteAgent},
		{"HeldBy", testHeldBy},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := NewClock()
			tc.fn(t, &env{s: open(t, clock.Now), clock: clock, ctx: t.Context()})
		})
	}
}

type env struct {
	s     session.Store
	clock *Clock
	ctx   context.Context
}

func (e *env) create(t *testing.T, user, agent string) session.Key {
	t.Helper()
	r, err := e.s.CreateSession(e.ctx, session.NewSession{UserID: user, AgentID: agent, Name: "n", Config: json.RawMessage(`{"model":"demo"}`)})
	if err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	return session.Key{UserID: user, SessionID: r.ID}
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: error %v, want %v", what, err, target)
	}
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

var hexID = regexp.MustCompile(`^[0-9a-f]{32}$`)

func testSessions(t *testing.T, e *env) {
	created := e.clock.Now()
	r, err := e.s.CreateSession(e.ctx, session.NewSession{UserID: "u1", AgentID: "a1", Name: "first", Config: json.RawMessage(`{"b": 1,"a":[2]}`)})
	must(t, "CreateSession", err)
	if !hexID.MatchString(r.ID) {
		t.Errorf("id %q is not 32 hex digits", r.ID)
	}
	if r.UserID != "u1" || r.AgentID != "a1" || r.Name != "first" || string(r.Config) != `{"b": 1,"a":[2]}` {
		t.Errorf("created record %+v", r)
	}
	if !r.CreatedAt.Equal(created) || !r.UpdatedAt.Equal(created) {
		t.Errorf("created at %v / updated at %v, want %v", r.CreatedAt, r.UpdatedAt, created)
	}
	k := session.Key{UserID: "u1", SessionID: r.ID}
	got, err := e.s.GetSession(e.ctx, k)
	must(t, "GetSession", err)
	if got.ID != r.ID || got.Name != "first" || string(got.Config) != `{"b": 1,"a":[2]}` || !got.CreatedAt.Equal(created) {
		t.Errorf("GetSession = %+v, want %+v", got, r)
	}

	// No config is stored as {}.
	r2, err := e.s.CreateSession(e.ctx, session.NewSession{UserID: "u1", AgentID: "a1"})
	must(t, "CreateSession without config", err)
	if string(r2.Config) != "{}" || r2.ID == r.ID {
		t.Errorf("second record %+v", r2)
	}

	e.clock.Advance(time.Second)
	name := "renamed"
	up, err := e.s.UpdateSession(e.ctx, k, session.Patch{Name: &name})
	must(t, "UpdateSession name", err)
	if up.Name != "renamed" || string(up.Config) != `{"b": 1,"a":[2]}` || !up.UpdatedAt.Equal(created.Add(time.Second)) || !up.CreatedAt.Equal(created) {
		t.Errorf("after name patch: %+v", up)
	}
	up, err = e.s.UpdateSession(e.ctx, k, session.Patch{Config: json.RawMessage(`{"x":null}`)})
	must(t, "UpdateSession config", err)
	if up.Name != "renamed" || string(up.Config) != `{"x":null}` {
		t.Errorf("after config patch: %+v", up)
	}
	got, err = e.s.GetSession(e.ctx, k)
	must(t, "GetSession after patch", err)
	if got.Name != "renamed" || string(got.Config) != `{"x":null}` || !got.UpdatedAt.Equal(created.Add(time.Second)) {
		t.Errorf("stored after patch: %+v", got)
	}

	must(t, "DeleteSession", e.s.DeleteSession(e.ctx, k))
	_, err = e.s.GetSession(e.ctx, k)
	wantErr(t, "GetSession after delete", err, session.ErrNotFound)
	wantErr(t, "DeleteSession twice", e.s.DeleteSession(e.ctx, k), session.ErrNotFound)
	if _, err := e.s.GetSession(e.ctx, session.Key{UserID: "u1", SessionID: r2.ID}); err != nil {
		t.Errorf("the other session went with the deleted one: %v", err)
	}
}

// A caller may choose a session's id (an AG-UI thread's): it is stored as
// given, an id already used by any user is ErrExists and changes nothing,
// and an id that cannot be a path segment is ErrInvalid.
func testChosenID(t *testing.T, e *env) {
	r, err := e.s.CreateSession(e.ctx, session.NewSession{ID: "thread-1:a.b_c~", UserID: "u1", AgentID: "a1", Name: "t"})
	must(t, "CreateSession with an id", err)
	if r.ID != "thread-1:a.b_c~" {
		t.Errorf("chosen id stored as %q", r.ID)
	}
	for _, user := range []string{"u1", "u2"} {
		_, err = e.s.CreateSession(e.ctx, session.NewSession{ID: r.ID, UserID: user, AgentID: "a2", Name: "again"})
		wantErr(t, "CreateSession with a used id by "+user, err, session.ErrExists)
	}
	got, err := e.s.GetSession(e.ctx, session.Key{UserID: "u1", SessionID: r.ID})
	must(t, "GetSession of the chosen id", err)
	if got.AgentID != "a1" || got.Name != "t" {
		t.Errorf("a refused create changed the session: %+v", got)
	}
	if _, err := e.s.GetSession(e.ctx, session.Key{UserID: "u2", SessionID: r.ID}); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("another user reads the chosen id: %v", err)
	}
	for _, bad := range []string{"a/b", "a b", "a?b", "a#b", "a%2F", `a\b`, "\x00", "é", strings.Repeat("x", session.MaxIDLen+1)} {
		_, err := e.s.CreateSession(e.ctx, session.NewSession{ID: bad, UserID: "u1", AgentID: "a1"})
		wantErr(t, fmt.Sprintf("CreateSession with id %q", bad), err, session.ErrInvalid)
	}
	long := strings.Repeat("x", session.MaxIDLen)
	if _, err := e.s.CreateSession(e.ctx, session.NewSession{ID: long, UserID: "u1", AgentID: "a1"}); err != nil {
		t.Errorf("an id of MaxIDLen bytes: %v", err)
	}
	_, total, err := e.s.ListSessions(e.ctx, session.ListQuery{UserID: "u1"})
	must(t, "ListSessions", err)
	if total != 2 {
		t.Errorf("u1 has %d sessions, want 2", total)
	}
}

func testList(t *testing.T, e *env) {
	var ids []string
	for i := range 5 {
		agent := "a1"
		if i%2 == 1 {
			agent = "a2"
		}
		ids = append(ids, e.create(t, "u1", agent).SessionID)
		if i < 3 {
			e.clock.Advance(time.Millisecond) // the last two share a timestamp
		}
	}
	e.create(t, "u2", "a1")
	ids = slices.Clone(ids)
	slices.Reverse(ids) // newest first
	recIDs := func(rs []session.Record) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	page, total, err := e.s.ListSessions(e.ctx, session.ListQuery{UserID: "u1"})
	must(t, "ListSessions", err)
	if total != 5 || !slices.Equal(recIDs(page), ids) {
		t.Errorf("all of u1: total %d, %v, want 5, %v", total, recIDs(page), ids)
	}
	page, total, err = e.s.ListSessions(e.ctx, session.ListQuery{UserID: "u1", AgentID: "a1"})
	must(t, "ListSessions a1", err)
	if want := []string{ids[0], ids[2], ids[4]}; total != 3 || !slices.Equal(recIDs(page), want) {
		t.Errorf("u1/a1: total %d, %v, want 3, %v", total, recIDs(page), want)
	}
	page, total, err = e.s.ListSessions(e.ctx, session.ListQuery{UserID: "u1", Limit: 2, Offset: 1})
	must(t, "ListSessions page", err)
	if total != 5 || !slices.Equal(recIDs(page), ids[1:3]) {
		t.Errorf("limit 2 offset 1: total %d, %v, want 5, %v", total, recIDs(page), ids[1:3])
	}
	page, total, err = e.s.ListSessions(e.ctx, session.ListQuery{UserID: "u1", Offset: 9})
	must(t, "ListSessions past the end", err)
	if total != 5 || len(page) != 0 {
		t.Errorf("offset 9: total %d, %d records", total, len(page))
	}
	page, total, err = e.s.ListSessions(e.ctx, session.ListQuery{UserID: "nobody"})
	must(t, "ListSessions of a user without sessions", err)
	if total != 0 || len(page) != 0 {
		t.Errorf("nobody: total %d, %d records", total, len(page))
	}
}

// op is one store operation on a session, for the tables that check every
// operation the same way.
type op struct {
	name string
	fn   func(ctx context.Context, s session.Store, k session.Key) error
}

func ops() []op {
	name := "x"
	return []op{
		{"GetSession", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.GetSession(ctx, k)
			return err
		}},
		{"UpdateSession", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.UpdateSession(ctx, k, session.Patch{Name: &name})
			return err
		}},
		{"LoadState", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.LoadState(ctx, k)
			return err
		}},
		{"SaveState", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.SaveState(ctx, k, 0, json.RawMessage(`{"context":[]}`))
			return err
		}},
		{"UpsertMessages", func(ctx context.Context, s session.Store, k session.Key) error {
			return s.UpsertMessages(ctx, k, []session.Message{{ID: "m", JSON: json.RawMessage(`{}`)}})
		}},
		{"ListMessages", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.ListMessages(ctx, k, session.MessageQuery{Limit: 10})
			return err
		}},
		{"AppendEvents", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.AppendEvents(ctx, k, []json.RawMessage{json.RawMessage(`{}`)})
			return err
		}},
		{"ReadEvents", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.ReadEvents(ctx, k, 0, 10)
			return err
		}},
		{"LastSeq", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.LastSeq(ctx, k)
			return err
		}},
		{"AcquireLease", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.AcquireLease(ctx, k, "intruder", time.Minute)
			return err
		}},
		{"RenewLease", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.RenewLease(ctx, k, "owner", time.Minute)
			return err
		}},
		{"ReleaseLease", func(ctx context.Context, s session.Store, k session.Key) error {
			return s.ReleaseLease(ctx, k, "owner")
		}},
		{"GetLease", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.GetLease(ctx, k)
			return err
		}},
		{"EnqueueInput", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.EnqueueInput(ctx, k, json.RawMessage(`{}`))
			return err
		}},
		{"ClaimInput", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.ClaimInput(ctx, k, "owner")
			return err
		}},
		{"CompleteInput", func(ctx context.Context, s session.Store, k session.Key) error {
			return s.CompleteInput(ctx, k, 1)
		}},
		{"PendingInputs", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.PendingInputs(ctx, k)
			return err
		}},
		{"StartRun", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.StartRun(ctx, k, "intruder", time.Minute, json.RawMessage(`{}`))
			return err
		}},
		{"WriteRun", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.WriteRun(ctx, k, session.RunWrite{Events: []json.RawMessage{json.RawMessage(`{}`)}})
			return err
		}},
		{"DeleteSession", func(ctx context.Context, s session.Store, k session.Key) error {
			return s.DeleteSession(ctx, k)
		}},
	}
}

// populate gives a session something in every table.
func populate(t *testing.T, e *env, k session.Key) {
	t.Helper()
	_, err := e.s.SaveState(e.ctx, k, 0, json.RawMessage(`{"context":[1]}`))
	must(t, "SaveState", err)
	must(t, "UpsertMessages", e.s.UpsertMessages(e.ctx, k, []session.Message{{ID: "m1", JSON: json.RawMessage(`{"id":"m1"}`)}}))
	_, err = e.s.AppendEvents(e.ctx, k, []json.RawMessage{json.RawMessage(`{"type":"REPLY_START"}`)})
	must(t, "AppendEvents", err)
	_, err = e.s.AcquireLease(e.ctx, k, "owner", time.Minute)
	must(t, "AcquireLease", err)
	in, err := e.s.EnqueueInput(e.ctx, k, json.RawMessage(`[{"role":"user"}]`))
	must(t, "EnqueueInput", err)
	_, err = e.s.EnqueueInput(e.ctx, k, json.RawMessage(`[{"role":"user"}]`))
	must(t, "EnqueueInput", err)
	_, err = e.s.ClaimInput(e.ctx, k, "owner")
	must(t, "ClaimInput", err)
	_ = in
}

// snapshot reads everything stored for k.
func snapshot(t *testing.T, e *env, k session.Key) string {
	t.Helper()
	rec, err := e.s.GetSession(e.ctx, k)
	must(t, "GetSession", err)
	st, err := e.s.LoadState(e.ctx, k)
	must(t, "LoadState", err)
	msgs, err := e.s.ListMessages(e.ctx, k, session.MessageQuery{Limit: 100})
	must(t, "ListMessages", err)
	evs, err := e.s.ReadEvents(e.ctx, k, 0, 100)
	must(t, "ReadEvents", err)
	lease, err := e.s.GetLease(e.ctx, k)
	must(t, "GetLease", err)
	n, err := e.s.PendingInputs(e.ctx, k)
	must(t, "PendingInputs", err)
	return fmt.Sprintf("%s %s %s %v|%s %d|%v|%v|%s %v %d|%d", rec.ID, rec.Name, rec.Config, rec.UpdatedAt, st.JSON, st.Version, msgs, evs, lease.Owner, lease.Expires, lease.Epoch, n)
}

func testIsolation(t *testing.T, e *env) {
	k := e.create(t, "alice", "a1")
	populate(t, e, k)
	before := snapshot(t, e, k)
	other := session.Key{UserID: "mallory", SessionID: k.SessionID}
	for _, o := range ops() {
		wantErr(t, o.name+" by another user", o.fn(e.ctx, e.s, other), session.ErrNotFound)
	}
	if after := snapshot(t, e, k); after != before {
		t.Errorf("another user's calls changed the session:\nbefore %s\nafter  %s", before, after)
	}
	page, total, err := e.s.ListSessions(e.ctx, session.ListQuery{UserID: "mallory"})
	must(t, "ListSessions", err)
	if total != 0 || len(page) != 0 {
		t.Errorf("mallory lists %d sessions (total %d)", len(page), total)
	}
}

func testUnknown(t *testing.T, e *env) {
	e.create(t, "u1", "a1")
	k := session.Key{UserID: "u1", SessionID: "0123456789abcdef0123456789abcdef"}
	for _, o := range ops() {
		wantErr(t, o.name+" on an unknown session", o.fn(e.ctx, e.s, k), session.ErrNotFound)
	}
}

func testCancelled(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	populate(t, e, k)
	before := snapshot(t, e, k)
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	for _, o := range ops() {
		wantErr(t, o.name+" with a cancelled context", o.fn(ctx, e.s, k), context.Canceled)
	}
	_, err := e.s.CreateSession(ctx, session.NewSession{UserID: "u1", AgentID: "a1"})
	wantErr(t, "CreateSession with a cancelled context", err, context.Canceled)
	_, _, err = e.s.ListSessions(ctx, session.ListQuery{UserID: "u1"})
	wantErr(t, "ListSessions with a cancelled context", err, context.Canceled)
	_, err = e.s.Recoverable(ctx, 10)
	wantErr(t, "Recoverable with a cancelled context", err, context.Canceled)
	if after := snapshot(t, e, k); after != before {
		t.Errorf("cancelled calls changed the session:\nbefore %s\nafter  %s", before, after)
	}
}

func testBadInput(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	for _, o := range ops() {
		wantErr(t, o.name+" with an empty user id", o.fn(e.ctx, e.s, session.Key{SessionID: k.SessionID}), session.ErrInvalid)
		wantErr(t, o.name+" with an empty session id", o.fn(e.ctx, e.s, session.Key{UserID: "u1"}), session.ErrInvalid)
	}
	bad := []struct {
		name string
		fn   func() error
	}{
		{"CreateSession without user", func() error {
			_, err := e.s.CreateSession(e.ctx, session.NewSession{AgentID: "a"})
			return err
		}},
		{"CreateSession without agent", func() error {
			_, err := e.s.CreateSession(e.ctx, session.NewSession{UserID: "u1"})
			return err
		}},
		{"CreateSession with bad config", func() error {
			_, err := e.s.CreateSession(e.ctx, session.NewSession{UserID: "u1", AgentID: "a", Config: json.RawMessage(`{`)})
			return err
		}},
		{"ListSessions without user", func() error {
			_, _, err := e.s.ListSessions(e.ctx, session.ListQuery{})
			return err
		}},
		{"ListSessions with negative limit", func() error {
			_, _, err := e.s.ListSessions(e.ctx, session.ListQuery{UserID: "u1", Limit: -1})
			return err
		}},
		{"UpdateSession with bad config", func() error {
			_, err := e.s.UpdateSession(e.ctx, k, session.Patch{Config: json.RawMessage(`nope`)})
			return err
		}},
		{"SaveState with empty state", func() error {
			_, err := e.s.SaveState(e.ctx, k, 0, nil)
			return err
		}},
		{"SaveState with bad JSON", func() error {
			_, err := e.s.SaveState(e.ctx, k, 0, json.RawMessage(`{"a":`))
			return err
		}},
		{"UpsertMessages with none", func() error { return e.s.UpsertMessages(e.ctx, k, nil) }},
		{"UpsertMessages with an empty id", func() error {
			return e.s.UpsertMessages(e.ctx, k, []session.Message{{JSON: json.RawMessage(`{}`)}})
		}},
		{"UpsertMessages with bad JSON", func() error {
			return e.s.UpsertMessages(e.ctx, k, []session.Message{{ID: "m", JSON: json.RawMessage(`{]`)}})
		}},
		{"ListMessages with limit 0", func() error {
			_, err := e.s.ListMessages(e.ctx, k, session.MessageQuery{})
			return err
		}},
		{"AppendEvents with none", func() error {
			_, err := e.s.AppendEvents(e.ctx, k, nil)
			return err
		}},
		{"AppendEvents with an empty event", func() error {
			_, err := e.s.AppendEvents(e.ctx, k, []json.RawMessage{json.RawMessage(`{}`), nil})
			return err
		}},
		{"AppendEvents with bad JSON", func() error {
			_, err := e.s.AppendEvents(e.ctx, k, []json.RawMessage{json.RawMessage(`{"type":`)})
			return err
		}},
		{"ReadEvents with limit 0", func() error {
			_, err := e.s.ReadEvents(e.ctx, k, 0, 0)
			return err
		}},
		{"AcquireLease without owner", func() error {
			_, err := e.s.AcquireLease(e.ctx, k, "", time.Minute)
			return err
		}},
		{"AcquireLease with ttl 0", func() error {
			_, err := e.s.AcquireLease(e.ctx, k, "o", 0)
			return err
		}},
		{"RenewLease with negative ttl", func() error {
			_, err := e.s.RenewLease(e.ctx, k, "o", -time.Second)
			return err
		}},
		{"ReleaseLease without owner", func() error { return e.s.ReleaseLease(e.ctx, k, "") }},
		{"EnqueueInput with bad JSON", func() error {
			_, err := e.s.EnqueueInput(e.ctx, k, json.RawMessage(`[`))
			return err
		}},
		{"ClaimInput without owner", func() error {
			_, err := e.s.ClaimInput(e.ctx, k, "")
			return err
		}},
		{"StartRun without owner", func() error {
			_, err := e.s.StartRun(e.ctx, k, "", time.Minute, json.RawMessage(`{}`))
			return err
		}},
		{"StartRun with ttl 0", func() error {
			_, err := e.s.StartRun(e.ctx, k, "o", 0, json.RawMessage(`{}`))
			return err
		}},
		{"StartRun with bad JSON", func() error {
			_, err := e.s.StartRun(e.ctx, k, "o", time.Minute, json.RawMessage(`{`))
			return err
		}},
		{"WriteRun with nothing", func() error {
			_, err := e.s.WriteRun(e.ctx, k, session.RunWrite{})
			return err
		}},
		{"WriteRun with bad state JSON", func() error {
			_, err := e.s.WriteRun(e.ctx, k, session.RunWrite{State: json.RawMessage(`{"a":`), Events: []json.RawMessage{json.RawMessage(`{}`)}})
			return err
		}},
		{"WriteRun with bad event JSON", func() error {
			_, err := e.s.WriteRun(e.ctx, k, session.RunWrite{Messages: []session.Message{msg("m1", "x")}, Events: []json.RawMessage{json.RawMessage(`{]`)}})
			return err
		}},
		{"WriteRun with a message without id", func() error {
			_, err := e.s.WriteRun(e.ctx, k, session.RunWrite{Messages: []session.Message{{JSON: json.RawMessage(`{}`)}}, Events: []json.RawMessage{json.RawMessage(`{}`)}})
			return err
		}},
		{"Recoverable with limit 0", func() error {
			_, err := e.s.Recoverable(e.ctx, 0)
			return err
		}},
	}
	for _, b := range bad {
		wantErr(t, b.name, b.fn(), session.ErrInvalid)
	}
	// Nothing the bad calls did is stored.
	st, err := e.s.LoadState(e.ctx, k)
	must(t, "LoadState", err)
	last, err := e.s.LastSeq(e.ctx, k)
	must(t, "LastSeq", err)
	msgs, err := e.s.ListMessages(e.ctx, k, session.MessageQuery{Limit: 10})
	must(t, "ListMessages", err)
	n, err := e.s.PendingInputs(e.ctx, k)
	must(t, "PendingInputs", err)
	if st.Version != 0 || last != 0 || len(msgs.Messages) != 0 || n != 0 {
		t.Errorf("bad input was stored: state v%d, last seq %d, %d messages, %d inputs", st.Version, last, len(msgs.Messages), n)
	}
}

func testState(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	st, err := e.s.LoadState(e.ctx, k)
	must(t, "LoadState of a new session", err)
	if st.Version != 0 || st.JSON != nil {
		t.Errorf("new session's state: %+v", st)
	}
	e.clock.Advance(time.Minute)
	v, err := e.s.SaveState(e.ctx, k, 0, json.RawMessage(`{"context": [], "summary":""}`))
	must(t, "SaveState v0", err)
	if v != 1 {
		t.Errorf("first save returned version %d", v)
	}
	rec, err := e.s.GetSession(e.ctx, k)
	must(t, "GetSession", err)
	if !rec.UpdatedAt.Equal(e.clock.Now()) {
		t.Errorf("SaveState left updated_at at %v, want %v", rec.UpdatedAt, e.clock.Now())
	}
	_, err = e.s.SaveState(e.ctx, k, 0, json.RawMessage(`{"stale":true}`))
	wantErr(t, "SaveState with a stale version", err, session.ErrConflict)
	_, err = e.s.SaveState(e.ctx, k, 5, json.RawMessage(`{"future":true}`))
	wantErr(t, "SaveState with a future version", err, session.ErrConflict)
	v, err = e.s.SaveState(e.ctx, k, 1, json.RawMessage(`{"context": [1]}`))
	must(t, "SaveState v1", err)
	if v != 2 {
		t.Errorf("second save returned version %d", v)
	}
	st, err = e.s.LoadState(e.ctx, k)
	must(t, "LoadState", err)
	if st.Version != 2 || string(st.JSON) != `{"context": [1]}` {
		t.Errorf("LoadState = v%d %s", st.Version, st.JSON)
	}
}

func testStateRace(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = e.s.SaveState(e.ctx, k, 0, json.RawMessage(fmt.Sprintf(`{"writer":%d}`, i)))
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner < 0:
			winner = i
		case err == nil:
			t.Errorf("writers %d and %d both saved over version 0", winner, i)
		case !errors.Is(err, session.ErrConflict):
			t.Errorf("writer %d: %v, want ErrConflict", i, err)
		}
	}
	st, err := e.s.LoadState(e.ctx, k)
	must(t, "LoadState", err)
	if winner < 0 || st.Version != 1 || string(st.JSON) != fmt.Sprintf(`{"writer":%d}`, winner) {
		t.Errorf("after the race: winner %d, stored v%d %s", winner, st.Version, st.JSON)
	}
}

func msg(id, text string) session.Message {
	return session.Message{ID: id, JSON: json.RawMessage(fmt.Sprintf(`{"id":%q,"text":%q}`, id, text))}
}

func pageString(p session.MessagePage) string {
	s := ""
	for _, m := range p.Messages {
		s += string(m.JSON) + " "
	}
	return fmt.Sprintf("%s more=%v", s, p.HasMore)
}

func testTranscript(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	list := func(before string, limit int) session.MessagePage {
		t.Helper()
		p, err := e.s.ListMessages(e.ctx, k, session.MessageQuery{Before: before, Limit: limit})
		must(t, "ListMessages", err)
		return p
	}
	want := func(p session.MessagePage, more bool, msgs ...session.Message) {
		t.Helper()
		w := session.MessagePage{Messages: msgs, HasMore: more}
		if pageString(p) != pageString(w) {
			t.Errorf("page\n got %s\nwant %s", pageString(p), pageString(w))
		}
		for i := range min(len(p.Messages), len(msgs)) {
			if p.Messages[i].ID != msgs[i].ID {
				t.Errorf("message %d has id %q, want %q", i, p.Messages[i].ID, msgs[i].ID)
			}
		}
	}
	want(list("", 10), false)
	must(t, "UpsertMessages", e.s.UpsertMessages(e.ctx, k, []session.Message{msg("m1", "a"), msg("m2", "b")}))
	must(t, "UpsertMessages", e.s.UpsertMessages(e.ctx, k, []session.Message{msg("m3", "c")}))
	// A streaming reply is upserted again under its id: it keeps its place.
	must(t, "UpsertMessages", e.s.UpsertMessages(e.ctx, k, []session.Message{msg("m2", "b2"), msg("m4", "d"), msg("m5", "e")}))
	// The last of two entries with one id wins, at the first one's place.
	must(t, "UpsertMessages", e.s.UpsertMessages(e.ctx, k, []session.Message{msg("m6", "f"), msg("m6", "f2")}))
	all := []session.Message{msg("m1", "a"), msg("m2", "b2"), msg("m3", "c"), msg("m4", "d"), msg("m5", "e"), msg("m6", "f2")}
	want(list("", 10), false, all...)
	want(list("", 6), false, all...)
	want(list("", 2), true, all[4:]...)
	want(list("m5", 2), true, all[2:4]...)
	want(list("m3", 2), false, all[0:2]...)
	want(list("m3", 5), false, all[0:2]...)
	want(list("m1", 5), false)
	_, err := e.s.ListMessages(e.ctx, k, session.MessageQuery{Before: "nope", Limit: 5})
	wantErr(t, "ListMessages before an unknown message", err, session.ErrNotFound)

	// Message ids are per session.
	k2 := e.create(t, "u1", "a1")
	must(t, "UpsertMessages", e.s.UpsertMessages(e.ctx, k2, []session.Message{msg("m1", "other")}))
	want(list("", 10), false, all...)
	p, err := e.s.ListMessages(e.ctx, k2, session.MessageQuery{Limit: 10})
	must(t, "ListMessages", err)
	want(p, false, msg("m1", "other"))
}

func testEvents(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	last, err := e.s.LastSeq(e.ctx, k)
	must(t, "LastSeq", err)
	if last != 0 {
		t.Errorf("LastSeq of a new session = %d", last)
	}
	evs, err := e.s.ReadEvents(e.ctx, k, 0, 10)
	must(t, "ReadEvents", err)
	if len(evs) != 0 {
		t.Errorf("new session has %d events", len(evs))
	}
	// Stored bytes are exactly the given ones: spacing, key order, escapes.
	raw := []string{`{"type":"REPLY_START", "id":"1"}`, `{"b":1,"a":2}`, `{"t":"\u00e9\n"}`, `[]`, `"x"`}
	first, err := e.s.AppendEvents(e.ctx, k, []json.RawMessage{json.RawMessage(raw[0]), json.RawMessage(raw[1]), json.RawMessage(raw[2])})
	must(t, "AppendEvents", err)
	if first != 1 {
		t.Errorf("first batch starts at %d", first)
	}
	first, err = e.s.AppendEvents(e.ctx, k, []json.RawMessage{json.RawMessage(raw[3]), json.RawMessage(raw[4])})
	must(t, "AppendEvents", err)
	if first != 4 {
		t.Errorf("second batch starts at %d", first)
	}
	read := func(after int64, limit int) string {
		t.Helper()
		evs, err := e.s.ReadEvents(e.ctx, k, after, limit)
		must(t, "ReadEvents", err)
		s := ""
		for _, ev := range evs {
			s += fmt.Sprintf("%d:%s ", ev.Seq, ev.JSON)
		}
		return s
	}
	expect := func(after int64, limit int, from, to int) {
		t.Helper()
		w := ""
		for i := from; i < to; i++ {
			w += fmt.Sprintf("%d:%s ", i+1, raw[i])
		}
		if g := read(after, limit); g != w {
			t.Errorf("ReadEvents(after %d, limit %d)\n got %s\nwant %s", after, limit, g, w)
		}
	}
	expect(0, 10, 0, 5)
	expect(0, 2, 0, 2)
	expect(2, 2, 2, 4)
	expect(4, 10, 4, 5)
	expect(5, 10, 5, 5)
	expect(99, 10, 5, 5)
	expect(-3, 1, 0, 1)
	last, err = e.s.LastSeq(e.ctx, k)
	must(t, "LastSeq", err)
	if last != 5 {
		t.Errorf("LastSeq = %d, want 5", last)
	}
	// A batch larger than any backend's statement chunk.
	big := make([]json.RawMessage, 600)
	for i := range big {
		big[i] = json.RawMessage(fmt.Sprintf(`{"big":%d}`, i))
	}
	first, err = e.s.AppendEvents(e.ctx, k, big)
	must(t, "AppendEvents of 600", err)
	if first != 6 {
		t.Errorf("the batch of 600 starts at %d, want 6", first)
	}
	evs, err = e.s.ReadEvents(e.ctx, k, 5, 1000)
	must(t, "ReadEvents", err)
	if len(evs) != len(big) {
		t.Fatalf("read %d of the 600", len(evs))
	}
	for i, ev := range evs {
		if ev.Seq != int64(6+i) || string(ev.JSON) != string(big[i]) {
			t.Fatalf("event %d of the 600: %d %s", i, ev.Seq, ev.JSON)
		}
	}

	// Sequences are per session.
	k2 := e.create(t, "u1", "a1")
	first, err = e.s.AppendEvents(e.ctx, k2, []json.RawMessage{json.RawMessage(`{}`)})
	must(t, "AppendEvents", err)
	if first != 1 {
		t.Errorf("another session's first event has sequence %d", first)
	}
}

func testEventsConcurrent(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	other := e.create(t, "u1", "a1")
	const writers, batches = 6, 25
	type batch struct {
		first int64
		data  []string
	}
	results := make([][]batch, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for b := range batches {
				n := 1 + (w+b)%5
				var evs []json.RawMessage
				var data []string
				for i := range n {
					d := fmt.Sprintf(`{"w":%d,"b":%d,"i":%d}`, w, b, i)
					data = append(data, d)
					evs = append(evs, json.RawMessage(d))
				}
				key := k
				if b%7 == 3 {
					key = other // interleave with another session's appends
				}
				first, err := e.s.AppendEvents(e.ctx, key, evs)
				if err != nil {
					errs[w] = err
					return
				}
				if key == k {
					results[w] = append(results[w], batch{first, data})
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		must(t, "concurrent AppendEvents", err)
	}
	want := map[int64]string{}
	for _, bs := range results {
		for _, b := range bs {
			for i, d := range b.data {
				seq := b.first + int64(i)
				if prev, dup := want[seq]; dup {
					t.Fatalf("sequence %d given to %s and %s", seq, prev, d)
				}
				want[seq] = d
			}
		}
	}
	total := int64(len(want))
	last, err := e.s.LastSeq(e.ctx, k)
	must(t, "LastSeq", err)
	if last != total {
		t.Errorf("LastSeq = %d after %d events", last, total)
	}
	var got []session.Event
	for after := int64(0); ; {
		evs, err := e.s.ReadEvents(e.ctx, k, after, 37)
		must(t, "ReadEvents", err)
		if len(evs) == 0 {
			break
		}
		got = append(got, evs...)
		after = evs[len(evs)-1].Seq
	}
	if int64(len(got)) != total {
		t.Fatalf("read %d events, appended %d", len(got), total)
	}
	for i, ev := range got {
		if ev.Seq != int64(i)+1 {
			t.Fatalf("event %d has sequence %d: a gap or a reorder", i, ev.Seq)
		}
		if string(ev.JSON) != want[ev.Seq] {
			t.Fatalf("event %d is %s, the appender got that sequence for %s", ev.Seq, ev.JSON, want[ev.Seq])
		}
	}
}

func testLease(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	l, err := e.s.GetLease(e.ctx, k)
	must(t, "GetLease of a new session", err)
	if l.Owner != "" || l.Held(e.clock.Now()) {
		t.Errorf("new session's lease: %+v", l)
	}
	t0 := e.clock.Now()
	l, err = e.s.AcquireLease(e.ctx, k, "A", 30*time.Second)
	must(t, "AcquireLease A", err)
	if l.Owner != "A" || !l.Expires.Equal(t0.Add(30*time.Second)) || l.Epoch != 1 {
		t.Errorf("A's lease: %+v", l)
	}
	_, err = e.s.AcquireLease(e.ctx, k, "B", 30*time.Second)
	wantErr(t, "AcquireLease B while A holds it", err, session.ErrLeased)
	_, err = e.s.RenewLease(e.ctx, k, "B", 30*time.Second)
	wantErr(t, "RenewLease by B", err, session.ErrNotHeld)
	wantErr(t, "ReleaseLease by B", e.s.ReleaseLease(e.ctx, k, "B"), session.ErrNotHeld)

	// A heartbeat moves the expiry; a repeated acquire by the holder is a renewal.
	e.clock.Advance(10 * time.Second)
	l, err = e.s.RenewLease(e.ctx, k, "A", 30*time.Second)
	must(t, "RenewLease A", err)
	if !l.Expires.Equal(t0.Add(40*time.Second)) || l.Epoch != 1 {
		t.Errorf("renewed lease: %+v", l)
	}
	e.clock.Advance(10 * time.Second)
	l, err = e.s.AcquireLease(e.ctx, k, "A", 30*time.Second)
	must(t, "AcquireLease A again", err)
	if !l.Expires.Equal(t0.Add(50*time.Second)) || l.Epoch != 1 {
		t.Errorf("re-acquired lease: %+v", l)
	}
	got, err := e.s.GetLease(e.ctx, k)
	must(t, "GetLease", err)
	if got != l {
		t.Errorf("GetLease = %+v, want %+v", got, l)
	}

	// Still held one microsecond before the expiry, free at it.
	e.clock.Advance(30*time.Second - time.Microsecond)
	_, err = e.s.AcquireLease(e.ctx, k, "B", 30*time.Second)
	wantErr(t, "AcquireLease B just before expiry", err, session.ErrLeased)
	e.clock.Advance(time.Microsecond)
	got, err = e.s.GetLease(e.ctx, k)
	must(t, "GetLease", err)
	if got.Owner != "A" || got.Held(e.clock.Now()) {
		t.Errorf("expired lease as stored: %+v", got)
	}
	l, err = e.s.AcquireLease(e.ctx, k, "B", 30*time.Second)
	must(t, "AcquireLease B after expiry", err)
	if l.Owner != "B" || l.Epoch != 2 {
		t.Errorf("B's lease: %+v", l)
	}
	_, err = e.s.RenewLease(e.ctx, k, "A", 30*time.Second)
	wantErr(t, "RenewLease by A after B took over", err, session.ErrNotHeld)
	wantErr(t, "ReleaseLease by A after B took over", e.s.ReleaseLease(e.ctx, k, "A"), session.ErrNotHeld)

	must(t, "ReleaseLease B", e.s.ReleaseLease(e.ctx, k, "B"))
	got, err = e.s.GetLease(e.ctx, k)
	must(t, "GetLease after release", err)
	if got.Owner != "" || got.Held(e.clock.Now()) || got.Epoch != 2 {
		t.Errorf("released lease: %+v", got)
	}
	wantErr(t, "ReleaseLease twice", e.s.ReleaseLease(e.ctx, k, "B"), session.ErrNotHeld)
	_, err = e.s.RenewLease(e.ctx, k, "B", time.Second)
	wantErr(t, "RenewLease after release", err, session.ErrNotHeld)

	// An expired lease nobody took over is still its owner's to renew.
	l, err = e.s.AcquireLease(e.ctx, k, "A", time.Second)
	must(t, "AcquireLease A", err)
	if l.Epoch != 3 {
		t.Errorf("third holder's epoch %d", l.Epoch)
	}
	e.clock.Advance(5 * time.Second)
	l, err = e.s.RenewLease(e.ctx, k, "A", time.Second)
	must(t, "RenewLease of an expired lease not taken over", err)
	if !l.Expires.Equal(e.clock.Now().Add(time.Second)) || l.Epoch != 3 {
		t.Errorf("renewed expired lease: %+v", l)
	}

	// Leases are per session.
	k2 := e.create(t, "u1", "a1")
	l, err = e.s.AcquireLease(e.ctx, k2, "B", time.Second)
	must(t, "AcquireLease on another session", err)
	if l.Epoch != 1 {
		t.Errorf("another session's epoch %d", l.Epoch)
	}
}

func testLeaseRace(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = e.s.AcquireLease(e.ctx, k, fmt.Sprintf("owner-%d", i), time.Minute)
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner < 0:
			winner = i
		case err == nil:
			t.Errorf("owners %d and %d both acquired the lease", winner, i)
		case !errors.Is(err, session.ErrLeased):
			t.Errorf("owner %d: %v, want ErrLeased", i, err)
		}
	}
	l, err := e.s.GetLease(e.ctx, k)
	must(t, "GetLease", err)
	if winner < 0 || l.Owner != fmt.Sprintf("owner-%d", winner) || l.Epoch != 1 {
		t.Errorf("after the race: winner %d, lease %+v", winner, l)
	}
}

func testInputs(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	raws := []string{`[{"role":"user","content":[]}]`, `{"type":"USER_CONFIRM_RESULT"}`, `{"type":"USER_INTERRUPT"}`}
	var ids []int64
	for _, r := range raws {
		in, err := e.s.EnqueueInput(e.ctx, k, json.RawMessage(r))
		must(t, "EnqueueInput", err)
		if string(in.JSON) != r || !in.CreatedAt.Equal(e.clock.Now()) || in.Attempts != 0 {
			t.Errorf("enqueued %+v", in)
		}
		if len(ids) > 0 && in.ID <= ids[len(ids)-1] {
			t.Errorf("input ids not increasing: %d after %v", in.ID, ids)
		}
		ids = append(ids, in.ID)
	}
	pendingIs := func(want int) {
		t.Helper()
		n, err := e.s.PendingInputs(e.ctx, k)
		must(t, "PendingInputs", err)
		if n != want {
			t.Errorf("PendingInputs = %d, want %d", n, want)
		}
	}
	pendingIs(3)
	_, err := e.s.ClaimInput(e.ctx, k, "A")
	wantErr(t, "ClaimInput without the lease", err, session.ErrNotHeld)
	_, err = e.s.AcquireLease(e.ctx, k, "A", time.Minute)
	must(t, "AcquireLease A", err)
	_, err = e.s.ClaimInput(e.ctx, k, "B")
	wantErr(t, "ClaimInput by a non-holder", err, session.ErrNotHeld)
	claim := func(owner string, wantID int64, wantAttempts int) session.Input {
		t.Helper()
		in, err := e.s.ClaimInput(e.ctx, k, owner)
		must(t, "ClaimInput "+owner, err)
		if in.ID != wantID || in.Attempts != wantAttempts {
			t.Errorf("%s claimed input %d (attempt %d), want %d (attempt %d)", owner, in.ID, in.Attempts, wantID, wantAttempts)
		}
		return in
	}
	in := claim("A", ids[0], 1)
	if string(in.JSON) != raws[0] {
		t.Errorf("claimed JSON %s", in.JSON)
	}
	claim("A", ids[1], 1)
	must(t, "CompleteInput", e.s.CompleteInput(e.ctx, k, ids[0]))
	wantErr(t, "CompleteInput twice", e.s.CompleteInput(e.ctx, k, ids[0]), session.ErrNotFound)
	wantErr(t, "CompleteInput of an unclaimed input", e.s.CompleteInput(e.ctx, k, ids[2]), session.ErrNotFound)
	wantErr(t, "CompleteInput of an unknown input", e.s.CompleteInput(e.ctx, k, ids[2]+1000), session.ErrNotFound)
	pendingIs(2)

	// A dies holding the lease and input 2; B takes over after expiry and
	// is handed input 2 again, then 3.
	e.clock.Advance(2 * time.Minute)
	_, err = e.s.ClaimInput(e.ctx, k, "A")
	wantErr(t, "ClaimInput under an expired lease", err, session.ErrNotHeld)
	_, err = e.s.AcquireLease(e.ctx, k, "B", time.Minute)
	must(t, "AcquireLease B", err)
	claim("B", ids[1], 2)
	claim("B", ids[2], 1)
	_, err = e.s.ClaimInput(e.ctx, k, "B")
	wantErr(t, "ClaimInput with all claimed", err, session.ErrNoInput)
	must(t, "CompleteInput", e.s.CompleteInput(e.ctx, k, ids[2]))
	must(t, "CompleteInput", e.s.CompleteInput(e.ctx, k, ids[1]))
	pendingIs(0)
	_, err = e.s.ClaimInput(e.ctx, k, "B")
	wantErr(t, "ClaimInput with all done", err, session.ErrNoInput)

	// A release and re-acquire by the same owner is a new lease: what it
	// claimed and left undone is handed out again.
	in4, err := e.s.EnqueueInput(e.ctx, k, json.RawMessage(`{"n":4}`))
	must(t, "EnqueueInput", err)
	claim("B", in4.ID, 1)
	must(t, "ReleaseLease", e.s.ReleaseLease(e.ctx, k, "B"))
	_, err = e.s.AcquireLease(e.ctx, k, "B", time.Minute)
	must(t, "AcquireLease B again", err)
	claim("B", in4.ID, 2)

	// Inputs of another session are not claimable here.
	wantErr(t, "CompleteInput of another session's input", e.s.CompleteInput(e.ctx, e.create(t, "u1", "a1"), in4.ID), session.ErrNotFound)
}

func testRecoverable(t *testing.T, e *env) {
	idle := e.create(t, "u1", "a1") // nothing to do
	_ = idle
	queued := e.create(t, "u1", "a1") // an input, no run
	_, err := e.s.EnqueueInput(e.ctx, queued, json.RawMessage(`[]`))
	must(t, "EnqueueInput", err)
	running := e.create(t, "u2", "a1") // an input and a live run
	_, err = e.s.EnqueueInput(e.ctx, running, json.RawMessage(`[]`))
	must(t, "EnqueueInput", err)
	_, err = e.s.AcquireLease(e.ctx, running, "live", time.Hour)
	must(t, "AcquireLease", err)
	died := e.create(t, "u2", "a1") // a run whose owner died
	_, err = e.s.AcquireLease(e.ctx, died, "dead", time.Second)
	must(t, "AcquireLease", err)
	finished := e.create(t, "u1", "a1") // a run that released
	_, err = e.s.AcquireLease(e.ctx, finished, "done", time.Second)
	must(t, "AcquireLease", err)
	must(t, "ReleaseLease", e.s.ReleaseLease(e.ctx, finished, "done"))

	keys, err := e.s.Recoverable(e.ctx, 10)
	must(t, "Recoverable", err)
	if want := []session.Key{queued}; !slices.Equal(keys, want) {
		t.Errorf("before expiry: %v, want %v", keys, want)
	}
	e.clock.Advance(2 * time.Second)
	keys, err = e.s.Recoverable(e.ctx, 10)
	must(t, "Recoverable", err)
	if want := []session.Key{queued, died}; !slices.Equal(keys, want) {
		t.Errorf("after expiry: %v, want %v (oldest session first)", keys, want)
	}
	keys, err = e.s.Recoverable(e.ctx, 1)
	must(t, "Recoverable", err)
	if want := []session.Key{queued}; !slices.Equal(keys, want) {
		t.Errorf("limit 1: %v, want %v", keys, want)
	}
}

func testDelete(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	populate(t, e, k)
	keep := e.create(t, "u1", "a1")
	populate(t, e, keep)
	before := snapshot(t, e, keep)
	must(t, "DeleteSession", e.s.DeleteSession(e.ctx, k))
	for _, o := range ops() {
		wantErr(t, o.name+" after delete", o.fn(e.ctx, e.s, k), session.ErrNotFound)
	}
	if after := snapshot(t, e, keep); after != before {
		t.Errorf("deleting one session changed another:\nbefore %s\nafter  %s", before, after)
	}
	e.clock.Advance(time.Hour) // the deleted session's lease expired: nothing to recover
	keys, err := e.s.Recoverable(e.ctx, 10)
	must(t, "Recoverable", err)
	if want := []session.Key{keep}; !slices.Equal(keys, want) {
		t.Errorf("Recoverable after delete: %v, want %v", keys, want)
	}
	page, total, err := e.s.ListSessions(e.ctx, session.ListQuery{UserID: "u1"})
	must(t, "ListSessions", err)
	if total != 1 || len(page) != 1 || page[0].ID != keep.SessionID {
		t.Errorf("ListSessions after delete: total %d, %v", total, page)
	}
}

// The server reuses its buffers: what a store was given, and what it
// returned, may be overwritten without changing what is stored.
func testBuffers(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	buf := []byte(`{"n":1}`)
	_, err := e.s.AppendEvents(e.ctx, k, []json.RawMessage{buf})
	must(t, "AppendEvents", err)
	_, err = e.s.SaveState(e.ctx, k, 0, buf)
	must(t, "SaveState", err)
	must(t, "UpsertMessages", e.s.UpsertMessages(e.ctx, k, []session.Message{{ID: "m", JSON: buf}}))
	_, err = e.s.EnqueueInput(e.ctx, k, buf)
	must(t, "EnqueueInput", err)
	copy(buf, `{"n":9}`)

	check := func(when string) {
		t.Helper()
		evs, err := e.s.ReadEvents(e.ctx, k, 0, 10)
		must(t, "ReadEvents", err)
		st, err := e.s.LoadState(e.ctx, k)
		must(t, "LoadState", err)
		p, err := e.s.ListMessages(e.ctx, k, session.MessageQuery{Limit: 10})
		must(t, "ListMessages", err)
		if len(evs) != 1 || string(evs[0].JSON) != `{"n":1}` || string(st.JSON) != `{"n":1}` ||
			len(p.Messages) != 1 || string(p.Messages[0].JSON) != `{"n":1}` {
			t.Fatalf("%s: stored %v, %s, %v", when, evs, st.JSON, p.Messages)
		}
		copy(evs[0].JSON, `{"n":8}`)
		copy(st.JSON, `{"n":8}`)
		copy(p.Messages[0].JSON, `{"n":8}`)
	}
	check("after the caller reused its buffer")
	check("after the caller changed what it read")
	_, err = e.s.AcquireLease(e.ctx, k, "o", time.Minute)
	must(t, "AcquireLease", err)
	in, err := e.s.ClaimInput(e.ctx, k, "o")
	must(t, "ClaimInput", err)
	if string(in.JSON) != `{"n":1}` {
		t.Errorf("input stored as %s", in.JSON)
	}
}

func testRuns(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	pendingIs := func(want int) {
		t.Helper()
		n, err := e.s.PendingInputs(e.ctx, k)
		must(t, "PendingInputs", err)
		if n != want {
			t.Errorf("PendingInputs = %d, want %d", n, want)
		}
	}
	in1 := json.RawMessage(`[{"role":"user","content":[]}]`)
	rs, err := e.s.StartRun(e.ctx, k, "A", time.Minute, in1)
	must(t, "StartRun", err)
	if rs.Lease.Owner != "A" || !rs.Lease.Expires.Equal(e.clock.Now().Add(time.Minute)) || rs.Pending != 0 {
		t.Errorf("StartRun: lease %+v, pending %d", rs.Lease, rs.Pending)
	}
	if rs.Input.ID == 0 || string(rs.Input.JSON) != string(in1) || rs.Input.Attempts != 1 || !rs.Input.CreatedAt.Equal(e.clock.Now()) {
		t.Errorf("StartRun input %+v", rs.Input)
	}
	if rs.State.JSON != nil || rs.State.Version != 0 {
		t.Errorf("StartRun state of a new session: %+v", rs.State)
	}
	if l, err := e.s.GetLease(e.ctx, k); err != nil || l != rs.Lease {
		t.Errorf("GetLease = %+v, %v; StartRun gave %+v", l, err, rs.Lease)
	}
	pendingIs(1)
	// The input is claimed under this lease already.
	_, err = e.s.ClaimInput(e.ctx, k, "A")
	wantErr(t, "ClaimInput after StartRun", err, session.ErrNoInput)
	_, err = e.s.StartRun(e.ctx, k, "B", time.Minute, json.RawMessage(`{}`))
	wantErr(t, "StartRun while A runs", err, session.ErrLeased)
	pendingIs(1)

	// The run's first write: its input messages and first events.
	w, err := e.s.WriteRun(e.ctx, k, session.RunWrite{Messages: []session.Message{msg("u1", "hi")},
		Events: []json.RawMessage{json.RawMessage(`{"n":1}`), json.RawMessage(`{"n":2}`)}})
	must(t, "WriteRun", err)
	if w.First != 1 || w.Version != 0 {
		t.Errorf("WriteRun = %+v, want first 1, version 0", w)
	}
	w, err = e.s.WriteRun(e.ctx, k, session.RunWrite{Events: []json.RawMessage{json.RawMessage(`{"n":3}`)}})
	must(t, "WriteRun", err)
	if w.First != 3 {
		t.Errorf("WriteRun first = %d, want 3", w.First)
	}
	// Its last: state, reply, last event, input done, lease freed.
	w, err = e.s.WriteRun(e.ctx, k, session.RunWrite{State: json.RawMessage(`{"v":1}`), StateVersion: 0,
		Messages: []session.Message{msg("r1", "hello")}, Events: []json.RawMessage{json.RawMessage(`{"n":4}`)},
		Done: rs.Input.ID, Release: "A"})
	must(t, "WriteRun (last)", err)
	if w.First != 4 || w.Version != 1 {
		t.Errorf("WriteRun (last) = %+v, want first 4, version 1", w)
	}
	pendingIs(0)
	if l, err := e.s.GetLease(e.ctx, k); err != nil || l.Owner != "" {
		t.Errorf("lease after the last WriteRun: %+v, %v", l, err)
	}
	page, err := e.s.ListMessages(e.ctx, k, session.MessageQuery{Limit: 10})
	must(t, "ListMessages", err)
	if got, want := pageString(page), `{"id":"u1","text":"hi"} {"id":"r1","text":"hello"}  more=false`; got != want {
		t.Errorf("transcript %s", got)
	}
	evs, err := e.s.ReadEvents(e.ctx, k, 0, 10)
	must(t, "ReadEvents", err)
	if fmt.Sprint(evs) != fmt.Sprint([]session.Event{{Seq: 1, JSON: json.RawMessage(`{"n":1}`)}, {Seq: 2, JSON: json.RawMessage(`{"n":2}`)},
		{Seq: 3, JSON: json.RawMessage(`{"n":3}`)}, {Seq: 4, JSON: json.RawMessage(`{"n":4}`)}}) {
		t.Errorf("events %v", evs)
	}

	// The next run reads the state the last one saved, under the same
	// owner's new lease.
	rs2, err := e.s.StartRun(e.ctx, k, "A", time.Minute, json.RawMessage(`{"type":"USER_CONFIRM_RESULT"}`))
	must(t, "StartRun again", err)
	if string(rs2.State.JSON) != `{"v":1}` || rs2.State.Version != 1 || rs2.Input.ID <= rs.Input.ID || rs2.Pending != 0 {
		t.Errorf("second StartRun: %+v", rs2)
	}

	// A dies with its input undone; B, after the lease expired, is told
	// of it and queues nothing; the input is B's to claim (again).
	e.clock.Advance(2 * time.Minute)
	rs3, err := e.s.StartRun(e.ctx, k, "B", time.Minute, json.RawMessage(`{"n":"b"}`))
	must(t, "StartRun over a dead run", err)
	if rs3.Pending != 1 || rs3.Input.ID != 0 || rs3.Lease.Owner != "B" || rs3.Lease.Epoch <= rs2.Lease.Epoch {
		t.Errorf("StartRun over a dead run: %+v (before: %+v)", rs3, rs2.Lease)
	}
	pendingIs(1)
	in, err := e.s.ClaimInput(e.ctx, k, "B")
	must(t, "ClaimInput of the dead run's input", err)
	if in.ID != rs2.Input.ID || in.Attempts != 2 {
		t.Errorf("claimed %+v, want input %d at attempt 2", in, rs2.Input.ID)
	}
}

func testRunWriteAtomic(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	rs, err := e.s.StartRun(e.ctx, k, "A", time.Minute, json.RawMessage(`{}`))
	must(t, "StartRun", err)
	_, err = e.s.WriteRun(e.ctx, k, session.RunWrite{State: json.RawMessage(`{"v":1}`), Events: []json.RawMessage{json.RawMessage(`{"n":1}`)}})
	must(t, "WriteRun", err)
	before := snapshot(t, e, k)
	good := func() session.RunWrite {
		return session.RunWrite{State: json.RawMessage(`{"v":2}`), StateVersion: 1, Messages: []session.Message{msg("r", "x")},
			Events: []json.RawMessage{json.RawMessage(`{"n":2}`)}, Done: rs.Input.ID, Release: "A"}
	}
	stale := good()
	stale.StateVersion = 0
	_, err = e.s.WriteRun(e.ctx, k, stale)
	wantErr(t, "WriteRun with a stale state version", err, session.ErrConflict)
	notHeld := good()
	notHeld.Release = "B"
	_, err = e.s.WriteRun(e.ctx, k, notHeld)
	wantErr(t, "WriteRun releasing another owner's lease", err, session.ErrNotHeld)
	unknown := good()
	unknown.Done = rs.Input.ID + 1000
	_, err = e.s.WriteRun(e.ctx, k, unknown)
	wantErr(t, "WriteRun completing an unknown input", err, session.ErrNotFound)
	if after := snapshot(t, e, k); after != before {
		t.Errorf("a failed WriteRun changed the session:\nbefore %s\nafter  %s", before, after)
	}
	w, err := e.s.WriteRun(e.ctx, k, good())
	must(t, "WriteRun", err)
	if w.First != 2 || w.Version != 2 {
		t.Errorf("WriteRun = %+v, want first 2, version 2", w)
	}
}
