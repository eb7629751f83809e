package message_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
)

// evs decodes events written as `TYPE {fields}`; reply_id "r" and an id
// and created_at derived from the position are added when absent.
func evs(t testing.TB, lines ...string) []event.Event {
	t.Helper()
	out := make([]event.Event, len(lines))
	for i, l := range lines {
		typ, rest, _ := strings.Cut(l, " ")
		body := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(rest), "{"), "}")
		head := fmt.Sprintf(`"type":%q,"id":"e%d","created_at":"T%d"`, typ, i, i)
		if typ != "CUSTOM" && !strings.Contains(body, `"reply_id"`) {
			head += `,"reply_id":"r"`
		}
		if body != "" {
			head += "," + body
		}
		e, err := event.Decode([]byte("{" + head + "}"))
		if err != nil {
			t.Fatalf("event %d %q: %v", i, l, err)
		}
		out[i] = e
	}
	return out
}

func newReply(t testing.TB) *message.Msg {
	t.Helper()
	m, err := message.AssistantMsg("Friday", nil, message.WithID("r"), message.WithCreatedAt("C"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func apply(t testing.TB, m *message.Msg, es []event.Event) {
	t.Helper()
	for i, e := range es {
		if err := m.AppendEvent(e); err != nil {
			t.Fatalf("event %d %s: %v", i, e.Type(), err)
		}
	}
}

func contentJSON(m *message.Msg) string { return string(block.AppendList(nil, m.Content)) }

func TestFoldToolResultOutputs(t *testing.T) {
	m := newReply(t)
	apply(t, m, evs(t,
		`TOOL_CALL_START {"tool_call_id":"c","tool_call_name":"Bash"}`,
		`TOOL_CALL_DELTA {"tool_call_id":"c","delta":"{\"a\":"}`,
		`TOOL_CALL_DELTA {"tool_call_id":"c","delta":"1}"}`,
		`TOOL_CALL_END {"tool_call_id":"c"}`,
		`TOOL_RESULT_START {"tool_call_id":"c","tool_call_name":"Bash"}`,
		`TOOL_RESULT_TEXT_DELTA {"tool_call_id":"c","delta":"he"}`,
		`TOOL_RESULT_TEXT_DELTA {"tool_call_id":"c","delta":"llo"}`,
		`TOOL_RESULT_DATA_DELTA {"tool_call_id":"c","block_id":"d1","media_type":"image/png","data":"aGk="}`,
		`TOOL_RESULT_DATA_DELTA {"tool_call_id":"c","block_id":"d1","media_type":"image/png","data":"aGk="}`,
		`TOOL_RESULT_DATA_DELTA {"tool_call_id":"c","block_id":"d2","media_type":"image/png","url":"https://E.com"}`,
		`TOOL_RESULT_TEXT_DELTA {"tool_call_id":"c","delta":"bye"}`,
		`TOOL_RESULT_END {"tool_call_id":"c","state":"success","metadata":{"k":1}}`,
	))
	want := `[` +
		`{"type":"tool_call","id":"c","name":"Bash","input":"{\"a\":1}","state":"finished","suggested_rules":[],"created_at":"T0","finished_at":"T3"},` +
		`{"type":"tool_result","id":"c","name":"Bash","output":[` +
		// A text block made by a delta takes the delta event's id and time.
		`{"type":"text","text":"hello","id":"e5","created_at":"T5","finished_at":null},` +
		// Data deltas are never merged, even with the same block id.
		`{"type":"data","id":"d1","source":{"type":"base64","data":"aGk=","media_type":"image/png"},"name":null,"created_at":"T7","finished_at":null},` +
		`{"type":"data","id":"d1","source":{"type":"base64","data":"aGk=","media_type":"image/png"},"name":null,"created_at":"T8","finished_at":null},` +
		`{"type":"data","id":"d2","source":{"type":"url","url":"https://e.com/","media_type":"image/png"},"name":null,"created_at":"T9","finished_at":null},` +
		`{"type":"text","text":"bye","id":"e10","created_at":"T10","finished_at":null}` +
		`],"state":"success","metadata":{"k":1},"created_at":"T4","finished_at":"T11"}]`
	if got := contentJSON(m); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

// A plain-string output (as EXTERNAL_EXECUTION_RESULT may bring) becomes a
// one-text-block list before a delta lands on it.
func TestFoldPlainOutputThenDelta(t *testing.T) {
	m := newReply(t)
	apply(t, m, evs(t,
		`EXTERNAL_EXECUTION_RESULT {"execution_results":[{"type":"tool_result","id":"c","name":"x","output":"start","state":"running","created_at":"R"}]}`,
		`TOOL_RESULT_TEXT_DELTA {"tool_call_id":"c","delta":"+more"}`,
	))
	want := `[{"type":"tool_result","id":"c","name":"x","output":[{"type":"text","text":"start+more","id":"e1","created_at":"T1","finished_at":null}],"state":"running","metadata":{},"created_at":"R","finished_at":"T0"}]`
	if got := contentJSON(m); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	m = newReply(t)
	apply(t, m, evs(t,
		`EXTERNAL_EXECUTION_RESULT {"execution_results":[{"type":"tool_result","id":"c","name":"x","output":"start","finished_at":"F","created_at":"R"}]}`,
		`TOOL_RESULT_DATA_DELTA {"tool_call_id":"c","block_id":"d","media_type":"image/png","data":"aGk="}`,
	))
	want = `[{"type":"tool_result","id":"c","name":"x","output":[{"type":"text","text":"start","id":"e1","created_at":"T1","finished_at":null},{"type":"data","id":"d","source":{"type":"base64","data":"aGk=","media_type":"image/png"},"name":null,"created_at":"T1","finished_at":null}],"state":"running","metadata":{},"created_at":"R","finished_at":"F"}]`
	if got := contentJSON(m); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

func TestFoldConfirmationStates(t *testing.T) {
	m := newReply(t)
	call := func(id string) string {
		return `{"type":"tool_call","id":"` + id + `","name":"Bash","input":"{}","created_at":"X"}`
	}
	apply(t, m, evs(t,
		`TOOL_CALL_START {"tool_call_id":"a","tool_call_name":"Bash"}`,
		`TOOL_CALL_START {"tool_call_id":"b","tool_call_name":"Bash"}`,
		`TOOL_CALL_START {"tool_call_id":"c","tool_call_name":"Bash"}`,
	))
	rules := `[{"tool_name":"Bash","rule_content":"ls:*","behavior":"allow","source":"suggested"}]`
	ask := evs(t, `REQUIRE_USER_CONFIRM {"tool_calls":[{"type":"tool_call","id":"a","name":"Bash","input":"{}","suggested_rules":`+rules+`},`+call("b")+`]}`)[0]
	apply(t, m, []event.Event{ask})
	calls := message.BlocksOf[*block.ToolCall](m)
	if calls[0].State != block.CallAsking || calls[1].State != block.CallAsking || calls[2].State != block.CallPending {
		t.Fatalf("after ask: %s %s %s", calls[0].State, calls[1].State, calls[2].State)
	}
	if len(calls[0].SuggestedRules) != 1 || calls[0].SuggestedRules[0].RuleContent != block.Some("ls:*") {
		t.Fatalf("rules: %+v", calls[0].SuggestedRules)
	}
	// Edited name/input in the answer are not applied; c is not asking, so
	// its answer is stale and ignored.
	apply(t, m, evs(t,
		`USER_CONFIRM_RESULT {"confirm_results":[`+
			`{"confirmed":true,"tool_call":{"type":"tool_call","id":"a","name":"Other","input":"{\"x\":1}"}},`+
			`{"confirmed":false,"tool_call":`+call("b")+`},`+
			`{"confirmed":true,"tool_call":`+call("c")+`}]}`,
	))
	if calls[0].State != block.CallAllowed || calls[0].Name != "Bash" || calls[0].Input != "" ||
		calls[1].State != block.CallFinished || calls[2].State != block.CallPending {
		t.Fatalf("after answers: %+v %+v %+v", calls[0], calls[1], calls[2])
	}
	apply(t, m, evs(t, `REQUIRE_EXTERNAL_EXECUTION {"tool_calls":[`+call("c")+`]}`))
	if calls[2].State != block.CallSubmitted {
		t.Fatal(calls[2].State)
	}
	// Unknown calls: the known ones are still updated, the unknown reported.
	before := contentJSON(m)
	err := m.AppendEvent(evs(t, `REQUIRE_EXTERNAL_EXECUTION {"tool_calls":[`+call("ghost1")+`,`+call("a")+`,`+call("ghost2")+`]}`)[0])
	var fe *message.FoldError
	if !errors.As(err, &fe) || !errors.Is(err, message.ErrBlockNotFound) || fe.ID != "ghost1, ghost2" {
		t.Fatalf("got %v", err)
	}
	if calls[0].State != block.CallSubmitted || contentJSON(m) == before {
		t.Fatal("known call not updated")
	}
}

func TestFoldExternalResultsFirstWins(t *testing.T) {
	m := newReply(t)
	apply(t, m, evs(t,
		`EXTERNAL_EXECUTION_RESULT {"execution_results":[{"type":"tool_result","id":"c","name":"x","output":"first","state":"success","created_at":"R"}]}`,
		`EXTERNAL_EXECUTION_RESULT {"execution_results":[{"type":"tool_result","id":"c","name":"x","output":"second","state":"error","created_at":"R"}]}`,
	))
	want := `[{"type":"tool_result","id":"c","name":"x","output":"first","state":"success","metadata":{},"created_at":"R","finished_at":"T0"}]`
	if got := contentJSON(m); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

func TestFoldUsageAndEnd(t *testing.T) {
	m := newReply(t)
	apply(t, m, evs(t,
		`REPLY_START {"session_id":"s","name":"Friday"}`,
		`MODEL_CALL_START {"model_name":"m"}`,
		`MODEL_CALL_END {"input_tokens":10,"output_tokens":5,"cache_input_tokens":1,"finished_reason":"interrupted"}`,
		`MODEL_CALL_END {"input_tokens":3,"output_tokens":2,"cache_creation_input_tokens":4}`,
		`EXCEED_MAX_ITERS {"name":"Friday"}`,
		`USER_INTERRUPT {}`,
		`REPLY_END {"session_id":"s","finished_reason":"error","error":{"type":"rate_limit","message":"slow down"}}`,
	))
	want := `{"name":"Friday","content":[],"role":"assistant","id":"r","metadata":{},"created_at":"C","usage":{"input_tokens":13,"output_tokens":7,"cache_input_tokens":1,"cache_creation_input_tokens":4},"finished_at":"T6","finished_reason":"error","structured_output":null,"error":{"type":"rate_limit","message":"slow down"}}`
	if got := string(m.AppendJSON(nil)); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	// A later REPLY_END (a resumed reply) replaces reason and clears error.
	apply(t, m, evs(t, `REPLY_END {"session_id":"s"}`))
	if m.FinishedReason != event.ReplyCompleted || m.Error != nil || m.FinishedAt != block.Some("T0") {
		t.Fatalf("%+v", m)
	}
}

func TestFoldHint(t *testing.T) {
	m := newReply(t)
	apply(t, m, evs(t,
		`HINT_BLOCK {"block_id":"h1","hint":"plain"}`,
		`HINT_BLOCK {"block_id":"h2","source":"{\"label\": \"S\"}","hint":[{"type":"text","text":"t","id":"x","created_at":"X"}]}`,
	))
	want := `[{"type":"hint","hint":"plain","id":"h1","source":null,"created_at":"T0","finished_at":"T0"},{"type":"hint","hint":[{"type":"text","text":"t","id":"x","created_at":"X","finished_at":null}],"id":"h2","source":"{\"label\": \"S\"}","created_at":"T1","finished_at":"T1"}]`
	if got := contentJSON(m); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

// Every error leaves the message exactly as it was.
func TestFoldErrorsLeaveMsgUnchanged(t *testing.T) {
	m := newReply(t)
	apply(t, m, evs(t,
		`DATA_BLOCK_START {"block_id":"d","media_type":"image/png"}`,
		`DATA_BLOCK_DELTA {"block_id":"d","data":"aGk=","media_type":"image/png"}`,
		`TEXT_BLOCK_START {"block_id":"t"}`,
		`TOOL_RESULT_START {"tool_call_id":"c","tool_call_name":"x"}`,
	))
	urlBlock := &block.Data{ID: "u", Source: &block.URL{URL: "https://e.com/", MediaType: "image/png"}, CreatedAt: "X"}
	m.Content = append(m.Content, urlBlock)
	before := string(m.AppendJSON(nil))

	cases := []struct {
		e    event.Event
		want error
	}{
		{evs(t, `TEXT_BLOCK_DELTA {"reply_id":"other","block_id":"t","delta":"x"}`)[0], message.ErrOtherReply},
		{evs(t, `CUSTOM {"name":"state_updated"}`)[0], message.ErrNoReplyID},
		{evs(t, `TEXT_BLOCK_DELTA {"block_id":"nope","delta":"x"}`)[0], message.ErrBlockNotFound},
		// Right id, wrong kind: a text delta does not land on a data block.
		{evs(t, `TEXT_BLOCK_DELTA {"block_id":"d","delta":"x"}`)[0], message.ErrBlockNotFound},
		{evs(t, `THINKING_BLOCK_END {"block_id":"t"}`)[0], message.ErrBlockNotFound},
		{evs(t, `DATA_BLOCK_DELTA {"block_id":"d","data":"!!","media_type":"image/png"}`)[0], message.ErrBadDelta},
		{evs(t, `DATA_BLOCK_DELTA {"block_id":"d","data":"aGk=aGk=","media_type":"image/png"}`)[0], message.ErrBadDelta},
		{evs(t, `DATA_BLOCK_DELTA {"block_id":"u","data":"aGk=","media_type":"image/png"}`)[0], message.ErrBadDelta},
		{evs(t, `TOOL_RESULT_DATA_DELTA {"tool_call_id":"c","media_type":"image/png","url":"/not/absolute"}`)[0], message.ErrBadDelta},
		{&event.ToolResultDataDelta{ReplyID: "r", ToolCallID: "c", MediaType: "image/png"}, message.ErrBadDelta},
		{evs(t, `TOOL_CALL_DELTA {"tool_call_id":"c","delta":"x"}`)[0], message.ErrBlockNotFound},
		{evs(t, `TOOL_RESULT_END {"tool_call_id":"nope","state":"success"}`)[0], message.ErrBlockNotFound},
		{evs(t, `REQUIRE_USER_CONFIRM {"tool_calls":[{"type":"tool_call","id":"nope","name":"x","input":"{}"}]}`)[0], message.ErrBlockNotFound},
	}
	for _, c := range cases {
		err := m.AppendEvent(c.e)
		var fe *message.FoldError
		if !errors.Is(err, c.want) || !errors.As(err, &fe) || fe.Event != c.e.Type() {
			t.Errorf("%s: got %v, want %v", c.e.Type(), err, c.want)
			continue
		}
		if !strings.Contains(err.Error(), string(c.e.Type())) {
			t.Errorf("error %q does not name the event type", err)
		}
		if after := string(m.AppendJSON(nil)); after != before {
			t.Fatalf("%s changed the message:\n%s\n%s", c.e.Type(), before, after)
		}
	}
	// An empty data delta is a no-op.
	apply(t, m, evs(t, `DATA_BLOCK_DELTA {"block_id":"d","data":"","media_type":"image/png"}`))
	if after := string(m.AppendJSON(nil)); after != before {
		t.Fatal("empty data delta changed the message")
	}
}

// Duplicate block ids: like the reference's _find_block, the first wins.
func TestFoldDuplicateIDsFirstWins(t *testing.T) {
	m := newReply(t)
	apply(t, m, evs(t,
		`TEXT_BLOCK_START {"block_id":"b"}`,
		`TEXT_BLOCK_START {"block_id":"b"}`,
		`TEXT_BLOCK_DELTA {"block_id":"b","delta":"x"}`,
		`TEXT_BLOCK_END {"block_id":"b"}`,
	))
	ts := message.BlocksOf[*block.Text](m)
	if ts[0].Text != "x" || ts[1].Text != "" || ts[0].FinishedAt != block.Some("T3") || ts[1].FinishedAt.Valid {
		t.Fatalf("%s", contentJSON(m))
	}
}

// A nil block is a typed error from the constructors and Validate, and
// everything else that walks Content (JSON, Clone, Find, folding, the
// kind filters) steps over it instead of panicking.
func TestNilBlocksInContent(t *testing.T) {
	var nilCall *block.ToolCall
	for _, content := range [][]block.Block{{nil}, {block.NewText("a"), nilCall}} {
		for _, build := range []func(string, []block.Block, ...message.Option) (*message.Msg, error){
			message.UserMsg, message.AssistantMsg, message.SystemMsg,
		} {
			if _, err := build("a", content); !errors.Is(err, message.ErrNilBlock) {
				t.Errorf("constructor: got %v, want ErrNilBlock", err)
			}
		}
	}
	m := &message.Msg{Role: event.RoleAssistant, ID: "r", Content: []block.Block{nil, nilCall, &block.Text{ID: "t1", Text: "a"}}}
	if err := m.Validate(); !errors.Is(err, message.ErrNilBlock) {
		t.Errorf("Validate: %v", err)
	}
	// AppendJSON cannot fail: it writes the nil blocks as null, as
	// documented; MarshalJSON (and so json.Marshal) refuses the Msg.
	if got := string(m.AppendJSON(nil)); !strings.Contains(got, `"content":[null,null,{"type":"text"`) {
		t.Errorf("JSON: %s", got)
	}
	if b, err := m.MarshalJSON(); !errors.Is(err, message.ErrNilBlock) || b != nil {
		t.Errorf("MarshalJSON: %s, %v; want ErrNilBlock", b, err)
	}
	if _, err := json.Marshal(m); !errors.Is(err, message.ErrNilBlock) {
		t.Errorf("json.Marshal: %v; want ErrNilBlock", err)
	}
	nested := &message.Msg{Role: event.RoleAssistant, ID: "r", Content: []block.Block{
		&block.ToolResult{ID: "c", Name: "f", Output: block.BlocksBody(block.NewText("ok"), nil)}}}
	if _, err := nested.MarshalJSON(); !errors.Is(err, message.ErrNilBlock) || !strings.Contains(err.Error(), "content[0].body[1]") {
		t.Errorf("MarshalJSON of a nil block in a tool result: %v", err)
	}
	if c := m.Clone(); c.Content[0] != nil || c.Content[1] != nil || len(c.Content) != 3 {
		t.Errorf("Clone: %#v", c.Content)
	}
	if m.Find(block.KindToolCall, "") != nil || !m.HasBlocks(block.KindText) || len(m.Blocks(block.KindText)) != 1 {
		t.Error("Find/HasBlocks/Blocks")
	}
	if err := m.AppendEvent(&event.TextBlockDelta{ReplyID: "r", BlockID: "t1", Delta: "b"}); err != nil {
		t.Fatal(err)
	}
	if err := m.AppendEvent(&event.TextBlockDelta{ReplyID: "r", BlockID: "zz", Delta: "b"}); !errors.Is(err, message.ErrBlockNotFound) {
		t.Errorf("missing block: %v", err)
	}
	if err := m.AppendEvent(&event.ExternalExecutionResult{ReplyID: "r", ExecutionResults: []*block.ToolResult{nil, {ID: "c1", Name: "f"}}}); err != nil {
		t.Fatal(err)
	}
	if m.Find(block.KindToolResult, "c1") == nil || m.Content[2].(*block.Text).Text != "ab" {
		t.Errorf("content after folding: %s", m.AppendJSON(nil))
	}
	for _, e := range []event.Event{
		&event.RequireUserConfirm{ReplyID: "r", ToolCalls: []*block.ToolCall{nil}},
		&event.ExternalExecutionResult{ReplyID: "r", ExecutionResults: []*block.ToolResult{nil}},
	} {
		if got := string(event.Marshal(e)); !strings.Contains(got, `:[null]}`) {
			t.Errorf("%s: %s", e.Type(), got)
		}
	}
}

// "data": "" is a valid, empty chunk: the reference appends a data block
// with an empty base64 source (issue 7; it used to be rejected).
func TestFoldEmptyResultData(t *testing.T) {
	m := newReply(t)
	apply(t, m, evs(t,
		`TOOL_RESULT_START {"tool_call_id":"c","tool_call_name":"Bash"}`,
		`TOOL_RESULT_DATA_DELTA {"tool_call_id":"c","block_id":"d1","media_type":"image/png","data":""}`,
	))
	want := `[{"type":"tool_result","id":"c","name":"Bash","output":[` +
		`{"type":"data","id":"d1","source":{"type":"base64","data":"","media_type":"image/png"},"name":null,"created_at":"T1","finished_at":null}` +
		`],"state":"running","metadata":{},"created_at":"T0","finished_at":null}]`
	if got := contentJSON(m); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

// Text between two fragments of one tool call: the reference closes the
// call and re-opens it with a second TOOL_CALL_START repeating the name.
// append_event appends a block on every START and finds blocks first-wins,
// so the later fragments land in the first block and the second stays an
// empty pending call (core-spec §2.4).
func TestFoldReopenedToolCall(t *testing.T) {
	m := newReply(t)
	apply(t, m, evs(t,
		`TOOL_CALL_START {"tool_call_id":"c","tool_call_name":"Bash"}`,
		`TOOL_CALL_DELTA {"tool_call_id":"c","delta":"{\"a\":"}`,
		`TOOL_CALL_END {"tool_call_id":"c"}`,
		`TEXT_BLOCK_START {"block_id":"t"}`,
		`TEXT_BLOCK_DELTA {"block_id":"t","delta":"between"}`,
		`TEXT_BLOCK_END {"block_id":"t"}`,
		`TOOL_CALL_START {"tool_call_id":"c","tool_call_name":"Bash"}`,
		`TOOL_CALL_DELTA {"tool_call_id":"c","delta":"1}"}`,
		`TOOL_CALL_END {"tool_call_id":"c"}`,
	))
	want := `[` +
		`{"type":"tool_call","id":"c","name":"Bash","input":"{\"a\":1}","state":"pending","suggested_rules":[],"created_at":"T0","finished_at":"T8"},` +
		`{"type":"text","text":"between","id":"t","created_at":"T3","finished_at":"T5"},` +
		`{"type":"tool_call","id":"c","name":"Bash","input":"","state":"pending","suggested_rules":[],"created_at":"T6","finished_at":null}]`
	if got := contentJSON(m); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}
