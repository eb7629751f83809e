package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

func toolTurn(calls ...[3]string) scripted.Turn {
	var steps []scripted.Step
	for _, c := range calls {
		steps = append(steps, scripted.ToolCall(c[0], c[1], c[2]))
	}
	return scripted.Stream(scripted.Multi(steps...))
}

var finalTurn = scripted.Stream(scripted.Text("Result 1"))

const finalTail = "MODEL_CALL_START TEXT_BLOCK_START TEXT_DELTA(Result 1) TEXT_BLOCK_END MODEL_CALL_END REPLY_END(completed)"

// HC-1, DRV-7: park without REPLY_END; resume without REPLY_START.
func TestConfirmOneCall(t *testing.T) {
	ask := makeTool(t, toolSpec{name: "ask", perm: block.Ask})
	a, _ := newAgent(t, []scripted.Turn{toolTurn([3]string{"c1", "ask", `{"input": "test1"}`}), finalTurn}, []tool.Tool{ask})
	r := mustReply(t, a, user("Test"))
	expectKinds(t, r, "REPLY_START MODEL_CALL_START TOOL_CALL_START(c1) TOOL_CALL_DELTA(c1) TOOL_CALL_END(c1) MODEL_CALL_END REQUIRE_CONFIRM(c1)")
	req := r.events[len(r.events)-1].(*event.RequireUserConfirm)
	rc := req.ToolCalls[0]
	if rc.State != block.CallAsking || len(rc.SuggestedRules) != 1 || rc.SuggestedRules[0] != (block.PermissionRule{ToolName: "ask", Behavior: block.Allow, Source: "suggested"}) {
		t.Fatalf("require event call %+v", rc)
	}
	res := r.res
	if res.Outcome != agent.OutcomeAwaitingConfirmation || len(res.Pending) != 1 || res.Pending[0].ID != "c1" ||
		res.Msg.FinishedReason != "" || contextShape(res.Msg) != "text "+agent.ParkText || res.Msg.ID != stateOf(t, a).Reply.ReplyID {
		t.Fatalf("parked result %+v", res)
	}
	if got := contextShape(stateOf(t, a).Tail()); got != "call c1 asking" {
		t.Fatalf("context %s", got)
	}
	r = mustReply(t, a, confirm(t, a, true, nil, "c1"))
	expectKinds(t, r, "RESULT_START(c1) RESULT_DELTA(c1:ask: test1) RESULT_END(c1:success) "+finalTail)
	if got := contextShape(stateOf(t, a).Tail()); got != "call c1 finished | result c1 success list:ask: test1 | text Result 1" {
		t.Fatalf("context %s", got)
	}
	if c := stateOf(t, a).Tail().Content[0].(*block.ToolCall); len(c.SuggestedRules) != 1 {
		t.Fatal("suggested rules lost on approval")
	}
}

// HC-2: a sequential batch stops at the first ask; the next call is asked
// only after the first is settled, without a model call in between.
func TestSequentialConfirmations(t *testing.T) {
	ask := makeTool(t, toolSpec{name: "ask", perm: block.Ask})
	a, m := newAgent(t, []scripted.Turn{toolTurn([3]string{"c1", "ask", `{"input": "1"}`}, [3]string{"c2", "ask", `{"input": "2"}`}), finalTurn}, []tool.Tool{ask})
	mustReply(t, a, user("Test"))
	if got := contextShape(stateOf(t, a).Tail()); got != "call c1 asking | call c2 pending" {
		t.Fatalf("context %s", got)
	}
	if c2 := stateOf(t, a).Tail().Content[1].(*block.ToolCall); len(c2.SuggestedRules) != 0 {
		t.Fatal("the unevaluated call has suggestions")
	}
	r := mustReply(t, a, confirm(t, a, true, nil, "c1"))
	expectKinds(t, r, "RESULT_START(c1) RESULT_DELTA(c1:ask: 1) RESULT_END(c1:success) REQUIRE_CONFIRM(c2)")
	if m.Remaining() != 1 {
		t.Fatal("a model call happened while parked")
	}
	r = mustReply(t, a, confirm(t, a, true, nil, "c2"))
	expectKinds(t, r, "RESULT_START(c2) RESULT_DELTA(c2:ask: 2) RESULT_END(c2:success) "+finalTail)
}

