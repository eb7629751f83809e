package engine

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"sync"
	"sync/atomic"
	"time"

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
	// live is the log's last sequence as read once subscribed: every
	// event after it reaches the feed through sub (a publish here, or the
	// hub's reader for another process's), so a replay from at or past it
	// has nothing to read.
	live int64
	// rec is the session as read once subscribed (Session).
	rec session.Record
}

// Follow opens a feed of the session's events from cursor. It is
// ErrNotFound for a session the user does not have, ErrTooMany past
// Config.MaxStreamClients on the session, and ErrUnavailable past
// Config.MaxStreams, while the engine drains or once it shuts down.
//
// The feed subscribes before it reads the log, and skips what it already
// gave, so no event is lost or given twice between the replay and the
// live events. A run on another process sharing the store is followed as
// one here is (replicas.go).
func (e *Engine) Follow(ctx context.Context, key session.Key, from Cursor) (*Feed, error) {
	sub, err := e.subscribe(key)
	if err != nil {
		return nil, err
	}
	f := &Feed{e: e, key: key, sub: sub, last: from.After}
	// Read after subscribing: whatever is appended from now on reaches
	// the feed live. The one read both checks that the user has the
	// session and gives where its log stands.
	rec, err := e.store.GetSession(ctx, key)
	if err != nil {
		f.Close()
		return nil, storeErr(err)
	}
	f.live, f.rec = rec.LastSeq, rec
	if from.Set && e.hub.based(key) {
		return f, nil
	}
	e.hub.base(key, rec.LastSeq)
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
		switch {
		case first > 0:
			f.last = first - 1
		case rec.Status == session.StatusRunning && rec.Lease.Owner != "":
			// A run in progress that has not logged here: another
			// process's (or this one's, not logged yet).
			f.last = rec.RunSeq
		default:
			f.last = rec.LastSeq
		}
	}
	return f, nil
}

// FollowNew opens a feed of a session the caller has just created (rec,
// as CreateSession returned it) and whose id it has given nobody yet: its
// log is empty and no run can have started on it, so the feed reads
// nothing; every event reaches it live.
func (e *Engine) FollowNew(rec session.Record) (*Feed, error) {
	k := session.Key{UserID: rec.UserID, SessionID: rec.ID}
	sub, err := e.subscribe(k)
	if err != nil {
		return nil, err
	}
	e.hub.base(k, rec.LastSeq)
	return &Feed{e: e, key: k, sub: sub, last: rec.LastSeq, live: rec.LastSeq, rec: rec}, nil
}

// Session is the session's record as the feed read it once subscribed (as
// given, for FollowNew): a transport that checks the session before a run
// needs no read of its own, and a run started on it (StartSession) none
// either.
func (f *Feed) Session() session.Record { return f.rec }

// subscribe adds a follower of k to the hub, unless the engine drains or
// its limits refuse it.
func (e *Engine) subscribe(k session.Key) (*subscriber, error) {
	if e.Draining() {
		return nil, errDraining
	}
	sub, why := e.hub.subscribe(k, e.cfg.MaxStreamClients)
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
	return sub, nil
}

// Last is the sequence of the last event the feed gave (its cursor at the
// start).
func (f *Feed) Last() int64 { return f.last }

