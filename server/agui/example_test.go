package agui_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/server/agui"
)

// A Converter turns a native stream into the reference's AG-UI events, one
// per native event: the step remembers its model, the tool result its
// text.
func ExampleConverter() {
	events := []event.Event{
		&event.ReplyStart{SessionID: "s1", ReplyID: "r1", Name: "Friday"},
		&event.ModelCallStart{ReplyID: "r1", ModelName: "qwen-plus"},
		&event.TextBlockDelta{ReplyID: "r1", BlockID: "b1", Delta: "Hi"},
		&event.ModelCallEnd{ReplyID: "r1"},
		&event.ToolResultTextDelta{Base: event.Base{ID: "e5", CreatedAt: "2026-08-22T09:14:04"}, ReplyID: "r1", ToolCallID: "c1", Delta: "42"},
		&event.ToolResultEnd{ReplyID: "r1", ToolCallID: "c1", State: "success"},
		&event.ReplyEnd{SessionID: "s1", ReplyID: "r1", FinishedReason: event.ReplyExceedMaxIters},
	}
	c := agui.NewConverter()
	var out []byte
	for _, e := range events {
		out = c.Append(out, e)
	}
	os.Stdout.Write(out)
	// Output:
	// {"type":"RUN_STARTED","threadId":"s1","runId":"r1"}
	// {"type":"STEP_STARTED","stepName":"qwen-plus"}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"b1","delta":"Hi"}
	// {"type":"STEP_FINISHED","stepName":"qwen-plus"}
	// {"type":"CUSTOM","name":"tool_result_text_delta","value":{"id":"e5","created_at":"2026-08-22T09:14:04","metadata":{},"type":"TOOL_RESULT_TEXT_DELTA","reply_id":"r1","tool_call_id":"c1","delta":"42"}}
	// {"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"c1","content":"42"}
	// {"type":"RUN_ERROR","message":"The agent exceeded the maximum reasoning-acting iterations","code":"exceed_max_iters"}
}

// AppendChunk rewrites an SSE body chunk by chunk, as the reference's
// middleware does: data lines are converted, line endings, other lines and
// heartbeats kept.
func ExampleConverter_AppendChunk() {
	c := agui.NewConverter()
	frame := "id: 7\r\ndata: {\"type\":\"TEXT_BLOCK_END\",\"reply_id\":\"r1\",\"block_id\":\"b1\"}\r\n\r\n"
	fmt.Printf("%q\n", c.AppendChunk(nil, []byte(frame)))
	fmt.Printf("%q\n", c.AppendChunk(nil, []byte(":\n\n")))
	// Output:
	// "id: 7\r\ndata: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"b1\"}\r\n\r\n"
	// ":\n\n"
}

// A Run is one AG-UI run: here a reply that parks on a confirmation, so
// the run ends at Finish with an interrupt the client answers in its next
// request's resume.
func ExampleRun() {
	call := &block.ToolCall{ID: "c1", Name: "save_note", Input: `{"text":"milk"}`,
		SuggestedRules: []block.PermissionRule{{ToolName: "save_note", Behavior: block.Allow, Source: "suggested"}}}
	r := agui.NewRun("session-1", "run-1")
	var out []byte
	for _, e := range []event.Event{
		&event.ReplyStart{SessionID: "session-1", ReplyID: "r1", Name: "Friday"},
		&event.ModelCallStart{ReplyID: "r1", ModelName: "qwen-plus"},
		&event.ToolCallStart{ReplyID: "r1", ToolCallID: "c1", ToolCallName: "save_note"},
		&event.ToolCallDelta{ReplyID: "r1", ToolCallID: "c1", Delta: `{"text":"milk"}`},
		&event.ToolCallEnd{ReplyID: "r1", ToolCallID: "c1"},
		&event.ModelCallEnd{ReplyID: "r1"},
	} {
		out = r.Append(out, e)
	}
	// The REQUIRE_USER_CONFIRM (a CUSTOM event here) parks the reply; its
	// run's events are over.
	r.Append(nil, &event.RequireUserConfirm{ReplyID: "r1", ToolCalls: []*block.ToolCall{call}})
	out = r.Finish(out)
	os.Stdout.Write(out)
	// Output:
	// {"type":"RUN_STARTED","threadId":"session-1","runId":"run-1"}
	// {"type":"STEP_STARTED","stepName":"qwen-plus"}
	// {"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"save_note","parentMessageId":"c1"}
	// {"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"text\":\"milk\"}"}
	// {"type":"TOOL_CALL_END","toolCallId":"c1"}
	// {"type":"STEP_FINISHED","stepName":"qwen-plus"}
	// {"type":"RUN_FINISHED","threadId":"session-1","runId":"run-1","outcome":{"type":"interrupt","interrupts":[{"id":"confirm:c1","reason":"tool_call","message":"Allow save_note to run with {\"text\":\"milk\"}?","toolCallId":"c1","responseSchema":{"type":"object","properties":{"approved":{"type":"boolean","description":"Run the tool call (false: deny it)."},"editedArgs":{"type":"object","description":"The input to run the tool with instead of the proposed one (a full replacement)."},"rules":{"description":"true: also add the suggested rules; or the permission rules to add.","anyOf":[{"type":"boolean"},{"type":"array","items":{"type":"object"}}]}}},"metadata":{"replyId":"r1","toolName":"save_note","toolInput":"{\"text\":\"milk\"}","suggestedRules":[{"toolName":"save_note","behavior":"allow","source":"suggested"}]}}]}}
}

