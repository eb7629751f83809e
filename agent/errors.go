package agent

import (
	"errors"
	"fmt"
)

// Errors the caller can branch on with errors.Is.
var (
	// ErrInvalidInput is wrapped by an *InputError about the input itself
	// (a message that may not be sent, an external result the agent could
	// not store, a nil resume event).
	ErrInvalidInput = errors.New("invalid reply input")
	// ErrInvalidResume is wrapped by an *InputError about a resume that
	// does not fit what the parked reply waits for.
	ErrInvalidResume = errors.New("invalid resume")
	// ErrBusy is returned when a reply is started while another one runs on
	// the same agent.
	ErrBusy = errors.New("agent: a reply is already running")
	// ErrNoFinalMessage is returned by Reply when the reply produced no
	// message: a Reply middleware ended the stream without passing the
	// final message on.
	ErrNoFinalMessage = errors.New("Agent did not produce a final message.")
	// ErrNoProgress is the guard against a middleware that swallows
	// REPLY_END twice with nothing done in between (the text is the
	// reference's).
	ErrNoProgress = errors.New("A middleware swallowed the ReplyEndEvent twice without any reasoning/acting in between. Unblock the next round (e.g. adjust 'cur_iter', 'max_iters' or the structured output state) before swallowing the event again.")
	// ErrPanicked is wrapped by the error of a reply in which a tool
	// call's middleware or permission check panicked. A tool's own panic,
	// or a chunk the agent cannot fold (a foreign or typed-nil block),
	// becomes that call's error result instead.
	ErrPanicked = errors.New("agent: a tool call panicked")
)

// InputError rejects an input or a resume before anything happened: no
// event was emitted and the state is unchanged. Its text is the
// reference's ValueError message.
type InputError struct {
	Msg  string
	kind error
}

func (e *InputError) Error() string { return e.Msg }

// Unwrap returns ErrInvalidInput or ErrInvalidResume.
func (e *InputError) Unwrap() error { return e.kind }

func inputErr(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...), kind: ErrInvalidInput}
}

func resumeErr(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...), kind: ErrInvalidResume}
}

// ModelCallError reports a model call that failed on every attempt (and on
// the fallback model, if any).
type ModelCallError struct {
	Model    string // the last model tried
	Attempts int    // requests made in total, the adapters' own retries included
	Err      error  // the last failure
}

func (e *ModelCallError) Error() string {
	return fmt.Sprintf("model %s failed after %d attempt(s): %v", e.Model, e.Attempts, e.Err)
}

func (e *ModelCallError) Unwrap() error { return e.Err }

// StreamError reports a model stream that broke after it had started (it
// is not retried).
type StreamError struct {
	Model string
	Err   error
}

func (e *StreamError) Error() string { return fmt.Sprintf("model %s stream broke: %v", e.Model, e.Err) }

func (e *StreamError) Unwrap() error { return e.Err }
