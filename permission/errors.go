package permission

import (
	"errors"
	"fmt"
)

// ErrInvalidContext is matched (errors.Is) by every error decoding a Context.
var ErrInvalidContext = errors.New("permission: invalid permission context")

// ModeError reports an unknown permission mode.
type ModeError struct{ Mode string }

func (e *ModeError) Error() string { return fmt.Sprintf("permission: unknown mode %q", e.Mode) }

// Is makes a ModeError match ErrInvalidContext.
func (e *ModeError) Is(target error) bool { return target == ErrInvalidContext }

// DecodeError reports a malformed field of a permission_context, e.g.
// Field "allow_rules.Bash[0]" with the rule's own decoding error in Err.
type DecodeError struct {
	Field string // "" when the document itself is not an object
	Err   error
}

func (e *DecodeError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("permission context: %v", e.Err)
	}
	return fmt.Sprintf("permission context: field %q: %v", e.Field, e.Err)
}

// Unwrap exposes both ErrInvalidContext and the underlying error.
func (e *DecodeError) Unwrap() []error { return []error{ErrInvalidContext, e.Err} }
