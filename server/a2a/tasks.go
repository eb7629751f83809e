package a2a

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/stamp"
)

// taskID names a task: its session and the log sequence of the reply's
// first REPLY_START. The sequence finds the reply's events without a
// scan of the log and without a table of our own: a reply's events run
// from there to its REPLY_END, and nothing else happens in the session
// meanwhile (a parked reply refuses new messages).
func taskID(sessionID string, seq int64) string {
	return sessionID + "-" + strconv.FormatInt(seq, 10)
}

// parseTaskID reads a taskID; false for anything else.
func parseTaskID(id string) (sessionID string, seq int64, ok bool) {
	i := strings.LastIndexByte(id, '-')
	if i <= 0 {
		return "", 0, false
	}
	seq, err := strconv.ParseInt(id[i+1:], 10, 64)
	if err != nil || seq < 1 || strconv.FormatInt(seq, 10) != id[i+1:] {
		return "", 0, false
	}
	return id[:i], seq, true
}

// tracker follows one reply's events, as the log holds them, and says
// what they mean for its task: the reply's fold (the artifacts), whether
// it parked or ended, and the stream events a live client gets.
type tracker struct {
	key      session.Key
	id       string // the task's id
	replyID  string
	last     int64 // the sequence of the last event applied
	msg      *message.Msg
	end      *event.ReplyEnd
	park     event.Event // *event.RequireUserConfirm or *event.RequireExternalExecution while parked
	lost     bool        // another reply started: this one never ended
	updated  string      // created_at of the last event that changed the state
	appended map[string]bool
}

// newTracker starts a task at its first REPLY_START, logged at seq.
func newTracker(k session.Key, seq int64, rs *event.ReplyStart) *tracker {
	m, err := message.AssistantMsg(rs.Name, nil, message.WithID(rs.ReplyID), message.WithCreatedAt(rs.CreatedAt))
	if err != nil {
		m = &message.Msg{ID: rs.ReplyID, Role: event.RoleAssistant, Name: rs.Name}
	}
	return &tracker{key: k, id: taskID(k.SessionID, seq), replyID: rs.ReplyID, last: seq, msg: m,
		updated: rs.CreatedAt, appended: map[string]bool{}}
}

// stopped reports whether the task waits for its client or is over: a
// stream that follows it ends there.
func (t *tracker) stopped() bool { return t.end != nil || t.park != nil || t.lost }

// state is the task's state.
func (t *tracker) state() TaskState {
	switch {
	case t.lost:
		return TaskStateFailed
	case t.end != nil:
		switch t.end.FinishedReason {
		case event.ReplyInterrupted:
			return TaskStateCanceled
		case event.ReplyError, event.ReplyExceedMaxIters:
			return TaskStateFailed
		}
		return TaskStateCompleted
	case t.park != nil:
		return TaskStateInputRequired
	}
	return TaskStateWorking
}

// apply takes the next event of the session's log. out is what a stream
// client is sent for it (when emit is set); an event of another reply
// is skipped, unless it starts one, which means this reply was lost.
func (t *tracker) apply(e engine.Entry, emit bool) (out []StreamResponse) {
	t.last = e.Seq
	ev, err := event.Decode(e.JSON)
	if err != nil {
		return nil
	}
	rid, ok := event.ReplyIDOf(ev)
	if !ok || rid != t.replyID {
		if rs, ok := ev.(*event.ReplyStart); ok && rs.ReplyID != t.replyID {
			t.lost = true
			t.updated = rs.CreatedAt
			if emit {
				out = append(out, t.statusUpdate())
			}
		}
		return out
	}
	// The fold is the transcript's: what GetTask shows later is what the
	// stream showed.
	_ = t.msg.AppendEvent(ev)
	switch ev := ev.(type) {
	case *event.UserConfirmResult, *event.ExternalExecutionResult:
		t.park = nil
		t.updated = ev.Header().CreatedAt
		if emit {
			out = append(out, t.statusUpdate())
		}
	case *event.TextBlockDelta:
		if emit && ev.Delta != "" {
			out = append(out, t.artifactUpdate(ev.BlockID, TextPart(ev.Delta), false))
		}
	case *event.TextBlockEnd:
		if emit {
			out = append(out, t.artifactUpdate(ev.BlockID, TextPart(""), true))
		}
	case *event.DataBlockEnd:
		if emit {
			for _, b := range t.msg.Content {
				if d, ok := b.(*block.Data); ok && d.ID == ev.BlockID {
					out = append(out, t.artifactUpdate(ev.BlockID, dataPart(d), true))
				}
			}
		}
	case *event.RequireUserConfirm, *event.RequireExternalExecution:
		t.park = mergePark(t.park, ev)
		t.updated = ev.Header().CreatedAt
		if emit {
			out = append(out, t.statusUpdate())
		}
	case *event.ReplyEnd:
		t.end = ev
		t.updated = ev.CreatedAt
		if emit {
			out = append(out, t.statusUpdate())
		}
	}
	return out
}