// Replay yields the logged events after the cursor, as the log holds them
// now, in pages. Call it once, before Live.
func (f *Feed) Replay(ctx context.Context) iter.Seq2[[]Entry, error] {
	return func(yield func([]Entry, error) bool) {
		// A feed at the log's end, as it stood when it subscribed, gets
		// the rest live: no read (a run's first events, which a transport
		// that subscribed just before starting the run waits for, come
		// from memory rather than from the store).
		for f.last < f.live {
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

// hub fans the events of a session's log out to its followers in this
// process: the batches its runs append (publish), and the ones other
// processes append, which it reads from the log when a notice says the
// log grew (announce) — once per session, not once per follower. Each
// session's followers get its events in order and without a gap: a batch
// that does not follow the last one given (the events between were
// appended elsewhere, or their publish was lost) is read from the log
// instead.
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

	// read reads the log after a sequence (nil: batches are given as
	// published, and announce does nothing); ctx is the reads' context;
	// warn logs a failed read.
	read func(ctx context.Context, k session.Key, after int64) ([]Entry, error)
	ctx  context.Context
	warn func(msg string, args ...any)
	// readers are the goroutines reading a session's log (fetch).
	readers sync.WaitGroup
	// reads counts the log reads of fetch, for the tests and metrics.
	reads atomic.Int64

	mu     sync.Mutex
	closed bool
	topics map[session.Key]*topic
	// ids finds a topic by session id (a notice names no user).
	ids   map[string]session.Key
	total int // subscribers over all topics
}

// topic is one session's followers in this process.
type topic struct {
	subs map[*subscriber]struct{}
	// last is the sequence of the last event given to subs; based says
	// it is known (a base or a batch set it). Before, batches are given
	// as they come, and the followers' replays cover the rest.
	last  int64
	based bool
	// want is the last sequence a notice announced; above last, the log
	// is to be read (fetching says a reader is at it).
	want     int64
	fetching bool
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
	return &hub{buffer: buffer, topics: map[session.Key]*topic{}, ids: map[string]session.Key{}, ctx: context.Background()}
}

// subscribe adds a subscriber to k unless the hub is closed, k already
// has max of them or the hub maxTotal; then it is nil, and why says which.
func (h *hub) subscribe(k session.Key, max int) (sub *subscriber, why subscribeRefusal) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.topics[k]
	switch {
	case h.closed:
		return nil, refusedClosed
	case t != nil && len(t.subs) >= max:
		return nil, refusedTopic
	case h.maxTotal > 0 && h.total >= h.maxTotal:
		return nil, refusedTotal
	}
	if t == nil {
		t = &topic{subs: map[*subscriber]struct{}{}}
		h.topics[k] = t
		h.ids[k.SessionID] = k
	}
	sub = &subscriber{ch: make(chan []Entry, h.buffer)}
	t.subs[sub] = struct{}{}
	h.total++
	return sub, subscribed
}

// based reports whether k's topic knows the last sequence it gave.
func (h *hub) based(k session.Key) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.topics[k]
	return t != nil && t.based
}

// base tells k's topic the log's last sequence, read after a subscriber
// joined it: the events after it reach the topic from now on (a publish
// or a notice). A topic that knows its last sequence keeps it.
func (h *hub) base(k session.Key, last int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.topics[k]
	if t == nil || t.based {
		return
	}
	t.last, t.based = last, true
	h.fetch(k, t)
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
	t := h.topics[k]
	if t == nil {
		return
	}
	if _, ok := t.subs[sub]; !ok {
		return
	}
	delete(t.subs, sub)
	h.total--
	if len(t.subs) == 0 {
		delete(h.topics, k)
		if h.ids[k.SessionID] == k {
			delete(h.ids, k.SessionID)
		}
	}
	close(sub.ch)
}

// publish hands a batch this process appended to k's subscribers: at
// once when it follows what they were given, else (the events before it
// were appended elsewhere and are not read yet) through the log.
func (h *hub) publish(k session.Key, batch []Entry) {
	if len(batch) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.topics[k]
	if t == nil {
		return
	}
	end := batch[len(batch)-1].Seq
	if t.based && batch[0].Seq > t.last+1 && h.read != nil {
		t.want = max(t.want, end)
		h.fetch(k, t)
		return
	}
	h.give(k, t, batch)
}

// announce is a notice that k's log grew to seq, in whatever process.
func (h *hub) announce(sessionID string, seq int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k, ok := h.ids[sessionID]
	if !ok {
		return
	}
	t := h.topics[k]
	t.want = max(t.want, seq)
	h.fetch(k, t)
}

