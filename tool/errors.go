package tool

import (
	"errors"

	"github.com/agentscope-go/agentscope/internal/pycompat"
)

// The errors below are model-facing: their Error() is exactly the text the
// reference puts into the error tool result, so the agent can use
// err.Error() as the result output. Branch on them with errors.As, or on
// ErrModelFacing with errors.Is.

// ErrModelFacing is matched (errors.Is) by every error whose text is meant
// for the model: NotFoundError, GroupInactiveError, JSONDecodeError and
// ValidationError.
var ErrModelFacing = errors.New("model-facing tool error")

// NotFoundError: no group holds a tool of that name.
type NotFoundError struct{ Name string }

func (e *NotFoundError) Error() string {
	return pycompat.ToolNotFound(e.Name)
}

func (e *NotFoundError) Is(target error) bool { return target == ErrModelFacing }

// GroupInactiveError: the tool exists but its group is not activated.
type GroupInactiveError struct{ Name, Group string }

func (e *GroupInactiveError) Error() string {
	return pycompat.ToolGroupInactive(e.Name, e.Group)
}

func (e *GroupInactiveError) Is(target error) bool { return target == ErrModelFacing }

// JSONDecodeError: the argument text is not (and could not be repaired
// into) a JSON object. Error() is the reference's multi-line
// <system-reminder> that quotes the problem and the input (inputs longer
// than 200 characters are shown as the first 100, "[TRUNCATE]", the last
// 100).
type JSONDecodeError struct {
	// Input is the raw argument text.
	Input string
	// Problem is the first line after "<system-reminder>", e.g.
	// "Error: Your argument string is decoded into a <class 'list'> object,
	// but a dict object is expected!".
	Problem string
}

func (e *JSONDecodeError) Is(target error) bool { return target == ErrModelFacing }

// ValidationError: the arguments do not satisfy the tool's input schema.
// Error() is "Input validation failed for tool '{Tool}': {Message}" where
// Message is phrased as Python's jsonschema would ("'hot' is not of type
// 'number'", "'a' is a required property", …).
type ValidationError struct {
	Tool    string
	Message string
	// Cause is the underlying validator error, when there is one.
	Cause error
}

func (e *ValidationError) Error() string {
	return pycompat.InputValidationFailed(e.Tool, e.Message)
}

func (e *ValidationError) Unwrap() error { return e.Cause }

func (e *ValidationError) Is(target error) bool { return target == ErrModelFacing }

// SchemaError: a tool's input schema is unusable (not an object schema, or
// not a valid JSON Schema). Returned when registering or building a tool.
type SchemaError struct {
	Tool string
	Err  error
}

func (e *SchemaError) Error() string {
	return "tool " + e.Tool + ": invalid input schema: " + e.Err.Error()
}

func (e *SchemaError) Unwrap() error { return e.Err }

// MergeError: a chunk cannot be folded into the response (a URL or mixed
// data block reusing an id).
type MergeError struct {
	BlockID string
	Reason  string
}

func (e *MergeError) Error() string { return "tool response: block " + e.BlockID + ": " + e.Reason }

// ErrExternal is the error result of running an external tool locally.
var ErrExternal = errors.New("external tool cannot be called locally")

// ErrDuplicateGroup and ErrUnknownGroup are returned by Toolkit group
// management; ErrReservedGroup when a group is named "basic".
var (
	ErrDuplicateGroup = errors.New("duplicate tool group")
	ErrUnknownGroup   = errors.New("unknown tool group")
	ErrReservedGroup  = errors.New("reserved tool group name")
)
