package openai_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/openai"
)

func chatBody(t *testing.T, m *openai.Chat, req *model.Request) map[string]any {
	t.Helper()
	b, err := m.Body(ctx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	return parseJSON(t, b).(map[string]any)
}

// wantMessages compares the "messages" (or "input") array with want.
func wantKey(t *testing.T, body map[string]any, key, want string) {
	t.Helper()
	got, err := json.Marshal(body[key])
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, key, got, parseJSON(t, []byte(want)))
}

var png = &block.Data{ID: "img1", Source: block.NewBase64("image/png", "iVBORw0KGgo=")}

// interleavedReply is one reply as the agent stores it: two reasoning
// rounds, parallel calls, their results (one with an image) and a hint.
func interleavedReply(t *testing.T) *message.Msg {
	t.Helper()
	m, err := message.AssistantMsg("Friday", []block.Block{
		&block.Thinking{Thinking: "t1"},
		block.NewText("Let me check"),
		&block.ToolCall{ID: "A", Name: "add", Input: `{"a":2,"b":3}`},
		&block.ToolCall{ID: "B", Name: "mul", Input: ""},
		&block.ToolResult{ID: "A", Name: "add", Output: block.BlocksBody(block.NewText("5"), png), State: block.ResultSuccess},
		&block.ToolResult{ID: "B", Name: "mul", Output: block.PlainBody("6"), State: block.ResultSuccess},
		block.NewHint("<system-reminder>remember X</system-reminder>", ""),
		&block.Thinking{Thinking: "t2"},
		block.NewText("Done"),
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFormatInterleavedOpenAI(t *testing.T) {
	m := openai.New("gpt-4.1")
	body := chatBody(t, m, &model.Request{Messages: []*message.Msg{
		message.SystemText("system", "Be brief."), message.UserText("小明", "hi"), interleavedReply(t),
	}})
	wantKey(t, body, "messages", `[
	 {"role":"system","name":"system","content":"Be brief."},
	 {"role":"user","content":"hi"},
	 {"role":"assistant","name":"Friday","content":"Let me check","tool_calls":[
	   {"id":"A","type":"function","function":{"name":"add","arguments":"{\"a\":2,\"b\":3}"}},
	   {"id":"B","type":"function","function":{"name":"mul","arguments":"{}"}}]},
	 {"role":"tool","tool_call_id":"A","content":"5\n<system-reminder>A(n) image file is returned and will be presented to you with the identifier [img1].</system-reminder>"},
	 {"role":"tool","tool_call_id":"B","content":"6"},
	 {"role":"user","name":"system-reminder","content":[
	   {"type":"text","text":"<system-reminder>The multimodal data and their identifiers are listed as follows:"},
	   {"type":"text","text":"- img1 (image file): "},
	   {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},
	   {"type":"text","text":"</system-reminder>"}]},
	 {"role":"user","content":"<system-reminder>remember X</system-reminder>"},
	 {"role":"assistant","name":"Friday","content":"Done"}]`)
	if _, ok := body["tools"]; ok {
		t.Error("tools sent without tools")
	}
}

func TestFormatInterleavedDeepSeek(t *testing.T) {
	m := openai.New("deepseek-reasoner", openai.WithProfile(openai.ProfileDeepSeek))
	body := chatBody(t, m, &model.Request{Messages: []*message.Msg{
		message.UserText("u", "hi"), message.AssistantText("Friday", "hello"), interleavedReply(t),
	}})
	// Strings everywhere, reasoning_content on every assistant message,
	// media the model cannot take described in the tool text.
	wantKey(t, body, "messages", `[
	 {"role":"user","content":"hi"},
	 {"role":"assistant","content":"hello","reasoning_content":""},
	 {"role":"assistant","content":"Let me check","reasoning_content":"t1","tool_calls":[
	   {"id":"A","type":"function","function":{"name":"add","arguments":"{\"a\":2,\"b\":3}"}},
	   {"id":"B","type":"function","function":{"name":"mul","arguments":"{}"}}]},
	 {"role":"tool","tool_call_id":"A","content":"5\n<system-reminder>A(n) image file (image/png) is returned but cannot be presented to you.</system-reminder>"},
	 {"role":"tool","tool_call_id":"B","content":"6"},
	 {"role":"user","content":"<system-reminder>remember X</system-reminder>"},
	 {"role":"assistant","content":"Done","reasoning_content":"t2"}]`)
}

func TestFormatEchoIfPresent(t *testing.T) {
	thinkingOnly, _ := message.AssistantMsg("a", []block.Block{&block.Thinking{Thinking: "hmm"}})
	msgs := []*message.Msg{message.UserText("", "q"), thinkingOnly, message.AssistantText("", "plain")}
	compat := chatBody(t, openai.New("qwen3", openai.WithProfile(openai.ProfileCompatible)), &model.Request{Messages: msgs})
	wantKey(t, compat, "messages", `[{"role":"user","content":"q"},
	 {"role":"assistant","content":"","reasoning_content":"hmm"},
	 {"role":"assistant","content":"plain"}]`)
	// OpenAI drops thinking, and with it the thinking-only turn.
	oa := chatBody(t, openai.New("gpt-4.1"), &model.Request{Messages: msgs})
	wantKey(t, oa, "messages", `[{"role":"user","content":"q"},{"role":"assistant","content":"plain"}]`)
	// DashScope echoes only when asked.
	ds := chatBody(t, openai.New("qwen-plus", openai.WithProfile(openai.ProfileDashScope), openai.WithReasoningEcho(openai.EchoIfPresent)), &model.Request{Messages: msgs})
	wantKey(t, ds, "messages", `[{"role":"user","content":"q"},
	 {"role":"assistant","content":"","reasoning_content":"hmm"},{"role":"assistant","content":"plain"}]`)
}

func TestFormatUserMedia(t *testing.T) {
	wav := &block.Data{ID: "w", Source: block.NewBase64("audio/wav", "UklGRg==")}
	pdf := &block.Data{ID: "p", Name: block.Some("report.pdf"), Source: block.NewBase64("application/pdf", "JVBERg==")}
	url := &block.Data{ID: "u", Source: &block.URL{URL: "https://example.com/cat.jpg", MediaType: "image/jpeg"}}
	video := &block.Data{ID: "v", Source: &block.URL{URL: "https://example.com/v.mp4", MediaType: "video/mp4"}}
	user, err := message.UserMsg("", []block.Block{block.NewText("look"), png, url, wav, pdf, video})
	if err != nil {
		t.Fatal(err)
	}
	body := chatBody(t, openai.New("gpt-4o"), &model.Request{Messages: []*message.Msg{user}})
	wantKey(t, body, "messages", `[{"role":"user","content":[
	 {"type":"text","text":"look"},
	 {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},
	 {"type":"image_url","image_url":{"url":"https://example.com/cat.jpg"}},
	 {"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}},
	 {"type":"file","file":{"filename":"report.pdf","file_data":"data:application/pdf;base64,JVBERg=="}},
	 {"type":"text","text":"[video/mp4 attached at https://example.com/v.mp4, not supported by this provider]"}]}]`)

	// DashScope takes video and audio as URLs / data URLs.
	ds := chatBody(t, openai.New("qwen-omni", openai.WithProfile(openai.ProfileDashScope)), &model.Request{Messages: []*message.Msg{user}})
	wantKey(t, ds, "messages", `[{"role":"user","content":[
	 {"type":"text","text":"look"},
	 {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},
	 {"type":"image_url","image_url":{"url":"https://example.com/cat.jpg"}},
	 {"type":"input_audio","input_audio":{"data":"data:;base64,UklGRg==","format":"wav"}},
	 {"type":"text","text":"[application/pdf attached, not supported by this provider]"},
	 {"type":"video_url","video_url":{"url":"https://example.com/v.mp4"}}]}]`)
}

func TestFormatMoonshotInlinesImageURLs(t *testing.T) {
	img := []byte("\x89PNG\r\n\x1a\nfake")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(img)
	}))
	defer srv.Close()
	u := &block.Data{ID: "u", Source: &block.URL{URL: srv.URL + "/cat.png", MediaType: "image/png"}}
	user, _ := message.UserMsg("", []block.Block{block.NewText("what is it"), u})
	body := chatBody(t, openai.New("kimi-k2", openai.WithProfile(openai.ProfileMoonshot)), &model.Request{Messages: []*message.Msg{user}})
	wantKey(t, body, "messages", `[{"role":"user","content":[{"type":"text","text":"what is it"},
	 {"type":"image_url","image_url":{"url":"data:image/png;base64,`+base64.StdEncoding.EncodeToString(img)+`"}}]}]`)

	// A download failure is a typed error before anything is sent.
	bad := &block.Data{ID: "b", Source: &block.URL{URL: srv.URL + "/x", MediaType: "image/png"}}
	srv.Config.Handler = http.NotFoundHandler()
	user2, _ := message.UserMsg("", []block.Block{bad})
	_, err := openai.New("kimi-k2", openai.WithProfile(openai.ProfileMoonshot)).Body(ctx(t), &model.Request{Messages: []*message.Msg{user2}})
	modelError(t, err, event.ErrInvalidRequest)
}

