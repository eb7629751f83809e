package agui

import (
	"slices"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/wire"
)

// Interrupt reasons of RUN_FINISHED{outcome: interrupt}. A confirmation is
// AG-UI's core "tool_call" reason (a tool call awaiting a decision); an
// external execution has no core reason, so it is namespaced as the AG-UI
// spec asks of framework reasons.
const (
	ReasonConfirm  = "tool_call"
	ReasonExternal = "agentscope:external_execution"
)

// Interrupt ids are the pending tool call's id behind its kind, so that
// the two parks a call can go through (confirmed, then executed outside)
// have two ids and a resume replayed from the first cannot answer the
// second.
const (
	confirmPrefix  = "confirm:"
	externalPrefix = "external:"
)

// IncompleteCode is the RUN_ERROR code of a run whose native events ended
// (Finish) with the reply neither finished nor parked.
const IncompleteCode = "incomplete"

// The responseSchema of each interrupt: what a resume's payload may hold.
const (
	confirmSchema  = `{"type":"object","properties":{"approved":{"type":"boolean","description":"Run the tool call (false: deny it)."},"editedArgs":{"type":"object","description":"The input to run the tool with instead of the proposed one (a full replacement)."},"rules":{"description":"true: also add the suggested rules; or the permission rules to add.","anyOf":[{"type":"boolean"},{"type":"array","items":{"type":"object"}}]}}}`
	externalSchema = `{"type":"object","properties":{"result":{"type":"string","description":"The tool's output."},"isError":{"type":"boolean","description":"The tool failed; result says why."}},"required":["result"]}`
)

// Run translates the native events of one run of a reply into the AG-UI
// 1.0 events that POST /agui/{agent_id} streams, the ones an
// @ag-ui/client HttpAgent accepts: RUN_STARTED first; every text message,
// reasoning message, tool call and step that opens is closed before the
// run ends; RUN_FINISHED carries an outcome (success, interrupt or
// cancelled), or RUN_ERROR ends the run; nothing follows either. The
// package documentation has the mapping.
//
// A run is one request: a new reply, or a parked reply's continuation (the
// resume event, the REPLY_START again, the rest of the reply). It ends at
// REPLY_END, or when the caller calls Finish because the reply's events of
// this run are over (a reply parks without a closing event). A Run is not
// safe for concurrent use.
type Run struct {
	threadID, runID string
	started, done   bool
	replyID         string

	step     string // the open step's name, when stepOpen
	stepOpen bool
	turn     string // the message this step's tool calls belong to

	texts, reasonings, calls []string // the open lanes, in opening order

	results    map[string][]byte // tool_call_id -> the result's text so far
	interrupts []interrupt

	scratch, name []byte
}

type interrupt struct {
	reason string
	call   *block.ToolCall
}

// NewRun returns a Run for one run: threadID is the AG-UI thread (the
// session) and runID the RunAgentInput's runId. Either may be "": the
// first event that names a session or a reply then gives it.
func NewRun(threadID, runID string) *Run { return &Run{threadID: threadID, runID: runID} }

// Done reports whether the run has ended (RUN_FINISHED or RUN_ERROR is
// written); Append and Finish then add nothing.
func (r *Run) Done() bool { return r.done }

// Start appends RUN_STARTED, unless it is written already, so a transport
// can answer before the reply's first event arrives. replyID, when not
// "", is the reply the run writes: RUN_STARTED carries it in its
// metadata ({"replyId": …}), since runId is the client's. Append and
// Finish start the run themselves, without metadata, as the reference's
// stream conversion does.
func (r *Run) Start(dst []byte, replyID string) []byte {
	if replyID != "" && r.replyID == "" {
		r.replyID = replyID
	}
	return r.startWith(dst, nil, replyID)
}

func (r *Run) start(dst []byte, e event.Event) []byte { return r.startWith(dst, e, "") }

