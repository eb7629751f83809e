package openai_test

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
	"github.com/agentscope-go/agentscope/model/openai"
)

func sse(lines ...string) []byte {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("data: " + l + "\n\n")
	}
	return []byte(b.String())
}

func streamChat(t *testing.T, body []byte, contentType string, opts ...openai.Option) result {
	t.Helper()
	srv := wiretest.NewServer(t, wiretest.Body(contentType, body))
	var sl sleeps
	return drain(t, chatAt(srv.URL, &sl, opts...).Stream(ctx(t), helloReq()))
}

func TestWholeResponse(t *testing.T) {
	// stream:false (mock-llm's shape for tool calls): no index on calls.
	body := `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Calling.","reasoning_content":"why",
	  "tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"NYC\"}"}},
	                {"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}]},"finish_reason":"tool_calls"}],
	  "usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}}`
	r := streamChat(t, []byte(body), "application/json; charset=utf-8", openai.WithStream(false))
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.chunks != 1 {
		t.Errorf("%d chunks", r.chunks)
	}
	checkContent(t, r.acc.Content(), "why", "Calling.", []wantCall{{"call_1", "get_weather", `{"location":"NYC"}`}, {"call_2", "get_time", "{}"}})
	if u := r.acc.Usage(); u == nil || *u != (message.Usage{InputTokens: 10, OutputTokens: 20}) {
		t.Errorf("usage %+v", u)
	}
}

func TestWholeResponseCallsWithoutIDs(t *testing.T) {
	// A whole message's tool_calls carry no index; a server that sends no
	// ids either still means one call per element, never one merged call.
	body := `{"choices":[{"index":0,"message":{"role":"assistant","content":null,
	  "tool_calls":[{"type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"NYC\"}"}},
	                {"type":"function","function":{"name":"get_time","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`
	r := streamChat(t, []byte(body), "application/json", openai.WithStream(false))
	if r.err != nil {
		t.Fatal(r.err)
	}
	checkContent(t, r.acc.Content(), "", "", []wantCall{{"call_" + id(1), "get_weather", `{"location":"NYC"}`}, {"call_" + id(2), "get_time", "{}"}})
}

func TestToolCallFragmentEdges(t *testing.T) {
	body := sse(
		// no id ever, name on a later fragment
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\""}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"add","arguments":":1}"}}]}}]}`,
		// a server reusing index 1 for two whole calls, arguments as an object
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"c1","function":{"name":"x","arguments":{"k":1}}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"c2","function":{"name":"y","arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, // repeated
		"[DONE]")
	r := streamChat(t, body, "text/event-stream")
	if r.err != nil {
		t.Fatal(r.err)
	}
	synth := "call_" + id(1)
	checkContent(t, r.acc.Content(), "", "", []wantCall{{synth, "add", `{"a":1}`}, {"c1", "x", `{"k":1}`}, {"c2", "y", "{}"}})
}

func TestInterleavedCallFragments(t *testing.T) {
	// Fragments of two calls alternate by index: each goes to its own call.
	body := sse(
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":"}},{"index":1,"id":"b","function":{"name":"g","arguments":"{\"y\":"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"2}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]}`,
		"[DONE]")
	r := streamChat(t, body, "text/event-stream")
	checkContent(t, r.acc.Content(), "", "", []wantCall{{"a", "f", `{"x":1}`}, {"b", "g", `{"y":2}`}})
	if got := r.boundaries(); !slices.Equal(got, []string{"tool_call:a", "tool_call:b", "tool_call:a"}) {
		t.Errorf("boundaries %q", got)
	}
}

func TestUsageVariants(t *testing.T) {
	for _, tc := range []struct {
		name  string
		usage string
		opts  []openai.Option
		want  message.Usage
	}{
		{"xai adds reasoning", `{"prompt_tokens":288,"completion_tokens":27,"total_tokens":628,"completion_tokens_details":{"reasoning_tokens":313}}`,
			[]openai.Option{openai.WithProfile(openai.ProfileXAI)}, message.Usage{InputTokens: 288, OutputTokens: 340}},
		{"openai includes reasoning", `{"prompt_tokens":288,"completion_tokens":340,"completion_tokens_details":{"reasoning_tokens":313}}`,
			nil, message.Usage{InputTokens: 288, OutputTokens: 340}},
		{"deepseek cache", `{"prompt_tokens":100,"completion_tokens":5,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}`,
			[]openai.Option{openai.WithProfile(openai.ProfileDeepSeek)}, message.Usage{InputTokens: 100, OutputTokens: 5, CacheInputTokens: 64}},
		{"moonshot cache", `{"prompt_tokens":100,"completion_tokens":5,"cached_tokens":32}`,
			[]openai.Option{openai.WithProfile(openai.ProfileMoonshot)}, message.Usage{InputTokens: 100, OutputTokens: 5, CacheInputTokens: 32}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := sse(`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}`,
				`{"choices":[],"usage":`+tc.usage+`}`, "[DONE]")
			r := streamChat(t, body, "text/event-stream", tc.opts...)
			if u := r.acc.Usage(); r.err != nil || u == nil || *u != tc.want {
				t.Errorf("usage %+v, err %v", u, r.err)
			}
		})
	}
	// Several reports: the latest wins, never the sum.
	body := sse(`{"choices":[{"index":0,"delta":{"content":"x"}}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`, "[DONE]")
	r := streamChat(t, body, "text/event-stream")
	if u := r.acc.Usage(); u == nil || *u != (message.Usage{InputTokens: 5, OutputTokens: 2}) {
		t.Errorf("usage %+v", u)
	}
}

