package agui_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/server/agui"
)

// runLines translates events with a fresh Run and, unless it has ended,
// finishes it; it checks the output with verifyRun.
func runLines(t *testing.T, events ...event.Event) []map[string]any {
	t.Helper()
	r := agui.NewRun("thread", "run")
	var out []byte
	for _, e := range events {
		out = r.Append(out, e)
	}
	out = r.Finish(out)
	if !r.Done() {
		t.Fatal("not done after Finish")
	}
	if again := r.Finish(r.Append(nil, &event.TextBlockStart{ReplyID: "r", BlockID: "late"})); len(again) > 0 {
		t.Fatalf("the run went on after its end: %s", again)
	}
	return verifyRun(t, out)
}

// verifyRun holds a run's output to the rules @ag-ui/client's verifyEvents
// enforces (the Node check runs the real one over the recorded replies):
// RUN_STARTED first, one end (RUN_FINISHED or RUN_ERROR) last, a lane
// opened before its content and end, nothing open at RUN_FINISHED, a
// step finished by its own name.
func verifyRun(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	var objs []map[string]any
	lanes := map[string]bool{}
	for i, line := range bytes.SplitAfter(out, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		checkLine(t, line)
		o := parseObject(t, line)
		objs = append(objs, o)
		typ := o["type"].(string)
		if (i == 0) != (typ == "RUN_STARTED") {
			t.Fatalf("line %d: %s (RUN_STARTED first, and once)", i, line)
		}
		id := func(k string) string { s, _ := o[k].(string); return s }
		open := func(kind, k string) {
			if lanes[kind+id(k)] {
				t.Fatalf("line %d: %s opened twice", i, line)
			}
			lanes[kind+id(k)] = true
		}
		need := func(kind, k string, close bool) {
			if !lanes[kind+id(k)] {
				t.Fatalf("line %d: %s for a lane that is not open", i, line)
			}
			if close {
				delete(lanes, kind+id(k))
			}
		}
		switch typ {
		case "TEXT_MESSAGE_START":
			open("text", "messageId")
		case "TEXT_MESSAGE_CONTENT":
			need("text", "messageId", false)
		case "TEXT_MESSAGE_END":
			need("text", "messageId", true)
		case "REASONING_MESSAGE_START":
			open("reasoning", "messageId")
		case "REASONING_MESSAGE_CONTENT":
			need("reasoning", "messageId", false)
		case "REASONING_MESSAGE_END":
			need("reasoning", "messageId", true)
		case "TOOL_CALL_START":
			open("tool", "toolCallId")
		case "TOOL_CALL_ARGS":
			need("tool", "toolCallId", false)
		case "TOOL_CALL_END":
			need("tool", "toolCallId", true)
		case "STEP_STARTED":
			open("step", "stepName")
		case "STEP_FINISHED":
			need("step", "stepName", true)
		case "RUN_FINISHED", "RUN_ERROR":
			if typ == "RUN_FINISHED" && len(lanes) > 0 {
				t.Fatalf("line %d: %s with %v open", i, line, lanes)
			}
			if rest := out[bytes.Index(out, line)+len(line):]; len(rest) > 0 {
				t.Fatalf("events after the run's end: %s", rest)
			}
		}
	}
	if len(objs) == 0 {
		t.Fatal("no events")
	}
	if last := objs[len(objs)-1]["type"]; last != "RUN_FINISHED" && last != "RUN_ERROR" {
		t.Fatalf("the run ends with %v", last)
	}
	return objs
}

