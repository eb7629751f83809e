package block

import (
	"errors"
	"fmt"
)

// ToolCallState is where a tool call is in its lifecycle (core-spec §3.5):
//
//	pending ──(invalid input, unknown tool, DENY)─────────────► finished
//	pending ──(ASK)──► asking ──(user denies)─────────────────► finished
//	                          └─(user approves)──► allowed
//	pending ──(ALLOW)──► allowed ──(local tool ran)───────────► finished
//	                             └─(external)──► submitted ──(result)──► finished
//	any unfinished ──(interrupt)──────────────────────────────► finished
//
// The moves are one table, applied by [ToolCall.Transition] (the agent
// executing a call) and [ToolCall.Replay] (folding a recorded stream).
type ToolCallState string

// Tool-call states.
const (
	CallPending   ToolCallState = "pending"
	CallAsking    ToolCallState = "asking"
	CallAllowed   ToolCallState = "allowed"
	CallSubmitted ToolCallState = "submitted"
	CallFinished  ToolCallState = "finished"
)

func (s ToolCallState) valid() bool { return s.index() >= 0 }

// index is s's row and column in the table (-1: not a state).
func (s ToolCallState) index() int {
	switch s {
	case CallPending:
		return 0
	case CallAsking:
		return 1
	case CallAllowed:
		return 2
	case CallSubmitted:
		return 3
	case CallFinished:
		return 4
	}
	return -1
}

// ResultOpened reports whether the agent emitted the call's
// TOOL_RESULT_START on entering s: an allowed call's result opens when it
// starts to run, a submitted call's when it is handed to the host. Closing
// such a call does not open its result again (§6.2).
func (s ToolCallState) ResultOpened() bool { return s == CallAllowed || s == CallSubmitted }

// mover says who may make a move.
type mover uint8

const (
	byAgent  mover = 1 << iota // the agent executing the call
	byReplay                   // folding a recorded event stream
)

// The table's entries.
const (
	never    mover = 0
	live           = byAgent | byReplay // the agent's move, which a replay of its events makes too
	onReplay       = byReplay           // only a replay's
)

// transitions[from][to] is who may move a call from one state to another
// (indexed by ToolCallState.index). Staying in a state is always
// allowed: it changes nothing (a call left pending by a batch's
// de-duplication, a second close of a closed call).
//
// A replay makes every move of the agent and, in addition, the moves a
// recorded stream implies because some moves are never announced: no event
// says "allowed" (a call the agent allowed still reads pending when it is
// submitted), and a user's confirmation is an input event, absent from the
// agent's own stream, which can thus go from asking straight to submitted.
var transitions = [5][5]mover{
	// to: pending, asking, allowed, submitted, finished
	{live, live, live, onReplay, live},  // from pending
	{never, live, live, onReplay, live}, // from asking
	{never, live, live, live, live},     // from allowed; → asking: a permission middleware asks again
	{never, never, never, live, live},   // from submitted
	{never, never, never, never, live},  // from finished
}

// ErrIllegalTransition is matched by every *TransitionError.
var ErrIllegalTransition = errors.New("illegal tool call state transition")

// TransitionError is a move the state machine does not allow; the call is
// left as it was.
type TransitionError struct {
	ID       string // the tool call's id
	From, To ToolCallState
	Replay   bool // the move was a replay's (see ToolCall.Replay)
}

func (e *TransitionError) Error() string {
	by := "agent"
	if e.Replay {
		by = "replay"
	}
	return fmt.Sprintf("tool call %q: %s → %s is not a legal %s move: %v", e.ID, e.From, e.To, by, ErrIllegalTransition)
}

// Is makes errors.Is(err, ErrIllegalTransition) hold.
func (e *TransitionError) Is(target error) bool { return target == ErrIllegalTransition }

// Transition moves the call to state to, as the agent executing it does.
// A move the table does not allow (or an unknown state) returns a
// *TransitionError and leaves the call unchanged. "" reads as pending.
func (c *ToolCall) Transition(to ToolCallState) error { return c.move(to, byAgent) }