func TestToolsAndChoice(t *testing.T) {
	tools := []model.ToolSchema{weatherTool, numberTool("add", "Add")}
	m := openai.New("gpt-4.1")
	for _, tc := range []struct {
		choice     *model.ToolChoice
		wantChoice string // JSON, "" = absent
		wantTools  []string
	}{
		{nil, "", []string{"weather", "add"}},
		{&model.ToolChoice{Mode: "auto"}, `"auto"`, []string{"weather", "add"}},
		{&model.ToolChoice{Mode: "none"}, `"none"`, []string{"weather", "add"}},
		{&model.ToolChoice{Mode: "required"}, `"required"`, []string{"weather", "add"}},
		{&model.ToolChoice{Mode: "add"}, `{"type":"function","function":{"name":"add"}}`, []string{"weather", "add"}},
		{&model.ToolChoice{Mode: "auto", Tools: []string{"add"}}, `"auto"`, []string{"add"}},
	} {
		body := chatBody(t, m, &model.Request{Messages: []*message.Msg{message.UserText("", "x")}, Tools: tools, ToolChoice: tc.choice})
		if tc.wantChoice == "" {
			if _, ok := body["tool_choice"]; ok {
				t.Errorf("%+v: tool_choice sent", tc.choice)
			}
		} else {
			wantKey(t, body, "tool_choice", tc.wantChoice)
		}
		var names []string
		for _, x := range body["tools"].([]any) {
			names = append(names, x.(map[string]any)["function"].(map[string]any)["name"].(string))
		}
		if len(names) != len(tc.wantTools) || names[0] != tc.wantTools[0] {
			t.Errorf("%+v: tools %v", tc.choice, names)
		}
	}
	// DashScope has no "required".
	ds := chatBody(t, openai.New("qwen", openai.WithProfile(openai.ProfileDashScope)), &model.Request{Tools: tools, ToolChoice: &model.ToolChoice{Mode: "required"}})
	wantKey(t, ds, "tool_choice", `"auto"`)
	// A choice naming a tool not offered is refused before sending.
	_, err := m.Body(ctx(t), &model.Request{Tools: tools, ToolChoice: &model.ToolChoice{Mode: "nope"}})
	if modelError(t, err, event.ErrInvalidRequest); !errors.Is(err, model.ErrToolChoice) {
		t.Errorf("error %v", err)
	}
}