// HC-3, HC-4: a concurrent batch surfaces one prompt per rule; accepting
// the rule allows the deferred call, not accepting it prompts again.
func TestConcurrentDedup(t *testing.T) {
	for _, withRule := range []bool{false, true} {
		ask := makeTool(t, toolSpec{name: "askc", perm: block.Ask, concurrent: true})
		a, _ := newAgent(t, []scripted.Turn{toolTurn([3]string{"c1", "askc", `{"input": "1"}`}, [3]string{"c2", "askc", `{"input": "2"}`}), finalTurn}, []tool.Tool{ask})
		r := mustReply(t, a, user("Test"))
		if !strings.HasSuffix(r.kinds(), "MODEL_CALL_END REQUIRE_CONFIRM(c1)") {
			t.Fatalf("events %s", r.kinds())
		}
		if got := contextShape(stateOf(t, a).Tail()); got != "call c1 asking | call c2 pending" {
			t.Fatalf("context %s", got)
		}
		var rules []block.PermissionRule
		if withRule {
			rules = stateOf(t, a).Tail().Content[0].(*block.ToolCall).SuggestedRules
		}
		r = mustReply(t, a, confirm(t, a, true, rules, "c1"))
		if withRule {
			expectKinds(t, r, "RESULT_START(c1) RESULT_DELTA(c1:askc: 1) RESULT_END(c1:success) RESULT_START(c2) RESULT_DELTA(c2:askc: 2) RESULT_END(c2:success) "+finalTail)
			if len(a.Permissions().Rules(block.Allow, "askc")) != 1 {
				t.Fatal("accepted rule not added to the engine")
			}
			continue
		}
		expectKinds(t, r, "RESULT_START(c1) RESULT_DELTA(c1:askc: 1) RESULT_END(c1:success) REQUIRE_CONFIRM(c2)")
		r = mustReply(t, a, confirm(t, a, true, nil, "c2"))
		expectKinds(t, r, "RESULT_START(c2) RESULT_DELTA(c2:askc: 2) RESULT_END(c2:success) "+finalTail)
	}
}

// HC-5, HC-6: different tools both surface, in call order; a partial
// confirmation runs only that call, re-parks silently and does not count
// the round.
func TestPartialConfirmation(t *testing.T) {
	a1 := makeTool(t, toolSpec{name: "a1", perm: block.Ask, concurrent: true})
	a2 := makeTool(t, toolSpec{name: "a2", perm: block.Ask, concurrent: true})
	a, m := newAgent(t, []scripted.Turn{scripted.Reply(scripted.ToolCall("c1", "a1", `{}`), scripted.ToolCall("c2", "a2", `{}`)), finalTurn}, []tool.Tool{a1, a2})
	r := mustReply(t, a, user("Test"))
	if !strings.HasSuffix(r.kinds(), "MODEL_CALL_END REQUIRE_CONFIRM(c1) REQUIRE_CONFIRM(c2)") || stateOf(t, a).Reply.CurIter != 0 {
		t.Fatalf("events %s", r.kinds())
	}
	r = mustReply(t, a, confirm(t, a, true, nil, "c1"))
	expectKinds(t, r, "RESULT_START(c1) RESULT_DELTA(c1:a1: <nil>) RESULT_END(c1:success)")
	if r.res.Outcome != agent.OutcomeAwaitingConfirmation || stateOf(t, a).Reply.CurIter != 0 || len(r.res.Pending) != 1 {
		t.Fatalf("outcome %s cur_iter %d", r.res.Outcome, stateOf(t, a).Reply.CurIter)
	}
	r = mustReply(t, a, confirm(t, a, true, nil, "c2"))
	if r.res.Outcome != agent.OutcomeCompleted || m.Remaining() != 0 || stateOf(t, a).Reply.CurIter != 2 {
		t.Fatalf("outcome %s cur_iter %d", r.res.Outcome, stateOf(t, a).Reply.CurIter)
	}
}

