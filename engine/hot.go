package engine

import (
	"container/list"
	"sync"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/state"
)

// hotMin is the smallest stored state worth keeping decoded: below it the
// store's read and the decode cost a run's start little, and a parked
// session keeps nothing in memory.
const hotMin = 16 << 10

// DefaultStateCacheBytes is Config.StateCacheBytes's zero value.
const DefaultStateCacheBytes = 64 << 20

// hotStates keeps the decoded state each session's last run here left,
// with the version the store gave it, so the next run of the session
// starts without the store reading, sending or the engine decoding a
// state that did not change: BeginRun is told the version (Known) and
// sends the JSON only when it moved (another process ran the session, the
// rescue closed a run, the session was deleted and made again). A run
// takes its session's entry, so a state is never shared by two agents;
// the run's end puts back the state it stored.
//
// It is bounded by the size of the states' JSON (a proxy for what the
// decoded ones hold), evicting the least recently stored.
type hotStates struct {
	limit int64 // <= 0: keep nothing

	mu    sync.Mutex
	bytes int64
	lru   *list.List // of *hotEntry, most recent at the front
	m     map[session.Key]*list.Element
}

type hotEntry struct {
	key     session.Key
	version int64
	created time.Time
	st      *state.AgentState
	size    int64
}

func newHotStates(limit int64) *hotStates {
	return &hotStates{limit: limit, lru: list.New(), m: map[session.Key]*list.Element{}}
}

// known is the version of k's kept state (0: none).
func (h *hotStates) known(k session.Key) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if el := h.m[k]; el != nil {
		return el.Value.(*hotEntry).version
	}
	return 0
}

// take removes k's kept state and returns it if it is version of the
// session created at created; nil otherwise.
func (h *hotStates) take(k session.Key, version int64, created time.Time) *state.AgentState {
	h.mu.Lock()
	defer h.mu.Unlock()
	el := h.m[k]
	if el == nil {
		return nil
	}
	e := h.remove(el)
	if e.version != version || !e.created.Equal(created) {
		return nil
	}
	return e.st
}

// put keeps st, stored as version of the session created at created, its
// JSON size bytes; a small state is not kept.
func (h *hotStates) put(k session.Key, version int64, created time.Time, st *state.AgentState, size int64) {
	if h.limit <= 0 || size < hotMin || size > h.limit || version == 0 {
		h.drop(k)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if el := h.m[k]; el != nil {
		h.remove(el)
	}
	h.m[k] = h.lru.PushFront(&hotEntry{key: k, version: version, created: created, st: st, size: size})
	h.bytes += size
	for h.bytes > h.limit {
		h.remove(h.lru.Back())
	}
}

// drop forgets k's kept state.
func (h *hotStates) drop(k session.Key) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if el := h.m[k]; el != nil {
		h.remove(el)
	}
}

// remove takes el out (h.mu held).
func (h *hotStates) remove(el *list.Element) *hotEntry {
	e := h.lru.Remove(el).(*hotEntry)
	delete(h.m, e.key)
	h.bytes -= e.size
	return e
}
