package engine

import (
	"context"
	"encoding/json"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/agentscope-go/agentscope/session"
)

// Entry is one event of a session's log: its sequence and its JSON. The
// JSON is shared by every follower: do not modify it.
type Entry struct {
	Seq  int64
	JSON json.RawMessage
}

// newBatch makes the entries of a logged batch (event i has sequence
// first+i).
func newBatch(first int64, batch []json.RawMessage) []Entry {
	out := make([]Entry, len(batch))
	for i, js := range batch {
		out[i] = Entry{Seq: first + int64(i), JSON: js}
	}
	return out
}

// entriesBytes is what a batch weighs against a follower's budget: its
// JSON and a frame's overhead.
func entriesBytes(batch []Entry) int64 {
	var n int64
	for _, e := range batch {
		n += int64(len(e.JSON)) + 32
	}
	return n
}

// Cursor says where a follower starts.
type Cursor struct {
	// After is the last sequence the follower has: it gets the events
	// after it.
	After int64
	// Set tells After from the zero Cursor, which starts at the run in
	// progress (from its first event, until its end is stored) or else
	// at the log's end.
	Set bool
}

// After is the cursor of a follower that has the events up to seq.
func After(seq int64) Cursor { return Cursor{After: seq, Set: true} }

// Feed is one follower of a session's event log: the logged events after
// its cursor, then the live ones as runs log them, each exactly once. It
// only carries news: every event is in the log first. Close it when done.
type Feed struct {
	e    *Engine
	key  session.Key
	sub  *subscriber
	last int64
}

// Follow opens a feed of the session's events from cursor. It is
// ErrNotFound for a session the user does not have, ErrTooMany past
// Config.MaxStreamClients on the session, and ErrUnavailable past
// Config.MaxStreams or once the engine shuts down.
//
// The feed subscribes before it reads the log, and skips what it already
// gave, so no event is lost or given twice between the replay and the
// live events.
func (e *Engine) Follow(ctx context.Context, key session.Key, from Cursor) (*Feed, error) {
	if _, err := e.Session(ctx, key); err != nil {
		return nil, err
	}
	sub, why := e.hub.subscribe(key, e.cfg.MaxStreamClients)
	switch why {
	case refusedClosed:
		return nil, errShuttingDown
	case refusedTopic:
		return nil, newError(ErrTooMany, "too many stream clients on this session")
	case refusedTotal:
		// The engine's load, not this follower's doing: come back as the
		// streams of others end.
		err := newError(ErrUnavailable, "too many streams open on this server")
		err.RetryAfter = 1
		return nil, err
	}
	f := &Feed{e: e, key: key, sub: sub, last: from.After}
	if !from.Set {
		e.mu.Lock()
		run := e.runs[key]
		e.mu.Unlock()
		// The run in progress is replayed from its first event, which is
		// seq 1 on a new session: after 0 then means "from the start".
		var first int64
		if run != nil && !run.over.Load() {
			first = run.firstSeq.Load()
		}
		if first > 0 {
			f.last = first - 1
		} else {
			last, err := e.store.LastSeq(ctx, key)
			if err != nil {
				f.Close()
				return nil, err
			}
			f.last = last
		}
	}
	return f, nil
}

// Last is the sequence of the last event the feed gave (its cursor at the
// start).
func (f *Feed) Last() int64 { return f.last }

// Replay yields the logged events after the cursor, as the log holds them
// now, in pages. Call it once, before Live.
func (f *Feed) Replay(ctx context.Context) iter.Seq2[[]Entry, error] {
	return func(yield func([]Entry, error) bool) {
		for {
			evs, err := f.e.store.ReadEvents(ctx, f.key, f.last, replayPage)
			if err != nil {
				yield(nil, err)
				return
			}
			if len(evs) > 0 {
				page := make([]Entry, len(evs))
				for i, ev := range evs {
					page[i] = Entry{Seq: ev.Seq, JSON: ev.JSON}
				}
				f.last = page[len(page)-1].Seq
				if !yield(page, nil) {
					return
				}
			}
			if len(evs) < replayPage {
				return
			}
		}
	}
}

// Live is the channel of batches as runs log them. It is closed when the
// follower is cut (it fell behind its budget: reconnect from Last), the
// session is deleted, or the engine shuts down. Pass each batch through
// Take.
func (f *Feed) Live() <-chan []Entry { return f.sub.ch }

// Take returns the events of a batch from Live that the feed has not
// given yet, and tells the engine the batch left its queue.
func (f *Feed) Take(batch []Entry) []Entry {
	f.sub.took(batch)
	i := 0
	for i < len(batch) && batch[i].Seq <= f.last {
		i++
	}
	if i < len(batch) {
		f.last = batch[len(batch)-1].Seq
	}
	return batch[i:]
}

