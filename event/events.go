// The 28 event types, one struct each, in the reference's declaration order.

package event

import (
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/stamp"
)

// ReplyStart (REPLY_START) opens a reply: the assistant Msg with id ReplyID is being built.
type ReplyStart struct {
	Base
	SessionID string
	ReplyID   string
	Name      string
	Role      Role // "" is written as "assistant"
}

func (*ReplyStart) Type() Type                        { return TypeReplyStart }
func (e *ReplyStart) replyID() (string, bool)         { return e.ReplyID, true }
func (e *ReplyStart) MarshalJSON() ([]byte, error)    { return Marshal(e), nil }
func (e *ReplyStart) UnmarshalJSON(data []byte) error { *e = ReplyStart{}; return unmarshal(e, data) }

// AppendJSON appends the event's wire JSON.
func (e *ReplyStart) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeReplyStart)
	dst = fstr(dst, "session_id", e.SessionID)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "name", e.Name)
	dst = fstr(dst, "role", string(or(e.Role, RoleAssistant)))
	return append(dst, '}')
}

func (e *ReplyStart) decode(o *wire.Object) {
	o.String("session_id", &e.SessionID)
	o.String("reply_id", &e.ReplyID)
	o.String("name", &e.Name)
	enumOr(o, "role", &e.Role, RoleAssistant, Role.Valid)
}

// ReplyEnd (REPLY_END) closes a reply. A reply parked on a human or an external executor has no REPLY_END yet.
type ReplyEnd struct {
	Base
	SessionID      string
	ReplyID        string
	FinishedReason ReplyReason // "" is written as "completed"
	Error          *ErrorInfo  // nil = null
}

func (*ReplyEnd) Type() Type                        { return TypeReplyEnd }
func (e *ReplyEnd) replyID() (string, bool)         { return e.ReplyID, true }
func (e *ReplyEnd) MarshalJSON() ([]byte, error)    { return Marshal(e), nil }
func (e *ReplyEnd) UnmarshalJSON(data []byte) error { *e = ReplyEnd{}; return unmarshal(e, data) }

// AppendJSON appends the event's wire JSON.
func (e *ReplyEnd) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeReplyEnd)
	dst = fstr(dst, "session_id", e.SessionID)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "finished_reason", string(or(e.FinishedReason, ReplyCompleted)))
	dst = fkey(dst, "error")
	if e.Error == nil {
		dst = append(dst, "null"...)
	} else {
		dst = e.Error.AppendJSON(dst)
	}
	return append(dst, '}')
}

func (e *ReplyEnd) decode(o *wire.Object) {
	o.String("session_id", &e.SessionID)
	o.String("reply_id", &e.ReplyID)
	enumOr(o, "finished_reason", &e.FinishedReason, ReplyCompleted, ReplyReason.Valid)
	e.Error = decodeErrorInfo(o, "error")
}

// ModelCallStart (MODEL_CALL_START) announces a call to the model.
type ModelCallStart struct {
	Base
	ReplyID   string
	ModelName string
}

func (*ModelCallStart) Type() Type                     { return TypeModelCallStart }
func (e *ModelCallStart) replyID() (string, bool)      { return e.ReplyID, true }
func (e *ModelCallStart) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *ModelCallStart) UnmarshalJSON(data []byte) error {
	*e = ModelCallStart{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *ModelCallStart) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeModelCallStart)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "model_name", e.ModelName)
	return append(dst, '}')
}

func (e *ModelCallStart) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("model_name", &e.ModelName)
}

// ModelCallEnd (MODEL_CALL_END) reports a finished model call and its token usage.
type ModelCallEnd struct {
	Base
	ReplyID                  string
	InputTokens              int64
	OutputTokens             int64
	CacheInputTokens         int64
	CacheCreationInputTokens int64
	FinishedReason           ModelReason // "" is written as "completed"
}

