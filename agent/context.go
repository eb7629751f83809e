package agent

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
)

// ContextConfig controls how the agent keeps its context inside the
// model's window (the reference's ContextConfig, §3.9, §3.11b). It is on
// by default, as in the reference: before every reasoning step the oldest
// images beyond MaxImages are evicted, and once the estimated input passes
// TriggerRatio × ContextSize the older part of the context is replaced by
// a summary the model writes; a tool result longer than ToolResultLimit is
// cut before it is stored. The zero value is the reference's
// configuration.
type ContextConfig struct {
	// ContextSize is the model's context window in tokens (0: the model's
	// ContextSize() if it implements ContextSizer, else 32768, the
	// reference's model default).
	ContextSize int
	// TriggerRatio is the share of ContextSize past which the context is
	// compressed (0: 0.8; at most 0.9, leaving room for the summary call).
	TriggerRatio float64
	// ReserveRatio is the share of ContextSize kept, newest first, out of
	// the compression (0: 0.1; must be below TriggerRatio).
	ReserveRatio float64
	// CompressionPrompt closes the summary request
	// ("": DefaultCompressionPrompt).
	CompressionPrompt string
	// SummaryTemplate presents the summary; its {field}s are the summary
	// schema's properties, filled as Python's str.format does
	// ("": DefaultSummaryTemplate).
	SummaryTemplate string
	// SummarySchema is the JSON Schema of the structured summary the model
	// is asked for (nil: DefaultSummarySchema).
	SummarySchema json.RawMessage
	// ToolResultLimit is the estimated size, in tokens, past which a tool
	// result is cut before it is stored in the context (0: 50000; negative
	// is rejected by New). The streamed events are not cut.
	ToolResultLimit int
	// MaxImages is how many images the context keeps; older ones are
	// replaced by a reminder (0: 5; negative: none are kept, the
	// reference's max_image_num 0).
	MaxImages int
	// Offloader saves what the context sheds — the cut part of a tool
	// result, the compressed messages, evicted images — where the model
	// can read it back; the reminders then name the place (nil: it is
	// dropped).
	Offloader Offloader
	// TokenCounter counts the tokens of a model input (nil: the model's,
	// if it implements TokenCounter, else an Estimator).
	TokenCounter TokenCounter
}

// Defaults of ContextConfig, the reference's.
const (
	DefaultContextSize     = 32768
	DefaultTriggerRatio    = 0.8
	DefaultReserveRatio    = 0.1
	DefaultToolResultLimit = 50000
	DefaultMaxImages       = 5

	DefaultCompressionPrompt = pycompat.CompressionPrompt
	DefaultSummaryTemplate   = pycompat.SummaryTemplate
	// DefaultSummarySchema is the JSON Schema of the reference's
	// SummarySchema: five strings, task_overview, current_state,
	// important_discoveries, next_steps and context_to_preserve.
	DefaultSummarySchema = pycompat.SummarySchema
)

// ContextSizer is implemented by models that know their context window.
type ContextSizer interface {
	ContextSize() int
}

// TokenCounter counts the tokens of a model input: the messages as the
// model will get them (system prompt and summary first) and the tools
// offered. A model adapter with a real tokenizer implements it to replace
// the estimate. The msgs slice is the agent's buffer (the next model
// input's), valid for the call only: a counter that keeps it copies it.
type TokenCounter interface {
	CountTokens(ctx context.Context, msgs []*message.Msg, tools []model.ToolSchema) (int, error)
}

// Offloader saves what the context sheds, as the reference's Offloader
// protocol. The paths and URLs it returns are shown to the model, which
// reads them back with its tools (the built-in Read reads a path).
type Offloader interface {
	// OffloadToolResult saves the part of a tool result that was cut from
	// the context and returns where.
	OffloadToolResult(ctx context.Context, sessionID string, res *block.ToolResult) (string, error)
	// OffloadContext saves the messages a compression replaced by the
	// summary and returns where.
	OffloadContext(ctx context.Context, sessionID string, msgs []*message.Msg) (string, error)
	// OffloadData saves a base64 data block and returns a block whose
	// source is a URL to it (a URL block is returned as it is).
	OffloadData(ctx context.Context, d *block.Data) (*block.Data, error)
}

