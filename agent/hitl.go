package agent

import (
	"slices"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/ojson"
	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
)

// DeniedText is the result the model sees for a call the user rejected.
func DeniedText(toolName string) string { return pycompat.DeniedText(toolName) }

// checkIncoming validates a resume against what the parked reply waits for
// (§5.3) and reports whether the input continues a parked reply. Nothing is
// changed when it fails.
func (a *Agent) checkIncoming(ev event.Event) (bool, error) {
	var asking, submitted []string
	for _, c := range a.st.AwaitingToolCalls(a.name) {
		if c.State == block.CallAsking {
			asking = append(asking, c.ID)
		} else {
			submitted = append(submitted, c.ID)
		}
	}
	switch e := ev.(type) {
	case nil:
		if len(asking)+len(submitted) > 0 {
			return false, resumeErr("Agent is waiting for %d tool calls and external execution results for %d tool calls, but received no event.", len(asking), len(submitted))
		}
		return false, nil
	case *event.UserConfirmResult:
		if len(asking) == 0 {
			return false, resumeErr("Agent is not waiting for user confirmation, but received UserConfirmResultEvent: %s", event.Marshal(e))
		}
		var unknown, dup []string
		seen := map[string]bool{}
		for _, r := range e.ConfirmResults {
			if r.ToolCall == nil {
				return false, resumeErr("Received UserConfirmResultEvent with a confirm result without a tool call.")
			}
			if !slices.Contains(asking, r.ToolCall.ID) {
				unknown = append(unknown, r.ToolCall.ID)
			}
			if seen[r.ToolCall.ID] {
				dup = append(dup, r.ToolCall.ID)
			}
			seen[r.ToolCall.ID] = true
		}
		if len(unknown) > 0 {
			return false, resumeErr("Received UserConfirmResultEvent with tool call ids %s that are not waiting for confirmation.", pyjson.StrSetRepr(unknown))
		}
		if len(dup) > 0 {
			// Two answers for one call: which one the user meant is
			// anybody's guess.
			return false, resumeErr("Received UserConfirmResultEvent with more than one confirm result for tool call ids %s.", pyjson.StrSetRepr(dup))
		}
	case *event.ExternalExecutionResult:
		if len(submitted) == 0 {
			return false, resumeErr("Agent is not waiting for external execution result, but received ExternalExecutionResultEvent: %s", event.Marshal(e))
		}
		var unknown, dup []string
		seen := map[string]bool{}
		for _, r := range e.ExecutionResults {
			if r == nil {
				return false, resumeErr("Received ExternalExecutionResultEvent with an empty execution result.")
			}
			if !slices.Contains(submitted, r.ID) {
				unknown = append(unknown, r.ID)
			}
			if seen[r.ID] {
				dup = append(dup, r.ID)
			}
			seen[r.ID] = true
		}
		if len(unknown) > 0 {
			return false, resumeErr("Received ExternalExecutionResultEvent with tool call ids %s that are not waiting for external execution results.", pyjson.StrSetRepr(unknown))
		}
		if len(dup) > 0 {
			// The context would hold two results for one call, of which
			// the event fold keeps only the first.
			return false, resumeErr("Received ExternalExecutionResultEvent with more than one execution result for tool call ids %s.", pyjson.StrSetRepr(dup))
		}
		for _, r := range e.ExecutionResults {
			if err := checkExternalResult(r); err != nil {
				return false, err
			}
		}
	}
	return ev != nil, nil
}

// checkExternalResult rejects a result the agent could neither emit nor
// save so that it loads again: a tool result holds text and data blocks
// only, none of them nil, and a known state ("" is the block's default,
// running).
func checkExternalResult(r *block.ToolResult) error {
	if r.State != "" && !r.State.Valid() {
		return inputErr("Invalid execution result for tool call %s: unknown state %q.", r.ID, r.State)
	}
	for i, b := range r.Output.Blocks {
		if block.IsNil(b) {
			return inputErr("Invalid execution result for tool call %s: output block %d is None.", r.ID, i)
		}
		if k := b.Kind(); k != block.KindText && k != block.KindData {
			return inputErr("Invalid execution result for tool call %s: output block %d is a %s block; a tool result holds only text and data blocks.", r.ID, i, k)
		}
	}
	return nil
}

