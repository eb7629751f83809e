package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/transport"
)

// Chat is a Chat Completions model (POST {base}/chat/completions).
type Chat struct {
	model string
	c     *config
}

var _ model.ChatModel = (*Chat)(nil)

// New returns a Chat Completions model. The default profile is
// ProfileOpenAI; WithProfile selects another provider and WithBaseURL
// another server.
func New(modelName string, opts ...Option) *Chat {
	return &Chat{model: modelName, c: newConfig(ProfileOpenAI, opts)}
}

// Name returns the model name sent in requests.
func (m *Chat) Name() string { return m.model }

// ContextSize is the context window the agent assumes (WithContextSize).
func (m *Chat) ContextSize() int {
	switch {
	case m.c.contextSize > 0:
		return m.c.contextSize
	case m.c.profile.ContextSize > 0:
		return m.c.profile.ContextSize
	}
	return 128000
}

// Stream makes one call. Errors before the first chunk are *model.Error
// values classified from the HTTP status (retried first for 429, 5xx and
// connection failures); errors after it end the stream and are never
// retried. Cancelling ctx ends the call with an error wrapping ctx.Err().
func (m *Chat) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		provider := m.c.provider()
		body, err := m.Body(ctx, req)
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		resp, err := transport.Do(ctx, m.c.client, transport.Request{
			Provider: provider,
			URL:      m.c.baseURL + "/chat/completions",
			Header:   m.c.requestHeader(),
			Body:     body,
		}, m.c.policy)
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		defer resp.Body.Close()
		d := newChatDecoder(provider, m.c.src, m.c.profile.OutputExcludesReasoning)
		if !isEventStream(resp) {
			// stream:false, or a server that ignored stream:true: one
			// whole chat.completion object.
			wholeResponse(resp, provider, d.decode, yield)
			return
		}
		d.stream(ctx, resp.Body, yield)
	}
}

// stream decodes an SSE body to the end: "data: [DONE]", a finish_reason
// followed by EOF, or an error.
func (d *chatDecoder) stream(ctx context.Context, body io.Reader, yield func(model.Chunk, error) bool) {
	for ev, err := range transport.SSE(body) {
		if err != nil {
			yield(model.Chunk{}, transport.StreamError(d.provider, err))
			return
		}
		if string(ev.Data) == "[DONE]" {
			d.done = true
			break
		}
		if len(bytes.TrimSpace(ev.Data)) == 0 {
			continue
		}
		chunk, ok, err := d.decode(ev.Data)
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		if ok && !yield(chunk, nil) {
			return
		}
	}
	if !d.done && !d.finished {
		yield(model.Chunk{}, streamEndError(ctx, d.provider))
	}
}

// streamEndError reports a stream that stopped early: cancelled, or cut.
func streamEndError(ctx context.Context, provider string) error {
	if ctx.Err() != nil {
		return transport.StreamError(provider, ctx.Err())
	}
	return truncatedError(provider)
}

func isEventStream(resp *http.Response) bool {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt == "text/event-stream" || mt == ""
}

// wholeResponse decodes a non-streamed body as one chunk.
func wholeResponse(resp *http.Response, provider string, decode func([]byte) (model.Chunk, bool, error), yield func(model.Chunk, error) bool) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, transport.MaxLine))
	if err != nil {
		yield(model.Chunk{}, transport.StreamError(provider, err))
		return
	}
	chunk, ok, err := decode(data)
	if err != nil {
		yield(model.Chunk{}, err)
		return
	}
	if ok {
		yield(chunk, nil)
	}
}