func TestReasoningFieldAndOrder(t *testing.T) {
	// vLLM's "reasoning"; thinking before text in a mixed chunk; thinking
	// after text continues the same thinking block.
	body := sse(
		`{"choices":[{"index":0,"delta":{"reasoning":"r1"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"t1","reasoning":"r2"}}]}`,
		`{"choices":[{"index":0,"delta":{"reasoning":"r3"}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	r := streamChat(t, body, "text/event-stream")
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := r.boundaries(); !slices.Equal(got, []string{"thinking:" + id(1), "text:" + id(2), "thinking:" + id(1)}) {
		t.Errorf("boundaries %q", got)
	}
	checkContent(t, r.acc.Content(), "r1r2r3", "t1", nil)
}

func TestAudioOutput(t *testing.T) {
	pcm1, pcm2 := []byte{1, 2, 3, 4}, []byte{5, 6}
	b64 := base64.StdEncoding.EncodeToString
	body := sse(
		`{"choices":[{"index":0,"delta":{"audio":{"id":"audio_1","data":"`+b64(pcm1)+`","transcript":"Hi"}}}]}`,
		`{"choices":[{"index":0,"delta":{"audio":{"data":"`+b64(pcm2)+`","transcript":" there"}}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	r := streamChat(t, body, "text/event-stream")
	if r.err != nil {
		t.Fatal(r.err)
	}
	var data *block.Data
	for _, b := range r.acc.Content() {
		if d, ok := b.(*block.Data); ok {
			data = d
		}
	}
	if data == nil || data.ID != "audio_1" || data.MediaType() != "audio/wav" {
		t.Fatalf("audio block %+v", data)
	}
	raw, err := data.Source.(*block.Base64).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != 44+6 || string(raw[:4]) != "RIFF" || string(raw[8:16]) != "WAVEfmt " || string(raw[44:]) != "\x01\x02\x03\x04\x05\x06" {
		t.Errorf("wav bytes % x", raw)
	}
	var text string
	for _, b := range r.acc.Content() {
		if tb, ok := b.(*block.Text); ok {
			text += tb.Text
		}
	}
	if text != "Hi there" {
		t.Errorf("transcript %q", text)
	}
}

func respSSE(events ...string) []byte {
	var b strings.Builder
	for _, e := range events {
		typ := e[strings.Index(e, `"type":"`)+8:]
		typ = typ[:strings.IndexByte(typ, '"')]
		b.WriteString("event: " + typ + "\ndata: " + e + "\n\n")
	}
	return []byte(b.String())
}

func TestResponsesEncryptedReasoningReplay(t *testing.T) {
	body := respSSE(
		`{"type":"response.output_item.added","item":{"id":"rs_1","type":"reasoning","summary":[]}}`,
		`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":0,"delta":"First "}`,
		`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":0,"delta":"part."}`,
		`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":1,"delta":"Second."}`,
		`{"type":"response.output_item.done","item":{"id":"rs_1","type":"reasoning","encrypted_content":"gAAAAB==","summary":[{"type":"summary_text","text":"First part."},{"type":"summary_text","text":"Second."}]}}`,
		`{"type":"response.output_item.added","item":{"id":"msg_1","type":"message","role":"assistant","content":[]}}`,
		`{"type":"response.output_text.delta","item_id":"msg_1","delta":"Let me look."}`,
		`{"type":"response.output_item.added","item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"weather","arguments":""}}`,
		`{"type":"response.function_call_arguments.done","item_id":"fc_1","arguments":"{\"location\":\"Rome\"}"}`,
		`{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":9,"output_tokens":8,"input_tokens_details":{"cached_tokens":4}}}}`)
	srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", body))
	m := openai.NewResponses("o4-mini", openai.WithBaseURL(srv.URL), openai.WithStore(false),
		openai.WithEncryptedReasoning(), openai.WithReasoningSummary("auto"), openai.WithReasoningEffort("high"))
	history := []*message.Msg{message.UserText("", "Rome?")}
	req := &model.Request{Messages: history, Tools: []model.ToolSchema{weatherTool, numberTool("add", "Add")},
		ToolChoice: &model.ToolChoice{Mode: "required", Tools: []string{"weather"}}}
	r := drain(t, m.Stream(ctx(t), req))
	if r.err != nil {
		t.Fatal(r.err)
	}
	// Arguments that were never streamed as deltas come from .done.
	checkContent(t, r.acc.Content(), "First part.\n\nSecond.", "Let me look.", []wantCall{{"call_1", "weather", `{"location":"Rome"}`}})
	if u := r.acc.Usage(); u == nil || *u != (message.Usage{InputTokens: 9, OutputTokens: 8, CacheInputTokens: 4}) {
		t.Errorf("usage %+v", u)
	}
	first := parseJSON(t, srv.Requests()[0].Body).(map[string]any)
	for k, want := range map[string]string{
		"store": `false`, "include": `["reasoning.encrypted_content"]`, "reasoning": `{"effort":"high","summary":"auto"}`,
		"tool_choice": `{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"weather"}]}`,
	} {
		wantKey(t, first, k, want)
	}
	if n := len(first["tools"].([]any)); n != 2 {
		t.Errorf("Responses must not filter tools: %d sent", n)
	}

	reply := replyWithResults(t, r.acc.Content(), map[string]string{"call_1": "22 C"})
	hint, _ := message.AssistantMsg("", []block.Block{block.NewHint("stay brief", "")})
	req.Messages = append(history, reply, hint)
	b, err := m.Body(ctx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	wantKey(t, parseJSON(t, b).(map[string]any), "input", `[
	 {"role":"user","content":[{"type":"input_text","text":"Rome?"}]},
	 {"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"First part.\n\nSecond."}],"encrypted_content":"gAAAAB=="},
	 {"role":"assistant","content":[{"type":"output_text","text":"Let me look."}]},
	 {"type":"function_call","call_id":"call_1","name":"weather","arguments":"{\"location\":\"Rome\"}"},
	 {"type":"function_call_output","call_id":"call_1","output":"22 C"},
	 {"role":"user","content":[{"type":"input_text","text":"stay brief"}]}]`)
}

func TestResponsesWholeAndForcedChoice(t *testing.T) {
	body := `{"id":"resp_1","object":"response","status":"completed","output":[
	 {"id":"rs_9","type":"reasoning","summary":[{"type":"summary_text","text":"think"}]},
	 {"id":"fc_9","type":"function_call","call_id":"call_9","name":"add","arguments":"{\"a\":1,\"b\":2}"},
	 {"id":"msg_9","type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}],
	 "usage":{"input_tokens":3,"output_tokens":4}}`
	srv := wiretest.NewServer(t, wiretest.Body("application/json", []byte(body)))
	m := openai.NewResponses("o4-mini", openai.WithBaseURL(srv.URL), openai.WithStream(false), openai.WithSystemRole("system"))
	req := &model.Request{Messages: []*message.Msg{message.SystemText("", "sys"), message.UserText("", "x")},
		Tools: []model.ToolSchema{numberTool("add", "Add")}, ToolChoice: &model.ToolChoice{Mode: "add"}}
	r := drain(t, m.Stream(ctx(t), req))
	if r.err != nil {
		t.Fatal(r.err)
	}
	checkContent(t, r.acc.Content(), "think", "ok", []wantCall{{"call_9", "add", `{"a":1,"b":2}`}})
	sent := parseJSON(t, srv.Requests()[0].Body).(map[string]any)
	wantKey(t, sent, "tool_choice", `{"type":"function","name":"add"}`)
	wantKey(t, sent, "input", `[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"input_text","text":"x"}]}]`)
	if sent["stream"] != false {
		t.Errorf("stream %v", sent["stream"])
	}
}

func TestConcurrentStreams(t *testing.T) {
	// One model value serves many agents at once.
	wiretest.Concurrent(t, 8, "text/event-stream", wiretest.Wire(t, "openai_chat_stream_parallel_tool_calls.sse"),
		func(u string) model.ChatModel { return openai.New("gpt-4o", openai.WithBaseURL(u)) }, helloReq())
	wiretest.Concurrent(t, 8, "text/event-stream", wiretest.Wire(t, "openai_responses_stream_reasoning_function_call.sse"),
		func(u string) model.ChatModel { return openai.NewResponses("o4-mini", openai.WithBaseURL(u)) }, helloReq())
}