func (r *Run) startWith(dst []byte, e event.Event, replyID string) []byte {
	if r.started {
		return dst
	}
	r.started = true
	if e != nil {
		if r.threadID == "" {
			switch e := e.(type) {
			case *event.ReplyStart:
				r.threadID = e.SessionID
			case *event.ReplyEnd:
				r.threadID = e.SessionID
			}
		}
		if id, ok := event.ReplyIDOf(e); ok && r.runID == "" {
			r.runID = id
		}
	}
	dst = head(dst, "RUN_STARTED")
	dst = str(dst, "threadId", r.threadID)
	dst = str(dst, "runId", r.runID)
	if replyID != "" {
		dst = append(dst, `,"metadata":{"replyId":`...)
		dst = append(wire.AppendString(dst, replyID), '}')
	}
	return end(dst)
}

// Append appends the AG-UI events for e to dst, each one JSON object
// followed by '\n' (none, one or several), and returns the extended
// buffer.
func (r *Run) Append(dst []byte, e event.Event) []byte {
	if r.done || e == nil {
		return dst
	}
	dst = r.start(dst, e)
	if id, ok := event.ReplyIDOf(e); ok && r.replyID == "" {
		r.replyID = id
	}
	switch e := e.(type) {
	case *event.ReplyStart:
		// RUN_STARTED is written; a continuation's REPLY_START repeats it.
		return dst
	case *event.ReplyEnd:
		return r.finishReply(dst, e)
	case *event.ModelCallStart:
		dst = r.endStep(dst)
		r.step, r.stepOpen, r.turn = e.ModelName, true, ""
		dst = head(dst, "STEP_STARTED")
		dst = str(dst, "stepName", e.ModelName)
		return end(dst)
	case *event.ModelCallEnd:
		return r.endStep(dst)
	case *event.TextBlockStart:
		return r.openText(dst, e.BlockID)
	case *event.TextBlockDelta:
		dst = r.openText(dst, e.BlockID)
		return delta(dst, "TEXT_MESSAGE_CONTENT", "messageId", e.BlockID, e.Delta)
	case *event.TextBlockEnd:
		return r.closeLane(dst, &r.texts, e.BlockID, "TEXT_MESSAGE_END", "messageId")
	case *event.ThinkingBlockStart:
		return r.openReasoning(dst, e.BlockID)
	case *event.ThinkingBlockDelta:
		dst = r.openReasoning(dst, e.BlockID)
		return delta(dst, "REASONING_MESSAGE_CONTENT", "messageId", e.BlockID, e.Delta)
	case *event.ThinkingBlockEnd:
		return r.closeLane(dst, &r.reasonings, e.BlockID, "REASONING_MESSAGE_END", "messageId")
	case *event.ToolCallStart:
		if slices.Contains(r.calls, e.ToolCallID) {
			return dst
		}
		// A step's text and tool calls are one assistant turn: the tool
		// calls hang under the step's first text message, or, with no
		// text before them, under an id of their own, so that the client
		// keeps each turn's calls together and in order.
		if r.turn == "" {
			r.turn = e.ToolCallID
		}
		r.calls = append(r.calls, e.ToolCallID)
		return toolCallStart(dst, e.ToolCallID, e.ToolCallName, r.turn)
	case *event.ToolCallDelta:
		if !slices.Contains(r.calls, e.ToolCallID) {
			return dst // arguments of a call never started here have nowhere to go
		}
		return delta(dst, "TOOL_CALL_ARGS", "toolCallId", e.ToolCallID, e.Delta)
	case *event.ToolCallEnd:
		return r.closeLane(dst, &r.calls, e.ToolCallID, "TOOL_CALL_END", "toolCallId")
	case *event.ToolResultTextDelta:
		if r.results == nil {
			r.results = map[string][]byte{}
		}
		r.results[e.ToolCallID] = append(r.results[e.ToolCallID], e.Delta...)
		return r.custom(dst, e)
	case *event.ToolResultEnd:
		text := r.results[e.ToolCallID]
		delete(r.results, e.ToolCallID)
		return toolResult(dst, e.ToolCallID+"-result", e, text, "tool")
	case *event.RequireUserConfirm:
		r.park(ReasonConfirm, e.ToolCalls)
		return r.custom(dst, e)
	case *event.RequireExternalExecution:
		r.park(ReasonExternal, e.ToolCalls)
		return r.custom(dst, e)
	case *event.Custom:
		dst = head(dst, "CUSTOM")
		dst = str(dst, "name", e.Name)
		dst = key(dst, "value")
		dst = wire.AppendObject(dst, e.Value)
		return end(dst)
	}
	return r.custom(dst, e)
}

