package agent

import (
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
)

// actionKind is what the loop does next.
type actionKind uint8

// action kinds.
const (
	actReason actionKind = iota + 1 // call the model
	actAct                          // run tool calls
	actExit                         // leave the loop
)

// exitKind says why the loop exits.
type exitKind uint8

// Exit kinds, in the order of the reference's decision table.
const (
	exitNone       exitKind = iota
	exitParked              // row 2: waiting for a human or an external result; no REPLY_END
	exitStructured          // row 3: the structured output is there
	exitGraceSpent          // row 4: structured output still missing after the grace rounds
	exitFinal               // row 7: the last reasoning produced a final answer
	exitMaxIters            // row 8: out of rounds
)

// hintKind is the structured-output reminder a reasoning step adds.
type hintKind uint8

// Hint kinds.
const (
	hintNone         hintKind = iota
	hintStructured            // row 6: "Call it when you are ready…"
	hintStructForced          // row 5: "…call this tool at once…" with the tool choice forced
)

// action is decide's verdict.
type action struct {
	Kind actionKind
	// Calls are the executable tool calls, in content order (actAct).
	Calls []*block.ToolCall
	// Hint is the structured-output reminder to add before reasoning.
	Hint hintKind
	// ForceStructured forces the tool choice to GenerateStructuredOutput.
	ForceStructured bool
	Exit            exitKind
}

// decideInput is the part of the state decide reads.
type decideInput struct {
	Name     string       // the agent's name
	Tail     *message.Msg // the last context message, or nil
	CurIter  int
	MaxIters int
	Grace    int
	// SchemaRequired: the reply asks for a structured output; OutputReady:
	// it has been generated.
	SchemaRequired bool
	OutputReady    bool
	// HaveFinal: the last reasoning step produced a final answer.
	HaveFinal bool
}

// decide is the reference's _next_action: a pure function of the state
// (§3.3). The first matching row wins:
//
//  1. executable tool calls → act
//  2. calls waiting for a human or an external result → park
//  3. structured output required and generated → exit completed
//  4. required, missing, cur_iter ≥ max_iters + grace → exit exceeded
//  5. required, missing, cur_iter ≥ max_iters → reason, forced hint and tool choice
//  6. required, missing → reason with the reminder hint
//  7. a final answer → exit completed
//  8. cur_iter ≥ max_iters → exit exceeded
//  9. reason
func decide(in decideInput) action {
	var last *message.Msg
	if t := in.Tail; t != nil && t.Role == event.RoleAssistant && t.Name == in.Name {
		last = t
	}
	var awaiting, executable []*block.ToolCall
	if last != nil {
		awaiting = block.AwaitingCalls(last.Content)
		executable = block.ExecutableCalls(last.Content)
	}
	switch {
	case len(executable) > 0:
		return action{Kind: actAct, Calls: executable}
	case len(awaiting) > 0:
		return action{Kind: actExit, Exit: exitParked}
	case in.SchemaRequired && in.OutputReady:
		return action{Kind: actExit, Exit: exitStructured}
	case in.SchemaRequired && in.CurIter >= in.MaxIters+in.Grace:
		return action{Kind: actExit, Exit: exitGraceSpent}
	case in.SchemaRequired && in.CurIter >= in.MaxIters:
		return action{Kind: actReason, Hint: hintStructForced, ForceStructured: true}
	case in.SchemaRequired:
		return action{Kind: actReason, Hint: hintStructured}
	case in.HaveFinal:
		return action{Kind: actExit, Exit: exitFinal}
	case in.CurIter >= in.MaxIters:
		return action{Kind: actExit, Exit: exitMaxIters}
	}
	return action{Kind: actReason}
}
