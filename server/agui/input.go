package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrInvalidInput is wrapped by every *InputError.
var ErrInvalidInput = errors.New("invalid AG-UI input")

// InputError reports a RunAgentInput (or a resume payload) that does not
// have the shape AG-UI gives it: Path locates the member, as in
// "messages[2].content[0].source.value" ("" for the body itself).
type InputError struct {
	Path    string
	Problem string
}

func (e *InputError) Error() string {
	if e.Path == "" {
		return "agui: " + e.Problem
	}
	return "agui: " + e.Path + ": " + e.Problem
}

// Unwrap returns ErrInvalidInput.
func (e *InputError) Unwrap() error { return ErrInvalidInput }

func inputErr(path, format string, args ...any) *InputError {
	return &InputError{Path: path, Problem: fmt.Sprintf(format, args...)}
}

// RunAgentInput is the body of an AG-UI run request (@ag-ui/core 1.0's
// RunAgentInput). The members AG-UI leaves to the agent (state,
// forwardedProps, a tool's parameters, a resume's payload) are kept as raw
// JSON, nil when absent.
type RunAgentInput struct {
	ThreadID        string
	RunID           string
	ParentRunID     string
	ProtocolVersion string
	State           json.RawMessage
	Messages        []Message
	Tools           []Tool
	Context         []Context
	ForwardedProps  json.RawMessage
	Resume          []ResumeEntry
}

// Message is one message of the thread's history. Content is set for the
// roles that carry it (the parts form only for user and tool messages);
// ToolCalls for assistant messages, ToolCallID for tool messages. Raw is
// the message as the client sent it.
type Message struct {
	ID         string
	Role       string // developer, system, assistant, user, tool, activity or reasoning
	Name       string
	Content    Content
	ToolCalls  []ToolCall
	ToolCallID string
	Raw        json.RawMessage
}

// Content is a message's content: a string (Parts nil) or a list of parts.
type Content struct {
	Text  string
	Parts []Part
}

// Part is one part of a multimodal content: text, or an image, audio,
// video or document with its Source.
type Part struct {
	Type   string // text, image, audio, video or document
	Text   string
	Source Source
}

// Source is where a media part's bytes are: inline base64 (Type "data"),
// at a URL ("url"), or a provider's file id ("file").
type Source struct {
	Type     string
	Value    string
	MimeType string
	Provider string
}

// ToolCall is an assistant message's function call.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Tool is a tool the client offers (frontend tools).
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Context is a piece of context the client supplies.
type Context struct {
	Description string
	Value       string
}

// ResumeEntry answers one interrupt of the previous run.
type ResumeEntry struct {
	InterruptID string
	Status      string // "resolved" or "cancelled"
	Payload     json.RawMessage
	Metadata    json.RawMessage
}

// Resume statuses.
const (
	StatusResolved  = "resolved"
	StatusCancelled = "cancelled"
)

// The roles @ag-ui/core 1.0 defines.
var roles = map[string]bool{"developer": true, "system": true, "assistant": true, "user": true, "tool": true, "activity": true, "reasoning": true}

