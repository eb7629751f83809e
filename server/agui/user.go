package agui

import (
	"encoding/base64"
	"fmt"
	"mime"
	"net/url"
	"path"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
)

// DefaultUserName is the name of a native user Msg built from an AG-UI
// message that has none.
const DefaultUserName = "user"

// agentRoles are the roles of what the agent said: a client builds these
// messages from the agent's events, so the last of them marks how far the
// session has already seen the thread.
var agentRoles = map[string]bool{"assistant": true, "tool": true, "reasoning": true, "activity": true}

// NewUserMessages picks the user messages of msgs (a RunAgentInput's
// whole history, as AG-UI clients send it) that are new to the session:
// those after the last message of the agent's (assistant, tool, reasoning
// or activity), whose id the session does not hold yet (stored reports
// that; nil: it holds none) and that do not repeat an earlier id of the
// same request. The first rule keeps a client's replayed history out; the
// second a retried request, and a client that keeps no agent messages, out.
// System and developer messages are never input: the agent's instructions
// are its own configuration.
func NewUserMessages(msgs []Message, stored func(id string) bool) []Message {
	var out []Message
	for _, i := range newUserIndices(msgs, stored) {
		out = append(out, msgs[i])
	}
	return out
}

func newUserIndices(msgs []Message, stored func(id string) bool) []int {
	from := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if agentRoles[msgs[i].Role] {
			from = i + 1
			break
		}
	}
	var idx []int
	seen := map[string]bool{}
	for i := from; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role != "user" || seen[m.ID] || (stored != nil && stored(m.ID)) {
			continue
		}
		seen[m.ID] = true
		idx = append(idx, i)
	}
	return idx
}

// NewInput returns the native user Msgs of a run request: its new user
// messages (NewUserMessages), converted by UserMsg. An error is an
// *InputError naming the message ("messages[3].content[1]…").
func NewInput(in *RunAgentInput, stored func(id string) bool) ([]*message.Msg, error) {
	var out []*message.Msg
	for _, i := range newUserIndices(in.Messages, stored) {
		m, err := in.Messages[i].UserMsg()
		if err != nil {
			if ie, ok := err.(*InputError); ok {
				ie.Path = fmt.Sprintf("messages[%d].%s", i, ie.Path)
			}
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// UserMsg converts a user message into a native user Msg with the same id
// (so that the session knows it next time), named after the message
// (DefaultUserName when it has none). A string content becomes one text
// block; parts become text and data blocks: inline base64 as a base64
// source, a URL as a URL source (its media type from mimeType, else from
// the URL's extension, else the part's kind, as "image/*"). A provider's
// file id has no native form and is an *InputError, as are bad base64 and
// a URL that is not absolute.
func (m *Message) UserMsg() (*message.Msg, error) {
	if m.Role != "user" {
		return nil, inputErr("role", "want a user message, got %q", m.Role)
	}
	name := m.Name
	if name == "" {
		name = DefaultUserName
	}
	if m.Content.Parts == nil {
		return message.UserText(name, m.Content.Text, message.WithID(m.ID)), nil
	}
	blocks, err := partBlocks("content", m.Content.Parts)
	if err != nil {
		return nil, err
	}
	msg, err := message.UserMsg(name, blocks, message.WithID(m.ID))
	if err != nil {
		return nil, inputErr("content", "%v", err)
	}
	return msg, nil
}

// partBlocks converts content parts into text and data blocks.
func partBlocks(at string, parts []Part) ([]block.Block, error) {
	blocks := make([]block.Block, 0, len(parts))
	for i, p := range parts {
		path := fmt.Sprintf("%s[%d]", at, i)
		if p.Type == "text" {
			blocks = append(blocks, block.NewText(p.Text))
			continue
		}
		src, err := partSource(path+".source", p)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, block.NewData(src))
	}
	return blocks, nil
}

func partSource(at string, p Part) (block.Source, error) {
	s := p.Source
	switch s.Type {
	case "data":
		if _, err := base64.StdEncoding.DecodeString(s.Value); err != nil {
			return nil, inputErr(at+".value", "not base64: %v", err)
		}
		return block.NewBase64(s.MimeType, s.Value), nil
	case "url":
		mt := s.MimeType
		if mt == "" {
			mt = guessMediaType(p.Type, s.Value)
		}
		u, err := block.NewURL(mt, s.Value)
		if err != nil {
			return nil, inputErr(at+".value", "%v", err)
		}
		return u, nil
	}
	return nil, inputErr(at+".type", "a %q source (a provider's file id) cannot be given to the agent: send the data or a URL", s.Type)
}

func guessMediaType(kind, raw string) string {
	if u, err := url.Parse(raw); err == nil {
		if mt := mime.TypeByExtension(path.Ext(u.Path)); mt != "" {
			return mt
		}
	}
	if kind == "document" {
		return "application/octet-stream"
	}
	return kind + "/*"
}
