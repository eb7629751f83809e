package event

import (
	"github.com/agentscope-go/agentscope/internal/wire"
)

// Type is an event's "type" discriminator (UPPER_SNAKE on the wire).
type Type string

// The 28 event types.
const (
	TypeReplyStart               Type = "REPLY_START"
	TypeReplyEnd                 Type = "REPLY_END"
	TypeModelCallStart           Type = "MODEL_CALL_START"
	TypeModelCallEnd             Type = "MODEL_CALL_END"
	TypeTextBlockStart           Type = "TEXT_BLOCK_START"
	TypeTextBlockDelta           Type = "TEXT_BLOCK_DELTA"
	TypeTextBlockEnd             Type = "TEXT_BLOCK_END"
	TypeDataBlockStart           Type = "DATA_BLOCK_START"
	TypeDataBlockDelta           Type = "DATA_BLOCK_DELTA"
	TypeDataBlockEnd             Type = "DATA_BLOCK_END"
	TypeThinkingBlockStart       Type = "THINKING_BLOCK_START"
	TypeThinkingBlockDelta       Type = "THINKING_BLOCK_DELTA"
	TypeThinkingBlockEnd         Type = "THINKING_BLOCK_END"
	TypeHintBlock                Type = "HINT_BLOCK"
	TypeToolCallStart            Type = "TOOL_CALL_START"
	TypeToolCallDelta            Type = "TOOL_CALL_DELTA"
	TypeToolCallEnd              Type = "TOOL_CALL_END"
	TypeToolResultStart          Type = "TOOL_RESULT_START"
	TypeToolResultTextDelta      Type = "TOOL_RESULT_TEXT_DELTA"
	TypeToolResultDataDelta      Type = "TOOL_RESULT_DATA_DELTA"
	TypeToolResultEnd            Type = "TOOL_RESULT_END"
	TypeExceedMaxIters           Type = "EXCEED_MAX_ITERS"
	TypeRequireUserConfirm       Type = "REQUIRE_USER_CONFIRM"
	TypeRequireExternalExecution Type = "REQUIRE_EXTERNAL_EXECUTION"
	TypeUserConfirmResult        Type = "USER_CONFIRM_RESULT"
	TypeUserInterrupt            Type = "USER_INTERRUPT"
	TypeExternalExecutionResult  Type = "EXTERNAL_EXECUTION_RESULT"
	TypeCustom                   Type = "CUSTOM"
)

// Types lists all 28 types in the reference's declaration order.
var Types = []Type{
	TypeReplyStart, TypeReplyEnd, TypeModelCallStart, TypeModelCallEnd,
	TypeTextBlockStart, TypeTextBlockDelta, TypeTextBlockEnd,
	TypeDataBlockStart, TypeDataBlockDelta, TypeDataBlockEnd,
	TypeThinkingBlockStart, TypeThinkingBlockDelta, TypeThinkingBlockEnd,
	TypeHintBlock, TypeToolCallStart, TypeToolCallDelta, TypeToolCallEnd,
	TypeToolResultStart, TypeToolResultTextDelta, TypeToolResultDataDelta, TypeToolResultEnd,
	TypeExceedMaxIters, TypeRequireUserConfirm, TypeRequireExternalExecution,
	TypeUserConfirmResult, TypeUserInterrupt, TypeExternalExecutionResult, TypeCustom,
}

// Role is who authored a message.
type Role string

// Roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleSystem    Role = "system"
)

// Valid reports whether r is one of the three roles.
func (r Role) Valid() bool { return r == RoleUser || r == RoleAssistant || r == RoleSystem }

// ReplyReason is why a reply finished (Msg.finished_reason and
// REPLY_END.finished_reason).
type ReplyReason string

// Reply finish reasons.
const (
	ReplyCompleted      ReplyReason = "completed"
	ReplyInterrupted    ReplyReason = "interrupted"
	ReplyExceedMaxIters ReplyReason = "exceed_max_iters"
	ReplyError          ReplyReason = "error"
)

// Valid reports whether r is one of the four reasons.
func (r ReplyReason) Valid() bool {
	switch r {
	case ReplyCompleted, ReplyInterrupted, ReplyExceedMaxIters, ReplyError:
		return true
	}
	return false
}

// ModelReason is how a model call ended (MODEL_CALL_END.finished_reason).
type ModelReason string

// Model-call finish reasons.
const (
	ModelCompleted   ModelReason = "completed"
	ModelInterrupted ModelReason = "interrupted"
)

func (r ModelReason) valid() bool { return r == ModelCompleted || r == ModelInterrupted }

// ErrorType classifies a failed reply.
type ErrorType string

// Error types.
const (
	ErrAuthentication ErrorType = "authentication"
	ErrPermission     ErrorType = "permission"
	ErrRateLimit      ErrorType = "rate_limit"
	ErrInvalidRequest ErrorType = "invalid_request"
	ErrUpstream       ErrorType = "upstream"
	ErrConnection     ErrorType = "connection"
	ErrInternal       ErrorType = "internal"
	ErrSetup          ErrorType = "setup"
	ErrUnknown        ErrorType = "unknown"
)

// Valid reports whether t is one of the nine error types.
func (t ErrorType) Valid() bool {
	switch t {
	case ErrAuthentication, ErrPermission, ErrRateLimit, ErrInvalidRequest, ErrUpstream,
		ErrConnection, ErrInternal, ErrSetup, ErrUnknown:
		return true
	}
	return false
}

// ErrorInfo describes why a reply ended with finished_reason "error".
type ErrorInfo struct {
	Type    ErrorType // "" is written as "unknown"
	Message string
}

// AppendJSON appends {"type":…,"message":…}.
func (e *ErrorInfo) AppendJSON(dst []byte) []byte {
	t := e.Type
	if t == "" {
		t = ErrUnknown
	}
	dst = append(dst, `{"type":`...)
	dst = wire.AppendString(dst, string(t))
	dst = append(dst, `,"message":`...)
	dst = wire.AppendString(dst, e.Message)
	return append(dst, '}')
}

// MarshalJSON returns the wire JSON.
func (e *ErrorInfo) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil), nil }

// UnmarshalJSON decodes an ErrorInfo.
func (e *ErrorInfo) UnmarshalJSON(data []byte) error {
	o, err := wire.Borrow("error", data)
	if err != nil {
		return err
	}
	defer o.Release()
	var t string
	o.StringOr("type", &t, string(ErrUnknown))
	o.String("message", &e.Message)
	e.Type = ErrorType(t)
	if o.Err() == nil && !e.Type.Valid() {
		o.Fail("type", "unknown error type %q", t)
	}
	return o.Err()
}
