package sessiontest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
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
		{"ListCursor", testListCursor},
		{"ListCursorConcurrent", testListCursorConcurrent},
		{"ChosenID", testChosenID},
		{"UserIsolation", testIsolation},
		{"UnknownSession", testUnknown},
		{"Cancelled", testCancelled},
		{"BadInput", testBadInput},
		{"State", testState},
		{"StateConcurrentSaves", testStateRace},
		{"StateKnown", testStateKnown},
		{"Transcript", testTranscript},
		{"Events", testEvents},
		{"EventsConcurrent", testEventsConcurrent},
		{"Lease", testLease},
		{"LeaseConcurrent", testLeaseRace},
		{"Inputs", testInputs},
		{"Runs", testRuns},
		{"RunWriteAtomic", testRunWriteAtomic},
		{"Status", testStatus},
		{"CountStatuses", testCountStatuses},
		{"AskStop", testAskStop},
		{"CrashMidRun", testCrashMidRun},
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

// begin begins a run of owner on k for ttl, queuing input (nil: none).
func (e *env) begin(t *testing.T, k session.Key, owner string, ttl time.Duration, input string) session.Run {
	t.Helper()
	var in json.RawMessage
	if input != "" {
		in = json.RawMessage(input)
	}
	r, err := e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: owner, TTL: ttl, Input: in})
	if err != nil {
		t.Fatalf("BeginRun %s: %v", owner, err)
	}
	return r
}

// finish ends a run with nothing but its status and the inputs done.
func (e *env) finish(t *testing.T, k session.Key, l session.Lease, done ...int64) {
	t.Helper()
	if _, err := e.s.FinishRun(e.ctx, k, l, session.RunEnd{Done: done, Status: session.StatusIdle}); err != nil {
		t.Fatalf("FinishRun: %v", err)
	}
}

// appendEvents appends events under l.
func (e *env) appendEvents(k session.Key, l session.Lease, events ...json.RawMessage) (int64, error) {
	return e.s.AppendRun(e.ctx, k, l, session.RunAppend{Events: events})
}

// saveState saves st over version expected in one run of its own (begun
// and finished by "saver"), and returns the new version.
func (e *env) saveState(k session.Key, expected int64, st json.RawMessage) (int64, error) {
	r, err := e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: "saver", TTL: time.Minute})
	if err != nil {
		return 0, err
	}
	w, err := e.s.FinishRun(e.ctx, k, r.Lease, session.RunEnd{State: st, StateVersion: expected, Status: session.StatusIdle})
	if err != nil {
		// A refused end changes nothing: the run is ended without it.
		if _, ferr := e.s.FinishRun(e.ctx, k, r.Lease, session.RunEnd{Status: session.StatusIdle}); ferr != nil {
			return 0, errors.Join(err, ferr)
		}
		return 0, err
	}
	return w.Version, nil
}

// upsert writes msgs into k's transcript in a run of its own.
func (e *env) upsert(k session.Key, msgs ...session.Message) error {
	r, err := e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: "writer", TTL: time.Minute})
	if err != nil {
		return err
	}
	if _, err := e.s.AppendRun(e.ctx, k, r.Lease, session.RunAppend{Messages: msgs}); err != nil {
		return err
	}
	_, err = e.s.FinishRun(e.ctx, k, r.Lease, session.RunEnd{Status: session.StatusIdle})
	return err
}

// anyLease is a lease for the operations' table: no session holds it.
var anyLease = session.Lease{Owner: "owner", Epoch: 1}

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