// Estimator is the reference's token estimate (model/_base.py
// count_tokens): the UTF-8 bytes of the texts, thinking, hints, tool-call
// inputs and tool-result texts, plus the tools as json.dumps writes them,
// divided by 4 and rounded, plus 2000 per data block wherever it sits. It
// keeps the size of the last tool list it saw, since the tools rarely
// change between steps; it is safe for concurrent use.
type Estimator struct {
	mu        sync.Mutex
	lastTools []model.ToolSchema
	lastLen   int
}

// DataBlockTokens is what the Estimator counts for one data block.
const DataBlockTokens = 2000

// CountTokens implements TokenCounter; it never fails.
func (e *Estimator) CountTokens(_ context.Context, msgs []*message.Msg, tools []model.ToolSchema) (int, error) {
	n, _ := e.count(msgs, tools, len(msgs))
	return n, nil
}

// count is CountTokens that also counts the images (as eachImage finds
// them) of msgs[from:]: the step's image check and token count in one
// walk over the context.
func (e *Estimator) count(msgs []*message.Msg, tools []model.ToolSchema, from int) (tokens, images int) {
	var n, data int
	for k, m := range msgs {
		if m == nil {
			continue
		}
		mn, md, mi := msgSize(m, k >= from)
		n, data, images = n+mn, data+md, images+mi
	}
	return e.total(n, data, tools), images
}

// total is the estimate of n text bytes and data data blocks with tools.
func (e *Estimator) total(n, data int, tools []model.ToolSchema) int {
	if len(tools) > 0 {
		n += e.toolsLen(tools)
	}
	return data*DataBlockTokens + int(float64(n)/4+0.5)
}

// msgSize is what the estimate counts of one message: its text bytes, its
// data blocks and, if im, its images.
func msgSize(m *message.Msg, im bool) (n, data, images int) {
	for _, b := range m.Content {
		switch b := b.(type) {
		case *block.Text:
			n += len(b.Text)
		case *block.Thinking:
			n += len(b.Thinking)
		case *block.Hint:
			nb, nd, ni := bodySize(b.Hint, im)
			n, data, images = n+nb, data+nd, images+ni
		case *block.ToolCall:
			n += len(b.Input)
		case *block.ToolResult:
			nb, nd, ni := bodySize(b.Output, im)
			n, data, images = n+nb, data+nd, images+ni
		case *block.Data:
			data++
			if im && isImage(b) {
				images++
			}
		}
	}
	return n, data, images
}

// bodySize is the text bytes and data blocks of a tool result's output or
// a hint, and its images if im; other blocks nested there are not
// counted, as in the reference.
func bodySize(b block.Body, im bool) (n, data, images int) {
	if b.Plain {
		return len(b.Text), 0, 0
	}
	for _, x := range b.Blocks {
		switch x := x.(type) {
		case *block.Text:
			n += len(x.Text)
		case *block.Data:
			data++
			if im && isImage(x) {
				images++
			}
		}
	}
	return n, data, images
}

func (e *Estimator) toolsLen(tools []model.ToolSchema) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if sameTools(e.lastTools, tools) {
		return e.lastLen
	}
	e.lastTools = append(e.lastTools[:0], tools...)
	e.lastLen = len(toolsDump(tools))
	return e.lastLen
}

func sameTools(a, b []model.ToolSchema) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i].Parameters, b[i].Parameters
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description || len(x) != len(y) {
			return false
		}
		if len(x) > 0 && &x[0] != &y[0] && string(x) != string(y) {
			return false
		}
	}
	return true
}

