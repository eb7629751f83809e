package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
)

// SpecError reports a malformed scripted turn.
type SpecError struct {
	Turn, Chunk int // Chunk is -1 for the turn itself
	Msg         string
}

func (e *SpecError) Error() string {
	if e.Chunk < 0 {
		return fmt.Sprintf("scripted: turn %d: %s", e.Turn, e.Msg)
	}
	return fmt.Sprintf("scripted: turn %d chunk %d: %s", e.Turn, e.Chunk, e.Msg)
}

// Parse reads a conformance scenario's model_turns: a JSON array of
//
//	{"stream": true|false, "final": "accumulate"|"explicit", "chunks": [chunk…]}
//	{"raise": "cancelled"|"error", "message": "…"}
//
// where a chunk is {"text"}, {"thinking"}, {"tool_call": {id, name?, input}},
// {"data": {id?, media_type, data|url, name?}} or {"multi": [chunk…]}, each
// optionally with "usage" and "block" (a key starting another block of the
// same kind); or {"usage"} alone; {"raise": …} at that stream position; or
// {"pause": seconds}.
func Parse(data []byte) ([]Turn, error) {
	var raw []map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("scripted: model_turns: %w", err)
	}
	turns := make([]Turn, 0, len(raw))
	for i, rt := range raw {
		t, err := parseTurn(i, rt)
		if err != nil {
			return nil, err
		}
		turns = append(turns, t)
	}
	return turns, nil
}

func parseTurn(i int, rt map[string]json.RawMessage) (Turn, error) {
	var t Turn
	if r, ok := rt["raise"]; ok {
		err, perr := raiseErr(r, rt["message"])
		if perr != nil {
			return t, &SpecError{i, -1, perr.Error()}
		}
		t.Err = err
		return t, nil
	}
	if s, ok := rt["stream"]; ok {
		var stream bool
		if err := json.Unmarshal(s, &stream); err != nil {
			return t, &SpecError{i, -1, "stream: " + err.Error()}
		}
		t.NonStreaming = !stream
	}
	if f, ok := rt["final"]; ok {
		var final string
		if err := json.Unmarshal(f, &final); err != nil {
			return t, &SpecError{i, -1, "final: " + err.Error()}
		}
		switch final {
		case "accumulate":
		case "explicit":
			t.Explicit = true
		default:
			return t, &SpecError{i, -1, fmt.Sprintf("final: unknown mode %q", final)}
		}
	}
	var chunks []map[string]json.RawMessage
	if c, ok := rt["chunks"]; ok {
		if err := json.Unmarshal(c, &chunks); err != nil {
			return t, &SpecError{i, -1, "chunks: " + err.Error()}
		}
	}
	for j, c := range chunks {
		s, err := parseStep(c)
		if err != nil {
			return t, &SpecError{i, j, err.Error()}
		}
		t.Steps = append(t.Steps, s)
	}
	return t, nil
}

func raiseErr(kind, msg json.RawMessage) (error, error) {
	var k, m string
	if err := json.Unmarshal(kind, &k); err != nil {
		return nil, fmt.Errorf("raise: %w", err)
	}
	if msg != nil {
		if err := json.Unmarshal(msg, &m); err != nil {
			return nil, fmt.Errorf("message: %w", err)
		}
	}
	switch k {
	case "cancelled":
		return context.Canceled, nil
	case "error":
		if m == "" {
			m = "scripted model failure"
		}
		return &Error{Message: m}, nil
	}
	return nil, fmt.Errorf("raise: unknown kind %q", k)
}

func parseStep(c map[string]json.RawMessage) (Step, error) {
	var s Step
	if r, ok := c["raise"]; ok {
		err, perr := raiseErr(r, c["message"])
		if perr != nil {
			return s, perr
		}
		s.Err = err
		return s, nil
	}
	if p, ok := c["pause"]; ok {
		var sec float64
		if err := json.Unmarshal(p, &sec); err != nil {
			return s, fmt.Errorf("pause: %w", err)
		}
		return Pause(time.Duration(sec * float64(time.Second))), nil
	}
	if u, ok := c["usage"]; ok {
		usage, err := parseUsage(u)
		if err != nil {
			return s, err
		}
		s.Usage = usage
	}
	parts, err := parseParts(c)
	if err != nil {
		return s, err
	}
	s.Parts = parts
	if len(parts) == 0 && s.Usage == nil {
		return s, fmt.Errorf("empty chunk")
	}
	return s, nil
}

func parseParts(c map[string]json.RawMessage) ([]Part, error) {
	if m, ok := c["multi"]; ok {
		var subs []map[string]json.RawMessage
		if err := json.Unmarshal(m, &subs); err != nil {
			return nil, fmt.Errorf("multi: %w", err)
		}
		var out []Part
		for _, sub := range subs {
			ps, err := parseParts(sub)
			if err != nil {
				return nil, err
			}
			out = append(out, ps...)
		}
		return out, nil
	}
	var block string
	if b, ok := c["block"]; ok {
		block = string(bytes.Trim(b, `"`))
	}
	str := func(name string) (string, bool, error) {
		r, ok := c[name]
		if !ok {
			return "", false, nil
		}
		var v string
		if err := json.Unmarshal(r, &v); err != nil {
			return "", true, fmt.Errorf("%s: %w", name, err)
		}
		return v, true, nil
	}
	if v, ok, err := str("text"); ok || err != nil {
		return []Part{{Kind: model.PartText, Text: v, Block: block}}, err
	}
	if v, ok, err := str("thinking"); ok || err != nil {
		return []Part{{Kind: model.PartThinking, Text: v, Block: block}}, err
	}
	if r, ok := c["tool_call"]; ok {
		var tc struct {
			ID    string `json:"id"`
			Name  string `json:"name"`
			Input string `json:"input"`
		}
		if err := json.Unmarshal(r, &tc); err != nil {
			return nil, fmt.Errorf("tool_call: %w", err)
		}
		if tc.ID == "" {
			return nil, fmt.Errorf("tool_call: id is required")
		}
		return []Part{{Kind: model.PartToolCall, ID: tc.ID, Name: tc.Name, Text: tc.Input}}, nil
	}
	if r, ok := c["data"]; ok {
		var d struct {
			ID        string `json:"id"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
			URL       string `json:"url"`
			Name      string `json:"name"`
		}
		if err := json.Unmarshal(r, &d); err != nil {
			return nil, fmt.Errorf("data: %w", err)
		}
		if (d.Data == "") == (d.URL == "") {
			return nil, fmt.Errorf("data: exactly one of data or url is required")
		}
		return []Part{{Kind: model.PartData, ID: d.ID, Block: block, MediaType: d.MediaType, Text: d.Data, URL: d.URL, Name: d.Name}}, nil
	}
	return nil, nil
}

func parseUsage(r json.RawMessage) (*message.Usage, error) {
	var u struct {
		In    *int64 `json:"input_tokens"`
		Out   *int64 `json:"output_tokens"`
		Cache *int64 `json:"cache_input_tokens"`
		Creat *int64 `json:"cache_creation_input_tokens"`
	}
	if err := json.Unmarshal(r, &u); err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	v := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	return &message.Usage{InputTokens: v(u.In), OutputTokens: v(u.Out), CacheInputTokens: v(u.Cache), CacheCreationInputTokens: v(u.Creat)}, nil
}