func (t *tracker) artifactUpdate(blockID string, p Part, last bool) StreamResponse {
	appended := t.appended[blockID]
	t.appended[blockID] = true
	return StreamResponse{ArtifactUpdate: &TaskArtifactUpdateEvent{TaskID: t.id, ContextID: t.key.SessionID,
		Artifact: Artifact{ArtifactID: blockID, Parts: []Part{p}}, Append: appended, LastChunk: last}}
}

func (t *tracker) statusUpdate() StreamResponse {
	return StreamResponse{StatusUpdate: &TaskStatusUpdateEvent{TaskID: t.id, ContextID: t.key.SessionID, Status: t.status()}}
}

// status is the task's status, with the message that explains a park or
// a failure.
func (t *tracker) status() TaskStatus {
	st := TaskStatus{State: t.state(), Timestamp: utcTime(t.updated)}
	var text string
	var parts []Part
	switch st.State {
	case TaskStateInputRequired:
		text, parts = parkMessage(t.park)
	case TaskStateFailed:
		switch {
		case t.lost:
			text = "The reply ended without an end: another reply started after it."
		case t.end.FinishedReason == event.ReplyExceedMaxIters:
			text = "The reply exceeded the agent's maximum number of reasoning-acting rounds."
		case t.end.Error != nil:
			text = fmt.Sprintf("The reply failed (%s): %s", orUnknown(t.end.Error.Type), t.end.Error.Message)
		default:
			text = "The reply failed."
		}
	case TaskStateCanceled:
		text = "The reply was interrupted."
	default:
		return st
	}
	id := t.id + "-status"
	if h := t.stateEvent(); h != "" {
		id = h
	}
	st.Message = &Message{MessageID: id, ContextID: t.key.SessionID, TaskID: t.id, Role: RoleAgent,
		Parts: append([]Part{TextPart(text)}, parts...)}
	return st
}

// stateEvent is the id of the event the state comes from, a stable
// message id for the status message.
func (t *tracker) stateEvent() string {
	switch {
	case t.end != nil:
		return t.end.ID
	case t.park != nil:
		return t.park.Header().ID
	}
	return ""
}

func orUnknown(t event.ErrorType) string {
	if t == "" {
		return string(event.ErrUnknown)
	}
	return string(t)
}

// task is the task as it stands, with history (the messages that
// started it) cut to the last n (n < 0: all).
func (t *tracker) task(history []Message, n int) *Task {
	task := &Task{ID: t.id, ContextID: t.key.SessionID, Status: t.status(), Artifacts: artifacts(t.msg),
		Metadata: map[string]any{"agentscope": map[string]any{"sessionId": t.key.SessionID, "replyId": t.replyID}}}
	if n >= 0 && len(history) > n {
		history = history[len(history)-n:]
	}
	task.History = history
	return task
}

// artifacts are a reply's outputs: one artifact per text or data block,
// named by the block's id (the artifact updates of a stream carry the
// same ids). Thinking, tool calls and their results are the agent's
// workings, not its output.
func artifacts(m *message.Msg) []Artifact {
	var out []Artifact
	for _, b := range m.Content {
		switch b := b.(type) {
		case *block.Text:
			out = append(out, Artifact{ArtifactID: b.ID, Parts: []Part{TextPart(b.Text)}})
		case *block.Data:
			out = append(out, Artifact{ArtifactID: b.ID, Parts: []Part{dataPart(b)}})
		}
	}
	return out
}

// dataPart is a data block as a part: inline bytes or a URL.
func dataPart(d *block.Data) Part {
	p := Part{}
	if d.Name.Valid {
		p.Filename = d.Name.String
	}
	switch s := d.Source.(type) {
	case *block.Base64:
		p.MediaType = s.MediaType
		if raw, err := s.Bytes(); err == nil {
			p.Raw = raw
		}
	case *block.URL:
		p.MediaType, p.URL = s.MediaType, s.URL
	}
	if len(p.Raw) == 0 && p.URL == "" {
		// An empty payload has no part kind of its own.
		p.Text = new(string)
	}
	return p
}

