package permission

import (
	"errors"
	"fmt"
)

// ErrInvalidContext is wrapped by every error decoding a Context.
var ErrInvalidContext = errors.New("permission: invalid permission context")

// ModeError reports an unknown permission mode.
type ModeError struct{ Mode string }

func (e *ModeError) Error() string { return fmt.Sprintf("permission: unknown mode %q", e.Mode) }

// Is makes a ModeError match ErrInvalidContext.
func (e *ModeError) Is(target error) bool { return target == ErrInvalidContext }

// ParseMode validates a wire mode value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeDefault, ModeAcceptEdits, ModeExplore, ModeBypass, ModeDontAsk:
		return m, nil
	}
	return "", &ModeError{Mode: s}
}