// DRV-1: a denial becomes a denied result with a plain-string output and
// the loop goes on; an edited approval runs the edited call.
func TestDenyAndEdit(t *testing.T) {
	ask := makeTool(t, toolSpec{name: "ask", perm: block.Ask})
	a, _ := newAgent(t, []scripted.Turn{toolTurn([3]string{"c1", "ask", `{"input": "x"}`}), finalTurn}, []tool.Tool{ask})
	mustReply(t, a, user("Test"))
	r := mustReply(t, a, confirm(t, a, false, nil, "c1"))
	expectKinds(t, r, `RESULT_START(c1) RESULT_DELTA(c1:<system-reminder>The execution of tool "ask" is denied by user!</system-reminder>) RESULT_END(c1:denied) `+finalTail)
	if got := contextShape(stateOf(t, a).Tail()); !strings.HasPrefix(got, `call c1 finished | result c1 denied plain:<system-reminder>`) || stateOf(t, a).Reply.CurIter != 1 {
		t.Fatalf("context %s, cur_iter %d", got, stateOf(t, a).Reply.CurIter)
	}

	a, _ = newAgent(t, []scripted.Turn{toolTurn([3]string{"c1", "ask", `{"input": "original"}`}), finalTurn}, []tool.Tool{ask})
	mustReply(t, a, user("Test"))
	ev := confirm(t, a, true, nil, "c1")
	ev.ConfirmResults[0].ToolCall.Input = `{"input": "edited"}`
	r = mustReply(t, a, ev)
	if !strings.HasPrefix(r.kinds(), "RESULT_START(c1) RESULT_DELTA(c1:ask: edited)") {
		t.Fatalf("events %s", r.kinds())
	}
	if c := stateOf(t, a).Tail().Content[0].(*block.ToolCall); c.Input != `{"input": "edited"}` {
		t.Fatalf("context call not rewritten: %s", c.Input)
	}
}

// §5.3: invalid resumes are rejected with the reference's texts, before
// any event, with the state unchanged.
func TestInvalidResumes(t *testing.T) {
	ask := makeTool(t, toolSpec{name: "ask", perm: block.Ask})
	ext := makeTool(t, toolSpec{name: "ext", external: true})
	a, _ := newAgent(t, []scripted.Turn{toolTurn([3]string{"c1", "ask", `{}`}), finalTurn}, []tool.Tool{ask, ext})
	mustReply(t, a, user("Test"))
	before, _ := stateOf(t, a).MarshalJSON()
	bogus := confirm(t, a, true, nil, "c1")
	bogus.ConfirmResults[0].ToolCall.ID = "c9"
	cases := []struct {
		in   any
		want string
	}{
		{user("again"), "Agent is waiting for 1 tool calls and external execution results for 0 tool calls, but received no event."},
		{nil, "Agent is waiting for 1 tool calls and external execution results for 0 tool calls, but received no event."},
		{bogus, "Received UserConfirmResultEvent with tool call ids {'c9'} that are not waiting for confirmation."},
		{external(t, a, &block.ToolResult{ID: "c1", Name: "ask"}), "Agent is not waiting for external execution result, but received ExternalExecutionResultEvent: "},
	}
	for _, tc := range cases {
		r := reply(t, context.Background(), a, tc.in)
		if !errors.Is(r.err, agent.ErrInvalidResume) || !strings.HasPrefix(r.err.Error(), tc.want) || len(r.events) != 0 {
			t.Errorf("%T: err %v, %d events", tc.in, r.err, len(r.events))
		}
	}
	after, _ := stateOf(t, a).MarshalJSON()
	if string(before) != string(after) {
		t.Fatal("a rejected resume changed the state")
	}
	// Nothing parked: a confirmation is rejected too.
	b, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("hi"))}, nil)
	mustReply(t, b, user("hi"))
	r := reply(t, context.Background(), b, &event.UserConfirmResult{})
	if r.err == nil || !strings.HasPrefix(r.err.Error(), "Agent is not waiting for user confirmation, but received UserConfirmResultEvent: ") {
		t.Fatalf("err %v", r.err)
	}
}

// HX-1..HX-4: external calls: START at submission, no second START on the
// result, error results do not end the reply, partial results re-park.
func TestExternalExecution(t *testing.T) {
	ext := makeTool(t, toolSpec{name: "ext", external: true, concurrent: true, readOnly: true})
	a, m := newAgent(t, []scripted.Turn{toolTurn([3]string{"c1", "ext", `{}`}, [3]string{"c2", "ext", `{}`}), finalTurn}, []tool.Tool{ext})
	r := mustReply(t, a, user("Test"))
	if !strings.HasSuffix(r.kinds(), "MODEL_CALL_END RESULT_START(c1) REQUIRE_EXTERNAL(c1) RESULT_START(c2) REQUIRE_EXTERNAL(c2)") ||
		r.res.Outcome != agent.OutcomeAwaitingExternal {
		t.Fatalf("events %s (%s)", r.kinds(), r.res.Outcome)
	}
	if got := contextShape(stateOf(t, a).Tail()); got != "call c1 submitted | call c2 submitted" {
		t.Fatalf("context %s", got)
	}
	r = mustReply(t, a, external(t, a, &block.ToolResult{ID: "c1", Name: "ext", Output: block.BlocksBody(block.NewText("one")), State: block.ResultSuccess, Metadata: map[string]any{"by": "host"}}))
	expectKinds(t, r, "RESULT_DELTA(c1:one) RESULT_END(c1:success)")
	if md := r.events[1].Header().Metadata; md["by"] != "host" || m.Remaining() != 1 {
		t.Fatalf("END metadata %v", md)
	}
	r = mustReply(t, a, external(t, a, &block.ToolResult{ID: "c2", Name: "ext", Output: block.PlainBody("two"), State: block.ResultError}))
	expectKinds(t, r, "RESULT_DELTA(c2:two) RESULT_END(c2:error) "+finalTail)
	if got := contextShape(stateOf(t, a).Tail()); got != "call c1 finished | call c2 finished | result c1 success list:one | result c2 error plain:two | text Result 1" {
		t.Fatalf("context %s", got)
	}
	// The id of an answered call is not awaited any more.
	r = reply(t, context.Background(), a, external(t, a, &block.ToolResult{ID: "c2", Name: "ext"}))
	if !errors.Is(r.err, agent.ErrInvalidResume) {
		t.Fatalf("err %v", r.err)
	}
}

