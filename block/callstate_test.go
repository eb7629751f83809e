package block_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
)

const (
	pending   = block.CallPending
	asking    = block.CallAsking
	allowed   = block.CallAllowed
	submitted = block.CallSubmitted
	finished  = block.CallFinished
)

var callStates = []block.ToolCallState{pending, asking, allowed, submitted, finished}

type move struct{ from, to block.ToolCallState }

// agentMoves are core-spec §3.5's moves, written out independently of the
// table: the lifecycle, the interrupt closing any state, staying put, and
// a permission middleware asking again for an approved call.
var agentMoves = map[move]bool{
	{pending, asking}: true, {pending, allowed}: true, {pending, finished}: true,
	{asking, allowed}: true, {asking, finished}: true,
	{allowed, submitted}: true, {allowed, finished}: true, {allowed, asking}: true,
	{submitted, finished}: true,
	{pending, pending}:    true, {asking, asking}: true, {allowed, allowed}: true,
	{submitted, submitted}: true, {finished, finished}: true,
}

// replayOnly are the moves a recorded stream implies without the agent
// making them: "allowed" is never announced, and a confirmation is an
// input event the agent's own stream lacks.
var replayOnly = map[move]bool{{pending, submitted}: true, {asking, submitted}: true}

// TestTransitionEveryPair checks both movers over every (from, to) pair,
// including the zero state (read as pending) and states outside the five.
func TestTransitionEveryPair(t *testing.T) {
	states := append(callStates[:len(callStates):len(callStates)], "", "bogus")
	for _, from := range states {
		for _, to := range states {
			norm := from
			if norm == "" {
				norm = pending
			}
			m := move{norm, to}
			for _, replay := range []bool{false, true} {
				want := agentMoves[m] || (replay && replayOnly[m])
				c := &block.ToolCall{ID: "c1", State: from}
				var err error
				if replay {
					err = c.Replay(to)
				} else {
					err = c.Transition(to)
				}
				name := fmt.Sprintf("%q→%q replay=%v", from, to, replay)
				if want {
					if err != nil || c.State != to {
						t.Errorf("%s: %v, state %q", name, err, c.State)
					}
					continue
				}
				var te *block.TransitionError
				if !errors.As(err, &te) || !errors.Is(err, block.ErrIllegalTransition) {
					t.Errorf("%s: got %v, want a *TransitionError", name, err)
					continue
				}
				if *te != (block.TransitionError{ID: "c1", From: from, To: to, Replay: replay}) {
					t.Errorf("%s: error %+v", name, *te)
				}
				if c.State != from {
					t.Errorf("%s: state changed to %q", name, c.State)
				}
				if !strings.Contains(err.Error(), `"c1"`) {
					t.Errorf("%s: message %q lacks the id", name, err)
				}
			}
		}
	}
}

// Every state can finish: an interruption closes a call wherever it is.
func TestEveryStateFinishes(t *testing.T) {
	for _, s := range callStates {
		c := &block.ToolCall{State: s}
		if err := c.Transition(finished); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

func TestResultOpened(t *testing.T) {
	for _, s := range callStates {
		if got, want := s.ResultOpened(), s == allowed || s == submitted; got != want {
			t.Errorf("%s: %v", s, got)
		}
	}
}

func ids(cs []*block.ToolCall) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return strings.Join(out, ",")
}

func call(id string, s block.ToolCallState) *block.ToolCall {
	return &block.ToolCall{ID: id, State: s}
}

func result(id string) *block.ToolResult { return &block.ToolResult{ID: id} }

func TestCallViews(t *testing.T) {
	cases := []struct {
		name                             string
		content                          []block.Block
		awaiting, executable, unfinished string
	}{
		{"empty", nil, "", "", ""},
		{
			"pending and zero-state calls run when nothing waits",
			[]block.Block{block.NewText("x"), call("p", pending), call("z", ""), call("f", finished), result("f")},
			"", "p,z", "p,z",
		},
		{
			"an asking call freezes pending ones, not allowed ones",
			[]block.Block{call("p", pending), call("a", asking), call("ok", allowed)},
			"a", "ok", "p,a,ok",
		},
		{
			"a submitted call waits until answered",
			[]block.Block{call("s", submitted), call("p", pending)},
			"s", "", "s,p",
		},
		{
			"an answered submitted call no longer waits",
			[]block.Block{call("s", submitted), call("p", pending), result("s")},
			"", "p", "p",
		},
		{
			"asking waits even when answered; answered calls never run",
			[]block.Block{call("a", asking), result("a"), call("ok", allowed), result("ok")},
			"a", "", "",
		},
	}
	// Many results (beyond the few kept in place): the same answers.
	var many []block.Block
	for i := range 12 {
		id := fmt.Sprintf("s%d", i)
		many = append(many, call(id, submitted))
		if i != 10 {
			many = append(many, result(id))
		}
	}
	many = append(many, call("p", pending))
	cases = append(cases, struct {
		name                             string
		content                          []block.Block
		awaiting, executable, unfinished string
	}{"many results", many, "s10", "", "s10,p"})
	for _, tc := range cases {
		if got := ids(block.AwaitingCalls(tc.content)); got != tc.awaiting {
			t.Errorf("%s: awaiting %q, want %q", tc.name, got, tc.awaiting)
		}
		if got := ids(block.ExecutableCalls(tc.content)); got != tc.executable {
			t.Errorf("%s: executable %q, want %q", tc.name, got, tc.executable)
		}
		if got := ids(block.UnfinishedCalls(tc.content)); got != tc.unfinished {
			t.Errorf("%s: unfinished %q, want %q", tc.name, got, tc.unfinished)
		}
		if got := block.HasUnfinishedCalls(tc.content); got != (tc.unfinished != "") {
			t.Errorf("%s: HasUnfinishedCalls %v", tc.name, got)
		}
	}
}