// Body returns the JSON request body a call with req sends. It is exported
// for golden tests and debugging; Stream calls it.
func (m *Chat) Body(ctx context.Context, req *model.Request) ([]byte, error) {
	if req == nil {
		req = &model.Request{}
	}
	provider := m.c.provider()
	if err := req.ToolChoice.Validate(req.Tools); err != nil {
		return nil, &model.Error{Type: event.ErrInvalidRequest, Provider: provider, Message: err.Error(), Err: err}
	}
	msgs, err := m.c.formatChat(ctx, req.Messages)
	if err != nil {
		return nil, &model.Error{Type: event.ErrInvalidRequest, Provider: provider, Message: err.Error(), Err: err}
	}
	body := map[string]any{
		"model":    m.model,
		"messages": msgs,
		"stream":   m.c.stream,
	}
	if m.c.stream {
		body["stream_options"] = map[string]any{"include_usage": true}
	}
	tools, err := m.c.chatTools(req)
	if err != nil {
		return nil, &model.Error{Type: event.ErrInvalidRequest, Provider: provider, Message: err.Error(), Err: err}
	}
	if len(tools) > 0 {
		body["tools"] = tools
		if tc := m.c.chatToolChoice(req.ToolChoice); tc != nil {
			body["tool_choice"] = tc
		}
		if m.c.parallel != nil {
			body["parallel_tool_calls"] = *m.c.parallel
		}
	}
	m.c.sampling(body, m.c.profile.maxTokensField())
	m.c.thinkingParams(body)
	if m.c.voice != "" {
		body["modalities"] = []string{"text", "audio"}
		body["audio"] = map[string]any{"voice": m.c.voice, "format": "pcm16"}
	}
	return m.c.encodeBody(body, req.Extra)
}

func (c *config) sampling(body map[string]any, maxField string) {
	if c.maxTokens > 0 {
		body[maxField] = c.maxTokens
	}
	if c.temperature != nil {
		body["temperature"] = *c.temperature
	}
	if c.topP != nil {
		body["top_p"] = *c.topP
	}
}

func (c *config) thinkingParams(body map[string]any) {
	if c.effort != "" && (c.thinking == nil || *c.thinking) {
		body["reasoning_effort"] = c.effort
	}
	if c.thinking == nil {
		return
	}
	on := *c.thinking
	switch c.profile.Thinking {
	case ThinkingType:
		t := "disabled"
		if on {
			t = "enabled"
		}
		body["thinking"] = map[string]any{"type": t}
	case ThinkingEnable:
		body["enable_thinking"] = on
		if on && c.budget > 0 {
			body["thinking_budget"] = c.budget
		}
	case ThinkingTemplate:
		body["chat_template_kwargs"] = map[string]any{"enable_thinking": on}
	}
}

// encodeBody merges the constructor's extra body and then the call's
// Extra (a nil value deletes a key) and encodes without HTML escaping, so
// "<system-reminder>" stays readable on the wire.
func (c *config) encodeBody(body map[string]any, extra map[string]any) ([]byte, error) {
	for _, m := range []map[string]any{c.extraBody, extra} {
		for k, v := range m {
			if v == nil {
				delete(body, k)
			} else {
				body[k] = v
			}
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, &model.Error{Type: event.ErrInvalidRequest, Provider: c.provider(), Message: "encode request: " + err.Error(), Err: err}
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

type chatTool struct {
	Type     string          `json:"type"`
	Function chatToolFuncDef `json:"function"`
}

type chatToolFuncDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict,omitempty"`
}

// offeredTools applies ToolChoice.Tools as a filter on the schema list.
func offeredTools(req *model.Request) []model.ToolSchema {
	if req.ToolChoice == nil || req.ToolChoice.Tools == nil {
		return req.Tools
	}
	out := make([]model.ToolSchema, 0, len(req.ToolChoice.Tools))
	for _, t := range req.Tools {
		for _, n := range req.ToolChoice.Tools {
			if t.Name == n {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

func (c *config) chatTools(req *model.Request) ([]chatTool, error) {
	schemas := offeredTools(req)
	out := make([]chatTool, 0, len(schemas))
	for _, s := range schemas {
		params, err := flattenSchema(s.Parameters)
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", s.Name, err)
		}
		out = append(out, chatTool{Type: "function", Function: chatToolFuncDef{
			Name: s.Name, Description: s.Description, Parameters: params, Strict: c.strict,
		}})
	}
	return out, nil
}

// chatToolChoice maps a choice per models.md §3.2.
func (c *config) chatToolChoice(tc *model.ToolChoice) any {
	if tc == nil || tc.Mode == "" {
		return nil
	}
	if name, ok := tc.Forced(); ok {
		return map[string]any{"type": "function", "function": map[string]any{"name": name}}
	}
	if tc.Mode == model.ChoiceRequired && c.profile.NoRequiredChoice {
		c.log().Warn("tool_choice \"required\" is not supported; sending \"auto\"", "provider", c.provider())
		return model.ChoiceAuto
	}
	return tc.Mode
}
