package engine

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
)

// Input is what one run answers: new user messages (a new reply), or a
// resume of the parked reply — the user's confirmations, or an external
// executor's results. Build one with Messages, Confirm or External, or
// read one off the native wire with ParseInput.
type Input struct {
	kind     inputKind
	msgs     []*message.Msg
	confirm  *event.UserConfirmResult
	external *event.ExternalExecutionResult
}

// inputKind is what a run answers.
type inputKind int

const (
	inputMsgs      inputKind = iota // new user messages: a new reply
	inputConfirm                    // USER_CONFIRM_RESULT: resume a parked reply
	inputExternal                   // EXTERNAL_EXECUTION_RESULT: resume a parked reply
	inputInterrupt                  // USER_INTERRUPT: close a parked reply
)

// Messages is the input of a new reply: user messages (at least one).
func Messages(msgs ...*message.Msg) Input { return Input{kind: inputMsgs, msgs: msgs} }

// Confirm resumes a reply parked on REQUIRE_USER_CONFIRM.
func Confirm(e *event.UserConfirmResult) Input { return Input{kind: inputConfirm, confirm: e} }

// External resumes a reply parked on REQUIRE_EXTERNAL_EXECUTION.
func External(e *event.ExternalExecutionResult) Input {
	return Input{kind: inputExternal, external: e}
}

// check refuses what no run could answer.
func (in Input) check() error {
	switch in.kind {
	case inputMsgs:
		if len(in.msgs) == 0 {
			return inputErr("input is an empty list")
		}
		for i, m := range in.msgs {
			if m == nil || m.Role != event.RoleUser {
				return inputErr(fmt.Sprintf("input[%d]: role must be %q", i, event.RoleUser))
			}
		}
	case inputConfirm:
		if in.confirm == nil || len(in.confirm.ConfirmResults) == 0 {
			return inputErr("confirm_results is empty")
		}
	case inputExternal:
		if in.external == nil || len(in.external.ExecutionResults) == 0 {
			return inputErr("execution_results is empty")
		}
	}
	return nil
}

// inputErr is a chat input refused before anything is stored; its text
// is the one the native API has always shown.
func inputErr(reason string) *InputError {
	return &InputError{Field: "input", Reason: "invalid input: " + reason}
}

// ParseInput reads the "input" of the native POST /chat/: a user Msg, a
// list of them, a USER_CONFIRM_RESULT or an EXTERNAL_EXECUTION_RESULT
// event. null, an empty list, a message that is not the user's, and any
// other event type are an *InputError: the reference accepts some of them
// and then fails the run (service.md §1.10).
func ParseInput(raw json.RawMessage) (Input, error) { return parseInput(raw, false) }

// parseInput is ParseInput; queued (an input read back from the store)
// also takes USER_INTERRUPT.
func parseInput(raw json.RawMessage, queued bool) (Input, error) {
	t := bytes.TrimSpace(raw)
	switch {
	case len(t) == 0 || string(t) == "null":
		return Input{}, inputErr("input is required (a user message, a list of them, or a resume event)")
	case t[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(t, &items); err != nil {
			return Input{}, inputErr(fmt.Sprintf("input: %v", err))
		}
		if len(items) == 0 {
			return Input{}, inputErr("input is an empty list")
		}
		in := Input{kind: inputMsgs}
		for i, it := range items {
			m, err := parseMsg(it)
			if err != nil {
				return Input{}, inputErr(fmt.Sprintf("input[%d]: %v", i, err))
			}
			in.msgs = append(in.msgs, m)
		}
		return in, nil
	case t[0] != '{':
		return Input{}, inputErr("input must be an object or a list")
	}
	var probe struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(t, &probe); err != nil {
		return Input{}, inputErr(fmt.Sprintf("input: %v", err))
	}
	if probe.Type == nil {
		m, err := parseMsg(t)
		if err != nil {
			return Input{}, inputErr(fmt.Sprintf("input: %v", err))
		}
		return Input{kind: inputMsgs, msgs: []*message.Msg{m}}, nil
	}
	ev, err := event.Decode(t)
	if err != nil {
		return Input{}, inputErr(fmt.Sprintf("input: %v", err))
	}
	switch e := ev.(type) {
	case *event.UserConfirmResult:
		in := Confirm(e)
		if err := in.check(); err != nil {
			return Input{}, err
		}
		return in, nil
	case *event.ExternalExecutionResult:
		in := External(e)
		if err := in.check(); err != nil {
			return Input{}, err
		}
		return in, nil
	case *event.UserInterrupt:
		if queued {
			return Input{kind: inputInterrupt}, nil
		}
	}
	return Input{}, inputErr(fmt.Sprintf("input event %s is not accepted (send USER_CONFIRM_RESULT or EXTERNAL_EXECUTION_RESULT)", ev.Type()))
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
func (in Input) marshal() json.RawMessage {
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