func recordIDs(rs []session.Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

// pageThrough lists q from its start to its end by cursor, size at a
// time, checking the total of every page; it returns the ids in order.
func pageThrough(t *testing.T, e *env, q session.ListQuery, size, total int) []string {
	t.Helper()
	var out []string
	q.Limit = size
	for range total/size + 2 {
		page, n, err := e.s.ListSessions(e.ctx, q)
		must(t, "ListSessions by cursor", err)
		if n != total {
			t.Errorf("ListSessions %+v: total %d, want %d", q, n, total)
		}
		out = append(out, recordIDs(page)...)
		if len(page) < size {
			return out
		}
		c := page[len(page)-1].Cursor()
		q.After = &c
	}
	t.Fatalf("ListSessions %+v: more pages than %d sessions make", q, total)
	return nil
}

// A cursor (ListQuery.After, a record's Cursor) pages through the list in
// the order of one listing, ties of a microsecond included, for a user
// and for one agent; Offset skips from the cursor on; a cursor stays good
// when its session is deleted, and new sessions (newer than any cursor)
// never shift the pages after it.
func testListCursor(t *testing.T, e *env) {
	var a1 []string
	for i := range 12 {
		agent := "a1"
		if i%3 == 2 {
			agent = "a2"
		}
		k := e.create(t, "u1", agent)
		if agent == "a1" {
			a1 = append(a1, k.SessionID)
		}
		if i%4 == 3 {
			e.clock.Advance(time.Millisecond) // four sessions a microsecond
		}
	}
	e.create(t, "u2", "a1")
	all, total, err := e.s.ListSessions(e.ctx, session.ListQuery{UserID: "u1"})
	must(t, "ListSessions", err)
	if total != 12 || len(all) != 12 {
		t.Fatalf("u1: total %d, %d records", total, len(all))
	}
	ids := recordIDs(all)
	for _, size := range []int{1, 3, 5, 12, 13} {
		if got := pageThrough(t, e, session.ListQuery{UserID: "u1"}, size, 12); !slices.Equal(got, ids) {
			t.Errorf("u1 by %d: %v, want %v", size, got, ids)
		}
	}
	slices.Reverse(a1)
	for _, size := range []int{2, 8} {
		if got := pageThrough(t, e, session.ListQuery{UserID: "u1", AgentID: "a1"}, size, 8); !slices.Equal(got, a1) {
			t.Errorf("u1/a1 by %d: %v, want %v", size, got, a1)
		}
	}
	c := all[4].Cursor()
	page, _, err := e.s.ListSessions(e.ctx, session.ListQuery{UserID: "u1", After: &c, Offset: 2, Limit: 3})
	must(t, "ListSessions after a cursor with an offset", err)
	if got := recordIDs(page); !slices.Equal(got, ids[7:10]) {
		t.Errorf("cursor of #4, offset 2, limit 3: %v, want %v", got, ids[7:10])
	}
	// The cursor's own session deleted, and newer ones made.
	must(t, "DeleteSession", e.s.DeleteSession(e.ctx, session.Key{UserID: "u1", SessionID: all[4].ID}))
	e.create(t, "u1", "a1")
	e.clock.Advance(time.Millisecond)
	e.create(t, "u1", "a2")
	page, total, err = e.s.ListSessions(e.ctx, session.ListQuery{UserID: "u1", After: &c})
	must(t, "ListSessions after a deleted session's cursor", err)
	if got := recordIDs(page); total != 13 || !slices.Equal(got, ids[5:]) {
		t.Errorf("after the deleted #4: total %d, %v, want 13, %v", total, got, ids[5:])
	}
	last := all[11].Cursor()
	page, total, err = e.s.ListSessions(e.ctx, session.ListQuery{UserID: "u1", After: &last})
	must(t, "ListSessions after the oldest", err)
	if total != 13 || len(page) != 0 {
		t.Errorf("after the oldest: total %d, %v", total, recordIDs(page))
	}
	// Another user's cursor lists this user's sessions only.
	page, total, err = e.s.ListSessions(e.ctx, session.ListQuery{UserID: "u2", After: &c})
	must(t, "ListSessions of u2 after u1's cursor", err)
	if total != 1 || len(page) != 0 {
		t.Errorf("u2 after u1's cursor: total %d, %v", total, recordIDs(page))
	}
	// A cursor survives its wire form.
	back, err := session.ParseListCursor(c.String())
	if err != nil || back != c {
		t.Errorf("ParseListCursor(%q) = %+v, %v; want %+v", c.String(), back, err, c)
	}
	for _, bad := range []string{"", "x", c.String() + "A", "!" + c.String()[1:]} {
		_, err := session.ParseListCursor(bad)
		wantErr(t, fmt.Sprintf("ParseListCursor(%q)", bad), err, session.ErrInvalid)
	}
}

// Paging by cursor while sessions are made (some in the same microsecond
// as the ones listed, as on a clock that did not move, some later) and
// deleted: every session there from the first page to the last is listed
// exactly once, and nothing is listed twice.
func testListCursorConcurrent(t *testing.T, e *env) {
	const n, size = 60, 7
	var old []string
	for i := range n {
		old = append(old, e.create(t, "u1", "a1").SessionID)
		if i%10 == 9 {
			e.clock.Advance(time.Millisecond)
		}
	}
	doomed := e.create(t, "u1", "a1").SessionID
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := e.s.CreateSession(e.ctx, session.NewSession{UserID: "u1", AgentID: "a1"}); err != nil {
				errs <- err
				return
			}
			if i%5 == 4 {
				e.clock.Advance(time.Microsecond)
			}
		}
	})
	seen := map[string]int{}
	q := session.ListQuery{UserID: "u1", Limit: size}
	for pages := 0; ; pages++ {
		page, _, err := e.s.ListSessions(e.ctx, q)
		must(t, "ListSessions by cursor", err)
		for _, r := range page {
			seen[r.ID]++
		}
		if pages == 2 {
			must(t, "DeleteSession", e.s.DeleteSession(e.ctx, session.Key{UserID: "u1", SessionID: doomed}))
		}
		if len(page) < size {
			break
		}
		c := page[len(page)-1].Cursor()
		q.After = &c
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("CreateSession meanwhile: %v", err)
	}
	for id, k := range seen {
		if k > 1 {
			t.Errorf("session %s listed %d times", id, k)
		}
	}
	for _, id := range old {
		if seen[id] != 1 {
			t.Errorf("session %s, there all along, listed %d times", id, seen[id])
		}
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
		{"FillStatus", func(ctx context.Context, s session.Store, k session.Key) error {
			return s.FillStatus(ctx, k, session.StatusIdle)
		}},
		{"LoadState", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.LoadState(ctx, k)
			return err
		}},
		{"ListMessages", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.ListMessages(ctx, k, session.MessageQuery{Limit: 10})
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
		{"PendingInputs", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.PendingInputs(ctx, k)
			return err
		}},
		{"BeginRun", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.BeginRun(ctx, k, session.RunBegin{Owner: "intruder", TTL: time.Minute, Input: json.RawMessage(`{}`)})
			return err
		}},
		{"AppendRun", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.AppendRun(ctx, k, anyLease, session.RunAppend{Messages: []session.Message{{ID: "m", JSON: json.RawMessage(`{}`)}},
				Events: []json.RawMessage{json.RawMessage(`{}`)}})
			return err
		}},
		{"RenewRun", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.RenewRun(ctx, k, anyLease, time.Minute)
			return err
		}},
		{"FinishRun", func(ctx context.Context, s session.Store, k session.Key) error {
			_, err := s.FinishRun(ctx, k, anyLease, session.RunEnd{State: json.RawMessage(`{"context":[]}`), Events: []json.RawMessage{json.RawMessage(`{}`)},
				Status: session.StatusIdle})
			return err
		}},
		{"DeleteSession", func(ctx context.Context, s session.Store, k session.Key) error {
			return s.DeleteSession(ctx, k)
		}},
	}
}