// Settled reports whether no run holds the session, here or in another
// process, and the feed has given every event of the log. A follower that
// saw a park learns by it that the park is complete: a concurrent batch
// parks once per call, and the last of those events is logged with the
// run's end.
func (f *Feed) Settled(ctx context.Context) (bool, error) {
	running, err := f.e.running(ctx, f.key)
	if err != nil || running {
		return false, storeErr(err)
	}
	last, err := f.e.store.LastSeq(ctx, f.key)
	if err != nil {
		return false, storeErr(err)
	}
	return f.last >= last, nil
}

// Close ends the feed.
func (f *Feed) Close() { f.e.hub.unsubscribe(f.key, f.sub) }

// hub fans the events a run has appended out to the session's followers.
type hub struct {
	buffer int
	// budget bounds the bytes of batches one subscriber may have queued
	// (0: no byte bound, only buffer batches). The count of batches alone
	// lets a slow follower pin buffer × maxBatch events, gigabytes when
	// events are large; the bytes are what memory is made of.
	budget int64

	// maxTotal bounds the subscribers of all sessions together (0: no
	// bound): each holds a connection, a goroutine and its buffers in its
	// transport, and the per-session bound alone lets a user open many
	// sessions.
	maxTotal int

	mu     sync.Mutex
	closed bool
	topics map[session.Key]map[*subscriber]struct{}
	total  int // subscribers over all topics
}

// subscribeRefusal says why subscribe gave no subscriber.
type subscribeRefusal int

const (
	subscribed    subscribeRefusal = iota
	refusedClosed                  // the hub is closed (shutdown)
	refusedTopic                   // the session has its maximum
	refusedTotal                   // the process has maxTotal
)

// subscriber is one follower's queue. When it is full the follower is cut
// (ch is closed) rather than the queue grown.
type subscriber struct {
	ch  chan []Entry
	cut bool // set when ch was closed because the follower fell behind
	// queued is the bytes of the batches in ch: added by publish, taken
	// off by took.
	queued atomic.Int64
}

// took tells the hub the subscriber has taken a batch off its queue.
func (sub *subscriber) took(batch []Entry) {
	sub.queued.Add(-entriesBytes(batch))
}

func newHub(buffer int) *hub {
	return &hub{buffer: buffer, topics: map[session.Key]map[*subscriber]struct{}{}}
}

// subscribe adds a subscriber to k unless the hub is closed, k already
// has max of them or the hub maxTotal; then it is nil, and why says which.
func (h *hub) subscribe(k session.Key, max int) (sub *subscriber, why subscribeRefusal) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		return nil, refusedClosed
	case len(h.topics[k]) >= max:
		return nil, refusedTopic
	case h.maxTotal > 0 && h.total >= h.maxTotal:
		return nil, refusedTotal
	}
	subs := h.topics[k]
	if subs == nil {
		subs = map[*subscriber]struct{}{}
		h.topics[k] = subs
	}
	sub = &subscriber{ch: make(chan []Entry, h.buffer)}
	subs[sub] = struct{}{}
	h.total++
	return sub, subscribed
}

// unsubscribe removes sub (it may have been removed already).
func (h *hub) unsubscribe(k session.Key, sub *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drop(k, sub)
}

// drop removes sub and closes its channel; h.mu is held, so no publish
// sends on it meanwhile or after.
func (h *hub) drop(k session.Key, sub *subscriber) {
	subs := h.topics[k]
	if _, ok := subs[sub]; !ok {
		return
	}
	delete(subs, sub)
	h.total--
	if len(subs) == 0 {
		delete(h.topics, k)
	}
	close(sub.ch)
}

// publish hands a batch to every subscriber of k without blocking; one
// whose queue is full, in batches or in bytes, is cut. A subscriber with
// nothing queued always takes the batch, however large, so a follower
// that keeps up is never cut: what one subscriber holds is at most the
// larger of budget and one batch.
func (h *hub) publish(k session.Key, batch []Entry) {
	if len(batch) == 0 {
		return
	}
	size := entriesBytes(batch)
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.topics[k] {
		if q := sub.queued.Load(); h.budget > 0 && q > 0 && q+size > h.budget {
			sub.cut = true
			h.drop(k, sub)
			continue
		}
		// Counted before the send, so took never sees the count negative.
		sub.queued.Add(size)
		select {
		case sub.ch <- batch:
		default:
			sub.queued.Add(-size)
			sub.cut = true
			h.drop(k, sub)
		}
	}
}

// closeTopic ends every follower of k (the session was deleted).
func (h *hub) closeTopic(k session.Key) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.topics[k] {
		h.drop(k, sub)
	}
}

// closeAll ends every follower and refuses new ones.
func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for k, subs := range h.topics {
		for sub := range subs {
			h.drop(k, sub)
		}
	}
}

// clients counts the followers of every session.
func (h *hub) clients() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total
}