// Finish ends the run when the reply's events of this run are over: a
// reply parked on confirmations or external executions gets RUN_FINISHED
// with one interrupt per pending call; one that neither finished nor
// parked gets RUN_ERROR (code IncompleteCode). Open lanes are closed
// first. After REPLY_END it adds nothing.
func (r *Run) Finish(dst []byte) []byte {
	if r.done {
		return dst
	}
	dst = r.start(dst, nil)
	dst = r.closeAll(dst)
	r.done = true
	if len(r.interrupts) == 0 {
		return runError(dst, "The reply's events ended before the reply finished or parked.", IncompleteCode)
	}
	dst = r.finished(dst)
	dst = append(dst, `,"outcome":{"type":"interrupt","interrupts":[`...)
	for i, in := range r.interrupts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = r.appendInterrupt(dst, in)
	}
	dst = append(dst, ']', '}')
	return end(dst)
}

// Fail ends the run with RUN_ERROR{message, code} when it cannot go on
// for a reason of the transport's (the event log unreadable, the server
// shutting down): open lanes are closed first, as before any end, so the
// client's verifyEvents accepts it. After the run's end it adds nothing.
func (r *Run) Fail(dst []byte, message, code string) []byte {
	if r.done {
		return dst
	}
	dst = r.start(dst, nil)
	dst = r.closeAll(dst)
	r.done = true
	return runError(dst, message, code)
}

func (r *Run) finishReply(dst []byte, e *event.ReplyEnd) []byte {
	dst = r.closeAll(dst)
	r.done = true
	switch e.FinishedReason {
	case event.ReplyInterrupted:
		dst = r.finished(dst)
		dst = append(dst, `,"outcome":{"type":"cancelled"}`...)
		return end(dst)
	case event.ReplyExceedMaxIters:
		return runError(dst, ExceedMaxItersMessage, string(event.ReplyExceedMaxIters))
	case event.ReplyError:
		msg, code := "The reply failed.", string(event.ErrUnknown)
		if e.Error != nil {
			if e.Error.Message != "" {
				msg = e.Error.Message
			}
			if e.Error.Type != "" {
				code = string(e.Error.Type)
			}
		}
		return runError(dst, msg, code)
	}
	dst = r.finished(dst)
	dst = append(dst, `,"outcome":{"type":"success"}`...)
	return end(dst)
}

// finished opens RUN_FINISHED; the caller adds the outcome and closes it.
func (r *Run) finished(dst []byte) []byte {
	dst = head(dst, "RUN_FINISHED")
	dst = str(dst, "threadId", r.threadID)
	return str(dst, "runId", r.runID)
}

func runError(dst []byte, msg, code string) []byte {
	dst = head(dst, "RUN_ERROR")
	dst = str(dst, "message", msg)
	dst = str(dst, "code", code)
	return end(dst)
}

func (r *Run) park(reason string, calls []*block.ToolCall) {
	for _, c := range calls {
		if c == nil || slices.ContainsFunc(r.interrupts, func(in interrupt) bool { return in.reason == reason && in.call.ID == c.ID }) {
			continue
		}
		r.interrupts = append(r.interrupts, interrupt{reason: reason, call: c})
	}
}