// HM-3: confirmation then external execution, in a concurrent batch with a
// deferred sibling: exactly START(1), REQUIRE_EXTERNAL(1), REQUIRE_CONFIRM(2).
func TestMixedHITL(t *testing.T) {
	mix := makeTool(t, toolSpec{name: "mix", external: true, concurrent: true, perm: block.Ask})
	a, _ := newAgent(t, []scripted.Turn{toolTurn([3]string{"c1", "mix", `{}`}, [3]string{"c2", "mix", `{}`}), finalTurn}, []tool.Tool{mix})
	r := mustReply(t, a, user("Test"))
	if !strings.HasSuffix(r.kinds(), "MODEL_CALL_END REQUIRE_CONFIRM(c1)") {
		t.Fatalf("events %s", r.kinds())
	}
	r = mustReply(t, a, confirm(t, a, true, nil, "c1"))
	expectKinds(t, r, "RESULT_START(c1) REQUIRE_EXTERNAL(c1) REQUIRE_CONFIRM(c2)")
	if sub := r.events[1].(*event.RequireExternalExecution).ToolCalls[0]; sub.State != block.CallSubmitted || len(sub.SuggestedRules) != 1 {
		t.Fatalf("submitted call %+v", sub)
	}
	r = mustReply(t, a, confirm(t, a, true, nil, "c2"))
	expectKinds(t, r, "RESULT_START(c2) REQUIRE_EXTERNAL(c2)")
	r = mustReply(t, a, external(t, a,
		&block.ToolResult{ID: "c1", Name: "mix", Output: block.PlainBody("r1"), State: block.ResultSuccess},
		&block.ToolResult{ID: "c2", Name: "mix", Output: block.PlainBody("r2"), State: block.ResultSuccess}))
	expectKinds(t, r, "RESULT_DELTA(c1:r1) RESULT_END(c1:success) RESULT_DELTA(c2:r2) RESULT_END(c2:success) "+finalTail)
}

// INT-7/8/9: a user interrupt closes the parked calls (plain-string
// results, no second START for a submitted call) and ends the reply.
func TestInterruptParkedReply(t *testing.T) {
	ask := makeTool(t, toolSpec{name: "ask", perm: block.Ask, concurrent: true})
	ext := makeTool(t, toolSpec{name: "ext", external: true, concurrent: true, readOnly: true})
	a, m := newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("Need HITL."), scripted.ToolCall("c1", "ask", `{}`), scripted.ToolCall("c2", "ext", `{}`))}, []tool.Tool{ask, ext})
	mustReply(t, a, user("Hi"))
	r := mustReply(t, a, &event.UserInterrupt{ReplyID: "whatever"})
	imsg := tool.InterruptedText
	expectKinds(t, r, "RESULT_START(c1) RESULT_DELTA(c1:"+imsg+") RESULT_END(c1:interrupted) RESULT_DELTA(c2:"+imsg+") RESULT_END(c2:interrupted) REPLY_END(interrupted)")
	if r.res.Outcome != agent.OutcomeInterrupted || r.res.Msg.FinishedReason != event.ReplyInterrupted || contextShape(r.res.Msg) != "text "+agent.DefaultInterruptionMessage {
		t.Fatalf("result %+v", r.res)
	}
	if got := contextShape(stateOf(t, a).Tail()); got != "text Need HITL. | call c1 finished | call c2 finished | result c1 interrupted plain:"+imsg+" | result c2 interrupted plain:"+imsg {
		t.Fatalf("context %s", got)
	}
	if m.Remaining() != 0 {
		t.Fatal("unexpected model call")
	}
}