func (*ModelCallEnd) Type() Type                     { return TypeModelCallEnd }
func (e *ModelCallEnd) replyID() (string, bool)      { return e.ReplyID, true }
func (e *ModelCallEnd) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *ModelCallEnd) UnmarshalJSON(data []byte) error {
	*e = ModelCallEnd{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *ModelCallEnd) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeModelCallEnd)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fint(dst, "input_tokens", e.InputTokens)
	dst = fint(dst, "output_tokens", e.OutputTokens)
	dst = fint(dst, "cache_input_tokens", e.CacheInputTokens)
	dst = fint(dst, "cache_creation_input_tokens", e.CacheCreationInputTokens)
	dst = fstr(dst, "finished_reason", string(or(e.FinishedReason, ModelCompleted)))
	return append(dst, '}')
}

func (e *ModelCallEnd) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.Int("input_tokens", &e.InputTokens, true, 0)
	o.Int("output_tokens", &e.OutputTokens, true, 0)
	o.Int("cache_input_tokens", &e.CacheInputTokens, false, 0)
	o.Int("cache_creation_input_tokens", &e.CacheCreationInputTokens, false, 0)
	enumOr(o, "finished_reason", &e.FinishedReason, ModelCompleted, ModelReason.valid)
}

// TextBlockStart (TEXT_BLOCK_START) opens a text block.
type TextBlockStart struct {
	Base
	ReplyID string
	BlockID string
}

func (*TextBlockStart) Type() Type                     { return TypeTextBlockStart }
func (e *TextBlockStart) replyID() (string, bool)      { return e.ReplyID, true }
func (e *TextBlockStart) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *TextBlockStart) UnmarshalJSON(data []byte) error {
	*e = TextBlockStart{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *TextBlockStart) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeTextBlockStart)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "block_id", e.BlockID)
	return append(dst, '}')
}

func (e *TextBlockStart) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("block_id", &e.BlockID)
}

// TextBlockDelta (TEXT_BLOCK_DELTA) appends text to an open text block.
type TextBlockDelta struct {
	Base
	ReplyID string
	BlockID string
	Delta   string
}

func (*TextBlockDelta) Type() Type                     { return TypeTextBlockDelta }
func (e *TextBlockDelta) replyID() (string, bool)      { return e.ReplyID, true }
func (e *TextBlockDelta) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *TextBlockDelta) UnmarshalJSON(data []byte) error {
	*e = TextBlockDelta{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *TextBlockDelta) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeTextBlockDelta)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "block_id", e.BlockID)
	dst = fstr(dst, "delta", e.Delta)
	return append(dst, '}')
}

func (e *TextBlockDelta) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("block_id", &e.BlockID)
	o.String("delta", &e.Delta)
}

// TextBlockEnd (TEXT_BLOCK_END) closes a text block.
type TextBlockEnd struct {
	Base
	ReplyID string
	BlockID string
}

func (*TextBlockEnd) Type() Type                     { return TypeTextBlockEnd }
func (e *TextBlockEnd) replyID() (string, bool)      { return e.ReplyID, true }
func (e *TextBlockEnd) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *TextBlockEnd) UnmarshalJSON(data []byte) error {
	*e = TextBlockEnd{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *TextBlockEnd) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeTextBlockEnd)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "block_id", e.BlockID)
	return append(dst, '}')
}

func (e *TextBlockEnd) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("block_id", &e.BlockID)
}

// DataBlockStart (DATA_BLOCK_START) opens a data block (image, audio…).
type DataBlockStart struct {
	Base
	ReplyID   string
	BlockID   string
	MediaType string
}

func (*DataBlockStart) Type() Type                     { return TypeDataBlockStart }
func (e *DataBlockStart) replyID() (string, bool)      { return e.ReplyID, true }
func (e *DataBlockStart) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *DataBlockStart) UnmarshalJSON(data []byte) error {
	*e = DataBlockStart{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *DataBlockStart) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeDataBlockStart)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "block_id", e.BlockID)
	dst = fstr(dst, "media_type", e.MediaType)
	return append(dst, '}')
}

func (e *DataBlockStart) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("block_id", &e.BlockID)
	o.String("media_type", &e.MediaType)
}

