package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// flattenSchema inlines local "$ref"s into "#/$defs/…" or "#/definitions/…"
// and drops the definition tables, as the reference does for OpenAI chat:
// several compatible servers reject or ignore $ref. A reference cycle is
// cut with an empty schema (any value). Schemas without "$ref" pass through
// byte for byte.
func flattenSchema(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	if !bytes.Contains(raw, []byte(`"$ref"`)) {
		return raw, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("tool schema: %w", err)
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return raw, nil
	}
	defs := map[string]any{}
	for _, table := range []string{"$defs", "definitions"} {
		if t, ok := obj[table].(map[string]any); ok {
			for k, v := range t {
				defs["#/"+table+"/"+k] = v
			}
		}
	}
	delete(obj, "$defs")
	delete(obj, "definitions")
	out := inline(obj, defs, map[string]bool{})
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("tool schema: %w", err)
	}
	return json.RawMessage(bytes.TrimSpace(buf.Bytes())), nil
}

func inline(v any, defs map[string]any, active map[string]bool) any {
	switch v := v.(type) {
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok && strings.HasPrefix(ref, "#/") {
			target, known := defs[ref]
			if !known || active[ref] {
				// Unknown or recursive: replace with "any value", keeping the
				// siblings (description etc.).
				out := map[string]any{}
				for k, x := range v {
					if k != "$ref" {
						out[k] = inline(x, defs, active)
					}
				}
				return out
			}
			active[ref] = true
			expanded := inline(target, defs, active)
			delete(active, ref)
			m, ok := expanded.(map[string]any)
			if !ok {
				return expanded
			}
			out := make(map[string]any, len(m)+len(v))
			for k, x := range m {
				out[k] = x
			}
			for k, x := range v {
				if k != "$ref" {
					out[k] = inline(x, defs, active)
				}
			}
			return out
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = inline(x, defs, active)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = inline(x, defs, active)
		}
		return out
	}
	return v
}
