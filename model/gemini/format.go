package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/toolinput"
	"github.com/agentscope-go/agentscope/model/internal/toolresult"
)

// Wire shapes of the request.
type (
	content struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	part struct {
		Text             *string       `json:"text,omitempty"`
		Thought          bool          `json:"thought,omitempty"`
		InlineData       *blob         `json:"inlineData,omitempty"`
		FileData         *fileData     `json:"fileData,omitempty"`
		FunctionCall     *functionCall `json:"functionCall,omitempty"`
		FunctionResponse *functionResp `json:"functionResponse,omitempty"`
		ThoughtSignature string        `json:"thoughtSignature,omitempty"`
	}
	blob struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	}
	fileData struct {
		MimeType string `json:"mimeType,omitempty"`
		FileURI  string `json:"fileUri"`
	}
	functionCall struct {
		ID   string          `json:"id,omitempty"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	}
	functionResp struct {
		ID       string         `json:"id,omitempty"`
		Name     string         `json:"name"`
		Response map[string]any `json:"response"`
	}
	funcDecl struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
)

// genConfigKeys are generationConfig fields: a Request.Extra entry with
// one of these names goes into generationConfig, any other at the top.
var genConfigKeys = map[string]bool{
	"stopSequences": true, "responseMimeType": true, "responseSchema": true,
	"responseJsonSchema": true, "responseModalities": true, "candidateCount": true,
	"maxOutputTokens": true, "temperature": true, "topP": true, "topK": true, "seed": true,
	"presencePenalty": true, "frequencyPenalty": true, "responseLogprobs": true,
	"logprobs": true, "speechConfig": true, "thinkingConfig": true,
	"mediaResolution": true, "imageConfig": true,
}

// mediaInline is what Gemini reads from inline data and file parts, and so
// what tool results may hand over in a following user content.
var mediaInline = toolresult.Matcher("image/*", "audio/*", "video/*", "application/pdf", "text/*")

func text(s string) part { return part{Text: &s} }

// RequestBody returns the JSON body Stream would send for req.
func (m *Model) RequestBody(req *model.Request) ([]byte, error) {
	if req == nil {
		return nil, invalid("nil request", nil)
	}
	if err := req.ToolChoice.Validate(req.Tools); err != nil {
		return nil, invalid(err.Error(), err)
	}
	sys, contents, err := m.formatMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	body := map[string]any{"contents": contents}
	if len(sys) > 0 {
		body["systemInstruction"] = content{Role: "user", Parts: sys}
	}
	gen := map[string]any{}
	if m.maxTokens > 0 {
		gen["maxOutputTokens"] = m.maxTokens
	}
	if m.temperature != nil {
		gen["temperature"] = *m.temperature
	}
	if m.topP != nil {
		gen["topP"] = *m.topP
	}
	if m.topK != nil {
		gen["topK"] = *m.topK
	}
	if m.thinkingBudget != nil || m.thinkingLevel != "" || m.includeThoughts != nil {
		// Summaries are asked for whenever thinking is configured on, and
		// not for a budget of 0 (thinking off).
		on := m.thinkingLevel != "" || (m.thinkingBudget != nil && *m.thinkingBudget != 0)
		th := map[string]any{"includeThoughts": on}
		if m.includeThoughts != nil {
			th["includeThoughts"] = *m.includeThoughts
		}
		if m.thinkingBudget != nil {
			th["thinkingBudget"] = *m.thinkingBudget
		}
		if m.thinkingLevel != "" {
			th["thinkingLevel"] = m.thinkingLevel
		}
		gen["thinkingConfig"] = th
	}
	decls, err := formatTools(req.Tools, req.ToolChoice)
	if err != nil {
		return nil, err
	}
	if len(decls) > 0 {
		body["tools"] = []map[string]any{{"functionDeclarations": decls}}
		if cfg := toolConfig(req.ToolChoice); cfg != nil {
			body["toolConfig"] = map[string]any{"functionCallingConfig": cfg}
		}
	}
	for k, v := range req.Extra {
		if genConfigKeys[k] {
			gen[k] = v
		} else {
			body[k] = v
		}
	}
	if len(gen) > 0 {
		body["generationConfig"] = gen
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, invalid("encoding the request: "+err.Error(), err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func formatTools(tools []model.ToolSchema, choice *model.ToolChoice) ([]funcDecl, error) {
	var out []funcDecl
	for _, t := range tools {
		if choice != nil && choice.Tools != nil && !contains(choice.Tools, t.Name) {
			continue
		}
		params, err := sanitizeSchema(t.Parameters)
		if err != nil {
			return nil, invalid(fmt.Sprintf("tool %q: parameters: %v", t.Name, err), err)
		}
		out = append(out, funcDecl{Name: t.Name, Description: t.Description, Parameters: params})
	}
	return out, nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func toolConfig(c *model.ToolChoice) map[string]any {
	if c == nil || c.Mode == "" {
		return nil
	}
	switch c.Mode {
	case model.ChoiceAuto:
		return map[string]any{"mode": "AUTO"}
	case model.ChoiceNone:
		return map[string]any{"mode": "NONE"}
	case model.ChoiceRequired:
		return map[string]any{"mode": "ANY"}
	}
	return map[string]any{"mode": "ANY", "allowedFunctionNames": []string{c.Mode}}
}

// contents accumulates the request's contents.
type contents struct {
	list []content
	// open is the index of the content parts are being added to, -1 when
	// the next part starts a new content (a run of function responses must
	// be a content of its own).
	open int
	// calls counts the function calls in the last content, for the
	// signature fallback, which belongs on the first.
	calls int
}

func hasResponse(ps []part) bool {
	for _, p := range ps {
		if p.FunctionResponse != nil {
			return true
		}
	}
	return false
}

// add appends parts to the open content, or to the last one when it has
// the same role and neither side holds function responses (so turns of
// one role coming from different messages stay one content), or else to
// a new content.
func (c *contents) add(role string, ps ...part) {
	if len(ps) == 0 {
		return
	}
	n := len(c.list)
	if n > 0 && c.list[n-1].Role == role && (c.open == n-1 || (!hasResponse(c.list[n-1].Parts) && !hasResponse(ps))) {
		c.list[n-1].Parts = append(c.list[n-1].Parts, ps...)
		c.open = n - 1
		return
	}
	c.list = append(c.list, content{Role: role, Parts: ps})
	c.open = n
	c.calls = 0
}

// close ends the open content.
func (c *contents) close() { c.open = -1 }

func (m *Model) formatMessages(msgs []*message.Msg) (sys []part, out []content, err error) {
	c := &contents{open: -1}
	for mi, msg := range msgs {
		if msg == nil {
			continue
		}
		switch msg.Role {
		case event.RoleSystem:
			for _, b := range msg.Content {
				if t, ok := b.(*block.Text); ok && t.Text != "" {
					if len(c.list) == 0 {
						sys = append(sys, text(t.Text))
					} else {
						c.add("user", text(t.Text))
					}
				}
			}
		case event.RoleUser:
			c.add("user", userParts(msg.Content)...)
		case event.RoleAssistant:
			m.assistant(c, msg.Content)
		default:
			return nil, nil, invalid(fmt.Sprintf("messages[%d]: unknown role %q", mi, msg.Role), message.ErrRole)
		}
		c.close()
	}
	if c.list == nil {
		c.list = []content{}
	}
	return sys, c.list, nil
}

// assistant splits one reply Msg into model contents, one user content per
// run of tool results (all parallel responses together), the media those
// results promoted, and hint turns. Function responses must come right
// after the calls they answer, so a hint between a call and its result is
// sent after the results.
func (m *Model) assistant(c *contents, bs []block.Block) {
	var after []part // user parts waiting for the current results run to end
	unanswered := 0
	inResults := false
	flushAfter := func() {
		if len(after) > 0 {
			c.close()
			c.add("user", after...)
			c.close()
			after = nil
		}
	}
	for _, b := range bs {
		_, isResult := b.(*block.ToolResult)
		_, isHint := b.(*block.Hint)
		if !isResult && inResults && !(isHint && unanswered > 0) {
			inResults = false
			if unanswered == 0 {
				flushAfter()
			}
			c.close()
		}
		switch b := b.(type) {
		case *block.Text:
			if b.Text != "" {
				c.add("model", text(b.Text))
			}
		case *block.Thinking:
			sig := b.GetString("thought_signature")
			switch {
			case b.Thinking != "":
				p := text(b.Thinking)
				p.Thought, p.ThoughtSignature = true, sig
				c.add("model", p)
			case sig != "":
				// The signature of an empty text part, echoed as it came.
				p := text("")
				p.ThoughtSignature = sig
				c.add("model", p)
			}
			// Empty thinking without a signature (Anthropic's redacted
			// thinking, say) means nothing to Gemini.
		case *block.Data:
			if p, ok := dataPart(b); ok {
				c.add("model", p)
			}
		case *block.ToolCall:
			args, repaired := toolinput.Object(b.Input)
			if repaired {
				m.log().Warn("gemini: tool call arguments are not a JSON object; sending the repaired value", "id", b.ID, "input", b.Input, "sent", string(args))
			}
			c.add("model", part{FunctionCall: &functionCall{ID: b.ID, Name: b.Name, Args: args}, ThoughtSignature: b.GetString("thought_signature")})
			last := &c.list[len(c.list)-1]
			if c.calls++; c.calls == 1 && m.sigFallback != "" && last.Parts[len(last.Parts)-1].ThoughtSignature == "" {
				last.Parts[len(last.Parts)-1].ThoughtSignature = m.sigFallback
			}
			unanswered++
		case *block.ToolResult:
			if !inResults {
				c.close()
				inResults = true
			}
			out, media := toolresult.Flatten(b.Output, mediaInline)
			key := "result"
			if b.State == block.ResultError || b.State == block.ResultDenied || b.State == block.ResultInterrupted {
				key = "error"
			}
			c.add("user", part{FunctionResponse: &functionResp{ID: b.ID, Name: b.Name, Response: map[string]any{key: out}}})
			after = append(after, userParts(media)...)
			unanswered = max(unanswered-1, 0)
		case *block.Hint:
			if unanswered > 0 {
				after = append(after, bodyParts(b.Hint)...)
				continue
			}
			c.close()
			c.add("user", bodyParts(b.Hint)...)
			c.close()
		}
	}
	flushAfter()
}

func userParts(bs []block.Block) []part {
	var out []part
	for _, b := range bs {
		switch b := b.(type) {
		case *block.Text:
			if b.Text != "" {
				out = append(out, text(b.Text))
			}
		case *block.Data:
			if p, ok := dataPart(b); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

func bodyParts(body block.Body) []part {
	if body.Plain {
		if body.Text == "" {
			return nil
		}
		return []part{text(body.Text)}
	}
	return userParts(body.Blocks)
}

func dataPart(d *block.Data) (part, bool) {
	switch src := d.Source.(type) {
	case *block.Base64:
		return part{InlineData: &blob{MimeType: src.MediaType, Data: src.Data()}}, true
	case *block.URL:
		return part{FileData: &fileData{MimeType: src.MediaType, FileURI: src.URL}}, true
	}
	return part{}, false
}