// Replay moves the call to state to as folding a recorded event does
// (message.Msg.AppendEvent): the agent's moves plus those a stream implies
// without announcing them (see the table's comment).
func (c *ToolCall) Replay(to ToolCallState) error { return c.move(to, byReplay) }

func allowed(from, to ToolCallState, by mover) bool {
	if from == "" {
		from = CallPending
	}
	f, t := from.index(), to.index()
	return f >= 0 && t >= 0 && transitions[f][t]&by != 0
}

func (c *ToolCall) move(to ToolCallState, by mover) error {
	if !allowed(c.State, to, by) {
		return &TransitionError{ID: c.ID, From: c.State, To: to, Replay: by == byReplay}
	}
	c.State = to
	return nil
}

// The three views the loop takes of a message's tool calls. A call is
// answered once the same content holds a tool result with its id.

// AwaitingCalls returns the calls of content that wait for someone outside
// the loop, in content order: a human (asking) or the host (submitted and
// not yet answered). A reply with such calls parks.
func AwaitingCalls(content []Block) []*ToolCall {
	var ans answers
	ans.scan(content)
	var out []*ToolCall
	for _, b := range content {
		if c, ok := b.(*ToolCall); ok && c.awaiting(&ans) {
			out = append(out, c)
		}
	}
	return out
}

// ExecutableCalls returns the calls of content the next acting step runs,
// in content order: the unanswered allowed ones, and the unanswered pending
// ones when nothing awaits — pending calls are frozen while any call of the
// message waits (§3.3).
func ExecutableCalls(content []Block) []*ToolCall {
	var ans answers
	ans.scan(content)
	waiting := false
	for _, b := range content {
		if c, ok := b.(*ToolCall); ok && c.awaiting(&ans) {
			waiting = true
			break
		}
	}
	var out []*ToolCall
	for _, b := range content {
		c, ok := b.(*ToolCall)
		if !ok || ans.has(c.ID) {
			continue
		}
		switch c.State {
		case CallAllowed:
			out = append(out, c)
		case CallPending, "":
			if !waiting {
				out = append(out, c)
			}
		}
	}
	return out
}

// UnfinishedCalls returns the calls of content without an answer, whatever
// their state, in content order: the ones an interruption must close.
func UnfinishedCalls(content []Block) []*ToolCall {
	var ans answers
	ans.scan(content)
	var out []*ToolCall
	for _, b := range content {
		if c, ok := b.(*ToolCall); ok && !ans.has(c.ID) {
			out = append(out, c)
		}
	}
	return out
}

// HasUnfinishedCalls reports whether UnfinishedCalls is non-empty, without
// building it.
func HasUnfinishedCalls(content []Block) bool {
	var ans answers
	ans.scan(content)
	for _, b := range content {
		if c, ok := b.(*ToolCall); ok && !ans.has(c.ID) {
			return true
		}
	}
	return false
}

func (c *ToolCall) awaiting(ans *answers) bool {
	return c.State == CallAsking || (c.State == CallSubmitted && !ans.has(c.ID))
}

// answers are the ids of a content's tool results: a few in place (the
// loop asks on every round, and most replies hold a handful), a map beyond.
type answers struct {
	few [8]string
	n   int
	big map[string]bool
}

func (a *answers) scan(content []Block) {
	for _, b := range content {
		r, ok := b.(*ToolResult)
		if !ok {
			continue
		}
		switch {
		case a.big != nil:
			a.big[r.ID] = true
		case a.n < len(a.few):
			a.few[a.n] = r.ID
			a.n++
		default:
			a.big = make(map[string]bool, 2*len(a.few))
			for _, id := range a.few {
				a.big[id] = true
			}
			a.big[r.ID] = true
		}
	}
}

func (a *answers) has(id string) bool {
	if a.big != nil {
		return a.big[id]
	}
	for _, x := range a.few[:a.n] {
		if x == id {
			return true
		}
	}
	return false
}
