package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/permission"
)

// Errors a resume can have, wrapped by *ResumeError. AG-UI asks a resume
// to answer every open interrupt of the run it continues, each once.
var (
	ErrUnknownInterrupt = errors.New("the interrupt id matches no pending tool call")
	ErrUnanswered       = errors.New("a pending tool call is not answered")
	ErrAnsweredTwice    = errors.New("an interrupt is answered twice")
	ErrNotParked        = errors.New("not a park event (REQUIRE_USER_CONFIRM or REQUIRE_EXTERNAL_EXECUTION)")
)

// ResumeError reports a resume that does not answer the parked reply's
// pending calls: InterruptID is the entry (or, for ErrUnanswered, the
// interrupt) at fault.
type ResumeError struct {
	InterruptID string
	Err         error
}

func (e *ResumeError) Error() string {
	return fmt.Sprintf("agui: interrupt %q: %v", e.InterruptID, e.Err)
}

// Unwrap returns the sentinel error.
func (e *ResumeError) Unwrap() error { return e.Err }

// ResumeEvents converts a request's resume entries into the native events
// that answer a parked reply. parked are the events the reply parked on,
// as the caller recorded them (a park may hold both kinds); their calls
// are the pending ones, each the target of the interrupt Run.Finish
// announced for it. The result holds a USER_CONFIRM_RESULT when some call
// awaited a confirmation and an EXTERNAL_EXECUTION_RESULT when some
// awaited an external execution, in the order the parked events came, for
// the caller to deliver in that order; ids and timestamps are left for the
// caller to stamp (event.Stamp).
//
// A confirmation is approved when the entry is "resolved" and its payload
// does not say otherwise ({"approved": false}, or "confirmed", the native
// word); "cancelled" denies it. An approval may carry editedArgs (AG-UI's
// full replacement of the arguments, an object) or input (the native
// input, a JSON string or object), and rules: true for the call's
// suggested rules, or a list of rules to add. An external execution's
// payload holds result (the output: a string, or any JSON, kept as its
// text) or content (a string or AG-UI content parts), isError for a
// failed run, and metadata for the result's; "cancelled" answers it as
// interrupted by the user.
//
// An entry whose interrupt matches no pending call, a call left
// unanswered and a call answered twice are *ResumeError; a payload of the
// wrong shape is an *InputError whose path starts at resume[i].
func ResumeEvents(resume []ResumeEntry, parked ...event.Event) ([]event.Event, error) {
	type pending struct {
		reason string
		call   *block.ToolCall
		entry  int // the answering entry, -1 until one is found
	}
	var (
		calls   []*pending
		byID    = map[string]*pending{}
		replyID string
		kinds   []string
	)
	for _, p := range parked {
		var reason string
		var tcs []*block.ToolCall
		switch e := p.(type) {
		case *event.RequireUserConfirm:
			if e == nil {
				continue
			}
			reason, tcs, replyID = ReasonConfirm, e.ToolCalls, e.ReplyID
		case *event.RequireExternalExecution:
			if e == nil {
				continue
			}
			reason, tcs, replyID = ReasonExternal, e.ToolCalls, e.ReplyID
		default:
			typ := "nil"
			if p != nil {
				typ = string(p.Type())
			}
			return nil, fmt.Errorf("agui: %s: %w", typ, ErrNotParked)
		}
		if !slices.Contains(kinds, reason) {
			kinds = append(kinds, reason)
		}
		for _, c := range tcs {
			if c == nil {
				continue
			}
			id := interruptID(reason, c.ID)
			if byID[id] == nil {
				byID[id] = &pending{reason: reason, call: c, entry: -1}
				calls = append(calls, byID[id])
			}
		}
	}
	for i, r := range resume {
		p := byID[r.InterruptID]
		switch {
		case p == nil:
			return nil, &ResumeError{InterruptID: r.InterruptID, Err: ErrUnknownInterrupt}
		case p.entry >= 0:
			return nil, &ResumeError{InterruptID: r.InterruptID, Err: ErrAnsweredTwice}
		}
		p.entry = i
	}
	for _, p := range calls {
		if p.entry < 0 {
			return nil, &ResumeError{InterruptID: interruptID(p.reason, p.call.ID), Err: ErrUnanswered}
		}
	}
	confirm := &event.UserConfirmResult{ReplyID: replyID}
	external := &event.ExternalExecutionResult{ReplyID: replyID}
	for _, p := range calls {
		at := fmt.Sprintf("resume[%d].payload", p.entry)
		entry := resume[p.entry]
		if p.reason == ReasonConfirm {
			res, err := confirmResult(at, entry, p.call)
			if err != nil {
				return nil, err
			}
			confirm.ConfirmResults = append(confirm.ConfirmResults, res)
			continue
		}
		res, err := executionResult(at, entry, p.call)
		if err != nil {
			return nil, err
		}
		external.ExecutionResults = append(external.ExecutionResults, res)
	}
	var out []event.Event
	for _, k := range kinds {
		if k == ReasonConfirm && len(confirm.ConfirmResults) > 0 {
			out = append(out, confirm)
		}
		if k == ReasonExternal && len(external.ExecutionResults) > 0 {
			out = append(out, external)
		}
	}
	return out, nil
}