func TestSchemaDefsFlattened(t *testing.T) {
	tool := model.ToolSchema{Name: "tree", Parameters: json.RawMessage(`{"type":"object","properties":{
	  "root":{"$ref":"#/$defs/Node","description":"the root"},
	  "tag":{"$ref":"#/definitions/Tag"}},
	  "$defs":{"Node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}},
	  "definitions":{"Tag":{"type":"string","enum":["a","b"]}}}`)}
	body := chatBody(t, openai.New("gpt-4.1"), &model.Request{Tools: []model.ToolSchema{tool}})
	wantKey(t, body, "tools", `[{"type":"function","function":{"name":"tree","description":"","parameters":{"type":"object","properties":{
	  "root":{"type":"object","description":"the root","properties":{"kids":{"type":"array","items":{}}}},
	  "tag":{"type":"string","enum":["a","b"]}}}}}]`)
}

func TestRequestParameters(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *openai.Chat
		want string // the body minus model/messages/stream keys
	}{
		{"openai", openai.New("o3", openai.WithMaxTokens(100), openai.WithTemperature(0.5), openai.WithReasoningEffort("low"), openai.WithParallelToolCalls(false)),
			`{"max_completion_tokens":100,"temperature":0.5,"reasoning_effort":"low"}`},
		{"deepseek off", openai.New("deepseek-chat", openai.WithProfile(openai.ProfileDeepSeek), openai.WithThinking(false), openai.WithReasoningEffort("high"), openai.WithMaxTokens(9)),
			`{"max_tokens":9,"thinking":{"type":"disabled"}}`},
		{"moonshot on", openai.New("kimi-k2", openai.WithProfile(openai.ProfileMoonshot), openai.WithThinking(true)),
			`{"thinking":{"type":"enabled"}}`},
		{"dashscope", openai.New("qwen3", openai.WithProfile(openai.ProfileDashScope), openai.WithThinking(true), openai.WithThinkingBudget(500), openai.WithTopP(0.9)),
			`{"enable_thinking":true,"thinking_budget":500,"top_p":0.9}`},
		{"vllm", openai.New("qwen3", openai.WithProfile(openai.ProfileCompatible), openai.WithThinking(false)),
			`{"chat_template_kwargs":{"enable_thinking":false}}`},
		{"voice", openai.New("gpt-4o-audio-preview", openai.WithVoice("alloy")),
			`{"modalities":["text","audio"],"audio":{"voice":"alloy","format":"pcm16"}}`},
		{"extra body and no stream", openai.New("m", openai.WithStream(false), openai.WithExtraBody(map[string]any{"seed": 7, "user": "u1"})),
			`{"seed":7,"user":"u1"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := chatBody(t, tc.m, &model.Request{Messages: []*message.Msg{message.UserText("", "x")}})
			for _, k := range []string{"model", "messages", "stream", "stream_options"} {
				delete(body, k)
			}
			got, _ := json.Marshal(body)
			sameJSON(t, "parameters", got, parseJSON(t, []byte(tc.want)))
		})
	}
	// Request.Extra is merged last; nil removes a key.
	body := chatBody(t, openai.New("m", openai.WithTemperature(1)), &model.Request{Extra: map[string]any{"temperature": 0.1, "stream_options": nil}})
	if body["temperature"] != json.Number("0.1") {
		t.Errorf("temperature %v", body["temperature"])
	}
	if _, ok := body["stream_options"]; ok {
		t.Error("stream_options not removed")
	}
}

func TestNames(t *testing.T) {
	body := chatBody(t, openai.New("gpt-4.1"), &model.Request{Messages: []*message.Msg{
		message.UserText("Bob_1", "a"), message.UserText("Alice Smith", "b"), message.UserText("小明", "c"),
	}})
	wantKey(t, body, "messages", `[{"role":"user","name":"Bob_1","content":"a"},{"role":"user","content":"b"},{"role":"user","content":"c"}]`)
}

func TestHintHeldUntilCallsAnswered(t *testing.T) {
	// A hint injected while calls run, and a text after the first result,
	// must not split the calls from their results.
	reply, err := message.AssistantMsg("", []block.Block{
		&block.ToolCall{ID: "A", Name: "f", Input: `{"q": "tru`}, // cut off mid-stream
		&block.ToolCall{ID: "B", Name: "g", Input: `[1]`},
		block.NewHint("a hint", ""),
		&block.ToolResult{ID: "A", Name: "f", Output: block.PlainBody("interrupted"), State: block.ResultInterrupted},
		block.NewText("between"),
		&block.ToolResult{ID: "B", Name: "g", Output: block.PlainBody("ok"), State: block.ResultSuccess},
		block.NewText("after"),
	})
	if err != nil {
		t.Fatal(err)
	}
	body := chatBody(t, openai.New("gpt-4.1"), &model.Request{Messages: []*message.Msg{reply}})
	wantKey(t, body, "messages", `[
	 {"role":"assistant","tool_calls":[
	   {"id":"A","type":"function","function":{"name":"f","arguments":"{\"q\":\"tru\"}"}},
	   {"id":"B","type":"function","function":{"name":"g","arguments":"{}"}}]},
	 {"role":"tool","tool_call_id":"A","content":"interrupted"},
	 {"role":"tool","tool_call_id":"B","content":"ok"},
	 {"role":"user","content":"a hint"},
	 {"role":"assistant","content":[{"type":"text","text":"between"},{"type":"text","text":"after"}]}]`)

	resp, err := openai.NewResponses("o4-mini").Body(ctx(t), &model.Request{Messages: []*message.Msg{reply}})
	if err != nil {
		t.Fatal(err)
	}
	wantKey(t, parseJSON(t, resp).(map[string]any), "input", `[
	 {"type":"function_call","call_id":"A","name":"f","arguments":"{\"q\":\"tru\"}"},
	 {"type":"function_call","call_id":"B","name":"g","arguments":"{}"},
	 {"type":"function_call_output","call_id":"A","output":"interrupted"},
	 {"type":"function_call_output","call_id":"B","output":"ok"},
	 {"role":"user","content":[{"type":"input_text","text":"a hint"}]},
	 {"role":"assistant","content":[{"type":"output_text","text":"between"},{"type":"output_text","text":"after"}]}]`)
}