func types(objs []map[string]any) string {
	var s []string
	for _, o := range objs {
		s = append(s, o["type"].(string))
	}
	return strings.Join(s, " ")
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRunCompleted(t *testing.T) {
	objs := runLines(t,
		&event.ReplyStart{SessionID: "s", ReplyID: "r", Name: "Friday"},
		&event.ModelCallStart{ReplyID: "r", ModelName: "m"},
		&event.ThinkingBlockStart{ReplyID: "r", BlockID: "k"},
		&event.ThinkingBlockDelta{ReplyID: "r", BlockID: "k", Delta: "hmm"},
		&event.ThinkingBlockEnd{ReplyID: "r", BlockID: "k"},
		&event.TextBlockStart{ReplyID: "r", BlockID: "t1"},
		&event.TextBlockDelta{ReplyID: "r", BlockID: "t1", Delta: "Let me look."},
		&event.TextBlockEnd{ReplyID: "r", BlockID: "t1"},
		&event.ToolCallStart{ReplyID: "r", ToolCallID: "c1", ToolCallName: "Read"},
		&event.ToolCallDelta{ReplyID: "r", ToolCallID: "c1", Delta: `{}`},
		&event.ToolCallEnd{ReplyID: "r", ToolCallID: "c1"},
		&event.ToolCallStart{ReplyID: "r", ToolCallID: "c2", ToolCallName: "Read"},
		&event.ToolCallEnd{ReplyID: "r", ToolCallID: "c2"},
		&event.ModelCallEnd{ReplyID: "r"},
		&event.ToolResultStart{ReplyID: "r", ToolCallID: "c1", ToolCallName: "Read"},
		&event.ToolResultTextDelta{ReplyID: "r", ToolCallID: "c1", Delta: "one"},
		&event.ToolResultEnd{ReplyID: "r", ToolCallID: "c1", State: block.ResultSuccess},
		&event.ToolResultEnd{ReplyID: "r", ToolCallID: "c2", State: block.ResultDenied},
		&event.ModelCallStart{ReplyID: "r", ModelName: "m"},
		&event.ToolCallStart{ReplyID: "r", ToolCallID: "c3", ToolCallName: "Read"},
		&event.ToolCallStart{ReplyID: "r", ToolCallID: "c4", ToolCallName: "Read"},
		&event.ToolCallEnd{ReplyID: "r", ToolCallID: "c3"},
		&event.ToolCallEnd{ReplyID: "r", ToolCallID: "c4"},
		&event.ModelCallEnd{ReplyID: "r"},
		&event.Custom{Name: "state_updated", Value: map[string]any{"tasks_context": nil}},
		&event.ReplyEnd{SessionID: "s", ReplyID: "r"},
	)
	want := "RUN_STARTED STEP_STARTED REASONING_MESSAGE_START REASONING_MESSAGE_CONTENT REASONING_MESSAGE_END " +
		"TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END " +
		"TOOL_CALL_START TOOL_CALL_END STEP_FINISHED CUSTOM CUSTOM TOOL_CALL_RESULT TOOL_CALL_RESULT " +
		"STEP_STARTED TOOL_CALL_START TOOL_CALL_START TOOL_CALL_END TOOL_CALL_END STEP_FINISHED CUSTOM RUN_FINISHED"
	if got := types(objs); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if objs[0]["threadId"] != "thread" || objs[0]["runId"] != "run" {
		t.Errorf("RUN_STARTED %v", objs[0])
	}
	// A step's tool calls belong to its first text message, or to the
	// first call when the step has no text before them.
	for i, parent := range map[int]string{8: "t1", 11: "t1", 19: "c3", 20: "c3"} {
		if objs[i]["parentMessageId"] != parent {
			t.Errorf("line %d: parentMessageId %v, want %s", i, objs[i]["parentMessageId"], parent)
		}
	}
	if got := jsonOf(t, objs[16]); got != `{"content":"one","messageId":"c1-result","role":"tool","toolCallId":"c1","type":"TOOL_CALL_RESULT"}` {
		t.Errorf("result %s", got)
	}
	if objs[17]["messageId"] != "c2-result" || objs[17]["content"] != "denied" {
		t.Errorf("result %v", objs[17])
	}
	if got := jsonOf(t, objs[24]); got != `{"name":"state_updated","type":"CUSTOM","value":{"tasks_context":null}}` {
		t.Errorf("custom %s", got)
	}
	if got := jsonOf(t, objs[25]); got != `{"outcome":{"type":"success"},"runId":"run","threadId":"thread","type":"RUN_FINISHED"}` {
		t.Errorf("end %s", got)
	}
}

// A reply cut short leaves lanes open: they are closed, the messages and
// calls before their step, and the run is cancelled.
func TestRunInterrupted(t *testing.T) {
	objs := runLines(t,
		&event.ReplyStart{SessionID: "s", ReplyID: "r"},
		&event.ModelCallStart{ReplyID: "r", ModelName: "m"},
		&event.TextBlockDelta{ReplyID: "r", BlockID: "t", Delta: "Hal"}, // no START: opened for it
		&event.ThinkingBlockStart{ReplyID: "r", BlockID: "k"},
		&event.ToolCallStart{ReplyID: "r", ToolCallID: "c", ToolCallName: "Bash"},
		&event.ToolCallDelta{ReplyID: "r", ToolCallID: "ghost", Delta: "{"}, // never started: dropped
		&event.TextBlockEnd{ReplyID: "r", BlockID: "ghost"},                 // never started: dropped
		&event.ReplyEnd{SessionID: "s", ReplyID: "r", FinishedReason: event.ReplyInterrupted},
	)
	want := "RUN_STARTED STEP_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT REASONING_MESSAGE_START TOOL_CALL_START " +
		"TEXT_MESSAGE_END REASONING_MESSAGE_END TOOL_CALL_END STEP_FINISHED RUN_FINISHED"
	if got := types(objs); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if got := jsonOf(t, objs[len(objs)-1]["outcome"]); got != `{"type":"cancelled"}` {
		t.Errorf("outcome %s", got)
	}
}

func TestRunErrors(t *testing.T) {
	cases := []struct {
		end  *event.ReplyEnd
		want string
	}{
		{&event.ReplyEnd{ReplyID: "r", FinishedReason: event.ReplyError, Error: &event.ErrorInfo{Type: event.ErrRateLimit, Message: "slow down"}},
			`{"code":"rate_limit","message":"slow down","type":"RUN_ERROR"}`},
		{&event.ReplyEnd{ReplyID: "r", FinishedReason: event.ReplyError},
			`{"code":"unknown","message":"The reply failed.","type":"RUN_ERROR"}`},
		{&event.ReplyEnd{ReplyID: "r", FinishedReason: event.ReplyExceedMaxIters},
			`{"code":"exceed_max_iters","message":"The agent exceeded the maximum reasoning-acting iterations","type":"RUN_ERROR"}`},
	}
	for _, c := range cases {
		objs := runLines(t, &event.ReplyStart{ReplyID: "r"}, &event.ModelCallStart{ReplyID: "r", ModelName: "m"}, c.end)
		if got := types(objs); got != "RUN_STARTED STEP_STARTED STEP_FINISHED RUN_ERROR" {
			t.Errorf("%s", got)
		}
		if got := jsonOf(t, objs[len(objs)-1]); got != c.want {
			t.Errorf("got %s\nwant %s", got, c.want)
		}
	}
	// Events that stop with the reply neither ended nor parked.
	objs := runLines(t, &event.ReplyStart{ReplyID: "r"}, &event.ModelCallStart{ReplyID: "r", ModelName: "m"})
	if got := jsonOf(t, objs[len(objs)-1]); got != `{"code":"incomplete","message":"The reply's events ended before the reply finished or parked.","type":"RUN_ERROR"}` {
		t.Errorf("got %s", got)
	}
	// No event at all: still a run, started and ended.
	if got := types(runLines(t)); got != "RUN_STARTED RUN_ERROR" {
		t.Errorf("got %s", got)
	}
}

// A park ends the run at Finish with one interrupt per pending call, its
// reason telling a confirmation from an external execution; a park can
// hold both.
func TestRunParked(t *testing.T) {
	ask := &block.ToolCall{ID: "c1", Name: "save_note", Input: `{"text":"milk"}`, State: block.CallAsking,
		SuggestedRules: []block.PermissionRule{{ToolName: "save_note", Behavior: block.Allow, Source: "suggested"}, {ToolName: "Bash", RuleContent: block.Some("ls:*"), Behavior: block.Allow, Source: "suggested"}}}
	ext := &block.ToolCall{ID: "c2", Name: "weather", Input: `{}`, State: block.CallSubmitted}
	objs := runLines(t,
		&event.ReplyStart{SessionID: "s", ReplyID: "r"},
		&event.ModelCallStart{ReplyID: "r", ModelName: "m"},
		&event.ToolCallStart{ReplyID: "r", ToolCallID: "c1", ToolCallName: "save_note"},
		&event.ToolCallEnd{ReplyID: "r", ToolCallID: "c1"},
		&event.ModelCallEnd{ReplyID: "r"},
		&event.ToolResultStart{ReplyID: "r", ToolCallID: "c2", ToolCallName: "weather"},
		&event.RequireExternalExecution{ReplyID: "r", ToolCalls: []*block.ToolCall{ext}},
		&event.RequireUserConfirm{ReplyID: "r", ToolCalls: []*block.ToolCall{ask, ask}},
	)
	if got := types(objs); got != "RUN_STARTED STEP_STARTED TOOL_CALL_START TOOL_CALL_END STEP_FINISHED CUSTOM CUSTOM CUSTOM RUN_FINISHED" {
		t.Fatalf("%s", got)
	}
	if objs[6]["name"] != "require_external_execution" || objs[7]["name"] != "require_user_confirm" {
		t.Errorf("customs %v %v", objs[6]["name"], objs[7]["name"])
	}
	outcome := objs[len(objs)-1]["outcome"].(map[string]any)
	ins := outcome["interrupts"].([]any)
	if outcome["type"] != "interrupt" || len(ins) != 2 {
		t.Fatalf("outcome %v", outcome)
	}
	e, c := ins[0].(map[string]any), ins[1].(map[string]any)
	if e["id"] != "external:c2" || e["reason"] != agui.ReasonExternal || e["toolCallId"] != "c2" ||
		!reflect.DeepEqual(e["metadata"], map[string]any{"replyId": "r", "toolName": "weather", "toolInput": "{}"}) {
		t.Errorf("external %v", e)
	}
	wantRules := `[{"behavior":"allow","source":"suggested","toolName":"save_note"},{"behavior":"allow","ruleContent":"ls:*","source":"suggested","toolName":"Bash"}]`
	if c["id"] != "confirm:c1" || c["reason"] != agui.ReasonConfirm || c["toolCallId"] != "c1" ||
		c["message"] != `Allow save_note to run with {"text":"milk"}?` || jsonOf(t, c["metadata"].(map[string]any)["suggestedRules"]) != wantRules {
		t.Errorf("confirm %v", c)
	}
	for _, in := range []map[string]any{e, c} {
		if _, ok := in["responseSchema"].(map[string]any); !ok {
			t.Errorf("no responseSchema: %v", in)
		}
	}
}

// A parked reply's continuation is a run of its own: the resume event and
// the REPLY_START the service sends again come first; the run starts once.
func TestRunContinuation(t *testing.T) {
	objs := runLines(t,
		&event.UserConfirmResult{ReplyID: "r", ConfirmResults: []event.ConfirmResult{{Confirmed: true, ToolCall: &block.ToolCall{ID: "c1", Name: "n"}}}},
		&event.ReplyStart{SessionID: "s", ReplyID: "r"},
		&event.ToolResultStart{ReplyID: "r", ToolCallID: "c1", ToolCallName: "n"},
		&event.ToolResultTextDelta{ReplyID: "r", ToolCallID: "c1", Delta: "saved"},
		&event.ToolResultEnd{ReplyID: "r", ToolCallID: "c1", State: block.ResultSuccess},
		&event.ReplyEnd{SessionID: "s", ReplyID: "r"},
	)
	if got := types(objs); got != "RUN_STARTED CUSTOM CUSTOM CUSTOM TOOL_CALL_RESULT RUN_FINISHED" {
		t.Fatalf("%s", got)
	}
	if objs[1]["name"] != "user_confirm_result" || objs[4]["content"] != "saved" {
		t.Errorf("%v %v", objs[1], objs[4])
	}
	// Without ids the first events give them.
	r := agui.NewRun("", "")
	out := r.Append(nil, &event.ReplyStart{SessionID: "s", ReplyID: "r"})
	if string(out) != `{"type":"RUN_STARTED","threadId":"s","runId":"r"}`+"\n" {
		t.Errorf("%s", out)
	}
	// Start answers before any event, once, with the reply id it is given
	// in the metadata.
	r = agui.NewRun("t", "u")
	out = r.Start(nil, "")
	out = r.Append(out, &event.ReplyStart{SessionID: "s", ReplyID: "r"})
	if string(out) != `{"type":"RUN_STARTED","threadId":"t","runId":"u"}`+"\n" {
		t.Errorf("%s", out)
	}
	r = agui.NewRun("t", "u")
	out = r.Start(nil, "r")
	out = r.Start(out, "r")
	out = r.Append(out, &event.ReplyStart{SessionID: "s", ReplyID: "r"})
	if string(out) != `{"type":"RUN_STARTED","threadId":"t","runId":"u","metadata":{"replyId":"r"}}`+"\n" {
		t.Errorf("%s", out)
	}
}

// Fail ends a run the transport cannot go on with: the open lanes closed,
// then RUN_ERROR with the transport's message and code, and nothing after.
func TestRunFail(t *testing.T) {
	r := agui.NewRun("thread", "run")
	out := r.Append(nil, &event.ReplyStart{ReplyID: "r"})
	out = r.Append(out, &event.ModelCallStart{ReplyID: "r", ModelName: "m"})
	out = r.Append(out, &event.TextBlockDelta{ReplyID: "r", BlockID: "b", Delta: "hi"})
	out = r.Fail(out, "the event log cannot be read", "unavailable")
	if !r.Done() {
		t.Fatal("not done after Fail")
	}
	if again := r.Finish(r.Fail(nil, "again", "x")); len(again) > 0 {
		t.Fatalf("the run went on after Fail: %s", again)
	}
	objs := verifyRun(t, out)
	if got := types(objs); got != "RUN_STARTED STEP_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END STEP_FINISHED RUN_ERROR" {
		t.Fatalf("%s", got)
	}
	if got := jsonOf(t, objs[len(objs)-1]); got != `{"code":"unavailable","message":"the event log cannot be read","type":"RUN_ERROR"}` {
		t.Fatalf("got %s", got)
	}
}
