package agent

import (
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
)

// ActionKind is what the loop does next.
type ActionKind uint8

// Action kinds.
const (
	ActReason ActionKind = iota + 1 // call the model
	ActAct                          // run tool calls
	ActExit                         // leave the loop
)

// ExitKind says why the loop exits.
type ExitKind uint8

// Exit kinds, in the order of the reference's decision table.
const (
	ExitNone       ExitKind = iota
	ExitParked              // row 2: waiting for a human or an external result; no REPLY_END
	ExitStructured          // row 3: the structured output is there
	ExitGraceSpent          // row 4: structured output still missing after the grace rounds
	ExitFinal               // row 7: the last reasoning produced a final answer
	ExitMaxIters            // row 8: out of rounds
)

// HintKind is the structured-output reminder a reasoning step adds.
type HintKind uint8

// Hint kinds.
const (
	HintNone         HintKind = iota
	HintStructured            // row 6: "Call it when you are ready…"
	HintStructForced          // row 5: "…call this tool at once…" with the tool choice forced
)

// Action is decide's verdict.
type Action struct {
	Kind ActionKind
	// Calls are the executable tool calls, in content order (ActAct).
	Calls []*block.ToolCall
	// Hint is the structured-output reminder to add before reasoning.
	Hint HintKind
	// ForceStructured forces the tool choice to GenerateStructuredOutput.
	ForceStructured bool
	Exit            ExitKind
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
func decide(in decideInput) Action {
	var last *message.Msg
	if t := in.Tail; t != nil && t.Role == message.RoleAssistant && t.Name == in.Name {
		last = t
	}
	var awaiting, executable []*block.ToolCall
	if last != nil {
		results := map[string]bool{}
		for _, b := range last.Content {
			if r, ok := b.(*block.ToolResult); ok {
				results[r.ID] = true
			}
		}
		for _, b := range last.Content {
			c, ok := b.(*block.ToolCall)
			if !ok {
				continue
			}
			if c.State == block.CallAsking || (c.State == block.CallSubmitted && !results[c.ID]) {
				awaiting = append(awaiting, c)
			}
		}
		for _, b := range last.Content {
			c, ok := b.(*block.ToolCall)
			if !ok || results[c.ID] {
				continue
			}
			if c.State == block.CallAllowed || ((c.State == block.CallPending || c.State == "") && len(awaiting) == 0) {
				executable = append(executable, c)
			}
		}
	}
	switch {
	case len(executable) > 0:
		return Action{Kind: ActAct, Calls: executable}
	case len(awaiting) > 0:
		return Action{Kind: ActExit, Exit: ExitParked}
	case in.SchemaRequired && in.OutputReady:
		return Action{Kind: ActExit, Exit: ExitStructured}
	case in.SchemaRequired && in.CurIter >= in.MaxIters+in.Grace:
		return Action{Kind: ActExit, Exit: ExitGraceSpent}
	case in.SchemaRequired && in.CurIter >= in.MaxIters:
		return Action{Kind: ActReason, Hint: HintStructForced, ForceStructured: true}
	case in.SchemaRequired:
		return Action{Kind: ActReason, Hint: HintStructured}
	case in.HaveFinal:
		return Action{Kind: ActExit, Exit: ExitFinal}
	case in.CurIter >= in.MaxIters:
		return Action{Kind: ActExit, Exit: ExitMaxIters}
	}
	return Action{Kind: ActReason}
}
