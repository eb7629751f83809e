package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

const weather = `{"properties": {"city": {"title": "City", "type": "string"}, "temperature": {"title": "Temperature", "type": "number"}}, "required": ["city", "temperature"], "title": "WeatherReport", "type": "object"}`
const weatherUnit = `{"properties": {"city": {"title": "City", "type": "string"}, "unit": {"default": "celsius", "title": "Unit", "type": "string"}}, "required": ["city"], "title": "WeatherReportWithUnit", "type": "object"}`

var structuredCall = scripted.Reply(scripted.ToolCall("structured_call_1", "GenerateStructuredOutput", `{"city": "Hangzhou", "temperature": 25.0}`))

func schema(s string) agent.ReplyOption { return agent.WithStructuredSchema(json.RawMessage(s)) }

// SO-1: the structured reply ends with the synthetic message carrying the
// output; the reminder hint is in the context without an event.
func TestStructuredReply(t *testing.T) {
	a, m := newAgent(t, []scripted.Turn{structuredCall}, nil)
	r := mustReply(t, a, user("Weather in Hangzhou?"), schema(weather))
	expectKinds(t, r, `REPLY_START MODEL_CALL_START TOOL_CALL_START(structured_call_1) TOOL_CALL_DELTA(structured_call_1) TOOL_CALL_END(structured_call_1)
		MODEL_CALL_END RESULT_START(structured_call_1) RESULT_DELTA(structured_call_1:Structured output generated successfully.)
		RESULT_END(structured_call_1:success) REPLY_END(completed)`)
	want := map[string]any{"city": "Hangzhou", "temperature": json.Number("25.0")}
	if got := string(r.res.Msg.AppendJSON(nil)); !strings.Contains(got, `"structured_output":{"city":"Hangzhou","temperature":25.0}`) {
		t.Fatalf("structured output on the wire: %s", got)
	}
	if !reflect.DeepEqual(r.res.Msg.StructuredOutput, want) || contextShape(r.res.Msg) != "text "+agent.StructuredDoneText ||
		r.res.Msg.FinishedReason != event.ReplyCompleted || r.res.Outcome != agent.OutcomeCompleted {
		t.Fatalf("result %+v", r.res.Msg)
	}
	rc := stateOf(t, a).Reply
	if rc.CurIter != 1 || !reflect.DeepEqual(rc.StructuredOutput, want) {
		t.Fatalf("reply context %+v", rc)
	}
	if !strings.HasPrefix(contextShape(stateOf(t, a).Tail()), "hint | call structured_call_1 finished") {
		t.Fatalf("context %s", contextShape(stateOf(t, a).Tail()))
	}
	// The tool is offered with the schema minus titles, after the others.
	calls := m.Calls()
	if !strings.Contains(string(calls[0].Tools), `"name":"GenerateStructuredOutput"`) || strings.Contains(string(calls[0].Tools), `"title"`) {
		t.Fatalf("tools %s", calls[0].Tools)
	}
	// SO-6: a plain reply unmounts the tool.
	m.Append(scripted.Reply(scripted.Text("Hello!")))
	mustReply(t, a, user("hi"))
	if _, ok := a.Toolkit().Lookup(tool.StructuredOutputName); ok {
		t.Fatal("structured-output tool still mounted")
	}
}

// SO-3, SO-4: schema violations are error results; a text answer does not
// end a structured reply; at max_iters the tool choice is forced.
func TestStructuredRetryAndForce(t *testing.T) {
	a, m := newAgent(t, []scripted.Turn{
		scripted.Reply(scripted.ToolCall("structured_call_0", "GenerateStructuredOutput", `{"city": "Hangzhou", "temperature": "hot"}`)),
		scripted.Reply(scripted.Text("Let me think more.")),
		structuredCall,
	}, nil, maxIters(2))
	r := mustReply(t, a, user("Weather?"), schema(weather))
	if r.res.Outcome != agent.OutcomeCompleted || m.Remaining() != 0 {
		t.Fatalf("outcome %s", r.res.Outcome)
	}
	shape := contextShape(stateOf(t, a).Tail())
	if !strings.Contains(shape, "result structured_call_0 error plain:Input validation failed for tool 'GenerateStructuredOutput': 'hot' is not of type 'number'") {
		t.Fatalf("context %s", shape)
	}
	calls := m.Calls()
	if string(calls[0].ToolChoice) != "null" || string(calls[2].ToolChoice) != `{"mode":"GenerateStructuredOutput","tools":null}` {
		t.Fatalf("tool choices %s %s", calls[0].ToolChoice, calls[2].ToolChoice)
	}
	if !strings.Contains(string(calls[2].Messages), "You have reached the maximum reasoning-acting iterations") {
		t.Fatal("forced reminder missing")
	}
}

