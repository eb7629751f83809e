package engine

import (
	"errors"
	"fmt"
)

// The kinds of error the engine's operations return, for errors.Is. A
// transport maps each to its protocol (HTTP: 404, 409, 403, 503, 429, 409, 409)
// and shows the error's text, which says what happened in the reference's
// words ("Session not found", "Session is running").
var (
	// ErrNotFound: the session, agent or message does not exist for the
	// user (another user's is not found either).
	ErrNotFound = errors.New("not found")
	// ErrBusy: a run holds the session, here or in another process.
	ErrBusy = errors.New("busy")
	// ErrForbidden: the operation is not the user's to do (a configured
	// agent cannot be changed).
	ErrForbidden = errors.New("forbidden")
	// ErrUnavailable: the engine is shutting down, or has as many streams
	// open as it may (then Error.RetryAfter is set).
	ErrUnavailable = errors.New("unavailable")
	// ErrTooMany: the session has as many followers as it may.
	ErrTooMany = errors.New("too many")
	// ErrInterrupted: the run was interrupted before it started.
	ErrInterrupted = errors.New("interrupted")
	// ErrExists: a session was to be created with an id that a session,
	// the user's or another's, already has.
	ErrExists = errors.New("exists")
)

// Error is an engine error of one of the kinds above, with the text a
// client is shown.
type Error struct {
	Kind   error  // one of the Err variables
	Detail string // what a client is shown
	// RetryAfter is set on an ErrUnavailable that passes: come back then
	// (seconds).
	RetryAfter int
}

func (e *Error) Error() string { return e.Detail }

// Is reports whether target is e's kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

func newError(kind error, format string, args ...any) *Error {
	return &Error{Kind: kind, Detail: fmt.Sprintf(format, args...)}
}

// Errors with the reference's texts.
var (
	errSessionNotFound = newError(ErrNotFound, "Session not found")
	errAgentNotFound   = newError(ErrNotFound, "Agent not found")
	errRunning         = newError(ErrBusy, "Session is running")
	errShuttingDown    = newError(ErrUnavailable, "server is shutting down")
)

// InputError is input the engine refuses before anything is stored: a
// malformed or unacceptable chat input, a resume that does not fit the
// parked reply, a bad field of an agent. Field names what is wrong, in
// the native API's terms ("input", "base_agent_id", "react_config.max_iters").
type InputError struct {
	Field string
	// Reason says what is wrong with it.
	Reason string
	// Err is the cause, when there is one (an *agent.InputError).
	Err error
}

func (e *InputError) Error() string { return e.Reason }

func (e *InputError) Unwrap() error { return e.Err }
