package ollama

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/toolinput"
	"github.com/agentscope-go/agentscope/model/internal/toolresult"
)

// Wire shapes of the request.
type (
	chatMessage struct {
		Role      string     `json:"role"`
		Content   string     `json:"content"`
		Images    []string   `json:"images,omitempty"`
		ToolCalls []toolCall `json:"tool_calls,omitempty"`
		ToolName  string     `json:"tool_name,omitempty"`
	}
	toolCall struct {
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
)

var images = toolresult.Matcher("image/*")

// RequestBody returns the JSON body Stream would send for req.
func (m *Model) RequestBody(req *model.Request) ([]byte, error) {
	if req == nil {
		return nil, invalid("nil request", nil)
	}
	if err := req.ToolChoice.Validate(req.Tools); err != nil {
		return nil, invalid(err.Error(), err)
	}
	if c := req.ToolChoice; c != nil && c.Mode != "" && c.Mode != model.ChoiceAuto {
		m.log().Warn("ollama: tool_choice is not supported by the API; ignored", "mode", c.Mode)
	}
	msgs, err := formatMessages(req.Messages, m.log())
	if err != nil {
		return nil, err
	}
	body := map[string]any{"model": m.model, "messages": msgs, "stream": true}
	var tools []model.ToolSchema
	for _, t := range req.Tools {
		if c := req.ToolChoice; c != nil && c.Tools != nil && !contains(c.Tools, t.Name) {
			continue
		}
		tools = append(tools, t)
	}
	if len(tools) > 0 {
		body["tools"] = tools
	}
	if m.think != nil {
		body["think"] = m.think
	}
	if m.keepAlive != "" {
		body["keep_alive"] = m.keepAlive
	}
	if m.format != nil {
		body["format"] = m.format
	}
	opts := maps.Clone(m.options)
	// Per-call parameters: "options" entries merge into the model's
	// options, every other key is set at the top level.
	for k, v := range req.Extra {
		if o, ok := v.(map[string]any); ok && k == "options" {
			maps.Copy(opts, o)
			continue
		}
		body[k] = v
	}
	if len(opts) > 0 {
		body["options"] = opts
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, invalid("encoding the request: "+err.Error(), err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// pending is an assistant message being gathered: the text, images and
// every tool call of one turn go on one message (Ollama merges consecutive
// same-role messages and would keep only the first one's calls).
type pending struct {
	text   []string
	images []string
	calls  []toolCall
}

func (p *pending) empty() bool { return len(p.text) == 0 && len(p.images) == 0 && len(p.calls) == 0 }

func formatMessages(msgs []*message.Msg, log *slog.Logger) ([]chatMessage, error) {
	out := []chatMessage{}
	for mi, msg := range msgs {
		if msg == nil {
			continue
		}
		switch msg.Role {
		case event.RoleSystem, event.RoleUser:
			if cm, ok := userMessage(string(msg.Role), msg.Content); ok {
				out = append(out, cm)
			}
		case event.RoleAssistant:
			out = assistant(out, msg.Content, log)
		default:
			return nil, invalid(fmt.Sprintf("messages[%d]: unknown role %q", mi, msg.Role), message.ErrRole)
		}
	}
	return out, nil
}

func assistant(out []chatMessage, bs []block.Block, log *slog.Logger) []chatMessage {
	var p pending
	var promoted []block.Block
	var hints []chatMessage // hints that arrived while calls were unanswered
	unanswered := 0
	flush := func() {
		if !p.empty() {
			out = append(out, chatMessage{Role: "assistant", Content: strings.Join(p.text, "\n"), Images: p.images, ToolCalls: p.calls})
		}
		p = pending{}
	}
	// afterResults emits what waits for the end of a run of results: the
	// media they returned, then the hints held back.
	afterResults := func() {
		if cm, ok := userMessage("user", promoted); ok {
			out = append(out, cm)
		}
		out = append(out, hints...)
		promoted, hints = nil, nil
	}
	for _, b := range bs {
		_, isResult := b.(*block.ToolResult)
		_, isHint := b.(*block.Hint)
		if !isResult && !(isHint && unanswered > 0) && (promoted != nil || hints != nil) {
			afterResults()
		}
		switch b := b.(type) {
		case *block.Text:
			if b.Text != "" {
				p.text = append(p.text, b.Text)
			}
		case *block.Data:
			if img, note := media(b); img != "" {
				p.images = append(p.images, img)
			} else {
				p.text = append(p.text, note)
			}
		case *block.ToolCall:
			args, repaired := toolinput.Object(b.Input)
			if repaired {
				log.Warn("ollama: tool call arguments are not a JSON object; sending the repaired value", "id", b.ID, "input", b.Input, "sent", string(args))
			}
			var tc toolCall
			tc.Function.Name, tc.Function.Arguments = b.Name, args
			p.calls = append(p.calls, tc)
			unanswered++
		case *block.ToolResult:
			flush()
			text, media := toolresult.Flatten(b.Output, images)
			out = append(out, chatMessage{Role: "tool", Content: text, ToolName: b.Name})
			promoted = append(promoted, media...)
			unanswered = max(unanswered-1, 0)
		case *block.Hint:
			var cm chatMessage
			var ok bool
			if b.Hint.Plain {
				cm, ok = chatMessage{Role: "user", Content: b.Hint.Text}, b.Hint.Text != ""
			} else {
				cm, ok = userMessage("user", b.Hint.Blocks)
			}
			if !ok {
				continue
			}
			if unanswered > 0 {
				hints = append(hints, cm) // tool messages must follow their calls
				continue
			}
			flush()
			out = append(out, cm)
		}
		// Thinking is not echoed (the reference drops it for Ollama).
	}
	flush()
	afterResults()
	return out
}

// userMessage joins text blocks into content and collects inline images.
func userMessage(role string, bs []block.Block) (chatMessage, bool) {
	cm := chatMessage{Role: role}
	var text []string
	for _, b := range bs {
		switch b := b.(type) {
		case *block.Text:
			if b.Text != "" {
				text = append(text, b.Text)
			}
		case *block.Data:
			if img, note := media(b); img != "" {
				cm.Images = append(cm.Images, img)
			} else {
				text = append(text, note)
			}
		}
	}
	cm.Content = strings.Join(text, "\n")
	return cm, cm.Content != "" || len(cm.Images) > 0
}

// media returns an inline image's base64, or a note for what Ollama cannot
// take (other media, images by URL: the API has no URL input and the
// adapter does not fetch on the model's behalf).
func media(d *block.Data) (img, note string) {
	mt := d.MediaType()
	switch src := d.Source.(type) {
	case *block.Base64:
		if images(mt) {
			return src.Data(), ""
		}
		return "", "[" + mt + " file attached, not supported by this provider]"
	case *block.URL:
		return "", "[" + mt + " file at " + src.URL + ", not supported by this provider]"
	}
	return "", ""
}
