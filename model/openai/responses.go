package openai

import (
	"context"
	"io"
	"iter"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/transport"
)

// Responses is an OpenAI Responses API model (POST {base}/responses).
//
// Reasoning comes back as thinking blocks carrying the item id
// (Extra "reasoning_item_id") and, with WithEncryptedReasoning, the
// encrypted content (Extra "encrypted_content"); both are replayed as
// reasoning items in later calls. Tool-call blocks take the call_id (call_…),
// not the item id (fc_…), since function_call_output pairs on call_id.
type Responses struct {
	model string
	c     *config
}

var _ model.ChatModel = (*Responses)(nil)

// NewResponses returns a Responses API model (default base URL
// https://api.openai.com/v1; WithProfile is ignored).
func NewResponses(modelName string, opts ...Option) *Responses {
	c := newConfig(ProfileOpenAI, opts)
	if c.providerName == "" {
		c.providerName = "openai"
	}
	return &Responses{model: modelName, c: c}
}

// Name returns the model name sent in requests.
func (m *Responses) Name() string { return m.model }

// ContextSize is the context window the agent assumes (WithContextSize;
// 200,000 by default, the reference's).
func (m *Responses) ContextSize() int {
	if m.c.contextSize > 0 {
		return m.c.contextSize
	}
	return 200000
}

// Stream makes one call; the error contract is Chat.Stream's.
func (m *Responses) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		provider := m.c.provider()
		body, err := m.Body(ctx, req)
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		resp, err := transport.Do(ctx, m.c.client, transport.Request{
			Provider: provider,
			URL:      m.c.baseURL + "/responses",
			Header:   m.c.requestHeader(),
			Body:     body,
		}, m.c.policy)
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		defer resp.Body.Close()
		d := newRespDecoder(provider, m.c.src)
		if !isEventStream(resp) {
			wholeResponse(resp, provider, d.whole, yield)
			return
		}
		d.stream(ctx, resp.Body, yield)
	}
}

// stream decodes an SSE body up to response.completed (or incomplete),
// failing on an error event or a body that ends before it.
func (d *respDecoder) stream(ctx context.Context, body io.Reader, yield func(model.Chunk, error) bool) {
	for ev, err := range transport.SSE(body) {
		if err != nil {
			yield(model.Chunk{}, transport.StreamError(d.provider, err))
			return
		}
		if len(ev.Data) == 0 || string(ev.Data) == "[DONE]" {
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
		if d.completed {
			return
		}
	}
	if !d.completed {
		yield(model.Chunk{}, streamEndError(ctx, d.provider))
	}
}

// Body returns the JSON request body a call with req sends.
func (m *Responses) Body(ctx context.Context, req *model.Request) ([]byte, error) {
	if req == nil {
		req = &model.Request{}
	}
	provider := m.c.provider()
	if err := req.ToolChoice.Validate(req.Tools); err != nil {
		return nil, &model.Error{Type: event.ErrInvalidRequest, Provider: provider, Message: err.Error(), Err: err}
	}
	input, err := m.c.formatResponses(ctx, req.Messages)
	if err != nil {
		return nil, &model.Error{Type: event.ErrInvalidRequest, Provider: provider, Message: err.Error(), Err: err}
	}
	body := map[string]any{
		"model":  m.model,
		"input":  input,
		"stream": m.c.stream,
	}
	if m.c.store != nil {
		body["store"] = *m.c.store
	}
	if m.c.encrypted {
		body["include"] = []string{"reasoning.encrypted_content"}
	}
	// The Responses adapter never filters the tool list (a stable prefix
	// keeps the prompt cache warm); ToolChoice.Tools becomes allowed_tools.
	if len(req.Tools) > 0 {
		tools := make([]respTool, 0, len(req.Tools))
		for _, s := range req.Tools {
			params, err := flattenSchema(s.Parameters)
			if err != nil {
				return nil, &model.Error{Type: event.ErrInvalidRequest, Provider: provider, Message: err.Error(), Err: err}
			}
			tools = append(tools, respTool{Type: "function", Name: s.Name, Description: s.Description, Parameters: params, Strict: m.c.strict})
		}
		body["tools"] = tools
		if tc := respToolChoice(req.ToolChoice); tc != nil {
			body["tool_choice"] = tc
		}
		if m.c.parallel != nil {
			body["parallel_tool_calls"] = *m.c.parallel
		}
	}
	m.c.sampling(body, "max_output_tokens")
	reasoning := map[string]any{}
	if m.c.effort != "" && (m.c.thinking == nil || *m.c.thinking) {
		reasoning["effort"] = m.c.effort
	}
	if m.c.summary != "" {
		reasoning["summary"] = m.c.summary
	}
	if len(reasoning) > 0 {
		body["reasoning"] = reasoning
	}
	return m.c.encodeBody(body, req.Extra)
}

type respTool struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Parameters  any    `json:"parameters"`
	Strict      *bool  `json:"strict,omitempty"`
}

// respToolChoice maps a choice per models.md §3.2 (Responses column).
func respToolChoice(tc *model.ToolChoice) any {
	if tc == nil {
		return nil
	}
	if tc.Tools != nil {
		mode := model.ChoiceAuto
		if tc.Mode == model.ChoiceRequired {
			mode = model.ChoiceRequired
		}
		tools := make([]map[string]any, 0, len(tc.Tools))
		for _, n := range tc.Tools {
			tools = append(tools, map[string]any{"type": "function", "name": n})
		}
		return map[string]any{"type": "allowed_tools", "mode": mode, "tools": tools}
	}
	if name, ok := tc.Forced(); ok {
		return map[string]any{"type": "function", "name": name}
	}
	if tc.Mode == "" {
		return nil
	}
	return tc.Mode
}