// pendingCall is a tool call a parked reply waits on, as the status
// message's data part shows it.
type pendingCall struct {
	ToolCallID     string          `json:"toolCallId"`
	Name           string          `json:"name"`
	Input          json.RawMessage `json:"input"`
	Awaiting       string          `json:"awaiting"` // "confirmation" or "result"
	SuggestedRules []suggestedRule `json:"suggestedRules,omitempty"`
}

type suggestedRule struct {
	ToolName    string `json:"toolName"`
	RuleContent string `json:"ruleContent,omitempty"`
	Behavior    string `json:"behavior"`
}

// parkMessage is what an input-required task asks, for a person (text)
// and a program (a data part listing the pending calls).
func parkMessage(park event.Event) (string, []Part) {
	var calls []*block.ToolCall
	confirm := false
	switch p := park.(type) {
	case *event.RequireUserConfirm:
		calls, confirm = p.ToolCalls, true
	case *event.RequireExternalExecution:
		calls = p.ToolCalls
	}
	pending := make([]pendingCall, 0, len(calls))
	var shown []string
	for _, c := range calls {
		pc := pendingCall{ToolCallID: c.ID, Name: c.Name, Input: json.RawMessage(c.Input), Awaiting: "result"}
		if !json.Valid(pc.Input) {
			pc.Input, _ = json.Marshal(c.Input)
		}
		if confirm {
			pc.Awaiting = "confirmation"
			for _, r := range c.SuggestedRules {
				sr := suggestedRule{ToolName: r.ToolName, Behavior: string(r.Behavior)}
				if r.RuleContent.Valid {
					sr.RuleContent = r.RuleContent.String
				}
				pc.SuggestedRules = append(pc.SuggestedRules, sr)
			}
		}
		pending = append(pending, pc)
		shown = append(shown, c.Name+" "+c.Input)
	}
	var text string
	if confirm {
		text = fmt.Sprintf("The agent asks to run %s. Answer on this task: \"yes\" to allow, \"always\" to allow and keep the suggested rules, \"no\" to deny, or a data part {\"confirmations\": [{\"toolCallId\", \"confirmed\"}]}.",
			strings.Join(shown, "; "))
	} else {
		text = fmt.Sprintf("The agent waits for the results of tool calls its client runs: %s. Answer on this task with a data part {\"results\": [{\"toolCallId\", \"output\"}]} (or, for one call, its result as text).",
			strings.Join(shown, "; "))
	}
	return text, []Part{DataPart(map[string]any{"pendingToolCalls": pending})}
}

// utcTime is an event's created_at (local, naive) as A2A's timestamp.
func utcTime(created string) string {
	if created == "" {
		return ""
	}
	t, err := stamp.ParseTime(created)
	if err != nil {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// nowUTC is now as A2A's timestamp.
func nowUTC() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

// historyMessage is a transcript message as a task's history shows it:
// the A2A message id it came with, when it came over A2A.
func historyMessage(m *message.Msg, taskID, contextID string) Message {
	out := Message{MessageID: m.ID, ContextID: contextID, TaskID: taskID, Role: RoleUser}
	if m.Role == event.RoleAssistant {
		out.Role = RoleAgent
	}
	if id, ok := m.Metadata[metaMessageID].(string); ok && id != "" {
		out.MessageID = id
	}
	for _, b := range m.Content {
		switch b := b.(type) {
		case *block.Text:
			out.Parts = append(out.Parts, TextPart(b.Text))
		case *block.Data:
			out.Parts = append(out.Parts, dataPart(b))
		}
	}
	if len(out.Parts) == 0 {
		out.Parts = []Part{TextPart("")}
	}
	return out
}

// mergePark adds ev to the park so far: a concurrent batch asks once per
// call, and the task waits on all of them. Asks of one kind are one ask
// with every call; a confirmation goes before an external execution (the
// reply resolves the confirmations first, so that is what the next
// message answers).
func mergePark(park, ev event.Event) event.Event {
	switch p := park.(type) {
	case *event.RequireUserConfirm:
		if e, ok := ev.(*event.RequireUserConfirm); ok {
			merged := *p
			merged.ToolCalls = append(slices.Clip(p.ToolCalls), e.ToolCalls...)
			return &merged
		}
		return park
	case *event.RequireExternalExecution:
		if e, ok := ev.(*event.RequireExternalExecution); ok {
			merged := *p
			merged.ToolCalls = append(slices.Clip(p.ToolCalls), e.ToolCalls...)
			return &merged
		}
	}
	return ev
}