// DataBlockDelta (DATA_BLOCK_DELTA) carries one independently base64-encoded chunk of a data block.
type DataBlockDelta struct {
	Base
	ReplyID   string
	BlockID   string
	Data      string
	MediaType string
}

func (*DataBlockDelta) Type() Type                     { return TypeDataBlockDelta }
func (e *DataBlockDelta) replyID() (string, bool)      { return e.ReplyID, true }
func (e *DataBlockDelta) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *DataBlockDelta) UnmarshalJSON(data []byte) error {
	*e = DataBlockDelta{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *DataBlockDelta) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeDataBlockDelta)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "block_id", e.BlockID)
	dst = fstr(dst, "data", e.Data)
	dst = fstr(dst, "media_type", e.MediaType)
	return append(dst, '}')
}

func (e *DataBlockDelta) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("block_id", &e.BlockID)
	o.String("data", &e.Data)
	o.String("media_type", &e.MediaType)
}

// DataBlockEnd (DATA_BLOCK_END) closes a data block.
type DataBlockEnd struct {
	Base
	ReplyID string
	BlockID string
}

func (*DataBlockEnd) Type() Type                     { return TypeDataBlockEnd }
func (e *DataBlockEnd) replyID() (string, bool)      { return e.ReplyID, true }
func (e *DataBlockEnd) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *DataBlockEnd) UnmarshalJSON(data []byte) error {
	*e = DataBlockEnd{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *DataBlockEnd) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeDataBlockEnd)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "block_id", e.BlockID)
	return append(dst, '}')
}

func (e *DataBlockEnd) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("block_id", &e.BlockID)
}

// ThinkingBlockStart (THINKING_BLOCK_START) opens a thinking block.
type ThinkingBlockStart struct {
	Base
	ReplyID string
	BlockID string
}

func (*ThinkingBlockStart) Type() Type                     { return TypeThinkingBlockStart }
func (e *ThinkingBlockStart) replyID() (string, bool)      { return e.ReplyID, true }
func (e *ThinkingBlockStart) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *ThinkingBlockStart) UnmarshalJSON(data []byte) error {
	*e = ThinkingBlockStart{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *ThinkingBlockStart) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeThinkingBlockStart)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "block_id", e.BlockID)
	return append(dst, '}')
}

func (e *ThinkingBlockStart) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("block_id", &e.BlockID)
}

// ThinkingBlockDelta (THINKING_BLOCK_DELTA) appends reasoning text to an open thinking block.
type ThinkingBlockDelta struct {
	Base
	ReplyID string
	BlockID string
	Delta   string
}

func (*ThinkingBlockDelta) Type() Type                     { return TypeThinkingBlockDelta }
func (e *ThinkingBlockDelta) replyID() (string, bool)      { return e.ReplyID, true }
func (e *ThinkingBlockDelta) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *ThinkingBlockDelta) UnmarshalJSON(data []byte) error {
	*e = ThinkingBlockDelta{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *ThinkingBlockDelta) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeThinkingBlockDelta)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "block_id", e.BlockID)
	dst = fstr(dst, "delta", e.Delta)
	return append(dst, '}')
}

func (e *ThinkingBlockDelta) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("block_id", &e.BlockID)
	o.String("delta", &e.Delta)
}

// ThinkingBlockEnd (THINKING_BLOCK_END) closes a thinking block.
type ThinkingBlockEnd struct {
	Base
	ReplyID string
	BlockID string
}

func (*ThinkingBlockEnd) Type() Type                     { return TypeThinkingBlockEnd }
func (e *ThinkingBlockEnd) replyID() (string, bool)      { return e.ReplyID, true }
func (e *ThinkingBlockEnd) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *ThinkingBlockEnd) UnmarshalJSON(data []byte) error {
	*e = ThinkingBlockEnd{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *ThinkingBlockEnd) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeThinkingBlockEnd)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "block_id", e.BlockID)
	return append(dst, '}')
}

func (e *ThinkingBlockEnd) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("block_id", &e.BlockID)
}

// HintBlock (HINT_BLOCK) carries a whole hint block (hints are born finished).
type HintBlock struct {
	Base
	ReplyID string
	BlockID string
	Source  block.NullString
	Hint    block.Body
}