// ParseRunAgentInput reads a RunAgentInput as @ag-ui/core's schema
// defines it. It is strict where the schema is: required members present,
// every member of the type the schema gives it, an optional member
// omitted rather than null (the client writes no nulls), enumerations
// (role, status, part and source types) among their values, and, beyond
// the schema, the body valid UTF-8 and inline media valid base64. Members
// it does not know are ignored, since the schema's objects are open and
// newer clients add members. Every failure is an *InputError.
func ParseRunAgentInput(data []byte) (*RunAgentInput, error) {
	if !utf8.Valid(data) {
		return nil, inputErr("", "the body is not valid UTF-8")
	}
	o, err := object("", data)
	if err != nil {
		return nil, err
	}
	in := &RunAgentInput{}
	if in.ThreadID, err = o.str("threadId", true); err != nil {
		return nil, err
	}
	if in.RunID, err = o.str("runId", true); err != nil {
		return nil, err
	}
	if in.ParentRunID, err = o.str("parentRunId", false); err != nil {
		return nil, err
	}
	if in.ProtocolVersion, err = o.str("protocolVersion", false); err != nil {
		return nil, err
	}
	in.State = o.any("state")
	in.ForwardedProps = o.any("forwardedProps")
	msgs, err := o.array("messages", true)
	if err != nil {
		return nil, err
	}
	for i, raw := range msgs {
		m, err := parseMessage(fmt.Sprintf("messages[%d]", i), raw)
		if err != nil {
			return nil, err
		}
		in.Messages = append(in.Messages, m)
	}
	tools, err := o.array("tools", false)
	if err != nil {
		return nil, err
	}
	for i, raw := range tools {
		t, err := object(fmt.Sprintf("tools[%d]", i), raw)
		if err != nil {
			return nil, err
		}
		var tool Tool
		if tool.Name, err = t.str("name", true); err != nil {
			return nil, err
		}
		if tool.Description, err = t.str("description", true); err != nil {
			return nil, err
		}
		tool.Parameters = t.any("parameters")
		in.Tools = append(in.Tools, tool)
	}
	ctx, err := o.array("context", false)
	if err != nil {
		return nil, err
	}
	for i, raw := range ctx {
		c, err := object(fmt.Sprintf("context[%d]", i), raw)
		if err != nil {
			return nil, err
		}
		var item Context
		if item.Description, err = c.str("description", true); err != nil {
			return nil, err
		}
		if item.Value, err = c.str("value", true); err != nil {
			return nil, err
		}
		in.Context = append(in.Context, item)
	}
	resume, err := o.array("resume", false)
	if err != nil {
		return nil, err
	}
	for i, raw := range resume {
		r, err := object(fmt.Sprintf("resume[%d]", i), raw)
		if err != nil {
			return nil, err
		}
		var e ResumeEntry
		if e.InterruptID, err = r.str("interruptId", true); err != nil {
			return nil, err
		}
		if e.Status, err = r.str("status", true); err != nil {
			return nil, err
		}
		if e.Status != StatusResolved && e.Status != StatusCancelled {
			return nil, inputErr(r.at("status"), "want %q or %q, got %q", StatusResolved, StatusCancelled, e.Status)
		}
		e.Payload = r.any("payload")
		if e.Metadata, err = r.object("metadata"); err != nil {
			return nil, err
		}
		in.Resume = append(in.Resume, e)
	}
	return in, nil
}

func parseMessage(path string, raw json.RawMessage) (Message, error) {
	o, err := object(path, raw)
	if err != nil {
		return Message{}, err
	}
	m := Message{Raw: raw}
	if m.ID, err = o.str("id", true); err != nil {
		return m, err
	}
	if m.Role, err = o.str("role", true); err != nil {
		return m, err
	}
	if !roles[m.Role] {
		return m, inputErr(o.at("role"), "unknown role %q", m.Role)
	}
	if m.Name, err = o.str("name", false); err != nil {
		return m, err
	}
	switch m.Role {
	case "user", "tool":
		if m.Content, err = o.content("content"); err != nil {
			return m, err
		}
		if m.Role == "tool" {
			if m.ToolCallID, err = o.str("toolCallId", true); err != nil {
				return m, err
			}
		}
	case "developer", "system", "reasoning":
		if m.Content.Text, err = o.str("content", true); err != nil {
			return m, err
		}
	case "assistant":
		if m.Content.Text, err = o.str("content", false); err != nil {
			return m, err
		}
		calls, err := o.array("toolCalls", false)
		if err != nil {
			return m, err
		}
		for i, raw := range calls {
			c, err := object(fmt.Sprintf("%s.toolCalls[%d]", path, i), raw)
			if err != nil {
				return m, err
			}
			var call ToolCall
			if call.ID, err = c.str("id", true); err != nil {
				return m, err
			}
			fn, err := c.required("function")
			if err != nil {
				return m, err
			}
			f, err := object(c.at("function"), fn)
			if err != nil {
				return m, err
			}
			if call.Name, err = f.str("name", true); err != nil {
				return m, err
			}
			if call.Arguments, err = f.str("arguments", true); err != nil {
				return m, err
			}
			m.ToolCalls = append(m.ToolCalls, call)
		}
	}
	return m, nil
}

