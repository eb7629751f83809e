package agent

import (
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
)

// estSlot is what the default estimate counted of the message in one
// slot of the step's input (the agent's message buffer, whose slots keep
// their messages step after step: see fillInput).
type estSlot struct {
	m               *message.Msg
	im              bool // its images were counted
	n, data, images int
}

// countCached is the default Estimator's count over msgs (the agent's
// message buffer) that walks again only the messages that changed since
// the agent's previous count: an unchanged prior message costs a compare
// per step, not a walk over its blocks, reply after reply.
//
// A message counts as unchanged while it is the same message in the same
// slot and not the context's tail: the check reads the buffer and the
// slots, never the message (reading 2,000 prior messages per step cost as
// much as counting them). The
// tail is the one message the agent changes in place (the reply's message
// grows block by block and text by text; a parked reply's results join
// it), and it goes on growing after the reply's last count (the last
// step's answer), so the previous count's tail is counted again too; the image eviction replaces blocks in place and a compression
// replaces messages, and both make the next count walk everything
// (Agent.estWarm). A middleware may change anything through ReplyState:
// with one registered there is no cache. What is not seen is a caller's
// edit in place (its content or a block changed) of a message that is not
// the tail, between replies: a caller changes such a message of the
// context by replacing it (see state.AgentState.Context).
func (r *run) countCached(e *Estimator, msgs []*message.Msg, tools []model.ToolSchema, from int) (tokens, images int) {
	a := r.a
	if a.mws.any() {
		return e.count(msgs, tools, from)
	}
	warm := a.estWarm
	a.estWarm = true
	slots, old := a.est, len(a.est)
	if cap(slots) < len(msgs) {
		slots, old, warm = make([]estSlot, len(msgs), cap(msgs)), 0, false
	} else {
		slots = slots[:len(msgs)]
	}
	var n, data int
	last := len(msgs) - 1
	// The previous count's tail is counted again as well: the reply's
	// message grows after its reply's last count (that step's answer, its
	// closing results) and is no longer the tail at the next reply's.
	prevTail := a.estTail
	for k, m := range msgs {
		if m == nil {
			continue
		}
		// The check reads the slot, never the message: a prior message
		// read per step would cost a cache miss each, as much as its walk.
		s, im := &slots[k], k >= from
		if warm && s.m == m && s.im == im && k != last && m != prevTail {
			n, data, images = n+s.n, data+s.data, images+s.images
			continue
		}
		mn, md, mi := msgSize(m, im)
		// Pointers are written only when they differ: the slots hold the
		// same messages reply after reply, and a pointer write costs a
		// write barrier while the GC marks.
		if s.m != m {
			s.m = m
		}
		s.im, s.n, s.data, s.images = im, mn, md, mi
		n, data, images = n+mn, data+md, images+mi
	}
	if old > len(msgs) {
		clear(slots[len(msgs):old])
	}
	var tail *message.Msg
	if last >= 0 {
		tail = msgs[last]
	}
	if a.estTail != tail {
		a.estTail = tail
	}
	a.est = slots
	return e.total(n, data, tools), images
}
