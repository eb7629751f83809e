package agent

import (
	"errors"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/stamp"
)

// errStopped reports that whoever consumes a sink stopped iterating. It
// never reaches the caller of Stream: every step returns it unchanged, and
// the reply ends without another item.
var errStopped = errors.New("agent: the consumer stopped iterating")

// sink is the one way out of the loop: every item a step produces goes
// through put, which turns the consumer's "stop" into errStopped so that
// callers only propagate errors. A sink feeds either the reply's consumer
// (the reply or reasoning chain) or a concurrent batch's queue.
type sink struct {
	a     *Agent
	yield func(Item, error) bool
	// st stamps the events of the reply's own goroutine (nil: a batch
	// worker's sink, which stamps through the shared arenas).
	st      *stamp.Stamper
	stopped bool // yield said stop: it must not be called again
}

func newSink(a *Agent, yield func(Item, error) bool) *sink {
	return &sink{a: a, yield: yield}
}

func (s *sink) put(it Item) error {
	if s.stopped {
		return errStopped
	}
	if !s.yield(it, nil) {
		s.stopped = true
		return errStopped
	}
	return nil
}

// emit stamps e (an id and a time unless the event has them) and puts it.
func (s *sink) emit(e event.Event) error {
	if h := e.Header(); s.a.defaultSrc && h.ID == "" && h.CreatedAt == "" {
		// The hot path: one clock read and a counted id.
		if s.st != nil {
			h.ID, h.CreatedAt = s.st.IDNow()
		} else {
			h.ID, h.CreatedAt = stamp.IDNow()
		}
	} else {
		event.Stamp(e, s.a.src)
	}
	return s.put(Item{Event: e})
}

// msg puts a message (a reply's final message, a reasoning step's
// candidate answer).
func (s *sink) msg(m *message.Msg) error { return s.put(Item{Msg: m}) }

// fail passes err on as the stream's last item.
func (s *sink) fail(err error) {
	if !s.stopped {
		s.stopped = true
		s.yield(Item{}, err)
	}
}

// outcome is how a step of the loop ended.
type outcome uint8

const (
	// stepContinue: decide again; the round counts if every tool call of
	// the reply has a result.
	stepContinue outcome = iota
	// stepAgain: decide again without counting a round (a middleware
	// swallowed the REPLY_END).
	stepAgain
	// stepParked: a tool call waits for a human or the host.
	stepParked
	// stepInterrupted: the reply is interrupted (a cancelled model call
	// or tool, or a cancellation surfacing as an error).
	stepInterrupted
	// stepFinished: the reply's last item is out.
	stepFinished
)