// populate gives a session something in every table: a state, a message,
// an event, an input left pending by a run that did not mark it done, and
// a live lease (of "owner") with the session running.
func populate(t *testing.T, e *env, k session.Key) {
	t.Helper()
	r := e.begin(t, k, "owner", time.Minute, `[{"role":"user"}]`)
	_, err := e.s.AppendRun(e.ctx, k, r.Lease, session.RunAppend{Messages: []session.Message{{ID: "m1", JSON: json.RawMessage(`{"id":"m1"}`)}},
		Events: []json.RawMessage{json.RawMessage(`{"type":"REPLY_START"}`)}})
	must(t, "AppendRun", err)
	_, err = e.s.FinishRun(e.ctx, k, r.Lease, session.RunEnd{State: json.RawMessage(`{"context":[1]}`), Status: session.StatusAwaitingPermission})
	must(t, "FinishRun", err)
	e.begin(t, k, "owner", time.Minute, "")
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
	n, err := e.s.PendingInputs(e.ctx, k)
	must(t, "PendingInputs", err)
	return fmt.Sprintf("%s %s %s %v %s|%s %d|%v|%v|%s %v %d|%d", rec.ID, rec.Name, rec.Config, rec.UpdatedAt, rec.Status, st.JSON, st.Version, msgs, evs,
		rec.Lease.Owner, rec.Lease.Expires, rec.Lease.Epoch, n)
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
	lease := e.begin(t, k, "o", time.Minute, "").Lease
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
		{"FillStatus as nothing", func() error { return e.s.FillStatus(e.ctx, k, "sleeping") }},
		{"UpdateSession with bad config", func() error {
			_, err := e.s.UpdateSession(e.ctx, k, session.Patch{Config: json.RawMessage(`nope`)})
			return err
		}},
		{"FinishRun with empty state", func() error {
			_, err := e.s.FinishRun(e.ctx, k, lease, session.RunEnd{State: json.RawMessage{}, Status: session.StatusIdle})
			return err
		}},
		{"FinishRun with bad state JSON", func() error {
			_, err := e.s.FinishRun(e.ctx, k, lease, session.RunEnd{State: json.RawMessage(`{"a":`), Events: []json.RawMessage{json.RawMessage(`{}`)}, Status: session.StatusIdle})
			return err
		}},
		{"FinishRun without a status", func() error {
			_, err := e.s.FinishRun(e.ctx, k, lease, session.RunEnd{})
			return err
		}},
		{"FinishRun as running", func() error {
			_, err := e.s.FinishRun(e.ctx, k, lease, session.RunEnd{Status: session.StatusRunning})
			return err
		}},
		{"FinishRun with an unknown status", func() error {
			_, err := e.s.FinishRun(e.ctx, k, lease, session.RunEnd{Status: "sleeping"})
			return err
		}},
		{"FinishRun with bad event JSON", func() error {
			_, err := e.s.FinishRun(e.ctx, k, lease, session.RunEnd{Messages: []session.Message{msg("m1", "x")}, Events: []json.RawMessage{json.RawMessage(`{]`)}, Status: session.StatusIdle})
			return err
		}},
		{"FinishRun with a message without id", func() error {
			_, err := e.s.FinishRun(e.ctx, k, lease, session.RunEnd{Messages: []session.Message{{JSON: json.RawMessage(`{}`)}}, Status: session.StatusIdle})
			return err
		}},
		{"FinishRun without a lease epoch", func() error {
			_, err := e.s.FinishRun(e.ctx, k, session.Lease{Owner: lease.Owner}, session.RunEnd{Status: session.StatusIdle})
			return err
		}},
		{"AppendRun with nothing", func() error {
			_, err := e.s.AppendRun(e.ctx, k, lease, session.RunAppend{})
			return err
		}},
		{"AppendRun with an empty event", func() error {
			_, err := e.appendEvents(k, lease, json.RawMessage(`{}`), nil)
			return err
		}},
		{"AppendRun with bad JSON", func() error {
			_, err := e.appendEvents(k, lease, json.RawMessage(`{"type":`))
			return err
		}},
		{"AppendRun with a message without id", func() error {
			_, err := e.s.AppendRun(e.ctx, k, lease, session.RunAppend{Messages: []session.Message{{JSON: json.RawMessage(`{}`)}}})
			return err
		}},
		{"AppendRun with bad message JSON", func() error {
			_, err := e.s.AppendRun(e.ctx, k, lease, session.RunAppend{Messages: []session.Message{{ID: "m", JSON: json.RawMessage(`{]`)}}})
			return err
		}},
		{"AppendRun without an owner", func() error {
			_, err := e.appendEvents(k, session.Lease{Epoch: lease.Epoch}, json.RawMessage(`{}`))
			return err
		}},
		{"ListMessages with limit 0", func() error {
			_, err := e.s.ListMessages(e.ctx, k, session.MessageQuery{})
			return err
		}},
		{"ReadEvents with limit 0", func() error {
			_, err := e.s.ReadEvents(e.ctx, k, 0, 0)
			return err
		}},
		{"BeginRun without owner", func() error {
			_, err := e.s.BeginRun(e.ctx, k, session.RunBegin{TTL: time.Minute, Input: json.RawMessage(`{}`)})
			return err
		}},
		{"BeginRun with ttl 0", func() error {
			_, err := e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: "o", Input: json.RawMessage(`{}`)})
			return err
		}},
		{"BeginRun with bad JSON", func() error {
			_, err := e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: "o", TTL: time.Minute, Input: json.RawMessage(`[`)})
			return err
		}},
		{"BeginRun with an empty input", func() error {
			_, err := e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: "o", TTL: time.Minute, Input: json.RawMessage{}})
			return err
		}},
		{"RenewRun with negative ttl", func() error {
			_, err := e.s.RenewRun(e.ctx, k, lease, -time.Second)
			return err
		}},
		{"FillStatus as running", func() error { return e.s.FillStatus(e.ctx, k, session.StatusRunning) }},
		{"FillStatus as unknown", func() error { return e.s.FillStatus(e.ctx, k, session.StatusUnknown) }},
		{"Recoverable with limit 0", func() error {
			_, err := e.s.Recoverable(e.ctx, 0)
			return err
		}},
	}
	for _, b := range bad {
		wantErr(t, b.name, b.fn(), session.ErrInvalid)
	}
	// Nothing the bad calls did is stored, and the run they named still
	// holds the session.
	rec, err := e.s.GetSession(e.ctx, k)
	must(t, "GetSession", err)
	if rec.Lease != lease || rec.Status != session.StatusRunning {
		t.Errorf("after bad calls: lease %+v (want %+v), status %q", rec.Lease, lease, rec.Status)
	}
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

// A run's end saves the state when the version it names is still the
// stored one (0 for a session never saved), returns the next version and
// moves updated_at; a stale or future version is ErrConflict.
func testState(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	st, err := e.s.LoadState(e.ctx, k)
	must(t, "LoadState of a new session", err)
	if st.Version != 0 || st.JSON != nil {
		t.Errorf("new session's state: %+v", st)
	}
	e.clock.Advance(time.Minute)
	v, err := e.saveState(k, 0, json.RawMessage(`{"context": [], "summary":""}`))
	must(t, "save over v0", err)
	if v != 1 {
		t.Errorf("first save returned version %d", v)
	}
	rec, err := e.s.GetSession(e.ctx, k)
	must(t, "GetSession", err)
	if !rec.UpdatedAt.Equal(e.clock.Now()) {
		t.Errorf("saving a state left updated_at at %v, want %v", rec.UpdatedAt, e.clock.Now())
	}
	e.clock.Advance(time.Minute)
	_, err = e.saveState(k, 0, json.RawMessage(`{"stale":true}`))
	wantErr(t, "save over a stale version", err, session.ErrConflict)
	_, err = e.saveState(k, 5, json.RawMessage(`{"future":true}`))
	wantErr(t, "save over a future version", err, session.ErrConflict)
	if rec, err := e.s.GetSession(e.ctx, k); err != nil || !rec.UpdatedAt.Equal(e.clock.Now().Add(-time.Minute)) {
		t.Errorf("a run's end without a state moved updated_at: %v, %v", rec.UpdatedAt, err)
	}
	v, err = e.saveState(k, 1, json.RawMessage(`{"context": [1]}`))
	must(t, "save over v1", err)
	if v != 2 {
		t.Errorf("second save returned version %d", v)
	}
	st, err = e.s.LoadState(e.ctx, k)
	must(t, "LoadState", err)
	if st.Version != 2 || string(st.JSON) != `{"context": [1]}` {
		t.Errorf("LoadState = v%d %s", st.Version, st.JSON)
	}
}

// A run that knows the stored state's version (RunBegin.Known) is not
// sent its JSON again; one that knows another version is, and every run
// learns the session's creation time, which tells a session deleted and
// made again under its id from the one it knew.
func testStateKnown(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	rec, err := e.s.GetSession(e.ctx, k)
	must(t, "GetSession", err)
	begin := func(known int64) session.Run {
		t.Helper()
		r, err := e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: "o", TTL: time.Minute, Known: known})
		must(t, "BeginRun", err)
		e.finish(t, k, r.Lease)
		if !r.Created.Equal(rec.CreatedAt) {
			t.Errorf("BeginRun: created %v, the session's %v", r.Created, rec.CreatedAt)
		}
		return r
	}
	if r := begin(1); r.State.Version != 0 || r.State.JSON != nil {
		t.Errorf("a new session, knowing v1: %+v", r.State)
	}
	v1, err := e.saveState(k, 0, json.RawMessage(`{"context":[1]}`))
	must(t, "save", err)
	if r := begin(0); r.State.Version != v1 || string(r.State.JSON) != `{"context":[1]}` {
		t.Errorf("knowing nothing: %+v", r.State)
	}
	if r := begin(v1); r.State.Version != v1 || r.State.JSON != nil {
		t.Errorf("knowing v%d, the stored version: %+v", v1, r.State)
	}
	v2, err := e.saveState(k, v1, json.RawMessage(`{"context":[1,2]}`))
	must(t, "save", err)
	if r := begin(v1); r.State.Version != v2 || string(r.State.JSON) != `{"context":[1,2]}` {
		t.Errorf("knowing v%d, stored v%d: %+v", v1, v2, r.State)
	}
}

