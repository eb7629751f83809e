package server

import (
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/agentscope-go/agentscope/session"
)

// frame is one event as an SSE frame, encoded once for every subscriber.
type frame struct {
	seq int64
	b   []byte // "id: <seq>\ndata: <json>\n\n"
}

func appendFrame(b []byte, seq int64, js []byte) []byte {
	b = append(b, "id: "...)
	b = strconv.AppendInt(b, seq, 10)
	b = append(b, "\ndata: "...)
	b = append(b, js...)
	return append(b, "\n\n"...)
}

// newFrames makes the frames of a logged batch (event i has sequence
// first+i) in one allocation.
func newFrames(first int64, batch []json.RawMessage) []frame {
	n := 0
	for _, js := range batch {
		n += len(js) + 32
	}
	buf := make([]byte, 0, n)
	frames := make([]frame, len(batch))
	for i, js := range batch {
		start := len(buf)
		buf = appendFrame(buf, first+int64(i), js)
		frames[i] = frame{seq: first + int64(i), b: buf[start:len(buf):len(buf)]}
	}
	return frames
}

// hub fans the events a run has appended out to the session's SSE
// subscribers. It only carries news: every frame is in the log first.
type hub struct {
	buffer int
	// budget bounds the bytes of frames one subscriber may have queued
	// (0: no byte bound, only buffer batches). The count of batches alone
	// lets a slow client pin buffer × maxBatch events, gigabytes when
	// events are large; the bytes are what memory is made of.
	budget int64

	// maxTotal bounds the subscribers of all sessions together (0: no
	// bound): each holds a connection, a goroutine and its buffers, and
	// the per-session bound alone lets a user open many sessions.
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

// subscriber is one SSE client's queue. When it is full the client is cut
// (gone is closed) rather than the queue grown.
type subscriber struct {
	ch   chan []frame
	gone chan struct{}
	cut  bool // set when gone was closed because the client fell behind
	// queued is the bytes of the frames in ch: added by publish, taken
	// off by took.
	queued atomic.Int64
}

// took tells the hub the subscriber has taken frames off its queue.
func (sub *subscriber) took(frames []frame) {
	sub.queued.Add(-framesBytes(frames))
}

func framesBytes(frames []frame) int64 {
	var n int64
	for _, f := range frames {
		n += int64(len(f.b))
	}
	return n
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
	sub = &subscriber{ch: make(chan []frame, h.buffer), gone: make(chan struct{})}
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

// drop removes sub and closes gone; h.mu is held.
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
	close(sub.gone)
}

// publish hands frames to every subscriber of k without blocking; one
// whose queue is full, in batches or in bytes, is cut. A subscriber with
// nothing queued always takes the batch, however large, so a client that
// keeps up is never cut: what one subscriber holds is at most the larger
// of budget and one batch.
func (h *hub) publish(k session.Key, frames []frame) {
	if len(frames) == 0 {
		return
	}
	size := framesBytes(frames)
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
		case sub.ch <- frames:
		default:
			sub.queued.Add(-size)
			sub.cut = true
			h.drop(k, sub)
		}
	}
}

// closeTopic ends every stream of k (the session was deleted).
func (h *hub) closeTopic(k session.Key) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.topics[k] {
		h.drop(k, sub)
	}
}

// closeAll ends every stream and refuses new ones.
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
