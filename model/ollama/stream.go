package ollama

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/transport"
	"github.com/agentscope-go/agentscope/stamp"
)

// line is one NDJSON object of the /api/chat stream.
type line struct {
	Message struct {
		Content   string `json:"content"`
		Thinking  string `json:"thinking"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"message"`
	Done            bool   `json:"done"`
	DoneReason      string `json:"done_reason"`
	PromptEvalCount int64  `json:"prompt_eval_count"`
	EvalCount       int64  `json:"eval_count"`
	Error           string `json:"error"`
}

type decoder struct {
	src    stamp.Source
	callID func() string
	kind   model.PartKind // the open text or thinking block, 0 if none
	id     string
	done   bool
	parts  []model.Part
	l      line
}

func decode(r io.Reader, src stamp.Source, callID func() string, yield func(model.Chunk, error) bool) {
	d := &decoder{src: src, callID: callID}
	for data, err := range transport.Lines(r) {
		if err != nil {
			yield(model.Chunk{}, transport.StreamError(Provider, err))
			return
		}
		c, err := d.step(data)
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		if (len(c.Parts) > 0 || c.Usage != nil) && !yield(c, nil) {
			return
		}
		if d.done {
			return
		}
	}
	yield(model.Chunk{}, &model.Error{Type: event.ErrConnection, Provider: Provider,
		Message: "stream ended before done:true", Err: io.ErrUnexpectedEOF})
}

func (d *decoder) block(k model.PartKind) string {
	if d.kind != k {
		d.kind, d.id = k, d.src.NewID()
	}
	return d.id
}

func (d *decoder) step(data []byte) (model.Chunk, error) {
	l := &d.l
	*l = line{}
	if err := json.Unmarshal(data, l); err != nil {
		return model.Chunk{}, &model.Error{Type: event.ErrUpstream, Provider: Provider,
			Message: "malformed stream line " + quoteShort(data) + ": " + err.Error(), Err: err}
	}
	if l.Error != "" {
		return model.Chunk{}, &model.Error{Type: event.ErrUpstream, Provider: Provider, Message: l.Error}
	}
	d.parts = d.parts[:0]
	if t := l.Message.Thinking; t != "" {
		d.parts = append(d.parts, model.Part{Kind: model.PartThinking, ID: d.block(model.PartThinking), Text: t})
	}
	if t := l.Message.Content; t != "" {
		d.parts = append(d.parts, model.Part{Kind: model.PartText, ID: d.block(model.PartText), Text: t})
	}
	for i := range l.Message.ToolCalls {
		tc := &l.Message.ToolCalls[i]
		id := tc.ID
		if id == "" {
			id = d.callID()
		}
		args := "{}"
		switch a := bytes.TrimSpace(tc.Function.Arguments); {
		case len(a) == 0 || bytes.Equal(a, []byte("null")):
		case a[0] == '"':
			// Some servers send the arguments as a JSON-encoded string.
			var s string
			if json.Unmarshal(a, &s) == nil && s != "" {
				args = s
			}
		default:
			args = string(wire.AppendCompact(nil, a))
		}
		d.parts = append(d.parts, model.Part{Kind: model.PartToolCall, ID: id, Name: tc.Function.Name, Text: args})
		d.kind = 0
	}
	c := model.Chunk{Parts: d.parts}
	if l.Done {
		d.done = true
		c.Usage = &message.Usage{InputTokens: l.PromptEvalCount, OutputTokens: l.EvalCount}
	}
	return c, nil
}

func quoteShort(b []byte) string {
	const n = 120
	if len(b) > n {
		return string(wire.AppendString(nil, string(b[:n])+"…"))
	}
	return string(wire.AppendString(nil, string(b)))
}