func (*HintBlock) Type() Type                        { return TypeHintBlock }
func (e *HintBlock) replyID() (string, bool)         { return e.ReplyID, true }
func (e *HintBlock) MarshalJSON() ([]byte, error)    { return Marshal(e), nil }
func (e *HintBlock) UnmarshalJSON(data []byte) error { *e = HintBlock{}; return unmarshal(e, data) }

// AppendJSON appends the event's wire JSON.
func (e *HintBlock) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeHintBlock)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "block_id", e.BlockID)
	dst = fnull(dst, "source", e.Source)
	dst = fkey(dst, "hint")
	dst = e.Hint.AppendJSON(dst)
	return append(dst, '}')
}

func (e *HintBlock) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("block_id", &e.BlockID)
	o.Nullable("source", &e.Source.String, &e.Source.Valid)
	decodeBody(o, "hint", &e.Hint)
}

// ToolCallStart (TOOL_CALL_START) opens a tool call requested by the model.
type ToolCallStart struct {
	Base
	ReplyID      string
	ToolCallID   string
	ToolCallName string
}

func (*ToolCallStart) Type() Type                     { return TypeToolCallStart }
func (e *ToolCallStart) replyID() (string, bool)      { return e.ReplyID, true }
func (e *ToolCallStart) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *ToolCallStart) UnmarshalJSON(data []byte) error {
	*e = ToolCallStart{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *ToolCallStart) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeToolCallStart)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "tool_call_id", e.ToolCallID)
	dst = fstr(dst, "tool_call_name", e.ToolCallName)
	return append(dst, '}')
}

func (e *ToolCallStart) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("tool_call_id", &e.ToolCallID)
	o.String("tool_call_name", &e.ToolCallName)
}

// ToolCallDelta (TOOL_CALL_DELTA) appends a fragment of a tool call's JSON arguments.
type ToolCallDelta struct {
	Base
	ReplyID    string
	ToolCallID string
	Delta      string
}

func (*ToolCallDelta) Type() Type                     { return TypeToolCallDelta }
func (e *ToolCallDelta) replyID() (string, bool)      { return e.ReplyID, true }
func (e *ToolCallDelta) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *ToolCallDelta) UnmarshalJSON(data []byte) error {
	*e = ToolCallDelta{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *ToolCallDelta) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeToolCallDelta)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "tool_call_id", e.ToolCallID)
	dst = fstr(dst, "delta", e.Delta)
	return append(dst, '}')
}

func (e *ToolCallDelta) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("tool_call_id", &e.ToolCallID)
	o.String("delta", &e.Delta)
}

// ToolCallEnd (TOOL_CALL_END) closes a tool call's arguments.
type ToolCallEnd struct {
	Base
	ReplyID    string
	ToolCallID string
}

func (*ToolCallEnd) Type() Type                        { return TypeToolCallEnd }
func (e *ToolCallEnd) replyID() (string, bool)         { return e.ReplyID, true }
func (e *ToolCallEnd) MarshalJSON() ([]byte, error)    { return Marshal(e), nil }
func (e *ToolCallEnd) UnmarshalJSON(data []byte) error { *e = ToolCallEnd{}; return unmarshal(e, data) }

// AppendJSON appends the event's wire JSON.
func (e *ToolCallEnd) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeToolCallEnd)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "tool_call_id", e.ToolCallID)
	return append(dst, '}')
}

func (e *ToolCallEnd) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("tool_call_id", &e.ToolCallID)
}

// ToolResultStart (TOOL_RESULT_START) opens the result of a tool call.
type ToolResultStart struct {
	Base
	ReplyID      string
	ToolCallID   string
	ToolCallName string
}

func (*ToolResultStart) Type() Type                     { return TypeToolResultStart }
func (e *ToolResultStart) replyID() (string, bool)      { return e.ReplyID, true }
func (e *ToolResultStart) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *ToolResultStart) UnmarshalJSON(data []byte) error {
	*e = ToolResultStart{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *ToolResultStart) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeToolResultStart)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "tool_call_id", e.ToolCallID)
	dst = fstr(dst, "tool_call_name", e.ToolCallName)
	return append(dst, '}')
}

