package agui_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/server/agui"
)

// full is a RunAgentInput as HttpAgent sends it, every member used.
const full = `{
  "threadId": "t1", "runId": "r2", "parentRunId": "r1", "protocolVersion": "1.0",
  "state": {"k": [1, null]}, "forwardedProps": {"model": "demo"},
  "tools": [{"name": "confirm", "description": "Ask", "parameters": {"type": "object"}}],
  "context": [{"description": "tz", "value": "UTC"}],
  "messages": [
    {"id": "sys", "role": "system", "content": "Be brief."},
    {"id": "u1", "role": "user", "content": "hi"},
    {"id": "a1", "role": "assistant", "content": "Hello", "toolCalls": [{"id": "c1", "type": "function", "function": {"name": "Read", "arguments": "{}"}}]},
    {"id": "c1-result", "role": "tool", "toolCallId": "c1", "content": "ok"},
    {"id": "k1", "role": "reasoning", "content": "hmm"},
    {"id": "u2", "role": "user", "name": "ada", "content": [
      {"type": "text", "text": "what is this?"},
      {"type": "image", "source": {"type": "data", "value": "iVBORw0KGgo=", "mimeType": "image/png"}},
      {"type": "document", "source": {"type": "url", "value": "HTTPS://Example.com/a.pdf"}}]},
    {"id": "dev", "role": "developer", "content": "ignored"},
    {"id": "u3", "role": "user", "content": "and that?", "extra": "ignored"}
  ],
  "resume": [{"interruptId": "confirm:c9", "status": "resolved", "payload": {"approved": true}, "metadata": {"sig": null}}],
  "somethingNew": true
}`

func TestParseRunAgentInput(t *testing.T) {
	in, err := agui.ParseRunAgentInput([]byte(full))
	if err != nil {
		t.Fatal(err)
	}
	if in.ThreadID != "t1" || in.RunID != "r2" || in.ParentRunID != "r1" || in.ProtocolVersion != "1.0" ||
		string(in.State) != `{"k": [1, null]}` || string(in.ForwardedProps) != `{"model": "demo"}` {
		t.Errorf("%+v", in)
	}
	if len(in.Tools) != 1 || in.Tools[0].Name != "confirm" || string(in.Tools[0].Parameters) != `{"type": "object"}` ||
		len(in.Context) != 1 || in.Context[0].Value != "UTC" {
		t.Errorf("tools %+v context %+v", in.Tools, in.Context)
	}
	if len(in.Messages) != 8 || in.Messages[2].ToolCalls[0].Name != "Read" || in.Messages[3].ToolCallID != "c1" ||
		in.Messages[5].Name != "ada" || len(in.Messages[5].Content.Parts) != 3 || in.Messages[5].Content.Parts[1].Source.MimeType != "image/png" {
		t.Errorf("messages %+v", in.Messages)
	}
	if len(in.Resume) != 1 || in.Resume[0].InterruptID != "confirm:c9" || string(in.Resume[0].Payload) != `{"approved": true}` || string(in.Resume[0].Metadata) != `{"sig": null}` {
		t.Errorf("resume %+v", in.Resume)
	}
	// tools and context default to empty, as in the schema.
	in, err = agui.ParseRunAgentInput([]byte(`{"threadId":"t","runId":"r","messages":[]}`))
	if err != nil || in.Tools != nil || in.Context != nil || in.Resume != nil || in.State != nil {
		t.Errorf("%+v %v", in, err)
	}
}

