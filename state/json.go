package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/stamp"
)

// ErrInvalid is wrapped by every *DecodeError.
var ErrInvalid = errors.New("invalid agent state")

// DecodeError reports a malformed field of a saved state (a dotted path
// such as "reply_context.cur_iter" or "context[3]").
type DecodeError struct {
	Field string
	Err   error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("agent state: %s: %v", e.Field, e.Err)
}

// Unwrap returns ErrInvalid and the cause.
func (e *DecodeError) Unwrap() []error { return []error{ErrInvalid, e.Err} }

// AppendJSON appends the reference JSON (compact, field order as pydantic
// writes it). It cannot fail, so it writes a nil block as null, which no
// reader accepts; MarshalJSON reports such a block instead.
func (s *AgentState) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"session_id":`...)
	dst = wire.AppendString(dst, s.SessionID)
	dst = append(dst, `,"summary":`...)
	if !s.Summary.Plain && s.Summary.Blocks == nil {
		// The zero Body is the default summary "", not an empty block list.
		dst = append(dst, `""`...)
	} else {
		dst = s.Summary.AppendJSON(dst)
	}
	dst = append(dst, `,"context":[`...)
	for i, m := range s.Context {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = m.AppendJSON(dst)
	}
	dst = append(dst, `],"reply_context":`...)
	dst = s.Reply.AppendJSON(dst)
	dst = append(dst, `,"permission_context":`...)
	dst = s.Permission.AppendJSON(dst)
	dst = append(dst, `,"tool_context":`...)
	dst = s.Tools.AppendJSON(dst)
	dst = append(dst, `,"tasks_context":{"tasks":[`...)
	for i := range s.Tasks.Tasks {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = s.Tasks.Tasks[i].AppendJSON(dst)
	}
	dst = append(dst, `]},"middle_context":`...)
	dst = wire.AppendObject(dst, s.Middle)
	return append(dst, '}')
}

// MarshalJSON returns the reference JSON, or an error wrapping
// message.ErrNilBlock (naming the position) when the summary, a message or
// a tool result or hint in it holds a nil block, or wrapping ErrInvalid for
// a nil message: a state written with them would not load again.
func (s *AgentState) MarshalJSON() ([]byte, error) {
	if err := noNilBlocks("summary", s.Summary.Blocks); err != nil {
		return nil, err
	}
	for i, m := range s.Context {
		if m == nil {
			return nil, fmt.Errorf("agent state: context[%d]: nil message: %w", i, ErrInvalid)
		}
		if err := noNilBlocks(fmt.Sprintf("context[%d].content", i), m.Content); err != nil {
			return nil, err
		}
	}
	return s.AppendJSON(make([]byte, 0, 1024)), nil
}

// noNilBlocks finds a nil block in content or in a body inside it.
func noNilBlocks(path string, content []block.Block) error {
	for i, b := range content {
		if block.IsNil(b) {
			return fmt.Errorf("agent state: %s[%d]: %w", path, i, message.ErrNilBlock)
		}
		var body []block.Block
		switch b := b.(type) {
		case *block.ToolResult:
			body = b.Output.Blocks
		case *block.Hint:
			body = b.Hint.Blocks
		}
		if err := noNilBlocks(fmt.Sprintf("%s[%d].body", path, i), body); err != nil {
			return err
		}
	}
	return nil
}

// AppendJSON appends the reply_context object.
func (r *ReplyContext) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"reply_id":`...)
	dst = wire.AppendString(dst, r.ReplyID)
	dst = append(dst, `,"cur_iter":`...)
	dst = strconv.AppendInt(dst, int64(r.CurIter), 10)
	dst = append(dst, `,"structured_schema":`...)
	if len(r.StructuredSchema) == 0 || string(bytes.TrimSpace(r.StructuredSchema)) == "null" {
		dst = append(dst, "null"...)
	} else {
		dst = wire.AppendCompact(dst, r.StructuredSchema)
	}
	dst = append(dst, `,"structured_output":`...)
	dst = wire.AppendNullObject(dst, r.StructuredOutput)
	return append(dst, '}')
}

