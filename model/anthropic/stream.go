package anthropic

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/transport"
	"github.com/agentscope-go/agentscope/stamp"
)

// streamEvent is the union of the Messages stream's event payloads.
type streamEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message struct {
		ID    string     `json:"id"`
		Usage *wireUsage `json:"usage"`
	} `json:"message"`
	ContentBlock struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		Data      string          `json:"data"`
		Input     json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *wireUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type wireUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
}

// apply copies the fields present into u: message_delta repeats some of
// them cumulatively, and a missing field keeps its earlier value.
func (w *wireUsage) apply(u *message.Usage) {
	set := func(dst *int64, v *int64) {
		if v != nil {
			*dst = *v
		}
	}
	set(&u.InputTokens, w.InputTokens)
	set(&u.OutputTokens, w.OutputTokens)
	set(&u.CacheInputTokens, w.CacheReadInputTokens)
	set(&u.CacheCreationInputTokens, w.CacheCreationInputTokens)
}

// open is a content block being streamed, by its index.
type open struct {
	kind       model.PartKind // 0 for block types the adapter does not surface
	id         string
	startInput string // tool_use: the start block's input, used when no delta comes
	gotInput   bool
}

type decoder struct {
	src    stamp.Source
	blocks map[int]*open
	usage  message.Usage
	ev     streamEvent
	part   [1]model.Part
}

// decode reads the SSE body and yields chunks until message_stop, an error
// event, a read error or the consumer stopping.
func decode(r io.Reader, src stamp.Source, yield func(model.Chunk, error) bool) {
	d := &decoder{src: src, blocks: make(map[int]*open)}
	for ev, err := range transport.SSE(r) {
		if err != nil {
			yield(model.Chunk{}, transport.StreamError(Provider, err))
			return
		}
		c, done, err := d.step(ev)
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		if (len(c.Parts) > 0 || c.Usage != nil) && !yield(c, nil) {
			return
		}
		if done {
			return
		}
	}
	yield(model.Chunk{}, &model.Error{Type: event.ErrConnection, Provider: Provider,
		Message: "stream ended before message_stop", Err: io.ErrUnexpectedEOF})
}

func (d *decoder) emit(p model.Part) model.Chunk {
	d.part[0] = p
	return model.Chunk{Parts: d.part[:]}
}

func (d *decoder) usageChunk() model.Chunk {
	u := d.usage
	return model.Chunk{Usage: &u}
}

func extra(key, value string) []block.Extra {
	return []block.Extra{{Key: key, Value: wire.AppendString(nil, value)}}
}

// step handles one SSE event: the chunk to yield (possibly empty), and
// whether the stream is over.
func (d *decoder) step(ev transport.Event) (model.Chunk, bool, error) {
	data := bytes.TrimSpace(ev.Data)
	if len(data) == 0 {
		return model.Chunk{}, false, nil
	}
	e := &d.ev
	*e = streamEvent{}
	if err := json.Unmarshal(data, e); err != nil {
		return model.Chunk{}, false, &model.Error{Type: event.ErrUpstream, Provider: Provider,
			Message: "malformed stream event " + quoteShort(data) + ": " + err.Error(), Err: err}
	}
	typ := e.Type
	if typ == "" {
		typ = ev.Name
	}
	switch typ {
	case "message_start":
		if e.Message.Usage != nil {
			e.Message.Usage.apply(&d.usage)
			return d.usageChunk(), false, nil
		}
	case "content_block_start":
		return d.start(), false, nil
	case "content_block_delta":
		return d.delta(), false, nil
	case "content_block_stop":
		b := d.blocks[e.Index]
		delete(d.blocks, e.Index)
		if b != nil && b.kind == model.PartToolCall && !b.gotInput {
			// No input_json_delta: the start block's input is the input
			// ("{}" for a call without arguments).
			return d.emit(model.Part{Kind: model.PartToolCall, ID: b.id, Text: b.startInput}), false, nil
		}
	case "message_delta":
		if e.Usage != nil {
			e.Usage.apply(&d.usage)
			return d.usageChunk(), false, nil
		}
	case "message_stop":
		return model.Chunk{}, true, nil
	case "error":
		return model.Chunk{}, true, streamErr(e)
	}
	// ping and event types added later are skipped.
	return model.Chunk{}, false, nil
}