func (e *ToolResultStart) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("tool_call_id", &e.ToolCallID)
	o.String("tool_call_name", &e.ToolCallName)
}

// ToolResultTextDelta (TOOL_RESULT_TEXT_DELTA) appends text to a tool result.
type ToolResultTextDelta struct {
	Base
	ReplyID    string
	ToolCallID string
	Delta      string
}

func (*ToolResultTextDelta) Type() Type                     { return TypeToolResultTextDelta }
func (e *ToolResultTextDelta) replyID() (string, bool)      { return e.ReplyID, true }
func (e *ToolResultTextDelta) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *ToolResultTextDelta) UnmarshalJSON(data []byte) error {
	*e = ToolResultTextDelta{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *ToolResultTextDelta) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeToolResultTextDelta)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "tool_call_id", e.ToolCallID)
	dst = fstr(dst, "delta", e.Delta)
	return append(dst, '}')
}

func (e *ToolResultTextDelta) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("tool_call_id", &e.ToolCallID)
	o.String("delta", &e.Delta)
}

// ToolResultDataDelta (TOOL_RESULT_DATA_DELTA) adds a data block to a tool result; exactly one of Data and URL is set.
type ToolResultDataDelta struct {
	Base
	ReplyID    string
	ToolCallID string
	BlockID    string // a fresh id when decoded without one
	MediaType  string
	Data       block.NullString // base64 text
	URL        block.NullString
}

func (*ToolResultDataDelta) Type() Type                     { return TypeToolResultDataDelta }
func (e *ToolResultDataDelta) replyID() (string, bool)      { return e.ReplyID, true }
func (e *ToolResultDataDelta) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *ToolResultDataDelta) UnmarshalJSON(data []byte) error {
	*e = ToolResultDataDelta{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *ToolResultDataDelta) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeToolResultDataDelta)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "tool_call_id", e.ToolCallID)
	dst = fstr(dst, "block_id", e.BlockID)
	dst = fstr(dst, "media_type", e.MediaType)
	dst = fnull(dst, "data", e.Data)
	dst = fnull(dst, "url", e.URL)
	return append(dst, '}')
}

func (e *ToolResultDataDelta) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("tool_call_id", &e.ToolCallID)
	o.StringOr("block_id", &e.BlockID, "")
	if !o.Has("block_id") {
		e.BlockID = stamp.Default.NewID()
	}
	o.String("media_type", &e.MediaType)
	o.Nullable("data", &e.Data.String, &e.Data.Valid)
	o.Nullable("url", &e.URL.String, &e.URL.Valid)
}

// ToolResultEnd (TOOL_RESULT_END) closes a tool result with its final state.
type ToolResultEnd struct {
	Base
	ReplyID    string
	ToolCallID string
	State      block.ToolResultState
}

func (*ToolResultEnd) Type() Type                     { return TypeToolResultEnd }
func (e *ToolResultEnd) replyID() (string, bool)      { return e.ReplyID, true }
func (e *ToolResultEnd) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *ToolResultEnd) UnmarshalJSON(data []byte) error {
	*e = ToolResultEnd{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *ToolResultEnd) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeToolResultEnd)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "tool_call_id", e.ToolCallID)
	dst = fstr(dst, "state", string(e.State))
	return append(dst, '}')
}

func (e *ToolResultEnd) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("tool_call_id", &e.ToolCallID)
	enumOr(o, "state", &e.State, "", block.ToolResultState.Valid)
}

// ExceedMaxIters (EXCEED_MAX_ITERS) reports that the reply ran out of reasoning-acting iterations (deprecated upstream, still emitted).
type ExceedMaxIters struct {
	Base
	ReplyID string
	Name    string
}

func (*ExceedMaxIters) Type() Type                     { return TypeExceedMaxIters }
func (e *ExceedMaxIters) replyID() (string, bool)      { return e.ReplyID, true }
func (e *ExceedMaxIters) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *ExceedMaxIters) UnmarshalJSON(data []byte) error {
	*e = ExceedMaxIters{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *ExceedMaxIters) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeExceedMaxIters)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fstr(dst, "name", e.Name)
	return append(dst, '}')
}