// AppendJSON appends the tool_context object.
func (t *ToolContext) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"max_cache_files":`...)
	dst = strconv.AppendInt(dst, int64(t.MaxCacheFiles), 10)
	dst = append(dst, `,"max_cache_bytes":`...)
	dst = wire.AppendFloat(dst, t.MaxCacheBytes)
	dst = append(dst, `,"read_file_cache":[`...)
	for i, e := range t.ReadFileCache {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = wire.AppendCompact(dst, e)
	}
	dst = append(dst, `],"activated_groups":`...)
	dst = wire.AppendAny(dst, nonNil(t.ActivatedGroups))
	return append(dst, '}')
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// AppendJSON appends one task.
func (t *Task) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"subject":`...)
	dst = wire.AppendString(dst, t.Subject)
	dst = append(dst, `,"description":`...)
	dst = wire.AppendString(dst, t.Description)
	dst = append(dst, `,"metadata":`...)
	dst = wire.AppendObject(dst, t.Metadata)
	dst = append(dst, `,"created_at":`...)
	dst = wire.AppendString(dst, t.CreatedAt)
	dst = append(dst, `,"state":`...)
	state := t.State
	if state == "" {
		state = TaskPending
	}
	dst = wire.AppendString(dst, state)
	dst = append(dst, `,"id":`...)
	dst = wire.AppendString(dst, t.ID)
	dst = append(dst, `,"owner":`...)
	dst = wire.AppendNullable(dst, t.Owner.String, t.Owner.Valid)
	dst = append(dst, `,"blocks":`...)
	dst = wire.AppendAny(dst, nonNil(t.Blocks))
	dst = append(dst, `,"blocked_by":`...)
	dst = wire.AppendAny(dst, nonNil(t.BlockedBy))
	return append(dst, '}')
}

// UnmarshalJSON decodes a saved state. Absent fields take the reference's
// defaults (fresh session and reply ids from stamp.Default); legacy states
// with top-level reply_id/cur_iter are migrated into reply_context. On
// error (a *DecodeError) s is left unchanged.
func (s *AgentState) UnmarshalJSON(data []byte) error {
	return s.decode(data, stamp.Default)
}

// Decode decodes a saved state, taking default ids and timestamps from src.
func Decode(data []byte, src stamp.Source) (*AgentState, error) {
	s := new(AgentState)
	if err := s.decode(data, src); err != nil {
		return nil, err
	}
	return s, nil
}

func fieldErr(field string, err error) error { return &DecodeError{Field: field, Err: err} }

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

func (s *AgentState) decode(data []byte, src stamp.Source) error {
	if src == nil {
		src = stamp.Default
	}
	// One scan of our own for the whole blob, which holds every message of
	// the session; each message is then scanned once more by its decoder.
	f, err := wire.Members(data)
	if err != nil {
		return fieldErr("(root)", err)
	}
	if f == nil {
		return fieldErr("(root)", errors.New("expected an object, got null"))
	}
	out := New(src)
	if v, ok := f["session_id"]; ok {
		if err := json.Unmarshal(v, &out.SessionID); err != nil || isNull(v) {
			return fieldErr("session_id", errors.New("expected a string"))
		}
	}
	if v, ok := f["summary"]; ok {
		if err := out.Summary.UnmarshalJSON(v); err != nil {
			return fieldErr("summary", err)
		}
	}
	if v, ok := f["context"]; ok {
		raws, ok := wire.SplitArray(v)
		if !ok {
			return fieldErr("context", errors.New("expected an array"))
		}
		out.Context = make([]*message.Msg, 0, len(raws))
		for i, r := range raws {
			m := new(message.Msg)
			if err := m.UnmarshalJSON(r); err != nil {
				return fieldErr(fmt.Sprintf("context[%d]", i), err)
			}
			out.Context = append(out.Context, m)
		}
	}
	// Legacy states kept reply_id and cur_iter at the top level; fields of
	// reply_context win where both exist.
	rc := map[string]json.RawMessage{}
	if v, ok := f["reply_context"]; ok {
		if err := json.Unmarshal(v, &rc); err != nil || isNull(v) {
			return fieldErr("reply_context", errors.New("expected an object"))
		}
	}
	for _, k := range []string{"reply_id", "cur_iter"} {
		if v, ok := f[k]; ok {
			if _, has := rc[k]; !has {
				rc[k] = v
			}
		}
	}
	if err := out.Reply.decode(rc); err != nil {
		return err
	}
	if v, ok := f["permission_context"]; ok {
		pc := new(permission.Context)
		if err := pc.UnmarshalJSON(v); err != nil {
			return fieldErr("permission_context", err)
		}
		out.Permission = pc
	}
	if v, ok := f["tool_context"]; ok {
		if err := out.Tools.decode(v); err != nil {
			return err
		}
	}
	if v, ok := f["tasks_context"]; ok {
		if err := out.Tasks.decode(v); err != nil {
			return err
		}
	}
	if v, ok := f["middle_context"]; ok {
		m, err := wire.DecodeMap(v)
		if err != nil {
			return fieldErr("middle_context", err)
		}
		out.Middle = m
	}
	*s = *out
	return nil
}

