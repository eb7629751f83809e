package gemini

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/transport"
	"github.com/agentscope-go/agentscope/stamp"
)

// response is one streamed GenerateContentResponse (only what is read).
type response struct {
	Candidates []struct {
		Content struct {
			Parts []wirePart `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *struct {
		PromptTokenCount        int64 `json:"promptTokenCount"`
		TotalTokenCount         int64 `json:"totalTokenCount"`
		CachedContentTokenCount int64 `json:"cachedContentTokenCount"`
	} `json:"usageMetadata"`
	PromptFeedback *struct {
		BlockReason        string `json:"blockReason"`
		BlockReasonMessage string `json:"blockReasonMessage"`
	} `json:"promptFeedback"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

type wirePart struct {
	Text             *string `json:"text"`
	Thought          bool    `json:"thought"`
	ThoughtSignature string  `json:"thoughtSignature"`
	FunctionCall     *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	InlineData *struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
	FileData *struct {
		MimeType string `json:"mimeType"`
		FileURI  string `json:"fileUri"`
	} `json:"fileData"`
}

type decoder struct {
	src    stamp.Source
	callID func() string
	log    *slog.Logger
	// The open text or thinking block that the next part of the same kind
	// continues; kind 0 when none is open.
	kind     model.PartKind
	id       string
	finished bool
	parts    []model.Part
	resp     response
}

func decode(r io.Reader, src stamp.Source, callID func() string, log *slog.Logger, yield func(model.Chunk, error) bool) {
	d := &decoder{src: src, callID: callID, log: log}
	for ev, err := range transport.SSE(r) {
		if err != nil {
			yield(model.Chunk{}, transport.StreamError(Provider, err))
			return
		}
		c, err := d.step(ev.Data)
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		if (len(c.Parts) > 0 || c.Usage != nil) && !yield(c, nil) {
			return
		}
	}
	if !d.finished {
		yield(model.Chunk{}, &model.Error{Type: event.ErrConnection, Provider: Provider,
			Message: "stream ended before a finishReason", Err: io.ErrUnexpectedEOF})
	}
}

func sigExtra(sig string) []block.Extra {
	return []block.Extra{{Key: "thought_signature", Value: wire.AppendString(nil, sig)}}
}

func (d *decoder) step(data []byte) (model.Chunk, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return model.Chunk{}, nil
	}
	r := &d.resp
	*r = response{}
	if err := json.Unmarshal(data, r); err != nil {
		return model.Chunk{}, &model.Error{Type: event.ErrUpstream, Provider: Provider,
			Message: "malformed stream chunk " + quoteShort(data) + ": " + err.Error(), Err: err}
	}
	if r.Error != nil {
		return model.Chunk{}, streamErr(r.Error.Code, r.Error.Status, r.Error.Message)
	}
	if r.PromptFeedback != nil && r.PromptFeedback.BlockReason != "" && len(r.Candidates) == 0 {
		msg := "prompt blocked: " + r.PromptFeedback.BlockReason
		if r.PromptFeedback.BlockReasonMessage != "" {
			msg += ": " + r.PromptFeedback.BlockReasonMessage
		}
		d.finished = true
		return model.Chunk{}, &model.Error{Type: event.ErrInvalidRequest, Provider: Provider, Message: msg}
	}
	d.parts = d.parts[:0]
	if len(r.Candidates) > 0 {
		cand := &r.Candidates[0]
		for i := range cand.Content.Parts {
			d.part(&cand.Content.Parts[i])
		}
		if cand.FinishReason != "" {
			d.finished = true
			if cand.FinishReason != "STOP" && cand.FinishReason != "MAX_TOKENS" {
				d.log.Warn("gemini: response finished early", "finish_reason", cand.FinishReason)
			}
		}
	}
	c := model.Chunk{Parts: d.parts}
	if um := r.UsageMetadata; um != nil {
		c.Usage = &message.Usage{
			InputTokens:      um.PromptTokenCount,
			OutputTokens:     max(um.TotalTokenCount-um.PromptTokenCount, 0),
			CacheInputTokens: um.CachedContentTokenCount,
		}
	}
	return c, nil
}

// block returns the id of the open block of kind k, opening one if needed.
func (d *decoder) block(k model.PartKind) string {
	if d.kind != k {
		d.kind, d.id = k, d.src.NewID()
	}
	return d.id
}

func (d *decoder) part(p *wirePart) {
	switch {
	case p.FunctionCall != nil:
		fc := p.FunctionCall
		id := fc.ID
		if id == "" {
			id = d.callID()
		}
		args := "{}"
		if a := bytes.TrimSpace(fc.Args); len(a) > 0 && !bytes.Equal(a, []byte("null")) {
			args = string(wire.AppendCompact(nil, a))
		}
		out := model.Part{Kind: model.PartToolCall, ID: id, Name: fc.Name, Text: args}
		if p.ThoughtSignature != "" {
			out.Extra = sigExtra(p.ThoughtSignature)
		}
		d.parts = append(d.parts, out)
		d.kind = 0
	case p.InlineData != nil:
		d.parts = append(d.parts, model.Part{Kind: model.PartData, ID: d.src.NewID(), MediaType: p.InlineData.MimeType, Text: p.InlineData.Data})
		d.kind = 0
	case p.FileData != nil:
		d.parts = append(d.parts, model.Part{Kind: model.PartData, ID: d.src.NewID(), MediaType: p.FileData.MimeType, URL: p.FileData.FileURI})
		d.kind = 0
	case p.Text != nil && p.Thought:
		out := model.Part{Kind: model.PartThinking, ID: d.block(model.PartThinking), Text: *p.Text}
		if p.ThoughtSignature != "" {
			out.Extra = sigExtra(p.ThoughtSignature)
		}
		if out.Text != "" || out.Extra != nil {
			d.parts = append(d.parts, out)
		}
		if p.ThoughtSignature != "" {
			d.kind = 0 // a signature closes its block: never merge past it
		}
	case p.Text != nil:
		if *p.Text != "" {
			d.parts = append(d.parts, model.Part{Kind: model.PartText, ID: d.block(model.PartText), Text: *p.Text})
		}
		if p.ThoughtSignature != "" {
			// A text part's signature becomes an empty thinking block of
			// its own right after the text (see the package doc).
			d.parts = append(d.parts, model.Part{Kind: model.PartThinking, ID: d.src.NewID(), Extra: sigExtra(p.ThoughtSignature)})
			d.kind = 0
		}
	}
	// Other parts (executableCode, codeExecutionResult, …) are not
	// surfaced.
}

// streamErr classifies an error object sent inside the stream.
func streamErr(code int, status, msg string) *model.Error {
	me := &model.Error{Provider: Provider, Status: code, Message: msg}
	switch {
	case code == http.StatusTooManyRequests || status == "RESOURCE_EXHAUSTED":
		me.Type = event.ErrRateLimit
	case code >= 500 || status == "UNAVAILABLE" || status == "INTERNAL":
		me.Type = event.ErrUpstream
	case code == http.StatusUnauthorized || status == "UNAUTHENTICATED":
		me.Type = event.ErrAuthentication
	case code == http.StatusForbidden || status == "PERMISSION_DENIED":
		me.Type = event.ErrPermission
	case code >= 400:
		me.Type = event.ErrInvalidRequest
	default:
		me.Type = event.ErrUnknown
	}
	if me.Message == "" {
		me.Message = status
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
