package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/memory"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const user = "alice"

// rig is an engine on the in-memory store, with one agent on a scripted
// model and three tools: save_note and tag (both ask first) and wait
// (runs until cancelled). No transport: the engine's own API only.
type rig struct {
	t       *testing.T
	store   session.Store
	eng     *engine.Engine
	notes   atomic.Int32
	waiting chan struct{}
}

func newRig(t *testing.T, turns []scripted.Turn, edit func(*engine.Config)) *rig {
	t.Helper()
	r := &rig{t: t, store: memory.New(memory.Config{}), waiting: make(chan struct{}, 4)}
	m := scripted.New("scripted", turns)
	cfg := engine.Config{Store: r.store, Logger: slog.New(slog.DiscardHandler), Agents: []engine.Agent{{
		ID: "a1", Name: "assistant", New: func(st *state.AgentState) (*agent.Agent, error) { return r.agent(m, st) },
	}}}
	if edit != nil {
		edit(&cfg)
	}
	var err error
	if r.eng, err = engine.New(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.eng.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return r
}

func (r *rig) agent(m *scripted.Model, st *state.AgentState) (*agent.Agent, error) {
	note, err := tool.Func("save_note", "Save a note.", func(ctx context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		r.notes.Add(1)
		return "saved: " + in.Text, nil
	})
	if err != nil {
		return nil, err
	}
	// A second tool that asks, so one batch can park on two asks.
	tag, err := tool.Func("tag", "Tag a note.", func(ctx context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return "tagged: " + in.Text, nil
	})
	if err != nil {
		return nil, err
	}
	wait, err := tool.New("wait", "Wait until cancelled.", json.RawMessage(`{"type":"object","properties":{}}`),
		func(ctx context.Context, _ map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) {
				r.waiting <- struct{}{}
				<-ctx.Done()
				yield(tool.Chunk{}, ctx.Err())
			}
		}, tool.ReadOnly())
	if err != nil {
		return nil, err
	}
	tk, err := tool.NewToolkit([]tool.Tool{note, tag, wait})
	if err != nil {
		return nil, err
	}
	return agent.New(agent.Config{Name: "assistant", Model: m, Toolkit: tk, State: st,
		RuntimeState: agent.RuntimeStateConfig{Disabled: true}, Logger: slog.New(slog.DiscardHandler)})
}

func (r *rig) session() session.Key {
	r.t.Helper()
	rec, err := r.eng.CreateSession(context.Background(), engine.NewSession{UserID: user, AgentID: "a1"})
	if err != nil {
		r.t.Fatal(err)
	}
	return session.Key{UserID: user, SessionID: rec.ID}
}

// reader reads a feed as a transport does (its replay, then live
// batches), and hands out events one at a time: what a page holds past
// the event a test waits for stays for the next wait.
type reader struct {
	f        *engine.Feed
	replayed bool
	pending  []event.Event
}

func newReader(f *engine.Feed) *reader { return &reader{f: f} }

// until returns the events up to and including the next of type typ.
func (rd *reader) until(t *testing.T, typ event.Type) []event.Event {
	t.Helper()
	var out []event.Event
	add := func(batch []engine.Entry) {
		for _, e := range batch {
			ev, err := event.Decode(e.JSON)
			if err != nil {
				t.Fatal(err)
			}
			rd.pending = append(rd.pending, ev)
		}
	}
	take := func() bool {
		for len(rd.pending) > 0 {
			ev := rd.pending[0]
			rd.pending = rd.pending[1:]
			out = append(out, ev)
			if ev.Type() == typ {
				return true
			}
		}
		return false
	}
	if !rd.replayed {
		rd.replayed = true
		for page, err := range rd.f.Replay(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			add(page)
		}
	}
	if take() {
		return out
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case batch, ok := <-rd.f.Live():
			if !ok {
				t.Fatalf("the feed ended after %d events", len(out))
			}
			add(rd.f.Take(batch))
			if take() {
				return out
			}
		case <-timeout:
			t.Fatalf("no %s within 10s (%d events)", typ, len(out))
		}
	}
}

// until reads a fresh feed until an event of type typ.
func until(t *testing.T, f *engine.Feed, typ event.Type) []event.Event {
	t.Helper()
	return newReader(f).until(t, typ)
}

