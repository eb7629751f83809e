package agent

import (
	"errors"
	"fmt"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// CloseCut closes a reply whose run was cut off before its end — its
// process died — from what had been logged of it, as a server does when it
// finds such a run at start. reply is the reply's message folded from its
// logged events (message.Msg.AppendEvent); st is the state saved before
// that run; input are the run's input messages (nil for the resume of a
// parked reply); notice is the text of the interrupted results ("":
// the agent's own, as for a cancelled call).
//
// Every tool call of reply without a finished result gets an interrupted
// one, and REPLY_END(interrupted) ends the reply: CloseCut returns those
// events, stamped and already folded into reply, for the caller to log
// once it has saved st. reply takes its place in st's context — in place
// of the message with its id (a resumed reply), else after input — and
// st's reply context names it, as after any reply. Nothing of the dead run survives but
// its log, so its iteration count is not restored and no interruption
// message is added.
func CloseCut(st *state.AgentState, reply *message.Msg, input []*message.Msg, notice string) ([]event.Event, error) {
	if st == nil || reply == nil || reply.ID == "" {
		return nil, errors.New("agent: CloseCut needs a state and the reply's message with its id")
	}
	if notice == "" {
		notice = tool.InterruptedText
	}
	results := map[string]*block.ToolResult{}
	for _, b := range reply.Content {
		if r, ok := b.(*block.ToolResult); ok {
			results[r.ID] = r
		}
	}
	var closing []event.Event
	for _, b := range reply.Content {
		c, ok := b.(*block.ToolCall)
		if !ok {
			continue
		}
		res := results[c.ID]
		if res != nil && res.State != block.ResultRunning && res.State != "" {
			continue // answered
		}
		if res == nil {
			closing = append(closing, &event.ToolResultStart{ReplyID: reply.ID, ToolCallID: c.ID, ToolCallName: c.Name})
		}
		closing = append(closing,
			&event.ToolResultTextDelta{ReplyID: reply.ID, ToolCallID: c.ID, Delta: notice},
			&event.ToolResultEnd{ReplyID: reply.ID, ToolCallID: c.ID, State: block.ResultInterrupted})
	}
	closing = append(closing, &event.ReplyEnd{SessionID: st.SessionID, ReplyID: reply.ID, FinishedReason: event.ReplyInterrupted})
	for _, ev := range closing {
		event.Stamp(ev, nil)
		if err := reply.AppendEvent(ev); err != nil {
			return nil, fmt.Errorf("agent: close a cut reply: %w", err)
		}
	}
	if t := st.Tail(); t != nil && t.ID == reply.ID {
		st.Context[len(st.Context)-1] = reply
	} else {
		st.Context = append(st.Context, input...)
		st.Context = append(st.Context, reply)
	}
	st.Reply = state.ReplyContext{ReplyID: reply.ID}
	return closing, nil
}