func TestParseRunAgentInputErrors(t *testing.T) {
	base := `"threadId":"t","runId":"r"`
	cases := []struct{ body, path, problem string }{
		{``, "", "want a JSON object"},
		{`[]`, "", "want a JSON object"},
		{`{"threadId":"t"`, "", "not a JSON object"},
		{`{` + base + `,"messages":[]} {}`, "", "not a JSON object"},
		{"{\"threadId\":\"t\xff\",\"runId\":\"r\",\"messages\":[]}", "", "UTF-8"},
		{`{"runId":"r","messages":[]}`, "threadId", "required"},
		{`{"threadId":7,"runId":"r","messages":[]}`, "threadId", "want a string"},
		{`{` + base + `}`, "messages", "required"},
		{`{` + base + `,"messages":{}}`, "messages", "want an array"},
		{`{` + base + `,"messages":[],"parentRunId":null}`, "parentRunId", "null is not allowed"},
		{`{` + base + `,"messages":[],"tools":null}`, "tools", "null is not allowed"},
		{`{` + base + `,"messages":[],"tools":[{"name":"x"}]}`, "tools[0].description", "required"},
		{`{` + base + `,"messages":[],"context":[{"description":"d","value":1}]}`, "context[0].value", "want a string"},
		{`{` + base + `,"messages":[1]}`, "messages[0]", "want a JSON object"},
		{`{` + base + `,"messages":[{"role":"user","content":"x"}]}`, "messages[0].id", "required"},
		{`{` + base + `,"messages":[{"id":"m","role":"robot","content":"x"}]}`, "messages[0].role", "unknown role"},
		{`{` + base + `,"messages":[{"id":"m","role":"user"}]}`, "messages[0].content", "required"},
		{`{` + base + `,"messages":[{"id":"m","role":"user","content":3}]}`, "messages[0].content", "want a string or an array"},
		{`{` + base + `,"messages":[{"id":"m","role":"user","content":[{"type":"gif"}]}]}`, "messages[0].content[0].type", "unknown part type"},
		{`{` + base + `,"messages":[{"id":"m","role":"user","content":[{"type":"text"}]}]}`, "messages[0].content[0].text", "required"},
		{`{` + base + `,"messages":[{"id":"m","role":"user","content":[{"type":"image","source":{"type":"data","value":"AA=="}}]}]}`, "messages[0].content[0].source.mimeType", "required"},
		{`{` + base + `,"messages":[{"id":"m","role":"user","content":[{"type":"image","source":{"type":"blob","value":"x"}}]}]}`, "messages[0].content[0].source.type", "unknown source type"},
		{`{` + base + `,"messages":[{"id":"m","role":"tool","content":"x"}]}`, "messages[0].toolCallId", "required"},
		{`{` + base + `,"messages":[{"id":"m","role":"system"}]}`, "messages[0].content", "required"},
		{`{` + base + `,"messages":[{"id":"m","role":"assistant","toolCalls":[{"id":"c","function":{"name":"n"}}]}]}`, "messages[0].toolCalls[0].function.arguments", "required"},
		{`{` + base + `,"messages":[],"resume":[{"interruptId":"i"}]}`, "resume[0].status", "required"},
		{`{` + base + `,"messages":[],"resume":[{"interruptId":"i","status":"done"}]}`, "resume[0].status", `want "resolved" or "cancelled"`},
		{`{` + base + `,"messages":[],"resume":[{"interruptId":"i","status":"resolved","metadata":[]}]}`, "resume[0].metadata", "want an object"},
	}
	for _, c := range cases {
		_, err := agui.ParseRunAgentInput([]byte(c.body))
		var ie *agui.InputError
		if !errors.As(err, &ie) || !errors.Is(err, agui.ErrInvalidInput) {
			t.Errorf("%s: got %v, want an *InputError", c.body, err)
			continue
		}
		if ie.Path != c.path || !strings.Contains(ie.Problem, c.problem) {
			t.Errorf("%s: got %q %q, want %q %q", c.body, ie.Path, ie.Problem, c.path, c.problem)
		}
	}
}

