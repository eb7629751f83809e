package openai

import (
	"encoding/json"
	"strconv"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/stamp"
)

type respEvent struct {
	Type         string          `json:"type"`
	ItemID       string          `json:"item_id"`
	Delta        string          `json:"delta"`
	SummaryIndex int             `json:"summary_index"`
	Arguments    string          `json:"arguments"`
	Item         *respOutItem    `json:"item"`
	Response     *respResponse   `json:"response"`
	Code         json.RawMessage `json:"code"`
	Message      string          `json:"message"`
}

type respOutItem struct {
	ID               string `json:"id"`
	Type             string `json:"type"`
	CallID           string `json:"call_id"`
	Name             string `json:"name"`
	Arguments        string `json:"arguments"`
	EncryptedContent string `json:"encrypted_content"`
	Summary          []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

type respResponse struct {
	Status string        `json:"status"`
	Output []respOutItem `json:"output"`
	Usage  *struct {
		InputTokens        int64 `json:"input_tokens"`
		OutputTokens       int64 `json:"output_tokens"`
		InputTokensDetails *struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"input_tokens_details"`
	} `json:"usage"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// respDecoder turns Responses API events into model.Chunks. Text and
// thinking are keyed by their output item ids (msg_…, rs_…); tool calls by
// call_id, which argument deltas reach through their item_id (fc_…).
type respDecoder struct {
	provider  string
	src       stamp.Source
	anon      string // the key for items sent without an id
	calls     map[string]*respCall
	reasoning map[string]*respReasoningState
	parts     []model.Part
	completed bool
}

type respCall struct {
	callID  string
	sawArgs bool
}

type respReasoningState struct {
	summaryIndex int
	sawText      bool
}

func newRespDecoder(provider string, src stamp.Source) *respDecoder {
	return &respDecoder{provider: provider, src: src, calls: map[string]*respCall{}, reasoning: map[string]*respReasoningState{}}
}

// key is an item's block key; an item without an id (never seen from
// OpenAI) still gets a stable one, as parts must be keyed.
func (d *respDecoder) key(id string) string {
	if id != "" {
		return id
	}
	if d.anon == "" {
		d.anon = d.src.NewID()
	}
	return d.anon
}

// announce records a function_call item and returns its call id.
func (d *respDecoder) announce(it *respOutItem) *respCall {
	callID := it.CallID
	if callID == "" {
		callID = d.key(it.ID)
	}
	c := &respCall{callID: callID, sawArgs: it.Arguments != ""}
	d.calls[it.ID] = c
	return c
}

func (d *respDecoder) decode(data []byte) (model.Chunk, bool, error) {
	var ev respEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return model.Chunk{}, false, malformedError(d.provider, err, data)
	}
	d.parts = d.parts[:0]
	var usage *message.Usage
	switch ev.Type {
	case "response.output_item.added":
		if ev.Item != nil && ev.Item.Type == "function_call" {
			c := d.announce(ev.Item)
			// Opening the call here gives TOOL_CALL_START its name early.
			d.parts = append(d.parts, model.Part{Kind: model.PartToolCall, ID: c.callID, Name: ev.Item.Name, Text: ev.Item.Arguments})
		}
	case "response.output_text.delta", "response.refusal.delta":
		if ev.Delta != "" {
			d.parts = append(d.parts, model.Part{Kind: model.PartText, ID: d.key(ev.ItemID), Text: ev.Delta})
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		d.thinking(ev.ItemID, ev.SummaryIndex, ev.Delta)
	case "response.function_call_arguments.delta":
		c := d.call(ev.ItemID)
		if ev.Delta != "" {
			c.sawArgs = true
			d.parts = append(d.parts, model.Part{Kind: model.PartToolCall, ID: c.callID, Text: ev.Delta})
		}
	case "response.function_call_arguments.done":
		d.argsDone(ev.ItemID, ev.Arguments)
	case "response.output_item.done":
		if ev.Item != nil {
			d.itemDone(ev.Item, false)
		}
	case "response.completed", "response.incomplete":
		d.completed = true
		if ev.Response != nil {
			usage = respUsage(ev.Response)
		}
	case "response.failed":
		return model.Chunk{}, false, d.failed(ev.Response)
	case "error":
		return model.Chunk{}, false, respError(d.provider, string(ev.Code), ev.Message)
	}
	out := model.Chunk{Parts: d.parts, Usage: usage}
	return out, len(out.Parts) > 0 || usage != nil, nil
}

// whole decodes a non-streamed response object.
func (d *respDecoder) whole(data []byte) (model.Chunk, bool, error) {
	var r respResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return model.Chunk{}, false, malformedError(d.provider, err, data)
	}
	if r.Error != nil && r.Error.Message != "" {
		return model.Chunk{}, false, d.failed(&r)
	}
	d.parts = d.parts[:0]
	for i := range r.Output {
		it := &r.Output[i]
		switch it.Type {
		case "function_call":
			c := d.announce(it)
			c.sawArgs = false
			d.parts = append(d.parts, model.Part{Kind: model.PartToolCall, ID: c.callID, Name: it.Name})
		case "message":
			for _, c := range it.Content {
				if c.Text != "" {
					d.parts = append(d.parts, model.Part{Kind: model.PartText, ID: d.key(it.ID), Text: c.Text})
				}
			}
			continue
		}
		d.itemDone(it, true)
	}
	d.completed = true
	return model.Chunk{Parts: d.parts, Usage: respUsage(&r)}, true, nil
}

func (d *respDecoder) call(itemID string) *respCall {
	c, ok := d.calls[itemID]
	if !ok {
		// Arguments for an item we never saw announced: key them by the
		// item id rather than lose them.
		c = &respCall{callID: d.key(itemID)}
		d.calls[itemID] = c
	}
	return c
}

func (d *respDecoder) thinking(itemID string, summaryIndex int, delta string) {
	itemID = d.key(itemID)
	st, ok := d.reasoning[itemID]
	if !ok {
		st = &respReasoningState{summaryIndex: summaryIndex}
		d.reasoning[itemID] = st
	}
	if delta == "" {
		return
	}
	if summaryIndex != st.summaryIndex && st.sawText {
		delta = "\n\n" + delta // summary parts are paragraphs
	}
	st.summaryIndex = summaryIndex
	p := model.Part{Kind: model.PartThinking, ID: itemID, Text: delta}
	if !st.sawText && itemID != d.anon {
		p.Extra = []block.Extra{{Key: ExtraReasoningItemID, Value: jsonQuote(itemID)}}
	}
	st.sawText = true
	d.parts = append(d.parts, p)
}

// argsDone emits the whole arguments of a call that streamed none.
func (d *respDecoder) argsDone(itemID, args string) {
	c := d.call(itemID)
	if !c.sawArgs && args != "" {
		c.sawArgs = true
		d.parts = append(d.parts, model.Part{Kind: model.PartToolCall, ID: c.callID, Text: args})
	}
}

// itemDone closes an output item: reasoning items hand over their id (and
// encrypted content) for replay; calls get arguments they did not stream.
func (d *respDecoder) itemDone(it *respOutItem, whole bool) {
	switch it.Type {
	case "function_call":
		d.argsDone(it.ID, it.Arguments)
	case "reasoning":
		id := d.key(it.ID)
		st := d.reasoning[id]
		text := ""
		if st == nil || !st.sawText {
			for i, s := range it.Summary {
				if i > 0 {
					text += "\n\n"
				}
				text += s.Text
			}
			if text == "" {
				for _, c := range it.Content {
					text += c.Text
				}
			}
		}
		var extra []block.Extra
		if it.ID != "" {
			extra = append(extra, block.Extra{Key: ExtraReasoningItemID, Value: jsonQuote(it.ID)})
		}
		if it.EncryptedContent != "" {
			extra = append(extra, block.Extra{Key: ExtraEncryptedContent, Value: jsonQuote(it.EncryptedContent)})
		}
		d.parts = append(d.parts, model.Part{Kind: model.PartThinking, ID: id, Text: text, Extra: extra})
	}
}

func respUsage(r *respResponse) *message.Usage {
	if r.Usage == nil {
		return nil
	}
	u := &message.Usage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens}
	if r.Usage.InputTokensDetails != nil {
		u.CacheInputTokens = r.Usage.InputTokensDetails.CachedTokens
	}
	return u
}

func (d *respDecoder) failed(r *respResponse) error {
	if r == nil || r.Error == nil {
		return &model.Error{Type: event.ErrUpstream, Provider: d.provider, Message: "response failed"}
	}
	return respError(d.provider, strconv.Quote(r.Error.Code), r.Error.Message)
}

// respError classifies a Responses error by its code.
func respError(provider, code, msg string) error {
	c, _ := strconv.Unquote(code)
	if c == "" {
		c = code
	}
	e := &model.Error{Type: event.ErrUpstream, Provider: provider, Message: msg}
	if e.Message == "" {
		e.Message = c
	}
	switch c {
	case "rate_limit_exceeded", "insufficient_quota":
		e.Type = event.ErrRateLimit
	case "invalid_prompt", "invalid_request_error", "context_length_exceeded", "invalid_image", "invalid_image_format", "image_too_large":
		e.Type = event.ErrInvalidRequest
	case "invalid_api_key":
		e.Type = event.ErrAuthentication
	}
	return e
}

func jsonQuote(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}
