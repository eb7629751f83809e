package openai

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/internal/toolresult"
)

// chatMessage is one entry of the Chat Completions "messages" array.
type chatMessage struct {
	Role             string         `json:"role"`
	Name             string         `json:"name,omitempty"`
	Content          any            `json:"content,omitempty"` // string or []chatPart
	ReasoningContent *string        `json:"reasoning_content,omitempty"`
	ToolCalls        []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string         `json:"tool_call_id,omitempty"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// chatPart is one content part of a user (or text-only assistant/system)
// message.
type chatPart struct {
	Type       string     `json:"type"`
	Text       string     `json:"text,omitempty"`
	ImageURL   *urlPart   `json:"image_url,omitempty"`
	VideoURL   *urlPart   `json:"video_url,omitempty"`
	InputAudio *audioPart `json:"input_audio,omitempty"`
	File       *filePart  `json:"file,omitempty"`
}

type urlPart struct {
	URL string `json:"url"`
}

type audioPart struct {
	Data   string `json:"data"`
	Format string `json:"format"`
}

type filePart struct {
	Filename string `json:"filename,omitempty"`
	FileData string `json:"file_data"`
}

// validName is OpenAI's constraint on messages[].name.
var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// pendingChat is the provider message being built from one Msg's blocks.
type pendingChat struct {
	role     string
	name     string
	parts    []chatPart
	thinking []string
	calls    []chatToolCall
}

type chatFormatter struct {
	c     *config
	ctx   context.Context
	out   []chatMessage
	cur   pendingChat
	promo []block.Block
}

// formatChat turns the whole history into Chat Completions messages. One
// assistant Msg holding [thinking, text, call A, call B, result A, result B,
// hint, text] becomes assistant(tool_calls A, B), tool A, tool B, user(hint),
// assistant(text): pending assistant content is flushed at every tool
// result and hint, and media promoted out of tool results are sent after the
// whole run of tool messages (between them they would break parallel calls).
func (c *config) formatChat(ctx context.Context, msgs []*message.Msg) ([]chatMessage, error) {
	f := &chatFormatter{c: c, ctx: ctx, out: make([]chatMessage, 0, len(msgs)+4)}
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

func (f *chatFormatter) msg(m *message.Msg) error {
	f.cur = pendingChat{role: string(m.Role), name: m.Name}
	for _, b := range answerFirst(m.Content) {
		if _, ok := b.(*block.ToolResult); !ok {
			if err := f.flushPromo(); err != nil {
				return err
			}
		}
		switch b := b.(type) {
		case *block.Text:
			if b.Text != "" {
				f.cur.parts = append(f.cur.parts, chatPart{Type: "text", Text: b.Text})
			}
		case *block.Data:
			if m.Role == event.RoleAssistant {
				// The Chat wire has no media in assistant turns (generated
				// audio is dropped from context by the agent as well).
				f.c.log().Debug("openai: assistant data block not sent", "media_type", b.MediaType())
				continue
			}
			p, err := f.dataPart(b)
			if err != nil {
				return err
			}
			f.cur.parts = append(f.cur.parts, p)
		case *block.Thinking:
			f.cur.thinking = append(f.cur.thinking, b.Thinking)
		case *block.ToolCall:
			f.cur.calls = append(f.cur.calls, chatToolCall{
				ID: b.ID, Type: "function", Function: chatFunction{Name: b.Name, Arguments: callArguments(b.Input)},
			})
		case *block.ToolResult:
			f.flushCur()
			text, promo := toolresult.Flatten(b.Output, f.c.accepts)
			f.out = append(f.out, chatMessage{Role: "tool", ToolCallID: b.ID, Content: text})
			f.promo = append(f.promo, promo...)
		case *block.Hint:
			f.flushCur()
			if err := f.hint(b); err != nil {
				return err
			}
		}
	}
	f.flushCur()
	return nil
}

// flushCur emits the pending message, if it has anything to say: text or
// media, tool calls, or (for assistant turns under an echo rule) reasoning.
func (f *chatFormatter) flushCur() {
	p := &f.cur
	defer func() { p.parts, p.thinking, p.calls = nil, nil, nil }()
	var reasoning *string
	if p.role == string(event.RoleAssistant) {
		reasoning = f.reasoning(p.thinking)
	}
	if len(p.parts) == 0 && len(p.calls) == 0 && (reasoning == nil || *reasoning == "") {
		return
	}
	m := chatMessage{Role: p.role, ToolCalls: p.calls, ReasoningContent: reasoning}
	if f.c.profile.SendNames && validName.MatchString(p.name) {
		m.Name = p.name
	}
	switch {
	case len(p.parts) > 0:
		m.Content = f.content(p.parts)
	case len(p.calls) == 0:
		m.Content = "" // a reasoning-only assistant turn
	}
	f.out = append(f.out, m)
}

// reasoning applies the echo rule to an assistant turn's thinking.
func (f *chatFormatter) reasoning(thinking []string) *string {
	switch f.c.echoRule() {
	case EchoAlways:
		s := strings.Join(thinking, "\n")
		return &s
	case EchoIfPresent:
		if s := strings.Join(thinking, "\n"); s != "" {
			return &s
		}
	}
	return nil
}

// content writes parts as a string when the profile wants strings or when
// it is a single text part (what every compatible server accepts), else as
// a part list.
func (f *chatFormatter) content(parts []chatPart) any {
	if f.c.profile.StringContent {
		texts := make([]string, 0, len(parts))
		for _, p := range parts {
			texts = append(texts, p.Text)
		}
		return strings.Join(texts, "\n")
	}
	if len(parts) == 1 && parts[0].Type == "text" {
		return parts[0].Text
	}
	return parts
}

func (f *chatFormatter) hint(h *block.Hint) error {
	if err := f.flushPromo(); err != nil {
		return err
	}
	var parts []chatPart
	if h.Hint.Plain {
		if h.Hint.Text != "" {
			parts = append(parts, chatPart{Type: "text", Text: h.Hint.Text})
		}
	} else {
		for _, b := range h.Hint.Blocks {
			switch b := b.(type) {
			case *block.Text:
				if b.Text != "" {
					parts = append(parts, chatPart{Type: "text", Text: b.Text})
				}
			case *block.Data:
				p, err := f.dataPart(b)
				if err != nil {
					return err
				}
				parts = append(parts, p)
			}
		}
	}
	if len(parts) == 0 {
		return nil
	}
	f.out = append(f.out, chatMessage{Role: "user", Content: f.content(parts)})
	return nil
}

// flushPromo sends the media promoted out of the preceding tool results as
// one user turn.
func (f *chatFormatter) flushPromo() error {
	if len(f.promo) == 0 {
		return nil
	}
	promo := f.promo
	f.promo = nil
	parts := make([]chatPart, 0, len(promo))
	for _, b := range promo {
		switch b := b.(type) {
		case *block.Text:
			parts = append(parts, chatPart{Type: "text", Text: b.Text})
		case *block.Data:
			dp, err := f.dataPart(b)
			if err != nil {
				return err
			}
			parts = append(parts, dp)
		}
	}
	m := chatMessage{Role: "user", Content: f.content(parts)}
	if f.c.profile.SendNames {
		m.Name = "system-reminder"
	}
	f.out = append(f.out, m)
	return nil
}

// dataPart converts a user-visible data block. Media the model does not
// take become a short text note rather than vanishing.
func (f *chatFormatter) dataPart(d *block.Data) (chatPart, error) {
	mt := d.MediaType()
	note := func() chatPart {
		s := fmt.Sprintf("[%s attached, not supported by this provider]", mt)
		if u, ok := d.Source.(*block.URL); ok {
			s = fmt.Sprintf("[%s attached at %s, not supported by this provider]", mt, u.URL)
		}
		return chatPart{Type: "text", Text: s}
	}
	if f.c.profile.StringContent || !f.c.accepts(mt) {
		return note(), nil
	}
	_, isURL := d.Source.(*block.URL)
	switch mainType(mt) {
	case "image":
		u := mediaURL(d)
		if isURL && (f.c.profile.InlineImageURLs || strings.HasPrefix(u, "file:")) {
			data, got, err := f.c.inlineBase64(f.ctx, d)
			if err != nil {
				return chatPart{}, err
			}
			u = "data:" + got + ";base64," + data
		}
		return chatPart{Type: "image_url", ImageURL: &urlPart{URL: u}}, nil
	case "video":
		return chatPart{Type: "video_url", VideoURL: &urlPart{URL: mediaURL(d)}}, nil
	case "audio":
		format := strings.TrimPrefix(mt, "audio/")
		if format == "mpeg" {
			format = "mp3"
		}
		if f.c.profile.AudioDataURL {
			u := mediaURL(d)
			if !isURL {
				u = "data:;base64," + strings.TrimPrefix(u, "data:"+mt+";base64,")
			}
			return chatPart{Type: "input_audio", InputAudio: &audioPart{Data: u, Format: format}}, nil
		}
		data, _, err := f.c.inlineBase64(f.ctx, d)
		if err != nil {
			return chatPart{}, err
		}
		return chatPart{Type: "input_audio", InputAudio: &audioPart{Data: data, Format: format}}, nil
	}
	if mt == "application/pdf" {
		data, got, err := f.c.inlineBase64(f.ctx, d)
		if err != nil {
			return chatPart{}, err
		}
		name := d.Name.String
		if name == "" {
			name = "file.pdf"
		}
		return chatPart{Type: "file", File: &filePart{Filename: name, FileData: "data:" + got + ";base64," + data}}, nil
	}
	return note(), nil
}