// handleIncoming applies a checked resume event to the state and emits
// what it settles (§5.2). No REPLY_START: the parked reply continues.
func (r *run) handleIncoming(ev event.Event) error {
	a := r.a
	m := a.st.LastReply(a.name)
	if m == nil {
		return nil
	}
	switch e := ev.(type) {
	case *event.UserConfirmResult:
		byID := map[string]*event.ConfirmResult{}
		for i := range e.ConfirmResults {
			byID[e.ConfirmResults[i].ToolCall.ID] = &e.ConfirmResults[i]
		}
		for _, b := range m.Content {
			c, ok := b.(*block.ToolCall)
			if !ok {
				continue
			}
			res := byID[c.ID]
			if res == nil {
				continue
			}
			if res.Confirmed {
				// Approval runs what the client sends back: this is how a
				// user edits a call.
				if err := c.Transition(block.CallAllowed); err != nil {
					return err
				}
				c.Name, c.Input = res.ToolCall.Name, res.ToolCall.Input
				for _, rule := range res.Rules {
					a.engine.AddRule(rule)
				}
				continue
			}
			if err := r.errorResult(&r.out, c, DeniedText(c.Name), block.ResultDenied); err != nil {
				return err
			}
		}
	case *event.ExternalExecutionResult:
		for _, res := range e.ExecutionResults {
			c, _ := m.Find(block.KindToolCall, res.ID).(*block.ToolCall)
			saved := res.CloneBlock().(*block.ToolResult)
			block.Fill(saved, a.src)
			a.st.AppendContext(a.src, a.name, saved)
			if c != nil {
				if err := c.Transition(block.CallFinished); err != nil {
					return err
				}
			}
			// The result's START was emitted when the call was submitted.
			if err := r.outputEvents(&r.out, res.ID, res.Output); err != nil {
				return err
			}
			st := res.State
			if st == "" {
				st = block.ResultRunning // the block's default, as stored
			}
			if err := r.out.emit(&event.ToolResultEnd{ReplyID: r.replyID, ToolCallID: res.ID, State: st, Base: event.Base{Metadata: ojson.CloneMap(res.Metadata)}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// outputEvents turns a tool output into TOOL_RESULT_TEXT/DATA_DELTA events.
func (r *run) outputEvents(s *sink, callID string, out block.Body) error {
	if out.Plain {
		return s.emit(&event.ToolResultTextDelta{ReplyID: r.replyID, ToolCallID: callID, Delta: out.Text})
	}
	for _, b := range out.Blocks {
		if err := r.blockEvent(s, callID, b); err != nil {
			return err
		}
	}
	return nil
}

// blockEvent converts one text or data block of a tool's output.
func (r *run) blockEvent(s *sink, callID string, b block.Block) error {
	switch b := b.(type) {
	case *block.Text:
		return s.emit(&event.ToolResultTextDelta{ReplyID: r.replyID, ToolCallID: callID, Delta: b.Text})
	case *block.Data:
		e := &event.ToolResultDataDelta{ReplyID: r.replyID, ToolCallID: callID, BlockID: b.ID}
		switch src := b.Source.(type) {
		case *block.Base64:
			e.MediaType, e.Data = src.MediaType, block.Some(src.Data())
		case *block.URL:
			e.MediaType, e.URL = src.MediaType, block.Some(src.URL)
		default:
			return nil
		}
		if e.BlockID == "" {
			e.BlockID = r.a.src.NewID()
		}
		return s.emit(e)
	}
	return nil
}
