package message_test

import (
	"errors"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
)

// The fold moves tool calls through block.ToolCall.Replay: the moves the
// agent's own stream implies without announcing them are accepted, a move
// the state machine has no room for is reported and changes nothing.
func TestFoldToolCallMoves(t *testing.T) {
	m := newReply(t)
	call := func(id string) string {
		return `{"type":"tool_call","id":"` + id + `","name":"Bash","input":"{}","created_at":"X"}`
	}
	apply(t, m, evs(t,
		`TOOL_CALL_START {"tool_call_id":"a","tool_call_name":"Bash"}`,
		`TOOL_CALL_START {"tool_call_id":"b","tool_call_name":"Bash"}`,
		`REQUIRE_USER_CONFIRM {"tool_calls":[`+call("a")+`,`+call("b")+`]}`,
		// The agent's stream of the resumed reply: a was approved (an
		// input event, not in the stream) and handed to the host.
		`TOOL_RESULT_START {"tool_call_id":"a","tool_call_name":"Bash"}`,
		`REQUIRE_EXTERNAL_EXECUTION {"tool_calls":[`+call("a")+`]}`,
		// b was denied: its result closes it.
		`TOOL_RESULT_START {"tool_call_id":"b","tool_call_name":"Bash"}`,
		`TOOL_RESULT_END {"tool_call_id":"b","state":"denied"}`,
	))
	calls := message.BlocksOf[*block.ToolCall](m)
	if calls[0].State != block.CallSubmitted || calls[1].State != block.CallFinished {
		t.Fatalf("states %s %s", calls[0].State, calls[1].State)
	}

	// Asking again for a finished call: refused and reported, the call
	// unchanged, the legal part of the event applied.
	before := len(calls[1].SuggestedRules)
	err := m.AppendEvent(evs(t, `REQUIRE_USER_CONFIRM {"tool_calls":[`+call("b")+`,`+call("ghost")+`]}`)[0])
	var fe *message.FoldError
	if !errors.As(err, &fe) || !errors.Is(err, message.ErrBlockNotFound) || !errors.Is(err, block.ErrIllegalTransition) || fe.ID != "ghost" {
		t.Fatalf("got %v", err)
	}
	var te *block.TransitionError
	if !errors.As(err, &te) || te.ID != "b" || te.From != block.CallFinished || te.To != block.CallAsking || !te.Replay {
		t.Fatalf("transition error %+v", te)
	}
	if calls[1].State != block.CallFinished || len(calls[1].SuggestedRules) != before {
		t.Fatalf("refused call changed: %+v", calls[1])
	}

	err = m.AppendEvent(evs(t, `REQUIRE_EXTERNAL_EXECUTION {"tool_calls":[`+call("b")+`]}`)[0])
	if !errors.As(err, &fe) || fe.Err != block.ErrIllegalTransition || fe.ID != "b" || calls[1].State != block.CallFinished {
		t.Fatalf("got %v, state %s", err, calls[1].State)
	}
}
