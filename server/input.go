package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
)

// inputKind is what a run answers.
type inputKind int

const (
	inputMsgs      inputKind = iota // new user messages: a new reply
	inputConfirm                    // USER_CONFIRM_RESULT: resume a parked reply
	inputExternal                   // EXTERNAL_EXECUTION_RESULT: resume a parked reply
	inputInterrupt                  // USER_INTERRUPT: close a parked reply
)

// runInput is a decoded run input.
type runInput struct {
	kind     inputKind
	msgs     []*message.Msg
	confirm  *event.UserConfirmResult
	external *event.ExternalExecutionResult
}

// errInput is a chat input the server refuses before anything is stored.
var errInput = errors.New("invalid input")

// parseInput reads the "input" of POST /chat/ (and of a queued input): a
// user Msg, a list of them, a USER_CONFIRM_RESULT or an
// EXTERNAL_EXECUTION_RESULT event (USER_INTERRUPT only from the queue).
// null, an empty list, a message that is not the user's, and any other
// event type are errors wrapping errInput: the reference accepts some of
// them and then fails the run (service.md §1.10).
func parseInput(raw json.RawMessage, queued bool) (runInput, error) {
	t := bytes.TrimSpace(raw)
	switch {
	case len(t) == 0 || string(t) == "null":
		return runInput{}, fmt.Errorf("%w: input is required (a user message, a list of them, or a resume event)", errInput)
	case t[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(t, &items); err != nil {
			return runInput{}, fmt.Errorf("%w: input: %v", errInput, err)
		}
		if len(items) == 0 {
			return runInput{}, fmt.Errorf("%w: input is an empty list", errInput)
		}
		in := runInput{kind: inputMsgs}
		for i, it := range items {
			m, err := parseMsg(it)
			if err != nil {
				return runInput{}, fmt.Errorf("%w: input[%d]: %v", errInput, i, err)
			}
			in.msgs = append(in.msgs, m)
		}
		return in, nil
	case t[0] != '{':
		return runInput{}, fmt.Errorf("%w: input must be an object or a list", errInput)
	}
	var probe struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(t, &probe); err != nil {
		return runInput{}, fmt.Errorf("%w: input: %v", errInput, err)
	}
	if probe.Type == nil {
		m, err := parseMsg(t)
		if err != nil {
			return runInput{}, fmt.Errorf("%w: input: %v", errInput, err)
		}
		return runInput{kind: inputMsgs, msgs: []*message.Msg{m}}, nil
	}
	ev, err := event.Decode(t)
	if err != nil {
		return runInput{}, fmt.Errorf("%w: input: %v", errInput, err)
	}
	switch e := ev.(type) {
	case *event.UserConfirmResult:
		if len(e.ConfirmResults) == 0 {
			return runInput{}, fmt.Errorf("%w: confirm_results is empty", errInput)
		}
		return runInput{kind: inputConfirm, confirm: e}, nil
	case *event.ExternalExecutionResult:
		if len(e.ExecutionResults) == 0 {
			return runInput{}, fmt.Errorf("%w: execution_results is empty", errInput)
		}
		return runInput{kind: inputExternal, external: e}, nil
	case *event.UserInterrupt:
		if queued {
			return runInput{kind: inputInterrupt}, nil
		}
	}
	return runInput{}, fmt.Errorf("%w: input event %s is not accepted (send USER_CONFIRM_RESULT or EXTERNAL_EXECUTION_RESULT)", errInput, ev.Type())
}

func parseMsg(raw json.RawMessage) (*message.Msg, error) {
	var m message.Msg
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m.Role != event.RoleUser {
		return nil, fmt.Errorf("role must be %q, got %q", event.RoleUser, m.Role)
	}
	return &m, nil
}

// marshal is the input as queued: the JSON parseInput reads back.
func (in runInput) marshal() json.RawMessage {
	switch in.kind {
	case inputConfirm:
		return event.Marshal(in.confirm)
	case inputExternal:
		return event.Marshal(in.external)
	case inputInterrupt:
		e := &event.UserInterrupt{}
		event.Stamp(e, nil)
		return event.Marshal(e)
	}
	b := []byte{'['}
	for i, m := range in.msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = m.AppendJSON(b)
	}
	return append(b, ']')
}
