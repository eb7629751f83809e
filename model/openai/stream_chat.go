package openai

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/stamp"
)

// ErrMalformed is wrapped by the *model.Error returned when a provider
// sends a stream line or response body that is not the JSON it should be.
var ErrMalformed = errors.New("malformed provider response")

// ErrTruncated is wrapped by the *model.Error returned when a stream ends
// before the provider said the response was finished.
var ErrTruncated = errors.New("stream ended before the response finished")

type chatChunk struct {
	Choices []chatChoice    `json:"choices"`
	Usage   *chatUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type chatChoice struct {
	Index        int        `json:"index"`
	Delta        chatDelta  `json:"delta"`
	Message      *chatDelta `json:"message"` // whole (non-streamed) responses
	FinishReason *string    `json:"finish_reason"`
}

type chatDelta struct {
	Content          string          `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	Reasoning        json.RawMessage `json:"reasoning"`
	ToolCalls        []chatToolDelta `json:"tool_calls"`
	Audio            *chatAudio      `json:"audio"`
}

type chatToolDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type chatAudio struct {
	ID         string `json:"id"`
	Data       string `json:"data"`
	Transcript string `json:"transcript"`
}

type chatUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	PromptCacheHitTokens int64 `json:"prompt_cache_hit_tokens"` // DeepSeek
	CachedTokens         int64 `json:"cached_tokens"`           // Moonshot
}

// chatDecoder turns Chat Completions chunks into model.Chunks. It keys text
// and thinking by one generated id each for the call (chunk ids are not
// stable: proxies change them mid-stream) and tool-call fragments by index,
// because only the first fragment of an index carries the call id and name.
type chatDecoder struct {
	provider    string
	src         stamp.Source
	addReason   bool
	textID      string
	thinkingID  string
	audioID     string
	audioHeader bool
	calls       []chatCall
	parts       []model.Part
	finished    bool
	done        bool
}

type chatCall struct {
	id string
}

func newChatDecoder(provider string, src stamp.Source, outputExcludesReasoning bool) *chatDecoder {
	return &chatDecoder{provider: provider, src: src, addReason: outputExcludesReasoning}
}

// decode parses one SSE data payload (or a whole response body) and
// returns the chunk to yield, if any.
func (d *chatDecoder) decode(data []byte) (model.Chunk, bool, error) {
	var c chatChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return model.Chunk{}, false, d.malformed(err, data)
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return model.Chunk{}, false, inStreamError(d.provider, c.Error)
	}
	d.parts = d.parts[:0]
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // n>1 is not supported: only the first choice is read
		}
		delta, whole := &ch.Delta, false
		if ch.Message != nil {
			delta, whole = ch.Message, true
		}
		if err := d.delta(delta, whole); err != nil {
			return model.Chunk{}, false, err
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			d.finished = true
		}
	}
	out := model.Chunk{Parts: d.parts}
	if c.Usage != nil {
		out.Usage = d.usage(c.Usage)
	}
	return out, len(out.Parts) > 0 || out.Usage != nil, nil
}

// delta decodes one choice's delta, or its whole message: whole says each
// tool_calls element is a complete call.
func (d *chatDecoder) delta(delta *chatDelta, whole bool) error {
	// Thinking precedes text within a chunk, as the reference orders them.
	thinking := delta.ReasoningContent
	if thinking == "" && len(delta.Reasoning) > 0 && delta.Reasoning[0] == '"' {
		// vLLM and OpenRouter name the field "reasoning".
		if err := json.Unmarshal(delta.Reasoning, &thinking); err != nil {
			return d.malformed(err, delta.Reasoning)
		}
	}
	if thinking != "" {
		if d.thinkingID == "" {
			d.thinkingID = d.src.NewID()
		}
		d.parts = append(d.parts, model.Part{Kind: model.PartThinking, ID: d.thinkingID, Text: thinking})
	}
	text := delta.Content
	if delta.Audio != nil && delta.Audio.Transcript != "" {
		text += delta.Audio.Transcript
	}
	if text != "" {
		if d.textID == "" {
			d.textID = d.src.NewID()
		}
		d.parts = append(d.parts, model.Part{Kind: model.PartText, ID: d.textID, Text: text})
	}
	if delta.Audio != nil && delta.Audio.Data != "" {
		if err := d.audio(delta.Audio); err != nil {
			return err
		}
	}
	for i := range delta.ToolCalls {
		if err := d.toolCall(&delta.ToolCalls[i], whole); err != nil {
			return err
		}
	}
	return nil
}

func (d *chatDecoder) toolCall(t *chatToolDelta, whole bool) error {
	args, err := argumentText(t.Function.Arguments)
	if err != nil {
		return d.malformed(err, t.Function.Arguments)
	}
	var slot int
	switch {
	case t.Index != nil && *t.Index >= 0 && *t.Index < 1<<16:
		slot = *t.Index
	case t.Index != nil:
		return d.malformed(fmt.Errorf("tool call index %d out of range", *t.Index), nil)
	case t.ID != "" || whole:
		// No index (whole-message responses, some servers): one slot per
		// id; an element of a whole message is a call of its own even
		// without one.
		slot = len(d.calls)
		for i, c := range d.calls {
			if t.ID != "" && c.id == t.ID {
				slot = i
			}
		}
	default:
		slot = max(len(d.calls)-1, 0)
	}
	for len(d.calls) <= slot {
		d.calls = append(d.calls, chatCall{})
	}
	c := &d.calls[slot]
	first := false
	switch {
	case c.id == "":
		first = true
		c.id = t.ID
		if c.id == "" {
			// Some servers never send an id; results must still pair up.
			c.id = "call_" + d.src.NewID()
		}
	case t.ID != "" && t.ID != c.id:
		// A server reusing index 0 for every whole call: a new call.
		first = true
		c.id = t.ID
	}
	if !first && args == "" && t.Function.Name == "" {
		return nil
	}
	d.parts = append(d.parts, model.Part{Kind: model.PartToolCall, ID: c.id, Name: t.Function.Name, Text: args})
	return nil
}

// argumentText accepts arguments as a JSON string (the standard) or as an
// object (some compatible servers), returning the raw JSON text.
func argumentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	return string(raw), nil
}

// audio turns PCM16 deltas into one audio/wav data block: the first piece
// gets a streaming WAV header (sizes unknown, so maximal), every piece stays
// independently base64-decodable.
func (d *chatDecoder) audio(a *chatAudio) error {
	if d.audioID == "" {
		d.audioID = a.ID
		if d.audioID == "" {
			d.audioID = d.src.NewID()
		}
	}
	data := a.Data
	if !d.audioHeader {
		d.audioHeader = true
		pcm, err := base64.StdEncoding.DecodeString(a.Data)
		if err != nil {
			return d.malformed(err, nil)
		}
		data = base64.StdEncoding.EncodeToString(append(wavHeader(24000, 1, 16), pcm...))
	}
	d.parts = append(d.parts, model.Part{Kind: model.PartData, ID: d.audioID, MediaType: "audio/wav", Text: data})
	return nil
}

// wavHeader is a RIFF/WAVE header for a stream of unknown length.
func wavHeader(rate, channels, bits int) []byte {
	h := make([]byte, 44)
	copy(h[0:], "RIFF")
	binary.LittleEndian.PutUint32(h[4:], 0xFFFFFFFF)
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1)
	binary.LittleEndian.PutUint16(h[22:], uint16(channels))
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(rate*channels*bits/8))
	binary.LittleEndian.PutUint16(h[32:], uint16(channels*bits/8))
	binary.LittleEndian.PutUint16(h[34:], uint16(bits))
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], 0xFFFFFFFF)
	return h
}

// usage maps a report: cache reads from prompt_tokens_details (OpenAI,
// proxies), prompt_cache_hit_tokens (DeepSeek) or cached_tokens (Moonshot);
// the output count adds reasoning tokens where the provider leaves them out.
func (d *chatDecoder) usage(u *chatUsage) *message.Usage {
	out := &message.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	switch {
	case u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens > 0:
		out.CacheInputTokens = u.PromptTokensDetails.CachedTokens
	case u.PromptCacheHitTokens > 0:
		out.CacheInputTokens = u.PromptCacheHitTokens
	default:
		out.CacheInputTokens = u.CachedTokens
	}
	if d.addReason && u.CompletionTokensDetails != nil {
		out.OutputTokens += u.CompletionTokensDetails.ReasoningTokens
	}
	return out
}

func (d *chatDecoder) malformed(err error, data []byte) error {
	return malformedError(d.provider, err, data)
}

func malformedError(provider string, err error, data []byte) error {
	msg := "malformed stream data: " + err.Error()
	if len(data) > 0 {
		const max = 200
		s := string(data)
		if len(s) > max {
			s = s[:max] + "…"
		}
		msg += "; data: " + strconv.Quote(s)
	}
	return &model.Error{Type: event.ErrUpstream, Provider: provider, Message: msg, Err: fmt.Errorf("%w: %w", ErrMalformed, err)}
}

func truncatedError(provider string) error {
	return &model.Error{Type: event.ErrConnection, Provider: provider, Message: ErrTruncated.Error(), Err: ErrTruncated}
}

// inStreamError classifies an {"error":{…}} object sent inside a 200
// stream (OpenAI-compatible servers report late failures this way).
func inStreamError(provider string, raw json.RawMessage) error {
	var e struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if raw[0] == '"' {
		_ = json.Unmarshal(raw, &e.Message)
	} else if err := json.Unmarshal(raw, &e); err != nil {
		return malformedError(provider, err, raw)
	}
	status, _ := strconv.Atoi(string(e.Code))
	me := &model.Error{Type: event.ErrUpstream, Provider: provider, Status: status, Message: e.Message}
	if me.Message == "" {
		me.Message = string(raw)
	}
	switch {
	case status == 401 || e.Type == "authentication_error":
		me.Type = event.ErrAuthentication
	case status == 403 || e.Type == "permission_error":
		me.Type = event.ErrPermission
	case status == 429 || e.Type == "rate_limit_error" || e.Type == "rate_limit_exceeded" || string(e.Code) == `"rate_limit_exceeded"`:
		me.Type = event.ErrRateLimit
	case status == 400 || e.Type == "invalid_request_error":
		me.Type = event.ErrInvalidRequest
	}
	return me
}