func userText(text string) engine.Input { return engine.Messages(message.UserText(user, text)) }

var (
	textTurn = scripted.Stream(scripted.Text("Hello"), scripted.Text(" world"))
	noteTurn = scripted.Stream(scripted.ToolCall("c1", "save_note", `{"text":"milk"}`))
	waitTurn = scripted.Stream(scripted.ToolCall("w1", "wait", `{}`))
	doneTurn = scripted.Stream(scripted.Text("Done."))
)

// A run starts on an input, its events reach a follower in order with
// their sequences, and its end is stored: the transcript holds the input
// and the reply, the session is idle.
func TestStartFollowAndStore(t *testing.T) {
	r := newRig(t, []scripted.Turn{textTurn}, nil)
	ctx := context.Background()
	k := r.session()
	feed, err := r.eng.Follow(ctx, k, engine.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()
	if _, err := r.eng.Start(ctx, k, "a1", userText("hi")); err != nil {
		t.Fatal(err)
	}
	evs := until(t, feed, event.TypeReplyEnd)
	if evs[0].Type() != event.TypeReplyStart || evs[len(evs)-1].(*event.ReplyEnd).FinishedReason != event.ReplyCompleted {
		t.Fatalf("events %v … %v", evs[0].Type(), evs[len(evs)-1])
	}
	if feed.Last() != int64(len(evs)) {
		t.Fatalf("the feed's last sequence %d after %d events", feed.Last(), len(evs))
	}
	page, running, err := r.eng.Messages(ctx, k, session.MessageQuery{Limit: 10})
	if err != nil || running || len(page.Messages) != 2 {
		t.Fatalf("messages %d, running %v, %v", len(page.Messages), running, err)
	}
	if st, err := r.eng.Status(ctx, k); err != nil || st != session.StatusIdle {
		t.Fatalf("status %s, %v", st, err)
	}
	// A follower from a cursor gets exactly what comes after it.
	again, err := r.eng.Follow(ctx, k, engine.After(3))
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	var seqs []int64
	for page, err := range again.Replay(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			seqs = append(seqs, e.Seq)
		}
	}
	if len(seqs) != len(evs)-3 || seqs[0] != 4 {
		t.Fatalf("replay after 3: %v", seqs)
	}
}