func (e *ExceedMaxIters) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	o.String("name", &e.Name)
}

// RequireUserConfirm (REQUIRE_USER_CONFIRM) parks the reply until a human confirms the listed tool calls.
type RequireUserConfirm struct {
	Base
	ReplyID   string
	ToolCalls []*block.ToolCall
}

func (*RequireUserConfirm) Type() Type                     { return TypeRequireUserConfirm }
func (e *RequireUserConfirm) replyID() (string, bool)      { return e.ReplyID, true }
func (e *RequireUserConfirm) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *RequireUserConfirm) UnmarshalJSON(data []byte) error {
	*e = RequireUserConfirm{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *RequireUserConfirm) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeRequireUserConfirm)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fkey(dst, "tool_calls")
	dst = appendCalls(dst, e.ToolCalls)
	return append(dst, '}')
}

func (e *RequireUserConfirm) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	e.ToolCalls = decodeCalls(o, "tool_calls")
}

// RequireExternalExecution (REQUIRE_EXTERNAL_EXECUTION) parks the reply until an external executor returns results for the listed tool calls.
type RequireExternalExecution struct {
	Base
	ReplyID   string
	ToolCalls []*block.ToolCall
}

func (*RequireExternalExecution) Type() Type                     { return TypeRequireExternalExecution }
func (e *RequireExternalExecution) replyID() (string, bool)      { return e.ReplyID, true }
func (e *RequireExternalExecution) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *RequireExternalExecution) UnmarshalJSON(data []byte) error {
	*e = RequireExternalExecution{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *RequireExternalExecution) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeRequireExternalExecution)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fkey(dst, "tool_calls")
	dst = appendCalls(dst, e.ToolCalls)
	return append(dst, '}')
}

func (e *RequireExternalExecution) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	e.ToolCalls = decodeCalls(o, "tool_calls")
}

// UserConfirmResult (USER_CONFIRM_RESULT) is an input: a human's answers to REQUIRE_USER_CONFIRM.
type UserConfirmResult struct {
	Base
	ReplyID        string
	ConfirmResults []ConfirmResult
}

func (*UserConfirmResult) Type() Type                     { return TypeUserConfirmResult }
func (e *UserConfirmResult) replyID() (string, bool)      { return e.ReplyID, true }
func (e *UserConfirmResult) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *UserConfirmResult) UnmarshalJSON(data []byte) error {
	*e = UserConfirmResult{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *UserConfirmResult) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeUserConfirmResult)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fkey(dst, "confirm_results")
	dst = appendConfirms(dst, e.ConfirmResults)
	return append(dst, '}')
}

func (e *UserConfirmResult) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	e.ConfirmResults = decodeConfirms(o, "confirm_results")
}

// UserInterrupt (USER_INTERRUPT) is an input: the user interrupts a parked reply.
type UserInterrupt struct {
	Base
	ReplyID string
}

func (*UserInterrupt) Type() Type                     { return TypeUserInterrupt }
func (e *UserInterrupt) replyID() (string, bool)      { return e.ReplyID, true }
func (e *UserInterrupt) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *UserInterrupt) UnmarshalJSON(data []byte) error {
	*e = UserInterrupt{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *UserInterrupt) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeUserInterrupt)
	dst = fstr(dst, "reply_id", e.ReplyID)
	return append(dst, '}')
}

func (e *UserInterrupt) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
}

// ExternalExecutionResult (EXTERNAL_EXECUTION_RESULT) is an input: results of externally executed tool calls.
type ExternalExecutionResult struct {
	Base
	ReplyID          string
	ExecutionResults []*block.ToolResult
}

func (*ExternalExecutionResult) Type() Type                     { return TypeExternalExecutionResult }
func (e *ExternalExecutionResult) replyID() (string, bool)      { return e.ReplyID, true }
func (e *ExternalExecutionResult) MarshalJSON() ([]byte, error) { return Marshal(e), nil }
func (e *ExternalExecutionResult) UnmarshalJSON(data []byte) error {
	*e = ExternalExecutionResult{}
	return unmarshal(e, data)
}

