package a2a

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
)

// metaMessageID is the key of a transcript message's metadata that keeps
// the A2A messageId it came with. The client's id is not the message's
// own: it is the client's to choose, and a transcript keyed by it would
// let one message overwrite another.
const metaMessageID = "a2a_message_id"

// invalid is an invalid-params error.
func invalid(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// checkMessage refuses a message the protocol does not allow.
func checkMessage(m *Message) *Error {
	switch {
	case m == nil:
		return invalid("params.message is required")
	case m.MessageID == "":
		return invalid("params.message.messageId is required")
	case m.Role != RoleUser:
		return invalid("params.message.role must be ROLE_USER, got %q", m.Role)
	case len(m.Parts) == 0:
		return invalid("params.message.parts: at least one part is required")
	}
	for i, p := range m.Parts {
		if p.kinds() != 1 {
			return invalid("params.message.parts[%d]: exactly one of text, raw, url and data is required", i)
		}
	}
	return nil
}

// userMsg is a new message of the user's as the transcript keeps it: text
// as text, data as its JSON text, raw bytes and URLs as data blocks.
func userMsg(m *Message) (*message.Msg, *Error) {
	var content []block.Block
	for i, p := range m.Parts {
		switch {
		case p.Text != nil:
			content = append(content, block.NewText(*p.Text))
		case len(p.Data) > 0:
			var buf bytes.Buffer
			if err := json.Compact(&buf, p.Data); err != nil {
				return nil, invalid("params.message.parts[%d].data: %v", i, err)
			}
			content = append(content, block.NewText(buf.String()))
		case len(p.Raw) > 0:
			d := block.NewData(block.Base64Bytes(mediaTypeOr(p.MediaType), p.Raw))
			if p.Filename != "" {
				d.Name = block.Some(p.Filename)
			}
			content = append(content, d)
		default:
			src, err := block.NewURL(mediaTypeOr(p.MediaType), p.URL)
			if err != nil {
				return nil, &Error{Code: CodeContentTypeNotSupported, Message: fmt.Sprintf("params.message.parts[%d].url: %v", i, err)}
			}
			d := block.NewData(src)
			if p.Filename != "" {
				d.Name = block.Some(p.Filename)
			}
			content = append(content, d)
		}
	}
	msg, err := message.UserMsg("user", content, message.WithMetadata(map[string]any{metaMessageID: m.MessageID}))
	if err != nil {
		return nil, invalid("params.message: %v", err)
	}
	return msg, nil
}

func mediaTypeOr(mt string) string {
	if mt == "" {
		return "application/octet-stream"
	}
	return mt
}

// The answers a text part may give a confirmation, for all the calls it
// waits on.
var (
	yesWords    = []string{"yes", "y", "allow", "approve", "ok"}
	noWords     = []string{"no", "n", "deny", "reject"}
	alwaysWords = []string{"always"}
)

// confirmAnswer is a data part answering a confirmation.
type confirmAnswer struct {
	// Confirmed, with no Confirmations, answers every pending call.
	Confirmed           *bool          `json:"confirmed"`
	ApplySuggestedRules bool           `json:"applySuggestedRules"`
	Confirmations       []confirmation `json:"confirmations"`
}

type confirmation struct {
	ToolCallID string `json:"toolCallId"`
	Confirmed  *bool  `json:"confirmed"`
	// ApplySuggestedRules keeps the call's suggested rules, so the same
	// call is not asked about again.
	ApplySuggestedRules bool `json:"applySuggestedRules"`
	// Input, when set, replaces the call's arguments (an object, or its
	// JSON as a string).
	Input json.RawMessage `json:"input"`
}

// resultsAnswer is a data part answering calls the client ran.
type resultsAnswer struct {
	Results []struct {
		ToolCallID string          `json:"toolCallId"`
		Output     json.RawMessage `json:"output"`
		IsError    bool            `json:"isError"`
	} `json:"results"`
}

// resumeInput is the answer m gives the parked reply of t: a
// confirmation or the results of external calls. What it may be is
// documented in doc.go; anything else is invalid params, and nothing is
// stored.
func resumeInput(t *tracker, m *Message) (engine.Input, *Error) {
	var data json.RawMessage
	var text []string
	for _, p := range m.Parts {
		switch {
		case len(p.Data) > 0 && data == nil:
			data = p.Data
		case len(p.Data) > 0:
			return engine.Input{}, invalid("params.message: one data part answers a task, this message has more")
		case p.Text != nil && strings.TrimSpace(*p.Text) != "":
			text = append(text, strings.TrimSpace(*p.Text))
		}
	}
	if data != nil && probeType(data) != "" {
		// The native resume event, for a client that speaks both.
		in, err := engine.ParseInput(data)
		if err != nil {
			return engine.Input{}, invalid("params.message data part: %v", err)
		}
		return in, nil
	}
	switch park := t.park.(type) {
	case *event.RequireUserConfirm:
		return confirmInput(t.replyID, park.ToolCalls, data, strings.Join(text, " "))
	case *event.RequireExternalExecution:
		return externalInput(t.replyID, park.ToolCalls, data, strings.Join(text, "\n"))
	}
	return engine.Input{}, &Error{Code: CodeUnsupportedOperation, Message: "the task is not waiting for input"}
}

// probeType is a JSON object's "type", if it has one.
func probeType(raw json.RawMessage) string {
	var probe struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &probe) != nil {
		return ""
	}
	return probe.Type
}