// A run request's new input: the user messages after the agent's last
// message that the session does not hold yet, as native user Msgs with
// the client's ids.
func ExampleNewInput() {
	body := `{"threadId":"session-1","runId":"run-2","tools":[],"context":[],"messages":[
	  {"id":"u1","role":"user","content":"save a note: buy milk"},
	  {"id":"t1","role":"assistant","content":"Saved."},
	  {"id":"u2","role":"user","content":"and eggs"}]}`
	in, err := agui.ParseRunAgentInput([]byte(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs, _ := agui.NewInput(in, func(id string) bool { return false })
	for _, m := range msgs {
		text, _ := m.TextContent("")
		fmt.Println(m.ID, m.Role, m.Name, text)
	}

	_, err = agui.ParseRunAgentInput([]byte(`{"threadId":"s","runId":null,"messages":[]}`))
	fmt.Println(errors.Is(err, agui.ErrInvalidInput), err)
	// Output:
	// u2 user user and eggs
	// true agui: runId: null is not allowed: omit the member
}

// A resume answers the interrupts of the run that parked: given the event
// the reply parked on, it becomes the native USER_CONFIRM_RESULT.
func ExampleResumeEvents() {
	parked := &event.RequireUserConfirm{ReplyID: "r1", ToolCalls: []*block.ToolCall{
		{ID: "c1", Name: "save_note", Input: `{"text":"milk"}`, State: block.CallAsking},
	}}
	in, _ := agui.ParseRunAgentInput([]byte(`{"threadId":"s","runId":"run-2","messages":[],
	  "resume":[{"interruptId":"confirm:c1","status":"resolved","payload":{"approved":true,"editedArgs":{"text":"oat milk"}}}]}`))
	events, err := agui.ResumeEvents(in.Resume, parked)
	if err != nil {
		fmt.Println(err)
		return
	}
	res := events[0].(*event.UserConfirmResult)
	fmt.Println(res.Type(), res.ReplyID, res.ConfirmResults[0].Confirmed, res.ConfirmResults[0].ToolCall.Input)

	_, err = agui.ResumeEvents([]agui.ResumeEntry{{InterruptID: "confirm:c7", Status: agui.StatusResolved}}, parked)
	fmt.Println(errors.Is(err, agui.ErrUnknownInterrupt), err)
	// Output:
	// USER_CONFIRM_RESULT r1 true {"text":"oat milk"}
	// true agui: interrupt "confirm:c7": the interrupt id matches no pending tool call
}

// ParseRunAgentInput reads the whole request; the members AG-UI leaves to
// the agent stay raw JSON.
func ExampleParseRunAgentInput() {
	in, err := agui.ParseRunAgentInput([]byte(`{"threadId":"s1","runId":"run-1","state":{},"forwardedProps":{"model":"demo"},
	  "tools":[],"context":[{"description":"time zone","value":"UTC"}],
	  "messages":[{"id":"u1","role":"user","content":[{"type":"text","text":"What is on this?"},
	    {"type":"image","source":{"type":"url","value":"https://example.com/a.png"}}]}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(in.ThreadID, in.RunID, string(in.ForwardedProps), in.Context[0].Value)
	for _, p := range in.Messages[0].Content.Parts {
		fmt.Printf("%s %q %q\n", p.Type, p.Text, p.Source.Value)
	}
	// Output:
	// s1 run-1 {"model":"demo"} UTC
	// text "What is on this?" ""
	// image "" "https://example.com/a.png"
}

// NewUserMessages picks the new input of a history a client replays whole.
func ExampleNewUserMessages() {
	history := []agui.Message{
		{ID: "u1", Role: "user"},
		{ID: "t1", Role: "assistant"},
		{ID: "c1-result", Role: "tool"},
		{ID: "u2", Role: "user"},
		{ID: "u3", Role: "user"},
	}
	stored := func(id string) bool { return id == "u2" } // a retried request's first message
	for _, m := range agui.NewUserMessages(history, stored) {
		fmt.Println(m.ID)
	}
	// Output:
	// u3
}

// ParseRules reads rules in the camelCase of the interrupts' metadata, or
// the native spelling.
func ExampleParseRules() {
	rules, err := agui.ParseRules("rules", []byte(`[{"toolName":"Bash","ruleContent":"git status","behavior":"allow"},{"tool_name":"Write","rule_content":null,"behavior":"deny","source":"user"}]`))
	fmt.Println(err)
	fmt.Println(string(block.AppendRules(nil, rules)))
	// Output:
	// <nil>
	// [{"tool_name":"Bash","rule_content":"git status","behavior":"allow","source":"suggested"},{"tool_name":"Write","rule_content":null,"behavior":"deny","source":"user"}]
}