// Ends racing under one lease (a run's end retried while the first try is
// still in flight): exactly one is stored; the others find the lease
// gone (ErrNotHeld) or the version moved (ErrConflict).
func testStateRace(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	r := e.begin(t, k, "A", time.Minute, "")
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = e.s.FinishRun(e.ctx, k, r.Lease, session.RunEnd{State: json.RawMessage(fmt.Sprintf(`{"writer":%d}`, i)),
				Events: []json.RawMessage{json.RawMessage(fmt.Sprintf(`{"writer":%d}`, i))}, Status: session.StatusIdle})
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner < 0:
			winner = i
		case err == nil:
			t.Errorf("writers %d and %d both ended the run", winner, i)
		case !errors.Is(err, session.ErrNotHeld) && !errors.Is(err, session.ErrConflict):
			t.Errorf("writer %d: %v, want ErrNotHeld or ErrConflict", i, err)
		}
	}
	st, err := e.s.LoadState(e.ctx, k)
	must(t, "LoadState", err)
	evs, err := e.s.ReadEvents(e.ctx, k, 0, 10)
	must(t, "ReadEvents", err)
	if winner < 0 || st.Version != 1 || string(st.JSON) != fmt.Sprintf(`{"writer":%d}`, winner) || len(evs) != 1 || string(evs[0].JSON) != string(st.JSON) {
		t.Errorf("after the race: winner %d, stored v%d %s, events %v", winner, st.Version, st.JSON, evs)
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
	must(t, "upsert", e.upsert(k, msg("m1", "a"), msg("m2", "b")))
	must(t, "upsert", e.upsert(k, msg("m3", "c")))
	// A streaming reply is upserted again under its id: it keeps its place.
	must(t, "upsert", e.upsert(k, msg("m2", "b2"), msg("m4", "d"), msg("m5", "e")))
	// The last of two entries with one id wins, at the first one's place.
	must(t, "upsert", e.upsert(k, msg("m6", "f"), msg("m6", "f2")))
	// A run's end upserts as its appends do.
	r := e.begin(t, k, "A", time.Minute, "")
	_, err := e.s.FinishRun(e.ctx, k, r.Lease, session.RunEnd{Messages: []session.Message{msg("m6", "f3"), msg("m6", "f2")}, Status: session.StatusIdle})
	must(t, "FinishRun with messages", err)
	all := []session.Message{msg("m1", "a"), msg("m2", "b2"), msg("m3", "c"), msg("m4", "d"), msg("m5", "e"), msg("m6", "f2")}
	want(list("", 10), false, all...)
	want(list("", 6), false, all...)
	want(list("", 2), true, all[4:]...)
	want(list("m5", 2), true, all[2:4]...)
	want(list("m3", 2), false, all[0:2]...)
	want(list("m3", 5), false, all[0:2]...)
	want(list("m1", 5), false)
	_, err = e.s.ListMessages(e.ctx, k, session.MessageQuery{Before: "nope", Limit: 5})
	wantErr(t, "ListMessages before an unknown message", err, session.ErrNotFound)

	// Message ids are per session.
	k2 := e.create(t, "u1", "a1")
	must(t, "upsert", e.upsert(k2, msg("m1", "other")))
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
	l := e.begin(t, k, "A", time.Minute, "").Lease
	first, err := e.appendEvents(k, l, json.RawMessage(raw[0]), json.RawMessage(raw[1]), json.RawMessage(raw[2]))
	must(t, "AppendRun", err)
	if first != 1 {
		t.Errorf("first batch starts at %d", first)
	}
	// A run's end appends where its appends left off.
	w, err := e.s.FinishRun(e.ctx, k, l, session.RunEnd{Events: []json.RawMessage{json.RawMessage(raw[3]), json.RawMessage(raw[4])}, Status: session.StatusIdle})
	must(t, "FinishRun with events", err)
	first = w.First
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
	first, err = e.appendEvents(k, e.begin(t, k, "A", time.Minute, "").Lease, big...)
	must(t, "AppendRun of 600", err)
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
	first, err = e.appendEvents(k2, e.begin(t, k2, "A", time.Minute, "").Lease, json.RawMessage(`{}`))
	must(t, "AppendRun", err)
	if first != 1 {
		t.Errorf("another session's first event has sequence %d", first)
	}
}