func interruptID(reason, callID string) string {
	if reason == ReasonConfirm {
		return confirmPrefix + callID
	}
	return externalPrefix + callID
}

func confirmResult(at string, r ResumeEntry, call *block.ToolCall) (event.ConfirmResult, error) {
	c := call.CloneBlock().(*block.ToolCall)
	res := event.ConfirmResult{Confirmed: r.Status == StatusResolved, ToolCall: c}
	if !res.Confirmed || r.Payload == nil {
		return res, nil
	}
	o, err := object(at, r.Payload)
	if err != nil {
		return res, err
	}
	var said *bool
	for _, k := range []string{"approved", "confirmed"} {
		v, err := o.raw(k)
		if err != nil || v == nil {
			if err != nil {
				return res, err
			}
			continue
		}
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return res, inputErr(o.at(k), "want true or false")
		}
		if said != nil && *said != b {
			return res, inputErr(o.at(k), "approved and confirmed disagree")
		}
		said = &b
	}
	if said != nil {
		res.Confirmed = *said
	}
	edited, err := o.object("editedArgs")
	if err != nil {
		return res, err
	}
	input, err := o.raw("input")
	if err != nil {
		return res, err
	}
	switch {
	case edited != nil && input != nil:
		return res, inputErr(at, "editedArgs and input both replace the arguments: send one")
	case edited != nil:
		c.Input = compact(edited)
	case input != nil && input[0] == '"':
		var s string
		if json.Unmarshal(input, &s) != nil {
			return res, inputErr(o.at("input"), "want a JSON string or object")
		}
		c.Input = s
	case input != nil && input[0] == '{':
		c.Input = compact(input)
	case input != nil:
		return res, inputErr(o.at("input"), "want a JSON string or object")
	}
	rules, err := o.raw("rules")
	if err != nil || rules == nil {
		return res, err
	}
	switch {
	case string(rules) == "true":
		res.Rules = slices.Clone(call.SuggestedRules)
		if res.Rules == nil {
			res.Rules = []block.PermissionRule{}
		}
	case string(rules) == "false":
	default:
		if res.Rules, err = ParseRules(o.at("rules"), rules); err != nil {
			return res, err
		}
	}
	return res, nil
}

