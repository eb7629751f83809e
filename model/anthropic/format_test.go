package anthropic

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
)

func signed(text, sig string) *block.Thinking {
	b := block.NewThinking(text)
	b.Set("signature", sig)
	return b
}

func call(id, name, input string) *block.ToolCall {
	return &block.ToolCall{ID: id, Name: name, Input: input}
}

func mustAssistant(t *testing.T, bs ...block.Block) *message.Msg {
	t.Helper()
	m, err := message.AssistantMsg("assistant", bs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func reqBody(t *testing.T, m *Model, req *model.Request) []byte {
	t.Helper()
	b, err := m.RequestBody(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// field extracts one top-level key of a request body as JSON.
func field(t *testing.T, b []byte, key string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return string(m[key])
}

// One reply Msg holding two iterations (thinking, text, two calls, their
// results, a hint, more thinking and an answer) splits into alternating
// turns: both results together in one user turn, the hint after them.
func TestFormatSplitsOneReplyIntoTurns(t *testing.T) {
	redacted := block.NewThinking("")
	redacted.Set("redacted_thinking_data", "EmwKAhgBEgy3va")
	reply := mustAssistant(t,
		signed("plan", "sig-1"),
		block.NewText("Let me check."),
		call("toolu_a", "add", `{"a": 2, "b": 3}`),
		call("toolu_b", "multiply", `{"a": 2, "b": 3}`),
		resultBlock("toolu_a", "add", "5"),
		&block.ToolResult{ID: "toolu_b", Name: "multiply", Output: block.PlainBody(""), State: block.ResultSuccess},
		block.NewHint("Be brief.", ""),
		block.NewThinking("unsigned thoughts from another provider"),
		redacted,
		signed("", "sig-omitted"), // display "omitted": empty text, still signed
		block.NewText(""),
		block.NewText("5 and 6."),
	)
	req := &model.Request{Messages: []*message.Msg{
		message.SystemText("s", "Be helpful."),
		message.UserText("u", "Add and multiply 2 and 3"),
		reply,
		message.UserText("u", "Thanks"),
	}}
	b := reqBody(t, New("claude-x"), req)
	want := `[
	 {"role":"user","content":[{"type":"text","text":"Add and multiply 2 and 3"}]},
	 {"role":"assistant","content":[
	   {"type":"thinking","thinking":"plan","signature":"sig-1"},
	   {"type":"text","text":"Let me check."},
	   {"type":"tool_use","id":"toolu_a","name":"add","input":{"a":2,"b":3}},
	   {"type":"tool_use","id":"toolu_b","name":"multiply","input":{"a":2,"b":3}}]},
	 {"role":"user","content":[
	   {"type":"tool_result","tool_use_id":"toolu_a","content":[{"type":"text","text":"5"}]},
	   {"type":"tool_result","tool_use_id":"toolu_b","content":[{"type":"text","text":"(empty tool output)"}]},
	   {"type":"text","text":"Be brief."}]},
	 {"role":"assistant","content":[
	   {"type":"redacted_thinking","data":"EmwKAhgBEgy3va"},
	   {"type":"thinking","thinking":"","signature":"sig-omitted"},
	   {"type":"text","text":"5 and 6."}]},
	 {"role":"user","content":[{"type":"text","text":"Thanks"}]}]`
	wiretest.EqualJSON(t, []byte(field(t, b, "messages")), []byte(want))
	wiretest.EqualJSON(t, []byte(field(t, b, "system")), []byte(`[{"type":"text","text":"Be helpful."}]`))
	if field(t, b, "max_tokens") != "8192" {
		t.Fatalf("max_tokens %s", field(t, b, "max_tokens"))
	}
}

// A hint between a call and its result must not push the result out of
// first place in the user turn.
func TestFormatToolResultsLeadTheUserTurn(t *testing.T) {
	reply := mustAssistant(t, call("t1", "f", `{}`), block.NewHint("Wait for it.", ""), resultBlock("t1", "f", "ok"))
	b := reqBody(t, New("m"), &model.Request{Messages: []*message.Msg{message.UserText("u", "go"), reply}})
	want := `[{"role":"user","content":[{"type":"text","text":"go"}]},
	 {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},
	 {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"}]},{"type":"text","text":"Wait for it."}]}]`
	wiretest.EqualJSON(t, []byte(field(t, b, "messages")), []byte(want))
}

func TestFormatToolInputAndResultStates(t *testing.T) {
	reply := mustAssistant(t,
		call("t1", "f", `{"city": "Flor`), // cut off mid-stream
		call("t2", "g", ``),               // no arguments
		&block.ToolResult{ID: "t1", Name: "f", Output: block.PlainBody("interrupted"), State: block.ResultInterrupted},
		&block.ToolResult{ID: "t2", Name: "g", Output: block.PlainBody("boom"), State: block.ResultError},
	)
	b := reqBody(t, New("m"), &model.Request{Messages: []*message.Msg{message.UserText("u", "go"), reply}})
	want := `[{"role":"user","content":[{"type":"text","text":"go"}]},
	 {"role":"assistant","content":[
	   {"type":"tool_use","id":"t1","name":"f","input":{"city":"Flor"}},
	   {"type":"tool_use","id":"t2","name":"g","input":{}}]},
	 {"role":"user","content":[
	   {"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"interrupted"}],"is_error":true},
	   {"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"boom"}],"is_error":true}]}]`
	wiretest.EqualJSON(t, []byte(field(t, b, "messages")), []byte(want))
}

func TestFormatData(t *testing.T) {
	png := &block.Data{Source: block.NewBase64("image/png", "iVBORw0KGgo=")}
	url := &block.Data{Source: &block.URL{URL: "https://example.com/a.jpg", MediaType: "image/jpeg"}}
	pdf := &block.Data{Source: block.NewBase64("application/pdf", "JVBERi0=")}
	wav := &block.Data{Source: block.NewBase64("audio/wav", "UklGRg==")}
	user, err := message.UserMsg("u", []block.Block{block.NewText("look"), png, url, pdf, wav})
	if err != nil {
		t.Fatal(err)
	}
	reply := mustAssistant(t, call("t1", "shot", `{}`),
		&block.ToolResult{ID: "t1", Name: "shot", Output: block.BlocksBody(block.NewText("here"), png), State: block.ResultSuccess})
	b := reqBody(t, New("m"), &model.Request{Messages: []*message.Msg{user, reply}})
	want := `[{"role":"user","content":[
	   {"type":"text","text":"look"},
	   {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
	   {"type":"image","source":{"type":"url","url":"https://example.com/a.jpg"}},
	   {"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}},
	   {"type":"text","text":"[audio/wav file attached, not supported by this provider]"}]},
	 {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"shot","input":{}}]},
	 {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[
	   {"type":"text","text":"here"},
	   {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}]}]`
	wiretest.EqualJSON(t, []byte(field(t, b, "messages")), []byte(want))
}

func TestFormatToolChoice(t *testing.T) {
	tools := []model.ToolSchema{addTool, mulTool, weatherTool}
	msgs := []*message.Msg{message.UserText("u", "hi")}
	cases := []struct {
		choice *model.ToolChoice
		opts   []Option
		want   string // tool_choice JSON, "" = absent
		names  string
	}{
		{nil, nil, ``, "add,multiply,weather"},
		{nil, []Option{WithParallelToolCalls(false)}, `{"type":"auto","disable_parallel_tool_use":true}`, "add,multiply,weather"},
		{&model.ToolChoice{Mode: "auto"}, nil, `{"type":"auto","disable_parallel_tool_use":false}`, "add,multiply,weather"},
		{&model.ToolChoice{Mode: "none"}, nil, `{"type":"none"}`, "add,multiply,weather"},
		{&model.ToolChoice{Mode: "required"}, nil, `{"type":"any","disable_parallel_tool_use":false}`, "add,multiply,weather"},
		{&model.ToolChoice{Mode: "weather"}, nil, `{"type":"tool","name":"weather","disable_parallel_tool_use":false}`, "add,multiply,weather"},
		{&model.ToolChoice{Mode: "auto", Tools: []string{"multiply"}}, nil, `{"type":"auto","disable_parallel_tool_use":false}`, "multiply"},
	}
	for _, c := range cases {
		b := reqBody(t, New("m", c.opts...), &model.Request{Messages: msgs, Tools: tools, ToolChoice: c.choice})
		got := field(t, b, "tool_choice")
		if (c.want == "") != (got == "") {
			t.Errorf("%+v: tool_choice %s", c.choice, got)
		} else if c.want != "" {
			wiretest.EqualJSON(t, []byte(got), []byte(c.want))
		}
		var defs []struct{ Name string }
		json.Unmarshal([]byte(field(t, b, "tools")), &defs)
		var names []string
		for _, d := range defs {
			names = append(names, d.Name)
		}
		if strings.Join(names, ",") != c.names {
			t.Errorf("%+v: tools %v", c.choice, names)
		}
	}
	// A choice naming a tool not offered fails before any request.
	_, err := New("m").RequestBody(&model.Request{Messages: msgs, Tools: tools, ToolChoice: &model.ToolChoice{Mode: "nope"}})
	var me *model.Error
	if !errors.As(err, &me) || me.Type != event.ErrInvalidRequest || !errors.Is(err, model.ErrToolChoice) {
		t.Fatalf("err = %v", err)
	}
}

func TestFormatThinkingConfig(t *testing.T) {
	msgs := []*message.Msg{message.UserText("u", "hi")}
	tools := []model.ToolSchema{weatherTool}
	cases := []struct {
		opts      []Option
		choice    *model.ToolChoice
		thinking  string
		maxTokens string
		extra     map[string]string
	}{
		{[]Option{WithThinking(0)}, nil, `{"type":"enabled","budget_tokens":4096}`, "8192", nil},
		{[]Option{WithMaxTokens(2000), WithThinking(4000)}, nil, `{"type":"enabled","budget_tokens":4000}`, "5024", nil},
		{[]Option{WithAdaptiveThinking(), WithThinkingDisplay("summarized"), WithEffort("high")}, nil,
			`{"type":"adaptive","display":"summarized"}`, "8192", map[string]string{"output_config": `{"effort":"high"}`}},
		{[]Option{WithoutThinking()}, nil, `{"type":"disabled"}`, "8192", nil},
		// Forcing a tool is a 400 with thinking on: thinking is left out.
		{[]Option{WithThinking(2048)}, &model.ToolChoice{Mode: "weather"}, ``, "8192", nil},
		{[]Option{WithThinking(2048)}, &model.ToolChoice{Mode: "required"}, ``, "8192", nil},
		{[]Option{WithTemperature(0.5), WithTopP(0.9), WithTopK(40)}, nil, ``, "8192",
			map[string]string{"temperature": "0.5", "top_p": "0.9", "top_k": "40"}},
	}
	for i, c := range cases {
		b := reqBody(t, New("m", c.opts...), &model.Request{Messages: msgs, Tools: tools, ToolChoice: c.choice})
		got := field(t, b, "thinking")
		if (c.thinking == "") != (got == "") {
			t.Errorf("case %d: thinking %s", i, got)
		} else if c.thinking != "" {
			wiretest.EqualJSON(t, []byte(got), []byte(c.thinking))
		}
		if mt := field(t, b, "max_tokens"); mt != c.maxTokens {
			t.Errorf("case %d: max_tokens %s", i, mt)
		}
		for k, v := range c.extra {
			wiretest.EqualJSON(t, []byte(field(t, b, k)), []byte(v))
		}
	}
}

// Per-call parameters use the API's names and override the model's.
func TestFormatRequestExtra(t *testing.T) {
	b := reqBody(t, New("m", WithTemperature(1)), &model.Request{
		Messages: []*message.Msg{message.UserText("u", "hi")},
		Extra:    map[string]any{"temperature": 0.25, "metadata": map[string]any{"user_id": "u1"}},
	})
	if field(t, b, "temperature") != "0.25" || field(t, b, "metadata") != `{"user_id":"u1"}` {
		t.Fatalf("body %s", b)
	}
}

// A system message after the conversation started cannot go into the
// system parameter; it is sent as user text in place.
func TestFormatLateSystemMessage(t *testing.T) {
	b := reqBody(t, New("m"), &model.Request{Messages: []*message.Msg{
		message.UserText("u", "hi"), message.AssistantText("a", "hello"), message.SystemText("s", "Now be terse."),
	}})
	if field(t, b, "system") != "" {
		t.Fatalf("system %s", field(t, b, "system"))
	}
	want := `[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"text","text":"hello"}]},{"role":"user","content":[{"type":"text","text":"Now be terse."}]}]`
	wiretest.EqualJSON(t, []byte(field(t, b, "messages")), []byte(want))
}