func testEventsConcurrent(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	other := e.create(t, "u1", "a1")
	leases := map[session.Key]session.Lease{k: e.begin(t, k, "A", time.Minute, "").Lease, other: e.begin(t, other, "A", time.Minute, "").Lease}
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
				first, err := e.appendEvents(key, leases[key], evs...)
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
		must(t, "concurrent AppendRun", err)
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

// The lease: BeginRun takes it when it is free, expired or the caller's
// own (each begin a new epoch), RenewRun moves its expiry, FinishRun frees
// it; every write names the run's lease and is refused once it is not the
// session's.
func testLease(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	rec, err := e.s.GetSession(e.ctx, k)
	must(t, "GetSession of a new session", err)
	if l := rec.Lease; l.Owner != "" || l.Held(e.clock.Now()) || l.Epoch != 0 {
		t.Errorf("new session's lease: %+v", l)
	}
	lease := func() session.Lease {
		t.Helper()
		rec, err := e.s.GetSession(e.ctx, k)
		must(t, "GetSession", err)
		return rec.Lease
	}
	t0 := e.clock.Now()
	a := e.begin(t, k, "A", 30*time.Second, "").Lease
	if a.Owner != "A" || !a.Expires.Equal(t0.Add(30*time.Second)) || a.Epoch != 1 {
		t.Errorf("A's lease: %+v", a)
	}
	_, err = e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: "B", TTL: 30 * time.Second})
	wantErr(t, "BeginRun B while A holds it", err, session.ErrLeased)
	notB := session.Lease{Owner: "B", Epoch: a.Epoch}
	_, err = e.s.RenewRun(e.ctx, k, notB, 30*time.Second)
	wantErr(t, "RenewRun by B", err, session.ErrNotHeld)
	_, err = e.s.FinishRun(e.ctx, k, notB, session.RunEnd{Status: session.StatusIdle})
	wantErr(t, "FinishRun by B", err, session.ErrNotHeld)
	_, err = e.appendEvents(k, notB, json.RawMessage(`{}`))
	wantErr(t, "AppendRun by B", err, session.ErrNotHeld)

	// A heartbeat moves the expiry, and keeps the epoch.
	e.clock.Advance(10 * time.Second)
	l, err := e.s.RenewRun(e.ctx, k, a, 30*time.Second)
	must(t, "RenewRun A", err)
	if !l.Expires.Equal(t0.Add(40*time.Second)) || l.Epoch != 1 || l.Owner != "A" {
		t.Errorf("renewed lease: %+v", l)
	}
	if got := lease(); got != l {
		t.Errorf("stored lease %+v, RenewRun gave %+v", got, l)
	}

	// A begin by the holder itself (a process restarted under its
	// owner) takes its own live lease as a new run: a new epoch, and the
	// previous run's writes are refused.
	e.clock.Advance(10 * time.Second)
	a2 := e.begin(t, k, "A", 30*time.Second, "").Lease
	if a2.Owner != "A" || !a2.Expires.Equal(t0.Add(50*time.Second)) || a2.Epoch != 2 {
		t.Errorf("A's second lease: %+v", a2)
	}
	_, err = e.s.RenewRun(e.ctx, k, a, 30*time.Second)
	wantErr(t, "RenewRun of A's first run", err, session.ErrNotHeld)
	_, err = e.appendEvents(k, a, json.RawMessage(`{}`))
	wantErr(t, "AppendRun of A's first run", err, session.ErrNotHeld)
	_, err = e.s.FinishRun(e.ctx, k, a, session.RunEnd{Status: session.StatusIdle})
	wantErr(t, "FinishRun of A's first run", err, session.ErrNotHeld)
	if got := lease(); got != a2 {
		t.Errorf("stored lease %+v, want %+v", got, a2)
	}

	// Still held one microsecond before the expiry, free at it.
	e.clock.Advance(30*time.Second - time.Microsecond)
	_, err = e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: "B", TTL: 30 * time.Second})
	wantErr(t, "BeginRun B just before expiry", err, session.ErrLeased)
	e.clock.Advance(time.Microsecond)
	if got := lease(); got.Owner != "A" || got.Held(e.clock.Now()) {
		t.Errorf("expired lease as stored: %+v", got)
	}
	b := e.begin(t, k, "B", 30*time.Second, "").Lease
	if b.Owner != "B" || b.Epoch != 3 {
		t.Errorf("B's lease: %+v", b)
	}
	_, err = e.s.RenewRun(e.ctx, k, a2, 30*time.Second)
	wantErr(t, "RenewRun by A after B took over", err, session.ErrNotHeld)
	_, err = e.s.FinishRun(e.ctx, k, a2, session.RunEnd{Status: session.StatusIdle})
	wantErr(t, "FinishRun by A after B took over", err, session.ErrNotHeld)

	e.finish(t, k, b)
	if got := lease(); got.Owner != "" || got.Held(e.clock.Now()) || got.Epoch != 3 {
		t.Errorf("released lease: %+v", got)
	}
	_, err = e.s.FinishRun(e.ctx, k, b, session.RunEnd{Status: session.StatusIdle})
	wantErr(t, "FinishRun twice", err, session.ErrNotHeld)
	_, err = e.s.RenewRun(e.ctx, k, b, time.Second)
	wantErr(t, "RenewRun after the end", err, session.ErrNotHeld)
	_, err = e.appendEvents(k, b, json.RawMessage(`{}`))
	wantErr(t, "AppendRun after the end", err, session.ErrNotHeld)

	// An expired lease nobody took over is still its run's, to renew and
	// write under.
	a3 := e.begin(t, k, "A", time.Second, "").Lease
	if a3.Epoch != 4 {
		t.Errorf("fourth run's epoch %d", a3.Epoch)
	}
	e.clock.Advance(5 * time.Second)
	_, err = e.appendEvents(k, a3, json.RawMessage(`{}`))
	must(t, "AppendRun under an expired lease not taken over", err)
	l, err = e.s.RenewRun(e.ctx, k, a3, time.Second)
	must(t, "RenewRun of an expired lease not taken over", err)
	if !l.Expires.Equal(e.clock.Now().Add(time.Second)) || l.Epoch != 4 {
		t.Errorf("renewed expired lease: %+v", l)
	}

	// Leases are per session.
	k2 := e.create(t, "u1", "a1")
	if l := e.begin(t, k2, "B", time.Second, "").Lease; l.Epoch != 1 {
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
			_, errs[i] = e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: fmt.Sprintf("owner-%d", i), TTL: time.Minute, Input: json.RawMessage(fmt.Sprintf(`{"owner":%d}`, i))})
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
	rec, err := e.s.GetSession(e.ctx, k)
	must(t, "GetSession", err)
	if l := rec.Lease; winner < 0 || l.Owner != fmt.Sprintf("owner-%d", winner) || l.Epoch != 1 {
		t.Errorf("after the race: winner %d, lease %+v", winner, l)
	}
	// Only the winner's input was queued.
	if n, err := e.s.PendingInputs(e.ctx, k); err != nil || n != 1 {
		t.Errorf("after the race: %d inputs pending, %v", n, err)
	}
}

// Inputs: BeginRun queues its input already claimed, or claims the
// inputs a dead run left (Attempts counting each claim) and queues
// nothing; FinishRun marks the inputs it names done, each once.
func testInputs(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	pendingIs := func(want int) {
		t.Helper()
		n, err := e.s.PendingInputs(e.ctx, k)
		must(t, "PendingInputs", err)
		if n != want {
			t.Errorf("PendingInputs = %d, want %d", n, want)
		}
	}
	raws := []string{`[{"role":"user","content":[]}]`, `{"type":"USER_CONFIRM_RESULT"}`, `{"type":"USER_INTERRUPT"}`, `{"n":4}`}
	var ids []int64
	begin := func(owner string, raw string) session.Run {
		t.Helper()
		r := e.begin(t, k, owner, time.Minute, raw)
		in := r.Input
		if string(in.JSON) != raw || !in.CreatedAt.Equal(e.clock.Now()) || in.Attempts != 1 || len(r.Leftovers) != 0 {
			t.Errorf("queued %+v (leftovers %v)", in, r.Leftovers)
		}
		if len(ids) > 0 && in.ID <= ids[len(ids)-1] {
			t.Errorf("input ids not increasing: %d after %v", in.ID, ids)
		}
		ids = append(ids, in.ID)
		return r
	}
	r := begin("A", raws[0])
	pendingIs(1)
	e.finish(t, k, r.Lease, ids[0])
	pendingIs(0)

	r = begin("A", raws[1])
	pendingIs(1)
	for _, bad := range []struct {
		what string
		done []int64
	}{{"an unknown input", []int64{ids[1] + 1000}}, {"an input done already", []int64{ids[1], ids[0]}}, {"one input twice", []int64{ids[1], ids[1]}}} {
		_, err := e.s.FinishRun(e.ctx, k, r.Lease, session.RunEnd{Done: bad.done, Status: session.StatusIdle})
		wantErr(t, "FinishRun marking "+bad.what+" done", err, session.ErrNotFound)
	}
	pendingIs(1)

	// A dies holding the lease and input 2; B takes over after expiry and
	// is handed input 2 again, queuing nothing of its own.
	e.clock.Advance(2 * time.Minute)
	rb, err := e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: "B", TTL: time.Minute, Input: json.RawMessage(raws[2])})
	must(t, "BeginRun B over a dead run", err)
	if len(rb.Leftovers) != 1 || rb.Leftovers[0].ID != ids[1] || rb.Leftovers[0].Attempts != 2 || string(rb.Leftovers[0].JSON) != raws[1] || rb.Input.ID != 0 {
		t.Errorf("B's run over A's: input %+v, leftovers %+v", rb.Input, rb.Leftovers)
	}
	pendingIs(1)
	e.finish(t, k, rb.Lease, ids[1])
	pendingIs(0)
	if r := e.begin(t, k, "B", time.Minute, ""); r.Input.ID != 0 || len(r.Leftovers) != 0 {
		t.Errorf("a run without input over nothing pending: %+v", r)
	} else {
		e.finish(t, k, r.Lease)
	}
	pendingIs(0)

	// A run ended without marking its input done leaves it pending; the
	// same owner's next run is a new lease, and is handed it again.
	r = begin("B", raws[3])
	e.finish(t, k, r.Lease)
	pendingIs(1)
	r = e.begin(t, k, "B", time.Minute, `{"n":5}`)
	if len(r.Leftovers) != 1 || r.Leftovers[0].ID != ids[2] || r.Leftovers[0].Attempts != 2 {
		t.Errorf("the same owner's next run: leftovers %+v", r.Leftovers)
	}

	// Inputs of another session are not another session's to mark done.
	other := e.create(t, "u1", "a1")
	ro := e.begin(t, other, "B", time.Minute, "")
	_, err = e.s.FinishRun(e.ctx, other, ro.Lease, session.RunEnd{Done: []int64{ids[2]}, Status: session.StatusIdle})
	wantErr(t, "FinishRun marking another session's input done", err, session.ErrNotFound)
	e.finish(t, k, r.Lease, ids[2])
	pendingIs(0)
}