func executionResult(at string, r ResumeEntry, call *block.ToolCall) (*block.ToolResult, error) {
	res := &block.ToolResult{ID: call.ID, Name: call.Name, State: block.ResultSuccess}
	if r.Status == StatusCancelled {
		res.Output, res.State = block.PlainBody(pycompat.InterruptedToolText), block.ResultInterrupted
		return res, nil
	}
	if r.Payload == nil {
		return nil, inputErr(at, "required: an external execution is answered with its result")
	}
	o, err := object(at, r.Payload)
	if err != nil {
		return nil, err
	}
	result, err := o.raw("result")
	if err != nil {
		return nil, err
	}
	content, err := o.raw("content")
	if err != nil {
		return nil, err
	}
	switch {
	case result != nil && content != nil:
		return nil, inputErr(at, "result and content are both the output: send one")
	case result != nil && result[0] == '"':
		var s string
		_ = json.Unmarshal(result, &s)
		res.Output = block.PlainBody(s)
	case result != nil:
		res.Output = block.PlainBody(compact(result))
	case content != nil:
		c, err := o.content("content")
		if err != nil {
			return nil, err
		}
		if c.Parts == nil {
			res.Output = block.PlainBody(c.Text)
			break
		}
		blocks, err := partBlocks(o.at("content"), c.Parts)
		if err != nil {
			return nil, err
		}
		res.Output = block.BlocksBody(blocks...)
	default:
		return nil, inputErr(at+".result", "required")
	}
	if res.Metadata, err = objectMap(o, "metadata"); err != nil {
		return nil, err
	}
	isErr, err := o.raw("isError")
	if err != nil {
		return nil, err
	}
	switch string(isErr) {
	case "", "false":
	case "true":
		res.State = block.ResultError
	default:
		return nil, inputErr(o.at("isError"), "want true or false")
	}
	return res, nil
}

// ParseRules reads a JSON array of permission rules, in the camelCase the
// interrupts' metadata writes them in (toolName, ruleContent, behavior,
// source) or in the native snake_case (tool_name, rule_content): behavior
// is allow, deny or ask; an absent or null ruleContent is the whole tool;
// an absent source is "suggested". at is the array's path for errors.
func ParseRules(at string, data []byte) ([]block.PermissionRule, error) {
	var items []json.RawMessage
	if d := bytes.TrimSpace(data); len(d) == 0 || d[0] != '[' || json.Unmarshal(d, &items) != nil {
		return nil, inputErr(at, "want an array of rules")
	}
	rules := make([]block.PermissionRule, 0, len(items))
	for i, item := range items {
		o, err := object(fmt.Sprintf("%s[%d]", at, i), item)
		if err != nil {
			return nil, err
		}
		var rule block.PermissionRule
		name, err := either(o, "toolName", "tool_name")
		if err != nil {
			return nil, err
		}
		rule.ToolName = name
		for _, k := range []string{"ruleContent", "rule_content"} {
			if v := o.m[k]; v != nil && string(v) != "null" {
				s, err := o.str(k, false)
				if err != nil {
					return nil, err
				}
				rule.RuleContent = block.Some(s)
			}
		}
		b, err := o.str("behavior", true)
		if err != nil {
			return nil, err
		}
		switch rule.Behavior = block.Behavior(b); rule.Behavior {
		case block.Allow, block.Deny, block.Ask:
		default:
			return nil, inputErr(o.at("behavior"), "want allow, deny or ask, got %q", b)
		}
		if rule.Source, err = o.str("source", false); err != nil {
			return nil, err
		}
		if rule.Source == "" {
			rule.Source = permission.SourceSuggested
		}
		rules = append(rules, rule)
	}
	return rules, nil
}

// either reads the string member a, or b when only b is there (two
// spellings of one member).
func either(o obj, a, b string) (string, error) {
	k := a
	if _, ok := o.m[a]; !ok {
		if _, ok := o.m[b]; ok {
			k = b
		}
	}
	return o.str(k, true)
}

// objectMap decodes member k, an object, for a block's metadata (nil when
// absent).
func objectMap(o obj, k string) (map[string]any, error) {
	raw, err := o.object(k)
	if err != nil || raw == nil {
		return nil, err
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // the wire writer keeps numbers as they were sent
	if err := dec.Decode(&m); err != nil {
		return nil, inputErr(o.at(k), "%v", err)
	}
	return m, nil
}

// compact returns a JSON value's text without insignificant space, its
// members in the order they were sent.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
