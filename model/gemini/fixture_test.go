package gemini

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
	"github.com/agentscope-go/agentscope/stamp"
)

var (
	weatherTool = model.ToolSchema{Name: "weather", Description: "Get weather information for a location",
		Parameters: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string","description":"the city"}},"required":["location"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`)}
	addTool = model.ToolSchema{Name: "add", Description: "Add two numbers",
		Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer","description":"first number"},"b":{"type":"integer","description":"second number"}},"required":["a","b"]}`)}
	mulTool = model.ToolSchema{Name: "multiply", Description: "Multiply two numbers",
		Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer","description":"first number"},"b":{"type":"integer","description":"second number"}},"required":["a","b"]}`)}
	auto = &model.ToolChoice{Mode: model.ChoiceAuto}
)

// counter numbers synthesized call ids "1", "2", … as the recording's
// client did.
func counter() func() string {
	n := 0
	return func() string { n++; return strconv.Itoa(n) }
}

func replay(t *testing.T, name string, m *Model, req *model.Request) ([]model.Chunk, *model.Accumulator, wiretest.Request) {
	t.Helper()
	srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", wiretest.Wire(t, name+".sse")))
	m.baseURL = srv.URL
	chunks, err := wiretest.Collect(m.Stream(context.Background(), req))
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	return chunks, wiretest.Accumulate(t, chunks), reqs[0]
}

func result(id, name, text string) *block.ToolResult {
	return &block.ToolResult{ID: id, Name: name, Output: block.PlainBody(text), State: block.ResultSuccess}
}

func withReply(t *testing.T, req *model.Request, content ...block.Block) *model.Request {
	t.Helper()
	reply, err := message.AssistantMsg("assistant", content)
	if err != nil {
		t.Fatal(err)
	}
	next := *req
	next.Messages = append(append([]*message.Msg(nil), req.Messages...), reply)
	return &next
}

func bodyOf(t *testing.T, m *Model, req *model.Request) []byte {
	t.Helper()
	b, err := m.RequestBody(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFixture25ParallelFunctionCalls(t *testing.T) {
	const name = "gemini25_stream_parallel_function_calls"
	m := New("gemini-2.5-flash", WithAPIKey("g-key"), WithMaxTokens(4000), WithCallIDs(counter()))
	req := &model.Request{Messages: []*message.Msg{
		message.SystemText("system", "You are a helpful assistant. Always use both add and multiply at the same time."),
		message.UserText("user", "Add and multiply the number 2 and 3"),
	}, Tools: []model.ToolSchema{addTool, mulTool}, ToolChoice: auto}
	chunks, acc, sent := replay(t, name, m, req)

	if sent.Path != "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse" || sent.Header.Get("x-goog-api-key") != "g-key" {
		t.Fatalf("request %s %v", sent.Path, sent.Header)
	}
	wiretest.EqualJSON(t, sent.Body, wiretest.Wire(t, name+".request.json"))

	// One chunk, both calls whole; no ids on the wire, so "1" and "2";
	// the signature only on the first.
	if len(chunks) != 1 || len(chunks[0].Parts) != 2 {
		t.Fatalf("chunks %+v", chunks)
	}
	a, b := chunks[0].Parts[0], chunks[0].Parts[1]
	if a.Kind != model.PartToolCall || a.ID != "1" || a.Name != "add" || a.Text != `{"b":3,"a":2}` || len(a.Extra) != 1 ||
		b.ID != "2" || b.Name != "multiply" || b.Text != `{"a":2,"b":3}` || b.Extra != nil {
		t.Fatalf("parts %+v %+v", a, b)
	}
	// output = total − prompt (thoughts included).
	if u := acc.Usage(); *u != (message.Usage{InputTokens: 121, OutputTokens: 74}) {
		t.Fatalf("usage %+v", u)
	}

	content := append(acc.Content(), result("1", "add", "5"), result("2", "multiply", "6"))
	next := bodyOf(t, m, withReply(t, req, content...))
	wiretest.EqualJSON(t, next, wiretest.Wire(t, name+".next_request.json"))
}

func TestFixture25ThoughtThenFunctionCall(t *testing.T) {
	const name = "gemini25_stream_thought_then_function_call"
	m := New("gemini-2.5-flash", WithThinkingBudget(128), WithStamp(stamp.NewSequence(time.Unix(0, 0))))
	req := &model.Request{Messages: []*message.Msg{
		message.SystemText("system", "You are a helpful assistant"),
		message.UserText("user", "What's the weather in Florence, Italy?"),
	}, Tools: []model.ToolSchema{weatherTool}, ToolChoice: auto}
	chunks, acc, sent := replay(t, name, m, req)
	wiretest.EqualJSON(t, sent.Body, wiretest.Wire(t, name+".request.json"))

	if len(chunks) != 2 || chunks[0].Parts[0].Kind != model.PartThinking || chunks[1].Parts[0].Kind != model.PartToolCall {
		t.Fatalf("chunks %+v", chunks)
	}
	// Usage repeats cumulatively; the first chunk has no candidates count.
	if u := chunks[0].Usage; u == nil || *u != (message.Usage{InputTokens: 54, OutputTokens: 62}) {
		t.Fatalf("first usage %+v", u)
	}
	if u := acc.Usage(); *u != (message.Usage{InputTokens: 54, OutputTokens: 76}) {
		t.Fatalf("usage %+v", u)
	}
	c := acc.Content()
	th, call := c[0].(*block.Thinking), c[1].(*block.ToolCall)
	if th.Thinking[:34] != "**Determining the Weather Inquiry*" || th.Extra != nil {
		t.Fatalf("thinking %+v", th)
	}
	if call.Name != "weather" || call.Input != `{"location":"Florence, Italy"}` || call.GetString("thought_signature")[:12] != "CiQBvj72+y6V" {
		t.Fatalf("call %+v", call)
	}
	// Echoed: the thought as a thought part, the call with its signature
	// and a generated id.
	next := bodyOf(t, m, withReply(t, req, append(c, result(call.ID, "weather", "40 C"))...))
	var got struct{ Contents []json.RawMessage }
	json.Unmarshal(next, &got)
	sig := call.GetString("thought_signature")
	want := `{"role":"model","parts":[{"text":` + strconv.Quote(th.Thinking) + `,"thought":true},
	  {"functionCall":{"id":"` + call.ID + `","name":"weather","args":{"location":"Florence, Italy"}},"thoughtSignature":"` + sig + `"}]}`
	wiretest.EqualJSON(t, got.Contents[1], []byte(want))
}

func TestFixture3FunctionCallIDAndSignature(t *testing.T) {
	const name = "gemini3_stream_function_call_id_and_signature"
	m := New("gemini-3-pro-preview", WithThinkingLevel("HIGH"), WithCallIDs(func() string { t.Fatal("a server id was replaced"); return "" }))
	req := &model.Request{Messages: []*message.Msg{
		message.SystemText("system", "You are a helpful assistant"),
		message.UserText("user", "What's the weather in Florence, Italy?"),
	}, Tools: []model.ToolSchema{weatherTool}, ToolChoice: auto}
	chunks, acc, sent := replay(t, name, m, req)
	wiretest.EqualJSON(t, sent.Body, wiretest.Wire(t, name+".request.json"))
	if len(chunks) != 2 || len(chunks[1].Parts) != 0 || chunks[1].Usage == nil {
		t.Fatalf("chunks %+v (the trailing empty text part must be absorbed)", chunks)
	}
	c := acc.Content()
	if len(c) != 1 || c[0].(*block.ToolCall).ID != "9d532gc9" {
		t.Fatalf("content %+v", c)
	}
	next := bodyOf(t, m, withReply(t, req, c[0], result("9d532gc9", "weather", "40 C")))
	wiretest.EqualJSON(t, next, wiretest.Wire(t, name+".next_request.json"))
}

// The second call of the same recording: its request is the first call's
// next request, and its answer ends with an empty text part carrying a
// signature, which must come back on a part of its own after the text.
func TestFixture3TextTrailingSignature(t *testing.T) {
	const name = "gemini3_stream_text_trailing_signature"
	m := New("gemini-3-pro-preview", WithThinkingLevel("HIGH"))
	req := &model.Request{Messages: []*message.Msg{
		message.SystemText("system", "You are a helpful assistant"),
		message.UserText("user", "What's the weather in Florence, Italy?"),
	}, Tools: []model.ToolSchema{weatherTool}, ToolChoice: auto}
	// Rebuild the first turn from its own recording.
	_, first, _ := replay(t, "gemini3_stream_function_call_id_and_signature", New("gemini-3-pro-preview", WithThinkingLevel("HIGH")), req)
	req = withReply(t, req, append(first.Content(), result("9d532gc9", "weather", "40 C"))...)

	chunks, acc, sent := replay(t, name, m, req)
	wiretest.EqualJSON(t, sent.Body, wiretest.Wire(t, name+".request.json"))
	if len(chunks) != 3 {
		t.Fatalf("%d chunks", len(chunks))
	}
	// promptTokenCount changes in the last chunk: the last report wins.
	if u := acc.Usage(); *u != (message.Usage{InputTokens: 189, OutputTokens: 97}) {
		t.Fatalf("usage %+v", u)
	}
	c := acc.Content()
	if len(c) != 2 {
		t.Fatalf("content %+v", c)
	}
	txt, carrier := c[0].(*block.Text), c[1].(*block.Thinking)
	if txt.Text != "The current weather in Florence, Italy is 40°C (104°F). Stay cool, it's quite hot!" ||
		carrier.Thinking != "" || carrier.GetString("thought_signature")[:16] != "EtACCs0CAb4+9vvh" {
		t.Fatalf("text %q carrier %+v", txt.Text, carrier)
	}
	// The carrier's JSON (what a saved session holds) keeps the signature.
	js, _ := carrier.MarshalJSON()
	var back block.Thinking
	if err := json.Unmarshal(js, &back); err != nil || back.GetString("thought_signature") != carrier.GetString("thought_signature") {
		t.Fatalf("signature lost through JSON: %s", js)
	}
	next := bodyOf(t, m, withReply(t, req, c...))
	var got struct{ Contents []json.RawMessage }
	json.Unmarshal(next, &got)
	want := `{"role":"model","parts":[{"text":` + strconv.Quote(txt.Text) + `},{"text":"","thoughtSignature":"` + carrier.GetString("thought_signature") + `"}]}`
	if len(got.Contents) != 4 {
		t.Fatalf("%d contents", len(got.Contents))
	}
	wiretest.EqualJSON(t, got.Contents[3], []byte(want))
}
