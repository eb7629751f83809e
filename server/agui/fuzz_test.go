package agui

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
)

// stripNulls never reads past its input, and keeps valid JSON valid.
func FuzzStripNulls(f *testing.F) {
	for _, s := range []string{`{"a":null,"b":[null,{"c":null}],"metadata":{"x":null}}`, `[1,"x\"",{"value":null}]`, `{"a":`, `"`, `{"a" "b"}`, `[,]`, `{,}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		out := stripNulls(nil, src)
		if json.Valid(src) && !json.Valid(out) {
			t.Fatalf("%s became %s", src, out)
		}
	})
}

// A chunk of any bytes converts without a panic.
func FuzzAppendChunk(f *testing.F) {
	for _, s := range []string{"data: {\"type\":\"REPLY_START\",\"session_id\":\"s\",\"reply_id\":\"r\",\"name\":\"a\"}\r\n\r\n", ":\n\n", "data:\n", "data: {\"type\":\"TOOL_RESULT_END\",\"reply_id\":\"r\",\"tool_call_id\":\"c\",\"state\":\"success\"}\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, chunk []byte) {
		NewConverter().AppendChunk(nil, chunk)
	})
}

// Any body parses to an input or an *InputError, and an input's new
// messages and resume convert to Msgs and events or to typed errors,
// without a panic.
func FuzzParseRunAgentInput(f *testing.F) {
	for _, s := range []string{
		`{"threadId":"t","runId":"r","messages":[{"id":"a","role":"assistant"},{"id":"u","role":"user","content":[{"type":"image","source":{"type":"url","value":"https://x/a.png"}}]}],"resume":[{"interruptId":"confirm:c1","status":"resolved","payload":{"approved":true,"rules":[{"toolName":"n","behavior":"allow"}],"editedArgs":{}}}]}`,
		`{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"external:c2","status":"resolved","payload":{"content":[{"type":"text","text":"x"}],"isError":true}}]}`,
		`{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"hi"}],"tools":[{"name":"n","description":"d"}],"context":[]}`,
		`{"threadId":null}`, `[]`, `{"threadId":"t","runId":"r","messages":[{"id":"m","role":"tool"}]}`,
	} {
		f.Add([]byte(s))
	}
	parked := []event.Event{
		&event.RequireUserConfirm{ReplyID: "r", ToolCalls: []*block.ToolCall{{ID: "c1", Name: "n", Input: "{}"}}},
		&event.RequireExternalExecution{ReplyID: "r", ToolCalls: []*block.ToolCall{{ID: "c2", Name: "m", Input: "{}"}}},
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := ParseRunAgentInput(body)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if _, err := NewInput(in, nil); err != nil && !errors.Is(err, ErrInvalidInput) {
			t.Fatalf("untyped error %v", err)
		}
		if _, err := ResumeEvents(in.Resume, parked...); err != nil {
			var ie *InputError
			var re *ResumeError
			if !errors.As(err, &ie) && !errors.As(err, &re) {
				t.Fatalf("untyped error %v", err)
			}
		}
	})
}
