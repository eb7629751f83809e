package openai

import (
	"context"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/internal/toolresult"
)

// Responses API input items. Each kind is its own struct so required
// fields (summary, output, arguments) are written even when empty.
type (
	respMessage struct {
		Role    string `json:"role"`
		Content any    `json:"content"` // string or []respPart
	}
	respPart struct {
		Type     string `json:"type"`
		Text     string `json:"text,omitempty"`
		ImageURL string `json:"image_url,omitempty"`
		Filename string `json:"filename,omitempty"`
		FileData string `json:"file_data,omitempty"`
	}
	respFunctionCall struct {
		Type      string `json:"type"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	respFunctionOutput struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Output string `json:"output"`
	}
	respReasoning struct {
		Type             string        `json:"type"`
		ID               string        `json:"id"`
		Summary          []respSummary `json:"summary"`
		EncryptedContent string        `json:"encrypted_content,omitempty"`
	}
	respSummary struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
)

// Thinking-block extras the Responses adapter writes and replays.
const (
	ExtraReasoningItemID  = "reasoning_item_id"
	ExtraEncryptedContent = "encrypted_content"
)

type respFormatter struct {
	c     *config
	ctx   context.Context
	out   []any
	text  []respPart // pending assistant output_text
	promo []block.Block
}

// formatResponses turns the whole history into Responses API input items:
// messages, function_call and function_call_output items (call_id is our
// tool-call id), and reasoning items replayed from thinking blocks that
// carry a reasoning_item_id. With store=false a reasoning item is only
// valid with its encrypted content, so one without it is dropped.
func (c *config) formatResponses(ctx context.Context, msgs []*message.Msg) ([]any, error) {
	f := &respFormatter{c: c, ctx: ctx, out: make([]any, 0, len(msgs)+4)}
	for _, m := range msgs {
		if m == nil {
			continue
		}
		if err := f.msg(m); err != nil {
			return nil, err
		}
	}
	if err := f.flushPromo(); err != nil {
		return nil, err
	}
	return f.out, nil
}

func (f *respFormatter) msg(m *message.Msg) error {
	switch m.Role {
	case event.RoleSystem:
		var texts []string
		for _, b := range m.Content {
			if t, ok := b.(*block.Text); ok {
				texts = append(texts, t.Text)
			}
		}
		if err := f.flushPromo(); err != nil {
			return err
		}
		role := f.c.systemRole
		if role == "" {
			role = "developer"
		}
		f.out = append(f.out, respMessage{Role: role, Content: strings.Join(texts, "\n")})
		return nil
	case event.RoleUser:
		if err := f.flushPromo(); err != nil {
			return err
		}
		parts, err := f.inputParts(m.Content)
		if err != nil {
			return err
		}
		if len(parts) > 0 {
			f.out = append(f.out, respMessage{Role: "user", Content: parts})
		}
		return nil
	}
	for _, b := range answerFirst(m.Content) {
		if _, ok := b.(*block.ToolResult); !ok {
			if err := f.flushPromo(); err != nil {
				return err
			}
		}
		switch b := b.(type) {
		case *block.Text:
			if b.Text != "" {
				f.text = append(f.text, respPart{Type: "output_text", Text: b.Text})
			}
		case *block.Data:
			f.c.log().Debug("openai responses: assistant data block not sent", "media_type", b.MediaType())
		case *block.Thinking:
			f.flushText()
			if item, ok := f.reasoning(b); ok {
				f.out = append(f.out, item)
			}
		case *block.ToolCall:
			f.flushText()
			f.out = append(f.out, respFunctionCall{Type: "function_call", CallID: b.ID, Name: b.Name, Arguments: callArguments(b.Input)})
		case *block.ToolResult:
			f.flushText()
			text, promo := toolresult.Flatten(b.Output, f.c.accepts)
			f.out = append(f.out, respFunctionOutput{Type: "function_call_output", CallID: b.ID, Output: text})
			f.promo = append(f.promo, promo...)
		case *block.Hint:
			f.flushText()
			var body []block.Block
			if b.Hint.Plain {
				body = []block.Block{block.NewText(b.Hint.Text)}
			} else {
				body = b.Hint.Blocks
			}
			parts, err := f.inputParts(body)
			if err != nil {
				return err
			}
			if len(parts) > 0 {
				f.out = append(f.out, respMessage{Role: "user", Content: parts})
			}
		}
	}
	f.flushText()
	return nil
}

func (f *respFormatter) reasoning(b *block.Thinking) (respReasoning, bool) {
	rid := b.GetString(ExtraReasoningItemID)
	if rid == "" {
		return respReasoning{}, false // another provider's thinking
	}
	enc := b.GetString(ExtraEncryptedContent)
	if f.c.store != nil && !*f.c.store && enc == "" {
		// Not persisted server-side and nothing to replay it from: the API
		// would answer "Item with id 'rs_…' not found".
		return respReasoning{}, false
	}
	item := respReasoning{Type: "reasoning", ID: rid, Summary: []respSummary{}, EncryptedContent: enc}
	if b.Thinking != "" {
		item.Summary = append(item.Summary, respSummary{Type: "summary_text", Text: b.Thinking})
	}
	return item, true
}

func (f *respFormatter) flushText() {
	if len(f.text) == 0 {
		return
	}
	f.out = append(f.out, respMessage{Role: "assistant", Content: f.text})
	f.text = nil
}

func (f *respFormatter) flushPromo() error {
	if len(f.promo) == 0 {
		return nil
	}
	promo := f.promo
	f.promo = nil
	parts, err := f.inputParts(promo)
	if err != nil {
		return err
	}
	f.out = append(f.out, respMessage{Role: "user", Content: parts})
	return nil
}

// inputParts converts user-side text and data blocks. Audio has no
// Responses input type; it and other media the model does not take become
// a text note.
func (f *respFormatter) inputParts(blocks []block.Block) ([]respPart, error) {
	parts := make([]respPart, 0, len(blocks))
	for _, b := range blocks {
		switch b := b.(type) {
		case *block.Text:
			if b.Text != "" {
				parts = append(parts, respPart{Type: "input_text", Text: b.Text})
			}
		case *block.Data:
			mt := b.MediaType()
			switch {
			case f.c.accepts(mt) && mainType(mt) == "image":
				u := mediaURL(b)
				if strings.HasPrefix(u, "file:") {
					data, got, err := f.c.inlineBase64(f.ctx, b)
					if err != nil {
						return nil, err
					}
					u = "data:" + got + ";base64," + data
				}
				parts = append(parts, respPart{Type: "input_image", ImageURL: u})
			case f.c.accepts(mt) && mt == "application/pdf":
				data, got, err := f.c.inlineBase64(f.ctx, b)
				if err != nil {
					return nil, err
				}
				name := b.Name.String
				if name == "" {
					name = "file.pdf"
				}
				parts = append(parts, respPart{Type: "input_file", Filename: name, FileData: "data:" + got + ";base64," + data})
			default:
				note := "[" + mt + " attached, not supported by this provider]"
				if u, ok := b.Source.(*block.URL); ok {
					note = "[" + mt + " attached at " + u.URL + ", not supported by this provider]"
				}
				parts = append(parts, respPart{Type: "input_text", Text: note})
			}
		}
	}
	return parts, nil
}