func confirmInput(replyID string, calls []*block.ToolCall, data json.RawMessage, text string) (engine.Input, *Error) {
	res := &event.UserConfirmResult{ReplyID: replyID}
	answerAll := func(yes, rules bool) {
		for _, c := range calls {
			cr := event.ConfirmResult{Confirmed: yes, ToolCall: c.CloneBlock().(*block.ToolCall)}
			if yes && rules {
				cr.Rules = c.SuggestedRules
			}
			res.ConfirmResults = append(res.ConfirmResults, cr)
		}
	}
	switch {
	case data != nil:
		var a confirmAnswer
		if err := json.Unmarshal(data, &a); err != nil {
			return engine.Input{}, invalid("params.message data part: want {\"confirmed\"} or {\"confirmations\": [...]}: %v", err)
		}
		switch {
		case len(a.Confirmations) > 0:
			for i, cf := range a.Confirmations {
				c := findCall(calls, cf.ToolCallID)
				switch {
				case c == nil:
					return engine.Input{}, invalid("confirmations[%d].toolCallId %q is not a call this task waits on", i, cf.ToolCallID)
				case cf.Confirmed == nil:
					return engine.Input{}, invalid("confirmations[%d].confirmed (true or false) is required", i)
				}
				call := c.CloneBlock().(*block.ToolCall)
				if len(cf.Input) > 0 {
					in, err := callInput(cf.Input)
					if err != nil {
						return engine.Input{}, invalid("confirmations[%d].input: %v", i, err)
					}
					call.Input = in
				}
				cr := event.ConfirmResult{Confirmed: *cf.Confirmed, ToolCall: call}
				if *cf.Confirmed && cf.ApplySuggestedRules {
					cr.Rules = c.SuggestedRules
				}
				res.ConfirmResults = append(res.ConfirmResults, cr)
			}
		case a.Confirmed != nil:
			answerAll(*a.Confirmed, a.ApplySuggestedRules)
		default:
			return engine.Input{}, invalid("params.message data part: want {\"confirmed\": true|false} or {\"confirmations\": [{\"toolCallId\", \"confirmed\"}]}")
		}
	case isWord(text, yesWords):
		answerAll(true, false)
	case isWord(text, alwaysWords):
		answerAll(true, true)
	case isWord(text, noWords):
		answerAll(false, false)
	default:
		return engine.Input{}, invalid("the task waits for a confirmation: answer \"yes\", \"always\" or \"no\" (got %q), or send a data part {\"confirmations\": [...]}", cut(text, 80))
	}
	event.Stamp(res, nil)
	return engine.Confirm(res), nil
}

func externalInput(replyID string, calls []*block.ToolCall, data json.RawMessage, text string) (engine.Input, *Error) {
	res := &event.ExternalExecutionResult{ReplyID: replyID}
	switch {
	case data != nil:
		var a resultsAnswer
		if err := json.Unmarshal(data, &a); err != nil || len(a.Results) == 0 {
			return engine.Input{}, invalid("params.message data part: want {\"results\": [{\"toolCallId\", \"output\"}]}")
		}
		for i, r := range a.Results {
			c := findCall(calls, r.ToolCallID)
			if c == nil {
				return engine.Input{}, invalid("results[%d].toolCallId %q is not a call this task waits on", i, r.ToolCallID)
			}
			out := string(r.Output)
			var s string
			if json.Unmarshal(r.Output, &s) == nil {
				out = s
			}
			state := block.ResultSuccess
			if r.IsError {
				state = block.ResultError
			}
			res.ExecutionResults = append(res.ExecutionResults, &block.ToolResult{ID: c.ID, Name: c.Name, State: state, Output: block.PlainBody(out)})
		}
	case text != "" && len(calls) == 1:
		res.ExecutionResults = []*block.ToolResult{{ID: calls[0].ID, Name: calls[0].Name, State: block.ResultSuccess, Output: block.PlainBody(text)}}
	default:
		return engine.Input{}, invalid("the task waits for the results of %d tool calls: send a data part {\"results\": [{\"toolCallId\", \"output\"}]}", len(calls))
	}
	event.Stamp(res, nil)
	return engine.External(res), nil
}

func findCall(calls []*block.ToolCall, id string) *block.ToolCall {
	for _, c := range calls {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// callInput is a call's arguments from an edit: an object, or its JSON in
// a string.
func callInput(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return "", fmt.Errorf("want a JSON object")
	}
	var buf bytes.Buffer
	json.Compact(&buf, raw)
	return buf.String(), nil
}

func isWord(text string, words []string) bool {
	t := strings.ToLower(strings.TrimRight(strings.TrimSpace(text), ".!"))
	for _, w := range words {
		if t == w {
			return true
		}
	}
	return false
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
