package server

import (
	"encoding/json"
	"strconv"
	"sync"

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

	mu     sync.Mutex
	closed bool
	topics map[session.Key]map[*subscriber]struct{}
}

// subscriber is one SSE client's queue. When it is full the client is cut
// (gone is closed) rather than the queue grown.
type subscriber struct {
	ch   chan []frame
	gone chan struct{}
	cut  bool // set when gone was closed because the client fell behind
}

func newHub(buffer int) *hub {
	return &hub{buffer: buffer, topics: map[session.Key]map[*subscriber]struct{}{}}
}

// subscribe adds a subscriber to k unless k already has max of them or the
// hub is closed (nil).
func (h *hub) subscribe(k session.Key, max int) *subscriber {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || len(h.topics[k]) >= max {
		return nil
	}
	subs := h.topics[k]
	if subs == nil {
		subs = map[*subscriber]struct{}{}
		h.topics[k] = subs
	}
	sub := &subscriber{ch: make(chan []frame, h.buffer), gone: make(chan struct{})}
	subs[sub] = struct{}{}
	return sub
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
	if len(subs) == 0 {
		delete(h.topics, k)
	}
	close(sub.gone)
}

// publish hands frames to every subscriber of k without blocking; one
// whose queue is full is cut.
func (h *hub) publish(k session.Key, frames []frame) {
	if len(frames) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.topics[k] {
		select {
		case sub.ch <- frames:
		default:
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