func (r *Run) appendInterrupt(dst []byte, in interrupt) []byte {
	c := in.call
	confirm := in.reason == ReasonConfirm
	dst = append(dst, `{"id":`...)
	if confirm {
		dst = wire.AppendString(dst, confirmPrefix+c.ID)
	} else {
		dst = wire.AppendString(dst, externalPrefix+c.ID)
	}
	dst = str(dst, "reason", in.reason)
	if confirm {
		dst = str(dst, "message", "Allow "+c.Name+" to run with "+c.Input+"?")
	} else {
		dst = str(dst, "message", "Run "+c.Name+" with "+c.Input+" outside the agent and send back its result.")
	}
	dst = str(dst, "toolCallId", c.ID)
	dst = key(dst, "responseSchema")
	if confirm {
		dst = append(dst, confirmSchema...)
	} else {
		dst = append(dst, externalSchema...)
	}
	dst = append(dst, `,"metadata":{"replyId":`...)
	dst = wire.AppendString(dst, r.replyID)
	dst = str(dst, "toolName", c.Name)
	dst = str(dst, "toolInput", c.Input)
	if confirm {
		dst = append(dst, `,"suggestedRules":`...)
		dst = appendRules(dst, c.SuggestedRules)
	}
	return append(dst, '}', '}')
}

// appendRules writes permission rules in AG-UI's camelCase, an absent
// rule_content (the whole tool) left out rather than null. ParseRules reads
// them back.
func appendRules(dst []byte, rules []block.PermissionRule) []byte {
	dst = append(dst, '[')
	for i, rule := range rules {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"toolName":`...)
		dst = wire.AppendString(dst, rule.ToolName)
		if rule.RuleContent.Valid {
			dst = str(dst, "ruleContent", rule.RuleContent.String)
		}
		dst = str(dst, "behavior", string(rule.Behavior))
		dst = str(dst, "source", rule.Source)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func (r *Run) custom(dst []byte, e event.Event) []byte {
	r.name = snake(r.name[:0], e.Type())
	return appendCustom(dst, r.name, e, &r.scratch)
}

func (r *Run) openText(dst []byte, id string) []byte {
	if slices.Contains(r.texts, id) {
		return dst
	}
	r.texts = append(r.texts, id)
	if r.turn == "" {
		r.turn = id
	}
	return textStart(dst, id)
}

func (r *Run) openReasoning(dst []byte, id string) []byte {
	if slices.Contains(r.reasonings, id) {
		return dst
	}
	r.reasonings = append(r.reasonings, id)
	return reasoningStart(dst, id)
}

// closeLane ends the lane id when it is open; an end for a lane that is
// not (a duplicate, or one opened in an earlier run) is dropped, since the
// client rejects it.
func (r *Run) closeLane(dst []byte, lanes *[]string, id, typ, idKey string) []byte {
	i := slices.Index(*lanes, id)
	if i < 0 {
		return dst
	}
	*lanes = slices.Delete(*lanes, i, i+1)
	return idOnly(dst, typ, idKey, id)
}

func (r *Run) endStep(dst []byte) []byte {
	if !r.stepOpen {
		return dst
	}
	r.stepOpen = false
	dst = head(dst, "STEP_FINISHED")
	dst = str(dst, "stepName", r.step)
	return end(dst)
}

// closeAll ends every open lane, the messages and tool calls before the
// step that holds them.
func (r *Run) closeAll(dst []byte) []byte {
	for _, id := range r.texts {
		dst = idOnly(dst, "TEXT_MESSAGE_END", "messageId", id)
	}
	for _, id := range r.reasonings {
		dst = idOnly(dst, "REASONING_MESSAGE_END", "messageId", id)
	}
	for _, id := range r.calls {
		dst = idOnly(dst, "TOOL_CALL_END", "toolCallId", id)
	}
	r.texts, r.reasonings, r.calls = r.texts[:0], r.reasonings[:0], r.calls[:0]
	return r.endStep(dst)
}