// SO-5: grace iterations exhausted.
func TestStructuredGraceExhausted(t *testing.T) {
	a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("Let me think more.")), scripted.Reply(scripted.Text("Let me think more."))}, nil,
		func(c *agent.Config) { c.MaxIters, c.StructuredOutputGraceIters = 1, 1 })
	r := mustReply(t, a, user("Weather?"), schema(weather))
	if !strings.HasSuffix(r.kinds(), "EXCEED_MAX_ITERS REPLY_END(exceed_max_iters)") || r.res.Outcome != agent.OutcomeExceededMaxIters ||
		r.res.Msg.StructuredOutput != nil || contextShape(r.res.Msg) != "text "+agent.MaxItersText {
		t.Fatalf("events %s result %+v", r.kinds(), r.res.Msg)
	}
}

// SO-7, SO-8: the schema survives a park, a JSON round trip of the state
// and a new agent; a schema given with the resume is ignored; defaults are
// filled and extra fields kept.
func TestStructuredSchemaSurvivesRestart(t *testing.T) {
	confirmTool := makeTool(t, toolSpec{name: "mock_confirm_tool", perm: block.Ask})
	a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.ToolCall("confirm_call_1", "mock_confirm_tool", `{"input": "test"}`))}, []tool.Tool{confirmTool})
	r := mustReply(t, a, user("Weather?"), schema(weatherUnit))
	if r.res.Outcome != agent.OutcomeAwaitingConfirmation || r.res.Msg.FinishedReason != "" {
		t.Fatalf("not parked: %s", r.res.Outcome)
	}
	saved, err := json.Marshal(stateOf(t, a))
	if err != nil {
		t.Fatal(err)
	}
	var restored state.AgentState
	if err := json.Unmarshal(saved, &restored); err != nil {
		t.Fatal(err)
	}
	var got, want any
	_ = json.Unmarshal(restored.Reply.StructuredSchema, &got)
	_ = json.Unmarshal([]byte(weatherUnit), &want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("schema after reload %s", restored.Reply.StructuredSchema)
	}
	b, _ := newAgent(t, []scripted.Turn{
		scripted.Reply(scripted.ToolCall("structured_call_1", "GenerateStructuredOutput", `{"city": "Hangzhou", "note": "sunny"}`)),
	}, []tool.Tool{makeTool(t, toolSpec{name: "mock_confirm_tool", perm: block.Ask})}, withState(&restored))
	ev := &event.UserConfirmResult{ReplyID: restored.Reply.ReplyID, ConfirmResults: []event.ConfirmResult{{
		Confirmed: true, ToolCall: &block.ToolCall{ID: "confirm_call_1", Name: "mock_confirm_tool", Input: `{"input": "test"}`},
	}}}
	r = mustReply(t, b, ev, schema(weather)) // ignored: the parked reply's schema stands
	wantOut := map[string]any{"city": "Hangzhou", "note": "sunny", "unit": "celsius"}
	if r.res.Outcome != agent.OutcomeCompleted || !reflect.DeepEqual(r.res.Msg.StructuredOutput, wantOut) {
		t.Fatalf("outcome %s output %v (%s)", r.res.Outcome, r.res.Msg.StructuredOutput, r.kinds())
	}
}

// An unusable schema is an input error, with the state unchanged.
func TestInvalidSchemaRejected(t *testing.T) {
	a, _ := newAgent(t, []scripted.Turn{structuredCall}, nil)
	before, _ := json.Marshal(stateOf(t, a))
	r := reply(t, context.Background(), a, user("x"), schema(`{"type": "array"}`))
	if !errors.Is(r.err, agent.ErrInvalidInput) || len(r.events) != 0 {
		t.Fatalf("err %v, %d events", r.err, len(r.events))
	}
	if after, _ := json.Marshal(stateOf(t, a)); string(after) != string(before) {
		t.Fatal("state changed")
	}
}