func testRecoverable(t *testing.T, e *env) {
	idle := e.create(t, "u1", "a1") // nothing to do
	_ = idle
	queued := e.create(t, "u1", "a1") // an input, no run
	r := e.begin(t, queued, "A", time.Minute, `[]`)
	e.finish(t, queued, r.Lease)
	running := e.create(t, "u2", "a1") // an input and a live run
	e.begin(t, running, "live", time.Hour, `[]`)
	died := e.create(t, "u2", "a1") // a run whose owner died
	e.begin(t, died, "dead", time.Second, "")
	finished := e.create(t, "u1", "a1") // a run that ended
	r = e.begin(t, finished, "done", time.Second, `[]`)
	e.finish(t, finished, r.Lease, r.Input.ID)

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
	r, err := e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: "o", TTL: time.Minute, Input: buf})
	must(t, "BeginRun", err)
	_, err = e.s.AppendRun(e.ctx, k, r.Lease, session.RunAppend{Events: []json.RawMessage{buf}, Messages: []session.Message{{ID: "m", JSON: buf}}})
	must(t, "AppendRun", err)
	_, err = e.s.FinishRun(e.ctx, k, r.Lease, session.RunEnd{State: buf, Status: session.StatusIdle})
	must(t, "FinishRun", err)
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
	r = e.begin(t, k, "o", time.Minute, "")
	if len(r.Leftovers) != 1 || string(r.Leftovers[0].JSON) != `{"n":1}` {
		t.Errorf("input stored as %v", r.Leftovers)
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
	rs, err := e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: "A", TTL: time.Minute, Input: in1})
	must(t, "BeginRun", err)
	if rs.Lease.Owner != "A" || !rs.Lease.Expires.Equal(e.clock.Now().Add(time.Minute)) || len(rs.Leftovers) != 0 {
		t.Errorf("BeginRun: lease %+v, leftovers %v", rs.Lease, rs.Leftovers)
	}
	if rs.Input.ID == 0 || string(rs.Input.JSON) != string(in1) || rs.Input.Attempts != 1 || !rs.Input.CreatedAt.Equal(e.clock.Now()) {
		t.Errorf("BeginRun input %+v", rs.Input)
	}
	if rs.State.JSON != nil || rs.State.Version != 0 {
		t.Errorf("BeginRun state of a new session: %+v", rs.State)
	}
	if rec, err := e.s.GetSession(e.ctx, k); err != nil || rec.Lease != rs.Lease || rec.Status != session.StatusRunning || rec.RunSeq != 0 {
		t.Errorf("GetSession = lease %+v, status %q, run seq %d, %v; BeginRun gave %+v", rec.Lease, rec.Status, rec.RunSeq, err, rs.Lease)
	}
	pendingIs(1)
	_, err = e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: "B", TTL: time.Minute, Input: json.RawMessage(`{}`)})
	wantErr(t, "BeginRun while A runs", err, session.ErrLeased)
	pendingIs(1)

	// The run's first write: its input messages and first events.
	first, err := e.s.AppendRun(e.ctx, k, rs.Lease, session.RunAppend{Messages: []session.Message{msg("u1", "hi")},
		Events: []json.RawMessage{json.RawMessage(`{"n":1}`), json.RawMessage(`{"n":2}`)}})
	must(t, "AppendRun", err)
	if first != 1 {
		t.Errorf("AppendRun first = %d, want 1", first)
	}
	first, err = e.appendEvents(k, rs.Lease, json.RawMessage(`{"n":3}`))
	must(t, "AppendRun", err)
	if first != 3 {
		t.Errorf("AppendRun first = %d, want 3", first)
	}
	// Its last: state, reply, last event, input done, status, lease freed.
	w, err := e.s.FinishRun(e.ctx, k, rs.Lease, session.RunEnd{State: json.RawMessage(`{"v":1}`), StateVersion: 0,
		Messages: []session.Message{msg("r1", "hello")}, Events: []json.RawMessage{json.RawMessage(`{"n":4}`)},
		Done: []int64{rs.Input.ID}, Status: session.StatusAwaitingPermission})
	must(t, "FinishRun", err)
	if w.First != 4 || w.Version != 1 {
		t.Errorf("FinishRun = %+v, want first 4, version 1", w)
	}
	pendingIs(0)
	if rec, err := e.s.GetSession(e.ctx, k); err != nil || rec.Lease.Owner != "" || rec.Status != session.StatusAwaitingPermission {
		t.Errorf("after FinishRun: lease %+v, status %q, %v", rec.Lease, rec.Status, err)
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
	rs2, err := e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: "A", TTL: time.Minute, Input: json.RawMessage(`{"type":"USER_CONFIRM_RESULT"}`)})
	must(t, "BeginRun again", err)
	if string(rs2.State.JSON) != `{"v":1}` || rs2.State.Version != 1 || rs2.Input.ID <= rs.Input.ID || len(rs2.Leftovers) != 0 || rs2.Lease.Epoch != rs.Lease.Epoch+1 {
		t.Errorf("second BeginRun: %+v", rs2)
	}
	// Its events follow the first run's four, on every record read.
	if rec, err := e.s.GetSession(e.ctx, k); err != nil || rec.RunSeq != 4 || rec.LastSeq != 4 {
		t.Errorf("GetSession after the second BeginRun: run seq %d, last seq %d, %v; want 4 and 4", rec.RunSeq, rec.LastSeq, err)
	}
	if _, err := e.appendEvents(k, rs2.Lease, json.RawMessage(`{"n":5}`)); err != nil {
		t.Fatal(err)
	}
	if rec, err := e.s.GetSession(e.ctx, k); err != nil || rec.RunSeq != 4 || rec.LastSeq != 5 {
		t.Errorf("GetSession after an append: run seq %d, last seq %d, %v; want 4 and 5", rec.RunSeq, rec.LastSeq, err)
	}
	if l, _, err := e.s.ListSessions(e.ctx, session.ListQuery{UserID: "u1"}); err != nil || len(l) != 1 || l[0].RunSeq != 4 || l[0].LastSeq != 5 {
		t.Errorf("ListSessions after the second BeginRun: %+v, %v; want run seq 4", l, err)
	}

	// A dies with its input undone; B, after the lease expired, is handed
	// it (claimed again) and queues nothing.
	e.clock.Advance(2 * time.Minute)
	rs3, err := e.s.BeginRun(e.ctx, k, session.RunBegin{Owner: "B", TTL: time.Minute, Input: json.RawMessage(`{"n":"b"}`)})
	must(t, "BeginRun over a dead run", err)
	if len(rs3.Leftovers) != 1 || rs3.Input.ID != 0 || rs3.Lease.Owner != "B" || rs3.Lease.Epoch <= rs2.Lease.Epoch {
		t.Errorf("BeginRun over a dead run: %+v (before: %+v)", rs3, rs2.Lease)
	}
	if in := rs3.Leftovers[0]; in.ID != rs2.Input.ID || in.Attempts != 2 || string(in.JSON) != `{"type":"USER_CONFIRM_RESULT"}` {
		t.Errorf("leftover %+v, want input %d at attempt 2", in, rs2.Input.ID)
	}
	pendingIs(1)
	if string(rs3.State.JSON) != `{"v":1}` {
		t.Errorf("BeginRun over a dead run read state %s", rs3.State.JSON)
	}
}

