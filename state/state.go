package state

import (
	"encoding/json"
	"slices"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/ojson"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/stamp"
)

// Defaults of ToolContext.
const (
	DefaultMaxCacheFiles = 100
	DefaultMaxCacheBytes = 25000.0
)

// AgentState is the unit an agent saves and loads.
type AgentState struct {
	// SessionID is copied into REPLY_START and REPLY_END.
	SessionID string
	// Summary is the compression summary, fed to the model as a user
	// message after the system prompt: a plain string (the default, "")
	// or text/data blocks.
	Summary block.Body
	// Context is the uncompressed conversation: one assistant Msg per
	// reply, whose id is the reply id. To change a message of it other
	// than the last between replies, replace it (message.Msg.Clone, then
	// change the copy): an agent's token estimate remembers each
	// message's count by the message.
	Context []*message.Msg
	// Reply is the current (or last) reply's bookkeeping.
	Reply ReplyContext
	// Permission is the permission policy; the agent's engine works on it
	// in place.
	Permission *permission.Context
	// Tools is tool bookkeeping.
	Tools ToolContext
	// Tasks is the task list.
	Tasks TasksContext
	// Middle is free-form storage keyed by middleware.
	Middle map[string]any
}

// ReplyContext is the reply_context object.
type ReplyContext struct {
	ReplyID string
	// CurIter counts the completed reasoning-acting rounds of the reply.
	CurIter int
	// StructuredSchema is the JSON Schema the reply's final output must
	// satisfy, or nil for none (JSON null).
	StructuredSchema json.RawMessage
	// StructuredOutput is the validated output once generated (nil = null).
	StructuredOutput map[string]any
}

// ToolContext is the tool_context object.
type ToolContext struct {
	MaxCacheFiles int
	// MaxCacheBytes is a float on the wire (the reference writes 25000.0).
	MaxCacheBytes float64
	// ReadFileCache entries ({lines, updated_at, bytes, file_path}) are
	// kept as raw JSON objects: only the file tools interpret them.
	ReadFileCache   []json.RawMessage
	ActivatedGroups []string
}

// TasksContext is the tasks_context object.
type TasksContext struct {
	Tasks []Task
}

// Task states.
const (
	TaskPending    = "pending"
	TaskInProgress = "in_progress"
	TaskCompleted  = "completed"
)

// Task is one entry of the task list.
type Task struct {
	Subject     string
	Description string
	Metadata    map[string]any
	CreatedAt   string
	State       string
	ID          string
	Owner       block.NullString
	Blocks      []string
	BlockedBy   []string
}

// New returns an empty state with a fresh session id and reply id from
// src (stamp.Default if nil).
func New(src stamp.Source) *AgentState {
	if src == nil {
		src = stamp.Default
	}
	return &AgentState{
		SessionID:  src.NewID(),
		Summary:    block.PlainBody(""),
		Context:    []*message.Msg{},
		Reply:      ReplyContext{ReplyID: src.NewID()},
		Permission: permission.NewContext(permission.ModeDefault),
		Tools:      ToolContext{MaxCacheFiles: DefaultMaxCacheFiles, MaxCacheBytes: DefaultMaxCacheBytes},
		Middle:     map[string]any{},
	}
}

// ActivatedGroups returns the activated tool groups (tool.GroupState).
func (s *AgentState) ActivatedGroups() []string { return s.Tools.ActivatedGroups }

// SetActivatedGroups replaces the activated tool groups (tool.GroupState).
func (s *AgentState) SetActivatedGroups(groups []string) {
	s.Tools.ActivatedGroups = slices.Clone(groups)
}

// Tail returns the last context message, or nil.
func (s *AgentState) Tail() *message.Msg {
	if n := len(s.Context); n > 0 {
		return s.Context[n-1]
	}
	return nil
}

// LastReply returns the tail message if it is an assistant message by name
// (of any reply), else nil.
func (s *AgentState) LastReply(name string) *message.Msg {
	if t := s.Tail(); t != nil && t.Role == event.RoleAssistant && t.Name == name {
		return t
	}
	return nil
}

// ReplyMsg returns the current reply's message: the tail, if it is an
// assistant message by name whose id is the reply id; else nil.
func (s *AgentState) ReplyMsg(name string) *message.Msg {
	if t := s.LastReply(name); t != nil && t.ID == s.Reply.ReplyID {
		return t
	}
	return nil
}

// AppendContext adds blocks to the current reply's message, creating it
// (id = reply id, role assistant, author name, created_at from src) when
// the tail is not that message. It returns the message.
func (s *AgentState) AppendContext(src stamp.Source, name string, blocks ...block.Block) *message.Msg {
	if m := s.ReplyMsg(name); m != nil {
		m.Content = append(m.Content, blocks...)
		return m
	}
	if src == nil {
		src = stamp.Default
	}
	m := &message.Msg{
		Name: name, Role: event.RoleAssistant, ID: s.Reply.ReplyID,
		Content: append([]block.Block{}, blocks...), CreatedAt: src.Now(),
	}
	s.Context = append(s.Context, m)
	return m
}

// AwaitingToolCalls returns the calls of the tail message (an assistant
// message by name, any reply) that wait for a human (asking) or for an
// external executor (submitted, without a result yet), in content order.
func (s *AgentState) AwaitingToolCalls(name string) []*block.ToolCall {
	m := s.LastReply(name)
	if m == nil {
		return nil
	}
	return block.AwaitingCalls(m.Content)
}

// HasAwaitingToolCalls reports whether AwaitingToolCalls is non-empty.
func (s *AgentState) HasAwaitingToolCalls(name string) bool {
	return len(s.AwaitingToolCalls(name)) > 0
}

// UnfinishedToolCalls returns the calls of the current reply's message
// (ReplyMsg) that have no tool result yet, in content order.
func (s *AgentState) UnfinishedToolCalls(name string) []*block.ToolCall {
	m := s.ReplyMsg(name)
	if m == nil {
		return nil
	}
	return block.UnfinishedCalls(m.Content)
}

// HasUnfinishedToolCalls reports whether UnfinishedToolCalls is non-empty.
func (s *AgentState) HasUnfinishedToolCalls(name string) bool {
	m := s.ReplyMsg(name)
	return m != nil && block.HasUnfinishedCalls(m.Content)
}

// Clone returns a deep copy.
func (s *AgentState) Clone() *AgentState {
	c := *s
	c.Summary = s.Summary.Clone()
	c.Context = make([]*message.Msg, len(s.Context))
	for i, m := range s.Context {
		c.Context[i] = m.Clone()
	}
	c.Reply.StructuredSchema = slices.Clone(s.Reply.StructuredSchema)
	c.Reply.StructuredOutput = ojson.CloneMap(s.Reply.StructuredOutput)
	c.Permission = s.Permission.Clone()
	c.Tools.ReadFileCache = make([]json.RawMessage, len(s.Tools.ReadFileCache))
	for i, e := range s.Tools.ReadFileCache {
		c.Tools.ReadFileCache[i] = slices.Clone(e)
	}
	c.Tools.ActivatedGroups = slices.Clone(s.Tools.ActivatedGroups)
	c.Tasks.Tasks = make([]Task, len(s.Tasks.Tasks))
	for i, t := range s.Tasks.Tasks {
		t.Metadata = ojson.CloneMap(t.Metadata)
		t.Blocks = slices.Clone(t.Blocks)
		t.BlockedBy = slices.Clone(t.BlockedBy)
		c.Tasks.Tasks[i] = t
	}
	c.Middle = ojson.CloneMap(s.Middle)
	return &c
}