func (d *decoder) start() model.Chunk {
	e := &d.ev
	cb := &e.ContentBlock
	b := &open{}
	d.blocks[e.Index] = b
	switch cb.Type {
	case "text":
		b.kind, b.id = model.PartText, d.src.NewID()
		if cb.Text != "" {
			return d.emit(model.Part{Kind: model.PartText, ID: b.id, Text: cb.Text})
		}
	case "thinking":
		b.kind, b.id = model.PartThinking, d.src.NewID()
		p := model.Part{Kind: model.PartThinking, ID: b.id, Text: cb.Thinking}
		if cb.Signature != "" {
			p.Extra = extra("signature", cb.Signature)
		}
		if p.Text != "" || p.Extra != nil {
			return d.emit(p)
		}
	case "redacted_thinking":
		b.kind, b.id = model.PartThinking, d.src.NewID()
		return d.emit(model.Part{Kind: model.PartThinking, ID: b.id, Extra: extra("redacted_thinking_data", cb.Data)})
	case "tool_use":
		b.kind, b.id = model.PartToolCall, cb.ID
		if b.id == "" {
			b.id = "toolu_" + d.src.NewID() // results are matched to calls by id
		}
		b.startInput = "{}"
		if in := bytes.TrimSpace(cb.Input); len(in) > 0 && !bytes.Equal(in, []byte("{}")) {
			b.startInput = string(wire.AppendCompact(nil, in))
		}
		// An empty fragment carrying the name, so a consumer can announce
		// the call before its arguments arrive.
		return d.emit(model.Part{Kind: model.PartToolCall, ID: b.id, Name: cb.Name})
	}
	return model.Chunk{}
}

func (d *decoder) delta() model.Chunk {
	e := &d.ev
	b, dl := d.blocks[e.Index], &e.Delta
	if b == nil || b.kind == 0 {
		return model.Chunk{}
	}
	switch dl.Type {
	case "text_delta":
		if dl.Text != "" {
			return d.emit(model.Part{Kind: model.PartText, ID: b.id, Text: dl.Text})
		}
	case "thinking_delta":
		if dl.Thinking != "" {
			return d.emit(model.Part{Kind: model.PartThinking, ID: b.id, Text: dl.Thinking})
		}
	case "signature_delta":
		if dl.Signature != "" {
			return d.emit(model.Part{Kind: model.PartThinking, ID: b.id, Extra: extra("signature", dl.Signature)})
		}
	case "input_json_delta":
		// The first fragment is often "": it neither starts the input nor
		// replaces the start block's {}.
		if dl.PartialJSON != "" {
			b.gotInput = true
			return d.emit(model.Part{Kind: model.PartToolCall, ID: b.id, Text: dl.PartialJSON})
		}
	}
	return model.Chunk{}
}

// streamErr classifies an in-stream error event by the API's error type.
func streamErr(e *streamEvent) *model.Error {
	me := &model.Error{Type: event.ErrUnknown, Provider: Provider, Message: "error event without details"}
	if e.Error == nil {
		return me
	}
	me.Message = e.Error.Message
	switch e.Error.Type {
	case "overloaded_error", "api_error":
		me.Type = event.ErrUpstream
	case "rate_limit_error":
		me.Type = event.ErrRateLimit
	case "authentication_error":
		me.Type = event.ErrAuthentication
	case "permission_error":
		me.Type = event.ErrPermission
	case "invalid_request_error", "not_found_error", "request_too_large":
		me.Type = event.ErrInvalidRequest
	}
	if me.Message == "" {
		me.Message = e.Error.Type
	}
	return me
}

func quoteShort(b []byte) string {
	const n = 120
	if len(b) > n {
		return string(wire.AppendString(nil, string(b[:n])+"…"))
	}
	return string(wire.AppendString(nil, string(b)))
}