func testRunWriteAtomic(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	rs := e.begin(t, k, "A", time.Minute, `{}`)
	_, err := e.s.FinishRun(e.ctx, k, rs.Lease, session.RunEnd{State: json.RawMessage(`{"v":1}`), Events: []json.RawMessage{json.RawMessage(`{"n":1}`)},
		Status: session.StatusAwaitingExternalResult})
	must(t, "FinishRun", err)
	rs = e.begin(t, k, "A", time.Minute, "")
	if len(rs.Leftovers) != 1 {
		t.Fatalf("leftovers %v", rs.Leftovers)
	}
	before := snapshot(t, e, k)
	good := func() session.RunEnd {
		return session.RunEnd{State: json.RawMessage(`{"v":2}`), StateVersion: 1, Messages: []session.Message{msg("r", "x")},
			Events: []json.RawMessage{json.RawMessage(`{"n":2}`)}, Done: []int64{rs.Leftovers[0].ID}, Status: session.StatusIdle}
	}
	stale := good()
	stale.StateVersion = 0
	_, err = e.s.FinishRun(e.ctx, k, rs.Lease, stale)
	wantErr(t, "FinishRun with a stale state version", err, session.ErrConflict)
	_, err = e.s.FinishRun(e.ctx, k, session.Lease{Owner: "B", Epoch: rs.Lease.Epoch}, good())
	wantErr(t, "FinishRun of another owner's lease", err, session.ErrNotHeld)
	_, err = e.s.FinishRun(e.ctx, k, session.Lease{Owner: "A", Epoch: rs.Lease.Epoch - 1}, good())
	wantErr(t, "FinishRun of an earlier lease", err, session.ErrNotHeld)
	unknown := good()
	unknown.Done = append(unknown.Done, rs.Leftovers[0].ID+1000)
	_, err = e.s.FinishRun(e.ctx, k, rs.Lease, unknown)
	wantErr(t, "FinishRun completing an unknown input", err, session.ErrNotFound)
	if after := snapshot(t, e, k); after != before {
		t.Errorf("a failed FinishRun changed the session:\nbefore %s\nafter  %s", before, after)
	}
	w, err := e.s.FinishRun(e.ctx, k, rs.Lease, good())
	must(t, "FinishRun", err)
	if w.First != 2 || w.Version != 2 {
		t.Errorf("FinishRun = %+v, want first 2, version 2", w)
	}
}

// statusIs checks k's status as GetSession and ListSessions read it.
func statusIs(t *testing.T, e *env, k session.Key, want session.Status) {
	t.Helper()
	rec, err := e.s.GetSession(e.ctx, k)
	must(t, "GetSession", err)
	if rec.Status != want {
		t.Errorf("GetSession status %q, want %q", rec.Status, want)
	}
	page, _, err := e.s.ListSessions(e.ctx, session.ListQuery{UserID: k.UserID})
	must(t, "ListSessions", err)
	for _, r := range page {
		if r.ID == k.SessionID && r.Status != want {
			t.Errorf("ListSessions status %q, want %q", r.Status, want)
		}
	}
}

// The status column: a new session is idle, a run makes it running from
// BeginRun to FinishRun, which stores the status the run leaves, and each
// of them reads back from GetSession and ListSessions alike. FillStatus
// never overwrites a status a run stored.
func testStatus(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	other := e.create(t, "u1", "a1")
	statusIs(t, e, k, session.StatusIdle)
	for _, want := range []session.Status{session.StatusAwaitingPermission, session.StatusAwaitingExternalResult, session.StatusIdle, session.StatusAwaitingPermission} {
		r := e.begin(t, k, "A", time.Minute, `{}`)
		statusIs(t, e, k, session.StatusRunning)
		_, err := e.appendEvents(k, r.Lease, json.RawMessage(`{}`))
		must(t, "AppendRun", err)
		_, err = e.s.RenewRun(e.ctx, k, r.Lease, time.Minute)
		must(t, "RenewRun", err)
		statusIs(t, e, k, session.StatusRunning)
		_, err = e.s.FinishRun(e.ctx, k, r.Lease, session.RunEnd{Done: []int64{r.Input.ID}, Status: want})
		must(t, "FinishRun", err)
		statusIs(t, e, k, want)
		statusIs(t, e, other, session.StatusIdle)
	}
	// A refused end leaves the session running.
	r := e.begin(t, k, "A", time.Minute, "")
	_, err := e.s.FinishRun(e.ctx, k, r.Lease, session.RunEnd{State: json.RawMessage(`{}`), StateVersion: 7, Status: session.StatusIdle})
	wantErr(t, "FinishRun with a stale version", err, session.ErrConflict)
	statusIs(t, e, k, session.StatusRunning)
	// FillStatus only fills a status no run stored: not these.
	must(t, "FillStatus of a running session", e.s.FillStatus(e.ctx, k, session.StatusIdle))
	statusIs(t, e, k, session.StatusRunning)
	e.finish(t, k, r.Lease)
	must(t, "FillStatus of an idle session", e.s.FillStatus(e.ctx, k, session.StatusAwaitingPermission))
	statusIs(t, e, k, session.StatusIdle)
}

