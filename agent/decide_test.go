package agent

import (
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
)

// TestDecideTable mirrors the reference's decision table (§3.3), row by
// row, including the precedence between rows.
func TestDecideTable(t *testing.T) {
	call := func(id string, st block.ToolCallState) *block.ToolCall {
		return &block.ToolCall{ID: id, Name: "t", State: st}
	}
	result := func(id string) *block.ToolResult { return &block.ToolResult{ID: id, Name: "t"} }
	reply := func(blocks ...block.Block) *message.Msg {
		return &message.Msg{Name: "Friday", Role: event.RoleAssistant, ID: "r1", Content: blocks}
	}
	ids := func(cs []*block.ToolCall) string {
		s := ""
		for _, c := range cs {
			s += c.ID
		}
		return s
	}
	base := decideInput{Name: "Friday", MaxIters: 3, Grace: 2}
	with := func(f func(*decideInput)) decideInput { in := base; f(&in); return in }

	cases := []struct {
		name  string
		in    decideInput
		kind  actionKind
		exit  exitKind
		hint  hintKind
		force bool
		calls string
	}{
		// Row 1: executable calls, in content order; results and waiting calls are skipped.
		{"row1 pending", with(func(in *decideInput) { in.Tail = reply(call("a", block.CallPending), call("b", block.CallPending)) }), actAct, 0, 0, false, "ab"},
		{"row1 allowed beats awaiting", with(func(in *decideInput) {
			in.Tail = reply(call("a", block.CallAsking), call("b", block.CallAllowed), call("c", block.CallPending))
		}), actAct, 0, 0, false, "b"},
		{"row1 finished skipped", with(func(in *decideInput) {
			in.Tail = reply(call("a", block.CallFinished), result("a"), call("b", block.CallPending))
		}), actAct, 0, 0, false, "b"},
		{"row1 allowed with result skipped", with(func(in *decideInput) {
			in.Tail = reply(call("a", block.CallAllowed), result("a"))
			in.HaveFinal = true
		}), actExit, exitFinal, 0, false, ""},
		{"row1 wins over schema", with(func(in *decideInput) {
			in.Tail = reply(call("a", block.CallPending))
			in.SchemaRequired, in.OutputReady = true, true
		}), actAct, 0, 0, false, "a"},
		// Row 2: park while anything asks or waits for an external result.
		{"row2 asking freezes pending", with(func(in *decideInput) { in.Tail = reply(call("a", block.CallAsking), call("b", block.CallPending)) }), actExit, exitParked, 0, false, ""},
		{"row2 submitted", with(func(in *decideInput) { in.Tail = reply(call("a", block.CallSubmitted)) }), actExit, exitParked, 0, false, ""},
		{"row2 submitted with result is not awaiting", with(func(in *decideInput) {
			in.Tail = reply(call("a", block.CallSubmitted), result("a"))
		}), actReason, 0, 0, false, ""},
		{"row2 wins over schema and final", with(func(in *decideInput) {
			in.Tail = reply(call("a", block.CallAsking))
			in.SchemaRequired, in.OutputReady, in.HaveFinal = true, true, true
		}), actExit, exitParked, 0, false, ""},
		// Another author's or a user's tail holds nothing to run.
		{"other author", with(func(in *decideInput) {
			m := reply(call("a", block.CallPending))
			m.Name = "Other"
			in.Tail = m
		}), actReason, 0, 0, false, ""},
		{"user tail", with(func(in *decideInput) { in.Tail = message.UserText("user", "hi") }), actReason, 0, 0, false, ""},
		// Rows 3-6: structured output.
		{"row3 output ready", with(func(in *decideInput) { in.SchemaRequired, in.OutputReady = true, true }), actExit, exitStructured, 0, false, ""},
		{"row4 grace spent", with(func(in *decideInput) { in.SchemaRequired, in.CurIter = true, 5 }), actExit, exitGraceSpent, 0, false, ""},
		{"row5 forced at max", with(func(in *decideInput) { in.SchemaRequired, in.CurIter = true, 3 }), actReason, 0, hintStructForced, true, ""},
		{"row5 forced within grace", with(func(in *decideInput) { in.SchemaRequired, in.CurIter = true, 4 }), actReason, 0, hintStructForced, true, ""},
		{"row6 reminder", with(func(in *decideInput) { in.SchemaRequired, in.CurIter = true, 0 }), actReason, 0, hintStructured, false, ""},
		{"row6 text answer does not end a structured reply", with(func(in *decideInput) {
			in.SchemaRequired, in.HaveFinal = true, true
		}), actReason, 0, hintStructured, false, ""},
		// Row 7 before row 8: a final answer completes even at max_iters.
		{"row7 final", with(func(in *decideInput) { in.HaveFinal = true }), actExit, exitFinal, 0, false, ""},
		{"row7 final at max", with(func(in *decideInput) { in.HaveFinal, in.CurIter = true, 3 }), actExit, exitFinal, 0, false, ""},
		{"row8 max iters", with(func(in *decideInput) { in.CurIter = 3 }), actExit, exitMaxIters, 0, false, ""},
		{"row8 beyond", with(func(in *decideInput) { in.CurIter = 9 }), actExit, exitMaxIters, 0, false, ""},
		{"row9 reason", base, actReason, 0, 0, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := decide(tc.in)
			if got.Kind != tc.kind || got.Exit != tc.exit || got.Hint != tc.hint || got.ForceStructured != tc.force || ids(got.Calls) != tc.calls {
				t.Fatalf("decide = %+v (calls %q)", got, ids(got.Calls))
			}
		})
	}
}
