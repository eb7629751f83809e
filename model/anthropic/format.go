package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/toolinput"
)

// Wire shapes of the request. Content blocks are distinct types because
// their required keys differ (a signed thinking block keeps "thinking":""
// when the display is omitted, while empty text must not be sent at all).
type (
	turn struct {
		Role    string `json:"role"`
		Content []any  `json:"content"`
	}
	textPart struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	thinkingPart struct {
		Type      string `json:"type"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
	}
	redactedPart struct {
		Type string `json:"type"`
		Data string `json:"data"`
	}
	toolUsePart struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	toolResultPart struct {
		Type      string `json:"type"`
		ToolUseID string `json:"tool_use_id"`
		Content   []any  `json:"content"`
		IsError   bool   `json:"is_error,omitempty"`
	}
	mediaPart struct {
		Type   string      `json:"type"` // image | document
		Source mediaSource `json:"source"`
	}
	mediaSource struct {
		Type      string `json:"type"` // base64 | url
		MediaType string `json:"media_type,omitempty"`
		Data      string `json:"data,omitempty"`
		URL       string `json:"url,omitempty"`
	}
	toolDef struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	toolChoice struct {
		Type                   string `json:"type"`
		Name                   string `json:"name,omitempty"`
		DisableParallelToolUse *bool  `json:"disable_parallel_tool_use,omitempty"`
	}
)

// emptyToolOutput replaces an empty tool result: the API rejects an empty
// content list.
const emptyToolOutput = "(empty tool output)"

// RequestBody returns the JSON body Stream would send for req. It is
// exported so callers can inspect or log the exact request.
func (m *Model) RequestBody(req *model.Request) ([]byte, error) {
	if req == nil {
		return nil, invalid("nil request", nil)
	}
	if err := req.ToolChoice.Validate(req.Tools); err != nil {
		return nil, invalid(err.Error(), err)
	}
	system, turns, err := formatMessages(req.Messages, m.log())
	if err != nil {
		return nil, err
	}
	body := map[string]any{
		"model":    m.model,
		"messages": turns,
		"stream":   true,
	}
	if len(system) > 0 {
		body["system"] = system
	}
	maxTokens := m.maxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	_, forced := req.ToolChoice.Forced()
	forced = forced || (req.ToolChoice != nil && req.ToolChoice.Mode == model.ChoiceRequired)
	switch m.thinkingMode {
	case "enabled", "adaptive":
		if forced {
			// A forced tool choice with thinking is a 400; the forced call
			// (structured output, mostly) matters more than the thinking.
			m.log().Warn("anthropic: forced tool_choice is incompatible with thinking; thinking disabled for this call", "model", m.model)
			break
		}
		th := map[string]any{"type": m.thinkingMode}
		if m.thinkingMode == "enabled" {
			budget := m.thinkingBudget
			if budget <= 0 {
				budget = maxTokens / 2
			}
			if budget >= maxTokens {
				maxTokens = budget + 1024
			}
			th["budget_tokens"] = budget
		}
		if m.thinkingDisplay != "" {
			th["display"] = m.thinkingDisplay
		}
		body["thinking"] = th
	case "disabled":
		body["thinking"] = map[string]any{"type": "disabled"}
	}
	body["max_tokens"] = maxTokens
	if m.effort != "" {
		body["output_config"] = map[string]any{"effort": m.effort}
	}
	if m.temperature != nil {
		body["temperature"] = *m.temperature
	}
	if m.topP != nil {
		body["top_p"] = *m.topP
	}
	if m.topK != nil {
		body["top_k"] = *m.topK
	}
	if tools := formatTools(req.Tools, req.ToolChoice); len(tools) > 0 {
		body["tools"] = tools
		if tc := m.formatToolChoice(req.ToolChoice); tc != nil {
			body["tool_choice"] = tc
		}
	}
	// Per-call parameters use the API's own names and win over the
	// model's settings ("temperature", "max_tokens", "metadata", …).
	for k, v := range req.Extra {
		body[k] = v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, invalid("encoding the request: "+err.Error(), err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func formatTools(tools []model.ToolSchema, choice *model.ToolChoice) []toolDef {
	var out []toolDef
	for _, t := range tools {
		if choice != nil && choice.Tools != nil && !contains(choice.Tools, t.Name) {
			continue
		}
		params := t.Parameters
		if len(bytes.TrimSpace(params)) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out = append(out, toolDef{Name: t.Name, Description: t.Description, InputSchema: params})
	}
	return out
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func (m *Model) formatToolChoice(c *model.ToolChoice) *toolChoice {
	serial := m.serialTools
	var tc toolChoice
	switch {
	case c == nil || c.Mode == "":
		if !serial {
			return nil // the API's default is auto with parallel calls
		}
		tc.Type = "auto"
	case c.Mode == model.ChoiceAuto:
		tc.Type = "auto"
	case c.Mode == model.ChoiceNone:
		return &toolChoice{Type: "none"}
	case c.Mode == model.ChoiceRequired:
		tc.Type = "any"
	default:
		tc.Type, tc.Name = "tool", c.Mode
	}
	tc.DisableParallelToolUse = &serial
	return &tc
}

// turns builds the messages list, merging consecutive same-role turns (the
// API would merge them anyway) and keeping tool_result blocks first in
// their user turn, where the API requires them.
type turns struct {
	list []turn
}

func (t *turns) add(role string, parts ...any) {
	if len(parts) == 0 {
		return
	}
	if n := len(t.list); n > 0 && t.list[n-1].Role == role {
		t.list[n-1].Content = append(t.list[n-1].Content, parts...)
		return
	}
	t.list = append(t.list, turn{Role: role, Content: parts})
}

func (t *turns) addResult(r toolResultPart) {
	n := len(t.list)
	if n == 0 || t.list[n-1].Role != "user" {
		t.add("user", r)
		return
	}
	c := t.list[n-1].Content
	i := 0
	for i < len(c) {
		if _, ok := c[i].(toolResultPart); !ok {
			break
		}
		i++
	}
	c = append(c, nil)
	copy(c[i+1:], c[i:])
	c[i] = r
	t.list[n-1].Content = c
}

func formatMessages(msgs []*message.Msg, log *slog.Logger) (system []textPart, out []turn, err error) {
	var t turns
	for mi, msg := range msgs {
		if msg == nil {
			continue
		}
		switch msg.Role {
		case event.RoleSystem:
			parts := textParts(msg.Content)
			if len(t.list) == 0 {
				system = append(system, parts...)
			} else {
				for _, p := range parts {
					t.add("user", p)
				}
			}
		case event.RoleUser:
			t.add("user", userParts(msg.Content)...)
		case event.RoleAssistant:
			for _, b := range msg.Content {
				switch b := b.(type) {
				case *block.Text:
					if b.Text != "" {
						t.add("assistant", textPart{"text", b.Text})
					}
				case *block.Thinking:
					if data := b.GetString("redacted_thinking_data"); data != "" {
						t.add("assistant", redactedPart{"redacted_thinking", data})
					} else if sig := b.GetString("signature"); sig != "" {
						t.add("assistant", thinkingPart{"thinking", b.Thinking, sig})
					}
					// Unsigned thinking came from another provider: an
					// invalid signature is a 400, so it is left out.
				case *block.ToolCall:
					input, repaired := toolinput.Object(b.Input)
					if repaired {
						log.Warn("anthropic: tool call arguments are not a JSON object; sending the repaired value", "id", b.ID, "input", b.Input, "sent", string(input))
					}
					t.add("assistant", toolUsePart{"tool_use", b.ID, b.Name, input})
				case *block.ToolResult:
					t.addResult(toolResult(b))
				case *block.Hint:
					t.add("user", bodyParts(b.Hint)...)
				case *block.Data:
					log.Warn("anthropic: data in an assistant turn is not accepted by the API; left out", "id", b.ID, "media_type", b.MediaType())
				}
			}
		default:
			return nil, nil, invalid(fmt.Sprintf("messages[%d]: unknown role %q", mi, msg.Role), message.ErrRole)
		}
	}
	if t.list == nil {
		t.list = []turn{}
	}
	return system, t.list, nil
}

func textParts(bs []block.Block) []textPart {
	var out []textPart
	for _, b := range bs {
		if tb, ok := b.(*block.Text); ok && tb.Text != "" {
			out = append(out, textPart{"text", tb.Text})
		}
	}
	return out
}

func userParts(bs []block.Block) []any {
	var out []any
	for _, b := range bs {
		switch b := b.(type) {
		case *block.Text:
			if b.Text != "" {
				out = append(out, textPart{"text", b.Text})
			}
		case *block.Data:
			out = append(out, media(b))
		}
	}
	return out
}

func bodyParts(body block.Body) []any {
	if body.Plain {
		if body.Text == "" {
			return nil
		}
		return []any{textPart{"text", body.Text}}
	}
	return userParts(body.Blocks)
}

func toolResult(b *block.ToolResult) toolResultPart {
	content := bodyParts(b.Output)
	if len(content) == 0 {
		content = []any{textPart{"text", emptyToolOutput}}
	}
	return toolResultPart{
		Type: "tool_result", ToolUseID: b.ID, Content: content,
		IsError: b.State == block.ResultError || b.State == block.ResultDenied || b.State == block.ResultInterrupted,
	}
}

// media maps a data block to an image or document block; anything else
// becomes a note, since the API would reject the request over it.
func media(d *block.Data) any {
	mt := d.MediaType()
	var kind string
	switch {
	case mt == "image/jpeg" || mt == "image/png" || mt == "image/gif" || mt == "image/webp":
		kind = "image"
	case mt == "application/pdf":
		kind = "document"
	}
	switch src := d.Source.(type) {
	case *block.Base64:
		if kind != "" {
			return mediaPart{kind, mediaSource{Type: "base64", MediaType: mt, Data: src.Data()}}
		}
	case *block.URL:
		if kind != "" {
			return mediaPart{kind, mediaSource{Type: "url", URL: src.URL}}
		}
		return textPart{"text", "[" + mt + " file at " + src.URL + ", not supported by this provider]"}
	}
	return textPart{"text", "[" + orUnknown(mt) + " file attached, not supported by this provider]"}
}

func orUnknown(s string) string {
	if strings.TrimSpace(s) == "" {
		return "unknown"
	}
	return s
}
