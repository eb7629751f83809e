package engine_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/session"
)

// countingStore counts the reads a transport's path to a run's first
// event makes.
type countingStore struct {
	session.Store
	gets, reads atomic.Int32
}

func (s *countingStore) GetSession(ctx context.Context, k session.Key) (session.Record, error) {
	s.gets.Add(1)
	return s.Store.GetSession(ctx, k)
}

func (s *countingStore) ReadEvents(ctx context.Context, k session.Key, after int64, limit int) ([]session.Event, error) {
	s.reads.Add(1)
	return s.Store.ReadEvents(ctx, k, after, limit)
}

// A follower at the log's end gets a run's events live: opening it reads
// the session once, and its replay reads no event from the store. One
// behind the end still replays what it missed from the log.
func TestFollowAtTheEndReadsNoLog(t *testing.T) {
	var cs *countingStore
	r := newRig(t, []scripted.Turn{textTurn, textTurn}, func(c *engine.Config) {
		cs = &countingStore{Store: c.Store}
		c.Store = cs
	})
	ctx := context.Background()
	k := r.session()
	gets := cs.gets.Load()
	feed, err := r.eng.Follow(ctx, k, engine.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()
	if n := cs.gets.Load() - gets; n != 1 {
		t.Fatalf("Follow read the session %d times", n)
	}
	if _, err := r.eng.Start(ctx, k, "a1", userText("hi")); err != nil {
		t.Fatal(err)
	}
	evs := until(t, feed, event.TypeReplyEnd)
	if evs[0].Type() != event.TypeReplyStart || feed.Last() != int64(len(evs)) {
		t.Fatalf("%d events, first %s, last seq %d", len(evs), evs[0].Type(), feed.Last())
	}
	if n := cs.reads.Load(); n != 0 {
		t.Fatalf("the follower at the end read the log %d times", n)
	}
	// From the start, on a session with a reply logged: a replay.
	again, err := r.eng.Follow(ctx, k, engine.After(0))
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	run, err := r.eng.Start(ctx, k, "a1", userText("again"))
	if err != nil {
		t.Fatal(err)
	}
	rd := newReader(again)
	both := rd.until(t, event.TypeReplyEnd)
	if both[0].Type() != event.TypeReplyStart || len(both) != len(evs) || cs.reads.Load() == 0 {
		t.Fatalf("replayed %d events (first %s) with %d log reads", len(both), both[0].Type(), cs.reads.Load())
	}
	second := rd.until(t, event.TypeReplyEnd)
	<-run.Done()
	if second[0].Type() != event.TypeReplyStart || again.Last() != run.LastSeq() || run.FirstSeq() != int64(len(evs))+1 {
		t.Fatalf("the second reply: %d events from %s, last %d, run %d–%d", len(second), second[0].Type(), again.Last(), run.FirstSeq(), run.LastSeq())
	}
}

// FollowNew and StartSession start on the record of a session just made,
// reading it no more, and the run's events all reach the feed; a session deleted since is ErrNotFound and nothing runs, and the
// record's agent must be the one asked for.
func TestStartSession(t *testing.T) {
	var cs *countingStore
	r := newRig(t, []scripted.Turn{textTurn}, func(c *engine.Config) {
		cs = &countingStore{Store: c.Store}
		c.Store = cs
	})
	ctx := context.Background()
	rec, err := r.eng.CreateSession(ctx, engine.NewSession{UserID: user, AgentID: "a1"})
	if err != nil {
		t.Fatal(err)
	}
	gets, reads := cs.gets.Load(), cs.reads.Load()
	feed, err := r.eng.FollowNew(rec)
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()
	if _, err := r.eng.StartSession(ctx, rec, "a2", userText("hi")); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("another agent: %v", err)
	}
	run, err := r.eng.StartSession(ctx, rec, "a1", userText("hi"))
	if err != nil {
		t.Fatal(err)
	}
	evs := until(t, feed, event.TypeReplyEnd)
	if g, r := cs.gets.Load()-gets, cs.reads.Load()-reads; g != 0 || r != 0 {
		t.Fatalf("FollowNew and StartSession read the session %d times, the log %d", g, r)
	}
	<-run.Done()
	if run.FirstSeq() != 1 || run.LastSeq() != int64(len(evs)) {
		t.Fatalf("run %d–%d, %d events", run.FirstSeq(), run.LastSeq(), len(evs))
	}

	gone, err := r.eng.CreateSession(ctx, engine.NewSession{UserID: user, AgentID: "a1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.eng.DeleteSession(ctx, session.Key{UserID: user, SessionID: gone.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.eng.StartSession(ctx, gone, "a1", userText("hi")); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("a deleted session: %v", err)
	}
	if _, err := r.store.GetSession(ctx, session.Key{UserID: user, SessionID: gone.ID}); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("the deleted session is back: %v", err)
	}
}
