package agui_test

import (
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/server/agui"
)

func decode(t *testing.T, line string) event.Event {
	t.Helper()
	e, err := event.Decode([]byte(line))
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return e
}

// The events the reference has no case for are CUSTOM "unknown" with the
// whole event; a CUSTOM's value keeps the nulls of its dicts (metadata and
// the native value) and loses those of its models.
func TestConverterUnknownAndNulls(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"id":"e","created_at":"t","metadata":{"k":null},"type":"HINT_BLOCK","reply_id":"r","block_id":"h","source":null,"hint":"be brief"}`,
			`{"type":"CUSTOM","name":"unknown","value":{"id":"e","created_at":"t","metadata":{"k":null},"type":"HINT_BLOCK","reply_id":"r","block_id":"h","hint":"be brief"}}`},
		{`{"id":"e","created_at":"t","metadata":{},"type":"USER_INTERRUPT","reply_id":"r"}`,
			`{"type":"CUSTOM","name":"unknown","value":{"id":"e","created_at":"t","metadata":{},"type":"USER_INTERRUPT","reply_id":"r"}}`},
		{`{"id":"e","created_at":"t","metadata":{},"type":"CUSTOM","name":"state_updated","value":{"tasks_context":null}}`,
			`{"type":"CUSTOM","name":"unknown","value":{"id":"e","created_at":"t","metadata":{},"type":"CUSTOM","name":"state_updated","value":{"tasks_context":null}}}`},
		{`{"id":"e","created_at":"t","metadata":{},"type":"TOOL_RESULT_DATA_DELTA","reply_id":"r","tool_call_id":"c","block_id":"d","media_type":"image/png","data":null,"url":"https://x.test/a.png"}`,
			`{"type":"CUSTOM","name":"tool_result_data_delta","value":{"id":"e","created_at":"t","metadata":{},"type":"TOOL_RESULT_DATA_DELTA","reply_id":"r","tool_call_id":"c","block_id":"d","media_type":"image/png","url":"https://x.test/a.png"}}`},
		{`{"id":"e","created_at":"t","metadata":{},"type":"EXTERNAL_EXECUTION_RESULT","reply_id":"r","execution_results":[{"type":"tool_result","id":"c","name":"n","output":[{"type":"data","id":"d","source":{"type":"url","url":"https://x.test/","media_type":"image/png"},"name":null,"created_at":"t","finished_at":null}],"state":"success","metadata":{"m":null},"created_at":"t","finished_at":null}]}`,
			`{"type":"CUSTOM","name":"external_execution_result","value":{"id":"e","created_at":"t","metadata":{},"type":"EXTERNAL_EXECUTION_RESULT","reply_id":"r","execution_results":[{"type":"tool_result","id":"c","name":"n","output":[{"type":"data","id":"d","source":{"type":"url","url":"https://x.test/","media_type":"image/png"},"created_at":"t"}],"state":"success","metadata":{"m":null},"created_at":"t"}]}}`},
		{`{"id":"e","created_at":"t","metadata":{},"type":"REQUIRE_USER_CONFIRM","reply_id":"r","tool_calls":[{"type":"tool_call","id":"c","name":"n","input":"{}","state":"asking","suggested_rules":[{"tool_name":"n","rule_content":null,"behavior":"allow","source":"suggested"}],"created_at":"t","finished_at":null}]}`,
			`{"type":"CUSTOM","name":"require_user_confirm","value":{"id":"e","created_at":"t","metadata":{},"type":"REQUIRE_USER_CONFIRM","reply_id":"r","tool_calls":[{"type":"tool_call","id":"c","name":"n","input":"{}","state":"asking","suggested_rules":[{"tool_name":"n","behavior":"allow","source":"suggested"}],"created_at":"t"}]}}`},
		// Text is written in pydantic's spelling: non-ASCII and <>& as they are.
		{`{"type":"TEXT_BLOCK_DELTA","reply_id":"r","block_id":"b","delta":"é <b>&\n\u2028"}`,
			"{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"b\",\"delta\":\"é <b>&\\n\u2028\"}"},
	}
	for _, c := range cases {
		got := agui.NewConverter().Append(nil, decode(t, c.in))
		if string(got) != c.want+"\n" {
			t.Errorf("%s\n got %s\nwant %s", c.in, got, c.want)
		}
		checkLine(t, got)
	}
}

// Each stream has its own state: a tool result's text and the step's
// model do not leak from one Converter into another, as they do through
// the reference's shared middleware.
func TestConverterPerStream(t *testing.T) {
	a, b := agui.NewConverter(), agui.NewConverter()
	a.Append(nil, &event.ModelCallStart{ReplyID: "r", ModelName: "m-a"})
	a.Append(nil, &event.ToolResultTextDelta{ReplyID: "r", ToolCallID: "c", Delta: "a's text"})
	if got := string(b.Append(nil, &event.ToolResultEnd{ReplyID: "r", ToolCallID: "c", State: block.ResultSuccess})); !strings.Contains(got, `"content":"success"`) {
		t.Errorf("b saw a's result: %s", got)
	}
	if got := string(b.Append(nil, &event.ModelCallEnd{ReplyID: "r"})); !strings.Contains(got, `"stepName":"model_call"`) {
		t.Errorf("b saw a's model: %s", got)
	}
	if got := string(a.Append(nil, &event.ToolResultEnd{ReplyID: "r", ToolCallID: "c", State: block.ResultSuccess})); !strings.Contains(got, `"content":"a's text"`) {
		t.Errorf("a lost its result: %s", got)
	}
	// The buffer is emptied at the end: a second result of the same id
	// starts afresh.
	if got := string(a.Append(nil, &event.ToolResultEnd{ReplyID: "r", ToolCallID: "c", State: block.ResultError})); !strings.Contains(got, `"content":"error"`) {
		t.Errorf("the result's text outlived it: %s", got)
	}
}

func TestAppendChunk(t *testing.T) {
	start := `{"type":"REPLY_START","session_id":"s","reply_id":"r","name":"a"}`
	run := `{"type":"RUN_STARTED","threadId":"s","runId":"r"}`
	cases := []struct{ in, want string }{
		{start, run + "\n"},
		{" " + start + "\n", run + "\n"},
		{"data: " + start + "\n\n", "data: " + run + "\n\n"},
		{"data:" + start + "\n\n", "data: " + run + "\n\n"},
		{"id: 3\ndata: " + start + "\n\n", "id: 3\ndata: " + run + "\n\n"},
		{"data: " + start + "\r\n\r\n", "data: " + run + "\r\n\r\n"},
		{"data: " + start, "data: " + run},
		// Not an event: passed through as the reference does.
		{"data: {\"type\":\"NOPE\"}\n\n", "data: {\"type\":\"NOPE\"}\n\n"},
		{"data: [DONE]\n\n", "data: [DONE]\n\n"},
		{":\n\n", ":\n\n"},
		{"", ""},
		{"{\"type\":\"REPLY_START\"", "{\"type\":\"REPLY_START\""},
		// One bad data line among good ones is kept; the others converted.
		{"data: x\ndata: " + start + "\n\n", "data: x\ndata: " + run + "\n\n"},
	}
	for _, c := range cases {
		if got := string(agui.NewConverter().AppendChunk([]byte("<"), []byte(c.in))); got != "<"+c.want {
			t.Errorf("%q\n got %q\nwant %q", c.in, got, "<"+c.want)
		}
	}
}