// The part and source types of @ag-ui/core 1.0's content parts.
var (
	mediaParts  = map[string]bool{"image": true, "audio": true, "video": true, "document": true}
	sourceTypes = map[string]bool{"data": true, "url": true, "file": true}
)

// content reads a string or a list of parts.
func (o obj) content(k string) (Content, error) {
	raw, err := o.required(k)
	if err != nil {
		return Content{}, err
	}
	path := o.at(k)
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return Content{}, inputErr(path, "want a string or an array of parts")
		}
		return Content{Text: s}, nil
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return Content{}, inputErr(path, "want a string or an array of parts")
	}
	c := Content{Parts: []Part{}}
	for i, item := range items {
		p, err := object(fmt.Sprintf("%s[%d]", path, i), item)
		if err != nil {
			return c, err
		}
		var part Part
		if part.Type, err = p.str("type", true); err != nil {
			return c, err
		}
		switch {
		case part.Type == "text":
			if part.Text, err = p.str("text", true); err != nil {
				return c, err
			}
		case mediaParts[part.Type]:
			sraw, err := p.required("source")
			if err != nil {
				return c, err
			}
			s, err := object(p.at("source"), sraw)
			if err != nil {
				return c, err
			}
			if part.Source.Type, err = s.str("type", true); err != nil {
				return c, err
			}
			if !sourceTypes[part.Source.Type] {
				return c, inputErr(s.at("type"), "unknown source type %q", part.Source.Type)
			}
			if part.Source.Value, err = s.str("value", true); err != nil {
				return c, err
			}
			if part.Source.MimeType, err = s.str("mimeType", part.Source.Type == "data"); err != nil {
				return c, err
			}
			if part.Source.Provider, err = s.str("provider", false); err != nil {
				return c, err
			}
		default:
			return c, inputErr(p.at("type"), "unknown part type %q", part.Type)
		}
		c.Parts = append(c.Parts, part)
	}
	return c, nil
}

// obj is a JSON object being read, with its path for errors.
type obj struct {
	path string
	m    map[string]json.RawMessage
}

func object(path string, data []byte) (obj, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return obj{}, inputErr(path, "want a JSON object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return obj{}, inputErr(path, "not a JSON object: %v", err)
	}
	return obj{path: path, m: m}, nil
}

func (o obj) at(k string) string {
	if o.path == "" {
		return k
	}
	return o.path + "." + k
}

// raw returns member k, nil when absent; null is an error for a member
// whose schema gives it a type.
func (o obj) raw(k string) (json.RawMessage, error) {
	v, ok := o.m[k]
	if !ok {
		return nil, nil
	}
	if string(v) == "null" {
		return nil, inputErr(o.at(k), "null is not allowed: omit the member")
	}
	return v, nil
}

func (o obj) required(k string) (json.RawMessage, error) {
	v, err := o.raw(k)
	if err == nil && v == nil {
		err = inputErr(o.at(k), "required")
	}
	return v, err
}

func (o obj) str(k string, required bool) (string, error) {
	v, err := o.raw(k)
	if err != nil || v == nil {
		if err == nil && required {
			err = inputErr(o.at(k), "required")
		}
		return "", err
	}
	var s string
	if v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return "", inputErr(o.at(k), "want a string")
	}
	return s, nil
}

func (o obj) array(k string, required bool) ([]json.RawMessage, error) {
	v, err := o.raw(k)
	if err != nil || v == nil {
		if err == nil && required {
			err = inputErr(o.at(k), "required")
		}
		return nil, err
	}
	var items []json.RawMessage
	if v[0] != '[' || json.Unmarshal(v, &items) != nil {
		return nil, inputErr(o.at(k), "want an array")
	}
	return items, nil
}

// object returns member k if it is an object, nil when absent.
func (o obj) object(k string) (json.RawMessage, error) {
	v, err := o.raw(k)
	if err != nil || v == nil {
		return nil, err
	}
	if v[0] != '{' {
		return nil, inputErr(o.at(k), "want an object")
	}
	return v, nil
}

// any returns member k, whatever it holds (null included), nil when absent.
func (o obj) any(k string) json.RawMessage { return o.m[k] }