// AppendJSON appends the event's wire JSON.
func (e *ExternalExecutionResult) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeExternalExecutionResult)
	dst = fstr(dst, "reply_id", e.ReplyID)
	dst = fkey(dst, "execution_results")
	dst = appendResults(dst, e.ExecutionResults)
	return append(dst, '}')
}

func (e *ExternalExecutionResult) decode(o *wire.Object) {
	o.String("reply_id", &e.ReplyID)
	e.ExecutionResults = decodeResults(o, "execution_results")
}

// Custom (CUSTOM) is an application event (e.g. "state_updated"); it belongs to no reply.
type Custom struct {
	Base
	Name  string
	Value map[string]any // nil is written as {}
}

func (*Custom) Type() Type                        { return TypeCustom }
func (e *Custom) replyID() (string, bool)         { return "", false }
func (e *Custom) MarshalJSON() ([]byte, error)    { return Marshal(e), nil }
func (e *Custom) UnmarshalJSON(data []byte) error { *e = Custom{}; return unmarshal(e, data) }

// AppendJSON appends the event's wire JSON.
func (e *Custom) AppendJSON(dst []byte) []byte {
	dst = e.head(dst, TypeCustom)
	dst = fstr(dst, "name", e.Name)
	dst = fkey(dst, "value")
	dst = wire.AppendObject(dst, e.Value)
	return append(dst, '}')
}

func (e *Custom) decode(o *wire.Object) {
	o.String("name", &e.Name)
	o.Map("value", &e.Value)
}

var constructors = map[Type]func() Event{
	TypeReplyStart:               func() Event { return new(ReplyStart) },
	TypeReplyEnd:                 func() Event { return new(ReplyEnd) },
	TypeModelCallStart:           func() Event { return new(ModelCallStart) },
	TypeModelCallEnd:             func() Event { return new(ModelCallEnd) },
	TypeTextBlockStart:           func() Event { return new(TextBlockStart) },
	TypeTextBlockDelta:           func() Event { return new(TextBlockDelta) },
	TypeTextBlockEnd:             func() Event { return new(TextBlockEnd) },
	TypeDataBlockStart:           func() Event { return new(DataBlockStart) },
	TypeDataBlockDelta:           func() Event { return new(DataBlockDelta) },
	TypeDataBlockEnd:             func() Event { return new(DataBlockEnd) },
	TypeThinkingBlockStart:       func() Event { return new(ThinkingBlockStart) },
	TypeThinkingBlockDelta:       func() Event { return new(ThinkingBlockDelta) },
	TypeThinkingBlockEnd:         func() Event { return new(ThinkingBlockEnd) },
	TypeHintBlock:                func() Event { return new(HintBlock) },
	TypeToolCallStart:            func() Event { return new(ToolCallStart) },
	TypeToolCallDelta:            func() Event { return new(ToolCallDelta) },
	TypeToolCallEnd:              func() Event { return new(ToolCallEnd) },
	TypeToolResultStart:          func() Event { return new(ToolResultStart) },
	TypeToolResultTextDelta:      func() Event { return new(ToolResultTextDelta) },
	TypeToolResultDataDelta:      func() Event { return new(ToolResultDataDelta) },
	TypeToolResultEnd:            func() Event { return new(ToolResultEnd) },
	TypeExceedMaxIters:           func() Event { return new(ExceedMaxIters) },
	TypeRequireUserConfirm:       func() Event { return new(RequireUserConfirm) },
	TypeRequireExternalExecution: func() Event { return new(RequireExternalExecution) },
	TypeUserConfirmResult:        func() Event { return new(UserConfirmResult) },
	TypeUserInterrupt:            func() Event { return new(UserInterrupt) },
	TypeExternalExecutionResult:  func() Event { return new(ExternalExecutionResult) },
	TypeCustom:                   func() Event { return new(Custom) },
}