// toolsDump is json.dumps(tools, ensure_ascii=False) of the reference's
// tool schemas ({"type": "function", "function": {name, description,
// parameters}}).
func toolsDump(tools []model.ToolSchema) []byte {
	list := pyjson.Value{Kind: pyjson.Array, Items: make([]pyjson.Value, len(tools))}
	for i, t := range tools {
		params := pyjson.Value{Kind: pyjson.Object}
		if len(t.Parameters) > 0 {
			if v, err := pyjson.Parse(string(t.Parameters)); err == nil {
				params = v
			}
		} else {
			params, _ = pyjson.Parse(`{"type": "object", "properties": {}}`)
		}
		fn := pyjson.Value{Kind: pyjson.Object, Keys: []string{"name", "description", "parameters"}, Items: []pyjson.Value{
			{Kind: pyjson.String, Str: t.Name}, {Kind: pyjson.String, Str: t.Description}, params,
		}}
		list.Items[i] = pyjson.Value{Kind: pyjson.Object, Keys: []string{"type", "function"}, Items: []pyjson.Value{
			{Kind: pyjson.String, Str: "function"}, fn,
		}}
	}
	return pyjson.AppendDumps(nil, list, pyjson.DumpOptions{})
}

// withDefaults fills in the reference's defaults and checks the ratios
// (agent/_config.py validators, Agent._validate_configs).
func (c ContextConfig) withDefaults(m model.ChatModel) (ContextConfig, error) {
	if c.ContextSize == 0 {
		c.ContextSize = DefaultContextSize
		if s, ok := m.(ContextSizer); ok && s.ContextSize() > 0 {
			c.ContextSize = s.ContextSize()
		}
	}
	if c.TriggerRatio == 0 {
		c.TriggerRatio = DefaultTriggerRatio
	}
	if c.ReserveRatio == 0 {
		c.ReserveRatio = DefaultReserveRatio
	}
	if c.ToolResultLimit == 0 {
		c.ToolResultLimit = DefaultToolResultLimit
	}
	if c.MaxImages == 0 {
		// A negative value stays: filling the defaults again (a
		// compression middleware's config) must not turn it into 5.
		c.MaxImages = DefaultMaxImages
	}
	if c.CompressionPrompt == "" {
		c.CompressionPrompt = DefaultCompressionPrompt
	}
	if c.SummaryTemplate == "" {
		c.SummaryTemplate = DefaultSummaryTemplate
	}
	if len(c.SummarySchema) == 0 {
		c.SummarySchema = json.RawMessage(DefaultSummarySchema)
	}
	if c.TokenCounter == nil {
		if tc, ok := m.(TokenCounter); ok {
			c.TokenCounter = tc
		} else {
			c.TokenCounter = &Estimator{}
		}
	}
	switch {
	case c.ContextSize < 0:
		return c, configErr("Context.ContextSize must be >= 0, got %d", c.ContextSize)
	case c.TriggerRatio < 0 || c.TriggerRatio > 0.9:
		return c, configErr("Context.TriggerRatio must be in (0, 0.9], got %v", c.TriggerRatio)
	case c.ReserveRatio < 0 || c.ReserveRatio >= 0.9:
		return c, configErr("Context.ReserveRatio must be in (0, 0.9), got %v", c.ReserveRatio)
	case c.ReserveRatio >= c.TriggerRatio:
		return c, configErr("The 'reserve_ratio' of the context config must be smaller than its 'trigger_ratio', got %v and %v.", c.ReserveRatio, c.TriggerRatio)
	case c.ToolResultLimit < 0:
		return c, configErr("Context.ToolResultLimit must be >= 0, got %d", c.ToolResultLimit)
	}
	return c, nil
}

// validate is withDefaults and the checks too costly for every step (a
// compression middleware's config is only filled in; a bad schema then
// fails the summary call, which falls back).
func (c ContextConfig) validate(m model.ChatModel) (ContextConfig, error) {
	c, err := c.withDefaults(m)
	if err != nil {
		return c, err
	}
	// The default is an object schema (TestDefaultSummarySchemaIsObject):
	// parsing it again for every agent cost two thirds of serve's agent
	// build before each run.
	if string(c.SummarySchema) == DefaultSummarySchema {
		return c, nil
	}
	if v, err := pyjson.Parse(string(c.SummarySchema)); err != nil || v.Kind != pyjson.Object {
		return c, configErr("Context.SummarySchema must be a JSON object schema")
	}
	return c, nil
}