// A reply parks on a confirmation, holding nothing; the confirmation
// resumes it and the tool runs once.
func TestParkAndConfirm(t *testing.T) {
	r := newRig(t, []scripted.Turn{noteTurn, doneTurn}, nil)
	ctx := context.Background()
	k := r.session()
	feed, err := r.eng.Follow(ctx, k, engine.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()
	if _, err := r.eng.Start(ctx, k, "a1", userText("note milk")); err != nil {
		t.Fatal(err)
	}
	rd := newReader(feed)
	evs := rd.until(t, event.TypeRequireUserConfirm)
	rq := evs[len(evs)-1].(*event.RequireUserConfirm)
	if st, _ := r.eng.Status(ctx, k); st != session.StatusAwaitingPermission {
		t.Fatalf("status %s", st)
	}
	confirm := &event.UserConfirmResult{ReplyID: rq.ReplyID, ConfirmResults: []event.ConfirmResult{{Confirmed: true, ToolCall: rq.ToolCalls[0]}}}
	event.Stamp(confirm, nil)
	if _, err := r.eng.Start(ctx, k, "a1", engine.Confirm(confirm)); err != nil {
		t.Fatal(err)
	}
	end := rd.until(t, event.TypeReplyEnd)
	if got := end[len(end)-1].(*event.ReplyEnd); got.FinishedReason != event.ReplyCompleted || got.ReplyID != rq.ReplyID {
		t.Fatalf("end %+v", got)
	}
	if r.notes.Load() != 1 {
		t.Fatalf("save_note ran %d times", r.notes.Load())
	}
	// The same confirmation again: nothing is parked.
	var ie *engine.InputError
	if _, err := r.eng.Start(ctx, k, "a1", engine.Confirm(confirm)); !errors.As(err, &ie) {
		t.Fatalf("a second confirmation: %v", err)
	}
}

// Interrupting a running tool ends the reply as interrupted, the call
// answered; interrupting again, with nothing running, is a no-op.
func TestInterrupt(t *testing.T) {
	r := newRig(t, []scripted.Turn{waitTurn}, nil)
	ctx := context.Background()
	k := r.session()
	feed, err := r.eng.Follow(ctx, k, engine.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()
	if _, err := r.eng.Start(ctx, k, "a1", userText("wait")); err != nil {
		t.Fatal(err)
	}
	<-r.waiting
	if _, err := r.eng.Start(ctx, k, "a1", userText("again")); !errors.Is(err, engine.ErrBusy) {
		t.Fatalf("a second run while one runs: %v", err)
	}
	if err := r.eng.Interrupt(ctx, k); err != nil {
		t.Fatal(err)
	}
	evs := until(t, feed, event.TypeReplyEnd)
	var answered bool
	for _, ev := range evs {
		if e, ok := ev.(*event.ToolResultEnd); ok && e.ToolCallID == "w1" {
			answered = true
		}
	}
	if end := evs[len(evs)-1].(*event.ReplyEnd); end.FinishedReason != event.ReplyInterrupted || !answered {
		t.Fatalf("end %s, the call answered: %v", end.FinishedReason, answered)
	}
	if err := r.eng.Interrupt(ctx, k); err != nil {
		t.Fatalf("interrupting an idle session: %v", err)
	}
}

// Bad requests are typed errors and change nothing.
func TestTypedErrors(t *testing.T) {
	r := newRig(t, []scripted.Turn{textTurn}, func(c *engine.Config) { c.MaxStreamClients = 1 })
	ctx := context.Background()
	k := r.session()
	other := session.Key{UserID: "mallory", SessionID: k.SessionID}
	for name, c := range map[string]struct {
		err  error
		kind error
		text string
	}{
		"another user's session": {errOf(r.eng.Start(ctx, other, "a1", userText("hi"))), engine.ErrNotFound, "Session not found"},
		"another agent":          {errOf(r.eng.Start(ctx, k, "a2", userText("hi"))), engine.ErrNotFound, "Agent not found"},
		"an unknown agent":       {errOf(r.eng.CreateSession(ctx, engine.NewSession{UserID: user, AgentID: "nope"})), engine.ErrNotFound, "Agent not found"},
		"a configured agent":     {errOf(r.eng.UpdateAgent(ctx, user, "a1", engine.UserAgent{Name: "x"})), engine.ErrForbidden, "cannot be changed"},
		"another user's delete":  {r.eng.DeleteSession(ctx, other), engine.ErrNotFound, "Session not found"},
		"another user's follow":  {errOf(r.eng.Follow(ctx, other, engine.Cursor{})), engine.ErrNotFound, "Session not found"},
		"another user's id":      {errOf(r.eng.CreateSession(ctx, engine.NewSession{ID: k.SessionID, UserID: "mallory", AgentID: "a1"})), engine.ErrExists, "is already used"},
		"a bad chosen id":        {errOf(r.eng.CreateSession(ctx, engine.NewSession{ID: "a/b", UserID: user, AgentID: "a1"})), session.ErrInvalid, "session id"},
	} {
		if !errors.Is(c.err, c.kind) || !strings.Contains(fmtErr(c.err), c.text) {
			t.Errorf("%s: %v, want %v %q", name, c.err, c.kind, c.text)
		}
	}
	var ie *engine.InputError
	if _, err := r.eng.Start(ctx, k, "a1", engine.Messages()); !errors.As(err, &ie) || ie.Field != "input" {
		t.Errorf("no messages: %v", err)
	}
	if _, err := engine.ParseInput(json.RawMessage(`{"type":"USER_INTERRUPT"}`)); !errors.As(err, &ie) {
		t.Errorf("an interrupt as chat input: %v", err)
	}
	f, err := r.eng.Follow(ctx, k, engine.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.eng.Follow(ctx, k, engine.Cursor{}); !errors.Is(err, engine.ErrTooMany) {
		t.Errorf("a second follower past the bound: %v", err)
	}
	f.Close()
	if f, err = r.eng.Follow(ctx, k, engine.Cursor{}); err != nil {
		t.Errorf("a follower after one left: %v", err)
	} else {
		f.Close()
	}
	// Nothing of the refused calls was stored.
	if last, _ := r.store.LastSeq(ctx, k); last != 0 {
		t.Errorf("the log has %d events", last)
	}
	if err := r.eng.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.eng.Start(ctx, k, "a1", userText("hi")); !errors.Is(err, engine.ErrUnavailable) {
		t.Errorf("a run after shutdown: %v", err)
	}
	if _, err := r.eng.Follow(ctx, k, engine.Cursor{}); !errors.Is(err, engine.ErrUnavailable) {
		t.Errorf("a follower after shutdown: %v", err)
	}
}

func errOf[T any](_ T, err error) error { return err }

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// deadRun leaves the store as a run of owner that died with a tool
// running would: its lease (for ttl), its input claimed, its first
// events logged.
func deadRun(t *testing.T, st session.Store, k session.Key, owner string, ttl time.Duration) {
	t.Helper()
	ctx := context.Background()
	in, _ := json.Marshal([]*message.Msg{message.UserText(user, "wait")})
	// Begun on a long lease, shortened to ttl once the events are in: a
	// short lease could expire before the append on a loaded machine.
	run, err := st.BeginRun(ctx, k, session.RunBegin{Owner: owner, TTL: time.Hour, Input: in})
	if err != nil {
		t.Fatal(err)
	}
	rid := "r" + k.SessionID[1:]
	var batch []json.RawMessage
	for _, ev := range []event.Event{
		&event.ReplyStart{SessionID: k.SessionID, ReplyID: rid, Name: "assistant"},
		&event.ToolCallStart{ReplyID: rid, ToolCallID: "w1", ToolCallName: "wait"},
		&event.ToolCallEnd{ReplyID: rid, ToolCallID: "w1"},
		&event.ToolResultStart{ReplyID: rid, ToolCallID: "w1", ToolCallName: "wait"},
	} {
		event.Stamp(ev, nil)
		batch = append(batch, event.Marshal(ev))
	}
	if _, err := st.AppendRun(ctx, k, run.Lease, session.RunAppend{Events: batch}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RenewRun(ctx, k, run.Lease, ttl); err != nil {
		t.Fatal(err)
	}
}

// checkClosed asserts the dead run's reply was closed as every run ends:
// the closing events logged, the reply in the transcript, its input done,
// the lease free.
func checkClosed(t *testing.T, st session.Store, k session.Key) {
	t.Helper()
	ctx := context.Background()
	evs, err := st.ReadEvents(ctx, k, 4, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		d, err := event.Decode(e.JSON)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(d.Type()))
	}
	if !strings.HasPrefix(strings.Join(got, " "), "TOOL_RESULT_TEXT_DELTA TOOL_RESULT_END REPLY_END") {
		t.Fatalf("after the dead run: %v", got)
	}
	if rec, err := st.GetSession(ctx, k); err != nil || rec.Lease.Held(time.Now()) || rec.Status != session.StatusIdle {
		t.Fatalf("lease %+v, status %q, %v", rec.Lease, rec.Status, err)
	}
	if n, _ := st.PendingInputs(ctx, k); n != 0 {
		t.Fatalf("%d inputs pending", n)
	}
	page, _ := st.ListMessages(ctx, k, session.MessageQuery{Limit: 10})
	found := false
	for _, m := range page.Messages {
		var msg message.Msg
		if json.Unmarshal(m.JSON, &msg) == nil && msg.FinishedReason == event.ReplyInterrupted {
			found = true
		}
	}
	if !found {
		t.Fatalf("no interrupted reply in the transcript (%d messages)", len(page.Messages))
	}
}

// A run that died is closed by the rescue with the finish every run ends
// with, once its lease expired.
func TestRescueClosesADeadRun(t *testing.T) {
	st := memory.New(memory.Config{})
	rec, err := st.CreateSession(context.Background(), session.NewSession{UserID: user, AgentID: "a1"})
	if err != nil {
		t.Fatal(err)
	}
	k := session.Key{UserID: user, SessionID: rec.ID}
	deadRun(t, st, k, "dead-replica", 50*time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	r := newRig(t, nil, func(c *engine.Config) { c.Store = st; c.RescueInterval = -1 })
	_ = r
	checkClosed(t, st, k)
}

// An input on a session a dead run left is not refused: its leftovers are
// closed first, then the input runs, through the one way a run starts.
func TestStartClosesLeftoversFirst(t *testing.T) {
	st := memory.New(memory.Config{})
	r := newRig(t, []scripted.Turn{textTurn}, func(c *engine.Config) { c.Store = st; c.RescueInterval = -1 })
	ctx := context.Background()
	k := r.session()
	deadRun(t, st, k, "dead-replica", 10*time.Millisecond)
	time.Sleep(30 * time.Millisecond)
	feed, err := r.eng.Follow(ctx, k, engine.After(4))
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()
	if _, err := r.eng.Start(ctx, k, "a1", userText("hi")); err != nil {
		t.Fatal(err)
	}
	rd := newReader(feed)
	evs := rd.until(t, event.TypeReplyEnd) // the dead reply's end
	if end := evs[len(evs)-1].(*event.ReplyEnd); end.FinishedReason != event.ReplyInterrupted {
		t.Fatalf("first end %s, want the dead reply interrupted", end.FinishedReason)
	}
	evs = rd.until(t, event.TypeReplyEnd) // the new reply
	if end := evs[len(evs)-1].(*event.ReplyEnd); end.FinishedReason != event.ReplyCompleted {
		t.Fatalf("the new reply %s", end.FinishedReason)
	}
	checkClosed(t, st, k)
}

// A run engine on the in-memory store, with no transport: a session, a
// follower, an input, the reply's events as the follower gets them.
func ExampleEngine() {
	m := scripted.New("scripted", []scripted.Turn{scripted.Stream(scripted.Text("Hi there!"))})
	eng, err := engine.New(engine.Config{
		Store: memory.New(memory.Config{}),
		Agents: []engine.Agent{{ID: "helper", Name: "assistant", New: func(st *state.AgentState) (*agent.Agent, error) {
			return agent.New(agent.Config{Name: "assistant", Model: m, State: st, RuntimeState: agent.RuntimeStateConfig{Disabled: true}})
		}}},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	defer eng.Shutdown(context.Background())
	ctx := context.Background()
	rec, _ := eng.CreateSession(ctx, engine.NewSession{UserID: "alice", AgentID: "helper"})
	k := session.Key{UserID: "alice", SessionID: rec.ID}
	feed, _ := eng.Follow(ctx, k, engine.Cursor{})
	defer feed.Close()
	for range feed.Replay(ctx) {
	} // a new session's log is empty
	if _, err := eng.Start(ctx, k, "helper", engine.Messages(message.UserText("alice", "Hello"))); err != nil {
		panic(err)
	}
	for batch := range feed.Live() {
		for _, e := range feed.Take(batch) {
			ev, _ := event.Decode(e.JSON)
			switch ev := ev.(type) {
			case *event.TextBlockDelta:
				fmt.Printf("%d %s %q\n", e.Seq, ev.Type(), ev.Delta)
			case *event.ReplyEnd:
				fmt.Printf("%d %s %s\n", e.Seq, ev.Type(), ev.FinishedReason)
				return
			}
		}
	}
	// Output:
	// 4 TEXT_BLOCK_DELTA "Hi there!"
	// 7 REPLY_END completed
}

// ConfiguredAgents needs no user and keeps the configured order; Agents
// starts with the same list.
func TestConfiguredAgents(t *testing.T) {
	r := newRig(t, nil, func(c *engine.Config) {
		c.Agents = append(c.Agents, engine.Agent{ID: "a2", Name: "second", Description: "the other", New: c.Agents[0].New})
	})
	got := r.eng.ConfiguredAgents()
	if len(got) != 2 || got[0].ID != "a1" || got[1].ID != "a2" || got[1].Name != "second" || got[1].Description != "the other" {
		t.Fatalf("ConfiguredAgents %+v", got)
	}
	all, err := r.eng.Agents(context.Background(), user)
	if err != nil || len(all) != 2 || all[0].ID != "a1" {
		t.Fatalf("Agents %+v %v", all, err)
	}
}

// drain reads the feed (its replay, then live batches) until it has given
// the event at seq, and returns every entry it gave.
func drain(t *testing.T, f *engine.Feed, replay bool, seq int64) []engine.Entry {
	t.Helper()
	var out []engine.Entry
	if replay {
		for page, err := range f.Replay(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, page...)
		}
	}
	timeout := time.After(10 * time.Second)
	for f.Last() < seq {
		select {
		case batch, ok := <-f.Live():
			if !ok {
				t.Fatalf("the feed ended at %d, before %d", f.Last(), seq)
			}
			out = append(out, f.Take(batch)...)
		case <-timeout:
			t.Fatalf("the feed is at %d after 10s, not at %d", f.Last(), seq)
		}
	}
	return out
}

// Start's Run tells a follower opened before it which events are the
// run's (another run may come in between) and when the run is over:
// its last event, a park of several calls included, and whether the
// feed has everything (Settled).
func TestRunHandle(t *testing.T) {
	twoNotes := scripted.Stream(scripted.ToolCall("c1", "save_note", `{"text":"milk"}`), scripted.ToolCall("c2", "tag", `{"text":"eggs"}`))
	r := newRig(t, []scripted.Turn{textTurn, twoNotes, waitTurn}, nil)
	ctx := context.Background()
	k := r.session()
	feed, err := r.eng.Follow(ctx, k, engine.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()
	// Another client's run, between this follower's subscription and its
	// own Start.
	other, err := r.eng.Start(ctx, k, "a1", userText("hi"))
	if err != nil {
		t.Fatal(err)
	}
	<-other.Done()
	mine, err := r.eng.Start(ctx, k, "a1", userText("note milk and eggs"))
	if err != nil {
		t.Fatal(err)
	}
	if other.FirstSeq() != 1 || mine.FirstSeq() != other.LastSeq()+1 {
		t.Fatalf("the other run's events %d–%d, mine from %d", other.FirstSeq(), other.LastSeq(), mine.FirstSeq())
	}
	<-mine.Done()
	last, err := r.store.LastSeq(ctx, k)
	if err != nil || mine.LastSeq() != last {
		t.Fatalf("my run's last event %d, the log's %d (%v)", mine.LastSeq(), last, err)
	}
	var asked []string
	deny := &event.UserConfirmResult{ReplyID: mine.ReplyID()}
	for _, e := range drain(t, feed, true, mine.LastSeq()) {
		ev, err := event.Decode(e.JSON)
		if err != nil {
			t.Fatal(err)
		}
		switch ev := ev.(type) {
		case *event.ReplyStart:
			if ours := e.Seq >= mine.FirstSeq(); ours != (ev.ReplyID == mine.ReplyID()) {
				t.Errorf("REPLY_START %s at %d: mine from %d are %s", ev.ReplyID, e.Seq, mine.FirstSeq(), mine.ReplyID())
			}
		case *event.RequireUserConfirm:
			for _, c := range ev.ToolCalls {
				asked = append(asked, c.ID)
				deny.ConfirmResults = append(deny.ConfirmResults, event.ConfirmResult{Confirmed: false, ToolCall: c})
			}
			if e.Seq > mine.LastSeq() || e.Seq < mine.FirstSeq() {
				t.Errorf("a park at %d, outside my run's %d–%d", e.Seq, mine.FirstSeq(), mine.LastSeq())
			}
		}
	}
	if len(asked) != 2 {
		t.Fatalf("the park asked about %v, want both calls", asked)
	}
	if ok, err := feed.Settled(ctx); err != nil || !ok {
		t.Fatalf("settled after the whole park: %v %v", ok, err)
	}

	// Denied both, the reply goes on to the wait tool: while it runs,
	// nothing is settled.
	event.Stamp(deny, nil)
	resumed, err := r.eng.Start(ctx, k, "a1", engine.Confirm(deny))
	if err != nil {
		t.Fatal(err)
	}
	if resumed.ReplyID() != mine.ReplyID() || resumed.FirstSeq() != mine.LastSeq()+1 {
		t.Fatalf("the resume: reply %s from %d, want %s from %d", resumed.ReplyID(), resumed.FirstSeq(), mine.ReplyID(), mine.LastSeq()+1)
	}
	<-r.waiting
	if ok, err := feed.Settled(ctx); err != nil || ok {
		t.Fatalf("settled while the wait tool runs: %v %v", ok, err)
	}
	if err := r.eng.Interrupt(ctx, k); err != nil {
		t.Fatal(err)
	}
	<-resumed.Done()
	drain(t, feed, false, resumed.LastSeq())
	if ok, err := feed.Settled(ctx); err != nil || !ok {
		t.Fatalf("settled after the interrupted reply: %v %v", ok, err)
	}
}