// The new input is the user messages after the agent's last message that
// the session does not hold: here u2 and u3, not u1 (before the agent's
// messages) nor the system and developer messages.
func TestNewInput(t *testing.T) {
	in, err := agui.ParseRunAgentInput([]byte(full))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range agui.NewUserMessages(in.Messages, nil) {
		ids = append(ids, m.ID)
	}
	if strings.Join(ids, " ") != "u2 u3" {
		t.Errorf("new: %v", ids)
	}
	msgs, err := agui.NewInput(in, func(id string) bool { return id == "u3" })
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 {
		t.Fatalf("%d messages", len(msgs))
	}
	m := msgs[0]
	if m.ID != "u2" || m.Name != "ada" || m.Role != "user" || len(m.Content) != 3 {
		t.Fatalf("%s", m.AppendJSON(nil))
	}
	if txt, _ := m.TextContent(""); txt != "what is this?" {
		t.Errorf("text %q", txt)
	}
	img := m.Content[1].(*block.Data).Source.(*block.Base64)
	doc := m.Content[2].(*block.Data).Source.(*block.URL)
	if img.MediaType != "image/png" || img.Data() != "iVBORw0KGgo=" || doc.URL != "https://example.com/a.pdf" || doc.MediaType != "application/pdf" {
		t.Errorf("data %+v %+v", img, doc)
	}
	// A client that keeps no agent messages sends its user messages
	// again: the session's own ids keep them out.
	history := []agui.Message{{ID: "u1", Role: "user"}, {ID: "u2", Role: "user"}, {ID: "u2", Role: "user"}}
	got := agui.NewUserMessages(history, func(id string) bool { return id == "u1" })
	if len(got) != 1 || got[0].ID != "u2" {
		t.Errorf("got %+v", got)
	}
	// A string content is one text block, the default name "user".
	m, err = (&agui.Message{ID: "x", Role: "user", Content: agui.Content{Text: "hi"}}).UserMsg()
	if err != nil || m.Name != agui.DefaultUserName || m.ID != "x" || len(m.Content) != 1 || m.Content[0].(*block.Text).Text != "hi" {
		t.Errorf("%v %s", err, m.AppendJSON(nil))
	}
	if _, err := (&agui.Message{ID: "x", Role: "assistant"}).UserMsg(); !errors.Is(err, agui.ErrInvalidInput) {
		t.Errorf("an assistant message as user input: %v", err)
	}
}

func TestNewInputErrors(t *testing.T) {
	cases := []struct{ content, path, problem string }{
		{`[{"type":"image","source":{"type":"data","value":"@@","mimeType":"image/png"}}]`, "messages[1].content[0].source.value", "not base64"},
		{`[{"type":"image","source":{"type":"url","value":"/a.png"}}]`, "messages[1].content[0].source.value", "invalid url"},
		{`[{"type":"video","source":{"type":"file","value":"file-123","provider":"openai"}}]`, "messages[1].content[0].source.type", "file id"},
	}
	for _, c := range cases {
		body := `{"threadId":"t","runId":"r","messages":[{"id":"a","role":"assistant"},{"id":"m","role":"user","content":` + c.content + `}]}`
		in, err := agui.ParseRunAgentInput([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		_, err = agui.NewInput(in, nil)
		var ie *agui.InputError
		if !errors.As(err, &ie) || ie.Path != c.path || !strings.Contains(ie.Problem, c.problem) {
			t.Errorf("%s: got %v, want %s: %s", c.content, err, c.path, c.problem)
		}
	}
	// A URL without a media type takes one from its extension, or its kind.
	for _, c := range []struct{ part, want string }{
		{`{"type":"image","source":{"type":"url","value":"https://x.test/a.webp"}}`, "image/webp"},
		{`{"type":"audio","source":{"type":"url","value":"https://x.test/stream"}}`, "audio/*"},
		{`{"type":"document","source":{"type":"url","value":"https://x.test/doc"}}`, "application/octet-stream"},
	} {
		in, err := agui.ParseRunAgentInput([]byte(`{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":[` + c.part + `]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := agui.NewInput(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := msgs[0].Content[0].(*block.Data).Source.(*block.URL).MediaType; got != c.want {
			t.Errorf("%s: %s, want %s", c.part, got, c.want)
		}
	}
}