// An interrupt asked of a run (AskStop) is read by each renewal of that
// run's lease, and by no later run's; it needs the run to hold the lease.
// A store that keeps no requests (no RunStopper) never reports one.
func testAskStop(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	r := e.begin(t, k, "A", time.Minute, `{}`)
	l, err := e.s.RenewRun(e.ctx, k, r.Lease, time.Minute)
	must(t, "RenewRun", err)
	if l.StopAsked {
		t.Fatal("a renewal reports a stop nobody asked")
	}
	stopper, ok := e.s.(session.RunStopper)
	if !ok {
		return
	}
	must(t, "AskStop", stopper.AskStop(e.ctx, k, r.Lease))
	for range 2 {
		l, err := e.s.RenewRun(e.ctx, k, r.Lease, time.Minute)
		must(t, "RenewRun", err)
		if !l.StopAsked || l.Epoch != r.Lease.Epoch || l.Owner != "A" {
			t.Fatalf("a renewal after AskStop: %+v", l)
		}
	}
	wrong := r.Lease
	wrong.Epoch++
	wantErr(t, "AskStop of another epoch", stopper.AskStop(e.ctx, k, wrong), session.ErrNotHeld)
	wantErr(t, "AskStop of an unknown session", stopper.AskStop(e.ctx, session.Key{UserID: "u1", SessionID: "0123456789abcdef0123456789abcdef"}, r.Lease), session.ErrNotFound)
	wantErr(t, "AskStop of another user's session", stopper.AskStop(e.ctx, session.Key{UserID: "u2", SessionID: k.SessionID}, r.Lease), session.ErrNotFound)
	e.finish(t, k, r.Lease, r.Input.ID)
	wantErr(t, "AskStop of a finished run", stopper.AskStop(e.ctx, k, r.Lease), session.ErrNotHeld)
	next := e.begin(t, k, "A", time.Minute, `{}`)
	if l, err := e.s.RenewRun(e.ctx, k, next.Lease, time.Minute); err != nil || l.StopAsked {
		t.Fatalf("the next run's renewal: %+v, %v", l, err)
	}
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	if err := stopper.AskStop(ctx, k, next.Lease); !errors.Is(err, context.Canceled) {
		t.Fatalf("AskStop with a cancelled context: %v", err)
	}
}

// CountStatuses counts every user's sessions by stored status, as runs
// leave them, and forgets deleted ones.
func testCountStatuses(t *testing.T, e *env) {
	c, ok := e.s.(session.StatusCounter)
	if !ok {
		t.Fatal("the store is no session.StatusCounter")
	}
	counts := func(want map[session.Status]int64) {
		t.Helper()
		got, err := c.CountStatuses(e.ctx)
		must(t, "CountStatuses", err)
		maps.DeleteFunc(got, func(_ session.Status, n int64) bool { return n == 0 })
		if !maps.Equal(got, want) {
			t.Fatalf("CountStatuses: %v, want %v", got, want)
		}
	}
	counts(map[session.Status]int64{})
	a, b, other := e.create(t, "u1", "a1"), e.create(t, "u1", "a2"), e.create(t, "u2", "a1")
	counts(map[session.Status]int64{session.StatusIdle: 3})
	park := func(k session.Key, st session.Status) {
		r := e.begin(t, k, "A", time.Minute, `{}`)
		_, err := e.s.FinishRun(e.ctx, k, r.Lease, session.RunEnd{Done: []int64{r.Input.ID}, Status: st})
		must(t, "FinishRun", err)
	}
	park(a, session.StatusAwaitingPermission)
	park(other, session.StatusAwaitingExternalResult)
	running := e.begin(t, b, "A", time.Minute, `{}`)
	counts(map[session.Status]int64{session.StatusAwaitingPermission: 1, session.StatusAwaitingExternalResult: 1, session.StatusRunning: 1})
	e.finish(t, b, running.Lease, running.Input.ID)
	must(t, "DeleteSession", e.s.DeleteSession(e.ctx, other))
	counts(map[session.Status]int64{session.StatusAwaitingPermission: 1, session.StatusIdle: 1})
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	if _, err := c.CountStatuses(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("CountStatuses with a cancelled context: %v", err)
	}
}

// A run that dies mid-run leaves the session running, with a lease that
// expires: the rescue lists it, begins a run of its own (handed the dead
// run's input) and its finish sets the status right; the dead run can no
// longer write.
func testCrashMidRun(t *testing.T, e *env) {
	k := e.create(t, "u1", "a1")
	dead := e.begin(t, k, "A", 10*time.Second, `[{"role":"user"}]`)
	_, err := e.appendEvents(k, dead.Lease, json.RawMessage(`{"type":"REPLY_START"}`))
	must(t, "AppendRun", err)
	// The process dies here.
	statusIs(t, e, k, session.StatusRunning)
	rec, err := e.s.GetSession(e.ctx, k)
	must(t, "GetSession", err)
	if !rec.Lease.Held(e.clock.Now()) || !rec.Lease.Expires.Equal(e.clock.Now().Add(10*time.Second)) {
		t.Errorf("a dead run's lease %+v", rec.Lease)
	}
	if keys, err := e.s.Recoverable(e.ctx, 10); err != nil || len(keys) != 0 {
		t.Errorf("Recoverable while the lease lasts: %v, %v", keys, err)
	}
	e.clock.Advance(10 * time.Second)
	statusIs(t, e, k, session.StatusRunning)
	if rec, _ := e.s.GetSession(e.ctx, k); rec.Lease.Held(e.clock.Now()) || rec.Lease.Owner != "A" {
		t.Errorf("an expired dead run's lease %+v", rec.Lease)
	}
	keys, err := e.s.Recoverable(e.ctx, 10)
	must(t, "Recoverable", err)
	if want := []session.Key{k}; !slices.Equal(keys, want) {
		t.Fatalf("Recoverable after expiry: %v, want %v", keys, want)
	}
	rescue := e.begin(t, k, "B", time.Minute, "")
	if len(rescue.Leftovers) != 1 || rescue.Leftovers[0].ID != dead.Input.ID || rescue.Leftovers[0].Attempts != 2 {
		t.Fatalf("the rescue's leftovers %+v", rescue.Leftovers)
	}
	statusIs(t, e, k, session.StatusRunning)
	_, err = e.appendEvents(k, dead.Lease, json.RawMessage(`{"late":true}`))
	wantErr(t, "AppendRun of the dead run", err, session.ErrNotHeld)
	_, err = e.s.FinishRun(e.ctx, k, rescue.Lease, session.RunEnd{State: json.RawMessage(`{"closed":true}`),
		Events: []json.RawMessage{json.RawMessage(`{"type":"REPLY_END"}`)}, Done: []int64{dead.Input.ID}, Status: session.StatusIdle})
	must(t, "the rescue's FinishRun", err)
	statusIs(t, e, k, session.StatusIdle)
	_, err = e.s.FinishRun(e.ctx, k, dead.Lease, session.RunEnd{Status: session.StatusAwaitingPermission})
	wantErr(t, "FinishRun of the dead run", err, session.ErrNotHeld)
	statusIs(t, e, k, session.StatusIdle)
	if keys, err := e.s.Recoverable(e.ctx, 10); err != nil || len(keys) != 0 {
		t.Errorf("Recoverable after the rescue: %v, %v", keys, err)
	}
	evs, err := e.s.ReadEvents(e.ctx, k, 0, 10)
	must(t, "ReadEvents", err)
	if len(evs) != 2 || string(evs[1].JSON) != `{"type":"REPLY_END"}` {
		t.Errorf("log after the rescue: %v", evs)
	}
}