// resync reads every topic's log to its end: notices may have been lost.
func (h *hub) resync() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, t := range h.topics {
		t.want = max(t.want, t.last+1)
		h.fetch(k, t)
	}
}

// give hands batch to t's subscribers, without what they were given
// already, and without blocking: one whose queue is full, in batches or
// in bytes, is cut. A subscriber with nothing queued always takes the
// batch, however large, so a follower that keeps up is never cut: what
// one subscriber holds is at most the larger of budget and one batch.
// h.mu is held.
func (h *hub) give(k session.Key, t *topic, batch []Entry) {
	if t.based {
		i := 0
		for i < len(batch) && batch[i].Seq <= t.last {
			i++
		}
		batch = batch[i:]
	}
	if len(batch) == 0 {
		return
	}
	t.last, t.based = batch[len(batch)-1].Seq, true
	size := entriesBytes(batch)
	for sub := range t.subs {
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

// fetch starts t's reader unless it runs, the hub cannot read, or there
// is nothing to read (h.mu is held).
func (h *hub) fetch(k session.Key, t *topic) {
	if h.read == nil || h.closed || t.fetching || !t.based || t.want <= t.last {
		return
	}
	t.fetching = true
	h.readers.Add(1)
	go h.reader(k, t)
}

// reader reads k's log after the last event its followers got, in pages,
// and gives what it read, until it has read past what was announced and
// to the log's end; then it ends (the next notice starts another). One
// runs per topic at a time. A failed read is tried again after a pause
// while the topic has followers.
func (h *hub) reader(k session.Key, t *topic) {
	defer h.readers.Done()
	pause := 10 * time.Millisecond
	for {
		h.mu.Lock()
		if h.closed || h.topics[k] != t || t.want <= t.last {
			t.fetching = false
			h.mu.Unlock()
			return
		}
		after, asked := t.last, t.want
		h.mu.Unlock()
		h.reads.Add(1)
		page, err := h.read(h.ctx, k, after)
		h.mu.Lock()
		switch {
		case errors.Is(err, session.ErrNotFound):
			// Deleted (its notice may be on its way): its followers end.
			t.fetching = false
			for sub := range t.subs {
				h.drop(k, sub)
			}
			h.mu.Unlock()
			return
		case err != nil:
			h.mu.Unlock()
			if h.ctx.Err() != nil {
				h.mu.Lock()
				t.fetching = false
				h.mu.Unlock()
				return
			}
			if h.warn != nil {
				h.warn("engine: read the log for its followers", "session", k.SessionID, "err", err)
			}
			select {
			case <-time.After(pause):
			case <-h.ctx.Done():
			}
			pause = min(2*pause, time.Second)
			continue
		case h.topics[k] != t:
			h.mu.Unlock()
			return
		}
		h.give(k, t, page)
		if len(page) < replayPage && t.want == asked {
			// The log's end, and no notice since the read: what was
			// announced is all here (a notice leaves at its write's
			// commit), whatever it said.
			t.want = min(t.want, t.last)
		}
		h.mu.Unlock()
	}
}

// closeTopic ends every follower of k (the session was deleted).
func (h *hub) closeTopic(k session.Key) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.topics[k]; t != nil {
		for sub := range t.subs {
			h.drop(k, sub)
		}
	}
}

// closeSession is closeTopic by session id (a notice's).
func (h *hub) closeSession(sessionID string) {
	h.mu.Lock()
	k, ok := h.ids[sessionID]
	h.mu.Unlock()
	if ok {
		h.closeTopic(k)
	}
}

// closeAll ends every follower and refuses new ones; the readers end.
func (h *hub) closeAll() {
	h.mu.Lock()
	h.closed = true
	for k, t := range h.topics {
		for sub := range t.subs {
			h.drop(k, sub)
		}
	}
	h.mu.Unlock()
	h.readers.Wait()
}

// clients counts the followers of every session.
func (h *hub) clients() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total
}