func (r *ReplyContext) decode(f map[string]json.RawMessage) error {
	if v, ok := f["reply_id"]; ok {
		if err := json.Unmarshal(v, &r.ReplyID); err != nil || isNull(v) {
			return fieldErr("reply_context.reply_id", errors.New("expected a string"))
		}
	}
	if v, ok := f["cur_iter"]; ok {
		n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
		if err != nil {
			return fieldErr("reply_context.cur_iter", errors.New("expected an integer"))
		}
		r.CurIter = n
	}
	if v, ok := f["structured_schema"]; ok && !isNull(v) {
		if !json.Valid(v) || bytes.TrimSpace(v)[0] != '{' {
			return fieldErr("reply_context.structured_schema", errors.New("expected an object or null"))
		}
		r.StructuredSchema = wire.AppendCompact(nil, v)
	}
	if v, ok := f["structured_output"]; ok && !isNull(v) {
		m, err := wire.DecodeMap(v)
		if err != nil {
			return fieldErr("reply_context.structured_output", err)
		}
		r.StructuredOutput = m
	}
	return nil
}

func (t *ToolContext) decode(data json.RawMessage) error {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(data, &f); err != nil || f == nil {
		return fieldErr("tool_context", errors.New("expected an object"))
	}
	if v, ok := f["max_cache_files"]; ok {
		n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
		if err != nil || n <= 1 {
			return fieldErr("tool_context.max_cache_files", errors.New("expected an integer greater than 1"))
		}
		t.MaxCacheFiles = n
	}
	if v, ok := f["max_cache_bytes"]; ok {
		var x float64
		if err := json.Unmarshal(v, &x); err != nil || isNull(v) || x <= 10000 {
			return fieldErr("tool_context.max_cache_bytes", errors.New("expected a number greater than 10000"))
		}
		t.MaxCacheBytes = x
	}
	if v, ok := f["read_file_cache"]; ok {
		var raws []json.RawMessage
		if err := json.Unmarshal(v, &raws); err != nil || isNull(v) {
			return fieldErr("tool_context.read_file_cache", errors.New("expected an array"))
		}
		t.ReadFileCache = t.ReadFileCache[:0]
		for i, r := range raws {
			if b := bytes.TrimSpace(r); len(b) == 0 || b[0] != '{' {
				return fieldErr(fmt.Sprintf("tool_context.read_file_cache[%d]", i), errors.New("expected an object"))
			}
			t.ReadFileCache = append(t.ReadFileCache, wire.AppendCompact(nil, r))
		}
	}
	if v, ok := f["activated_groups"]; ok {
		var gs []string
		if err := json.Unmarshal(v, &gs); err != nil || isNull(v) {
			return fieldErr("tool_context.activated_groups", errors.New("expected an array of strings"))
		}
		t.ActivatedGroups = gs
	}
	return nil
}

func (t *TasksContext) decode(data json.RawMessage) error {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(data, &f); err != nil || f == nil {
		return fieldErr("tasks_context", errors.New("expected an object"))
	}
	v, ok := f["tasks"]
	if !ok {
		return nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(v, &raws); err != nil || isNull(v) {
		return fieldErr("tasks_context.tasks", errors.New("expected an array"))
	}
	for i, r := range raws {
		var task Task
		if err := task.decode(r); err != nil {
			return fieldErr(fmt.Sprintf("tasks_context.tasks[%d]", i), err)
		}
		t.Tasks = append(t.Tasks, task)
	}
	return nil
}

func (t *Task) decode(data json.RawMessage) error {
	o, err := wire.Borrow("task", data)
	if err != nil {
		return err
	}
	defer o.Release()
	o.String("subject", &t.Subject)
	o.StringOr("description", &t.Description, "")
	o.Map("metadata", &t.Metadata)
	o.StringOr("created_at", &t.CreatedAt, "")
	o.StringOr("state", &t.State, TaskPending)
	o.StringOr("id", &t.ID, "")
	o.Nullable("owner", &t.Owner.String, &t.Owner.Valid)
	if err := o.Err(); err != nil {
		return err
	}
	switch t.State {
	case TaskPending, TaskInProgress, TaskCompleted:
	default:
		return fmt.Errorf("state: unknown value %q", t.State)
	}
	for name, p := range map[string]*[]string{"blocks": &t.Blocks, "blocked_by": &t.BlockedBy} {
		if v, ok := o.Raw(name); ok && v != nil {
			if err := json.Unmarshal(v, p); err != nil {
				return fmt.Errorf("%s: expected an array of strings", name)
			}
		}
	}
	if t.ID == "" {
		t.ID = stamp.Default.NewID()
	}
	if t.CreatedAt == "" {
		t.CreatedAt = stamp.Default.Now()
	}
	return nil
}
