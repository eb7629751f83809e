package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// parkedOnExternal is an agent whose reply waits for the result of c1
// (and c2) from the host.
func parkedOnExternal(t *testing.T) *agent.Agent {
	t.Helper()
	ext := makeTool(t, toolSpec{name: "ext", external: true, concurrent: true, readOnly: true})
	a, _ := newAgent(t, []scripted.Turn{toolTurn([3]string{"c1", "ext", `{}`}, [3]string{"c2", "ext", `{}`}), finalTurn}, []tool.Tool{ext})
	if r := mustReply(t, a, user("go")); r.res.Outcome != agent.OutcomeAwaitingExternal {
		t.Fatalf("outcome %s", r.res.Outcome)
	}
	return a
}

// An external result that the agent could not emit or save (a nil or
// typed-nil block, a block a tool result may not hold, an unknown state)
// is rejected before anything happens: no event, the state unchanged and
// still loadable, and a good result is accepted afterwards.
func TestDeliverExternalRejectsBadResults(t *testing.T) {
	var typedNil *block.Text
	res := func(out block.Body, st block.ToolResultState) *block.ToolResult {
		return &block.ToolResult{ID: "c1", Name: "ext", Output: out, State: st}
	}
	cases := map[string]*block.ToolResult{
		"nil block":           res(block.BlocksBody(nil), block.ResultSuccess),
		"typed-nil block":     res(block.BlocksBody(block.NewText("ok"), typedNil), block.ResultSuccess),
		"tool call in output": res(block.BlocksBody(&block.ToolCall{ID: "x", Name: "y"}), block.ResultSuccess),
		"thinking in output":  res(block.BlocksBody(&block.Thinking{Thinking: "hm"}), block.ResultSuccess),
		"unknown state":       res(block.PlainBody("x"), "weird"),
	}
	for name, bad := range cases {
		a := parkedOnExternal(t)
		before, _ := stateOf(t, a).MarshalJSON()
		r := reply(t, context.Background(), a, external(t, a, bad))
		var ie *agent.InputError
		if !errors.As(r.err, &ie) || !errors.Is(r.err, agent.ErrInvalidInput) || len(r.events) != 0 {
			t.Errorf("%s: err %v, events %s", name, r.err, r.kinds())
			continue
		}
		after, err := stateOf(t, a).MarshalJSON()
		if err != nil || string(before) != string(after) {
			t.Errorf("%s: the rejected result changed the state (%v)", name, err)
		}
		if _, err := state.Decode(after, nil); err != nil {
			t.Errorf("%s: saved state does not load: %v", name, err)
		}
		r = mustReply(t, a, external(t, a, res(block.PlainBody("fine"), block.ResultSuccess)))
		if !strings.HasPrefix(r.kinds(), "RESULT_DELTA(c1:fine) RESULT_END(c1:success)") {
			t.Errorf("%s: good result after the bad one: %s", name, r.kinds())
		}
	}
}

// Two answers for one call in one resume are rejected, for external
// results as for confirmations: the context would otherwise hold two
// results (or apply two answers) for one call.
func TestResumeRejectsDuplicateIDs(t *testing.T) {
	a := parkedOnExternal(t)
	before, _ := stateOf(t, a).MarshalJSON()
	one := func(text string) *block.ToolResult {
		return &block.ToolResult{ID: "c1", Name: "ext", Output: block.PlainBody(text), State: block.ResultSuccess}
	}
	r := reply(t, context.Background(), a, external(t, a, one("first"), one("second")))
	if !errors.Is(r.err, agent.ErrInvalidResume) || len(r.events) != 0 {
		t.Fatalf("external: err %v, events %s", r.err, r.kinds())
	}
	if after, _ := stateOf(t, a).MarshalJSON(); string(before) != string(after) {
		t.Fatal("external: the rejected resume changed the state")
	}

	ask := makeTool(t, toolSpec{name: "ask", perm: block.Ask})
	b, _ := newAgent(t, []scripted.Turn{toolTurn([3]string{"c1", "ask", `{}`}), finalTurn}, []tool.Tool{ask})
	mustReply(t, b, user("go"))
	before, _ = stateOf(t, b).MarshalJSON()
	yes, no := confirm(t, b, true, nil, "c1"), confirm(t, b, false, nil, "c1")
	yes.ConfirmResults = append(yes.ConfirmResults, no.ConfirmResults...)
	r = reply(t, context.Background(), b, yes)
	if !errors.Is(r.err, agent.ErrInvalidResume) || len(r.events) != 0 {
		t.Fatalf("confirm: err %v, events %s", r.err, r.kinds())
	}
	if after, _ := stateOf(t, b).MarshalJSON(); string(before) != string(after) {
		t.Fatal("confirm: the rejected resume changed the state")
	}
}
