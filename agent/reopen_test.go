package agent_test

import (
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

// Text between two fragments of one tool call closes the call; its next
// fragment re-opens it with a second TOOL_CALL_START that carries the
// tool's name again, as the reference's does (§3.4), though the provider
// sent the name with the first fragment only.
func TestReopenedToolCallRepeatsItsName(t *testing.T) {
	echo := makeTool(t, toolSpec{name: "echo"})
	a, _ := newAgent(t, []scripted.Turn{
		scripted.Stream(
			scripted.ToolCall("c1", "echo", `{"input": `),
			scripted.Text("Let me think."),
			scripted.ToolCall("c1", "", `"x"}`),
		),
		scripted.Reply(scripted.Text("done")),
	}, []tool.Tool{echo})
	r := mustReply(t, a, user("go"))
	expectKinds(t, r, `REPLY_START MODEL_CALL_START
		TOOL_CALL_START(c1) TOOL_CALL_DELTA(c1)
		TEXT_BLOCK_START TEXT_DELTA(Let me think.) TOOL_CALL_END(c1)
		TEXT_BLOCK_END TOOL_CALL_START(c1) TOOL_CALL_DELTA(c1)
		TOOL_CALL_END(c1) MODEL_CALL_END
		RESULT_START(c1) RESULT_DELTA(c1:echo: x) RESULT_END(c1:success)
		MODEL_CALL_START TEXT_BLOCK_START TEXT_DELTA(done) TEXT_BLOCK_END MODEL_CALL_END
		REPLY_END(completed)`)

	var starts []string
	var modelCall []event.Event // the first model call's events, REPLY_START included
	for _, e := range r.events {
		if s, ok := e.(*event.ToolCallStart); ok {
			starts = append(starts, s.ToolCallName)
		}
		if len(modelCall) == 0 || modelCall[len(modelCall)-1].Type() != event.TypeModelCallEnd {
			modelCall = append(modelCall, e)
		}
	}
	if len(starts) != 2 || starts[0] != "echo" || starts[1] != "echo" {
		t.Fatalf("TOOL_CALL_START names %q, want the tool's name twice", starts)
	}

	// Folding those events rebuilds what the reasoning step stored. The
	// reference's fold appends a block for every START and sends deltas and
	// ENDs to the first block of the id (core-spec §2.3, §2.4), so the
	// re-opened call also leaves an empty second tool_call block behind;
	// the first blocks of each id are the stored response.
	fold, err := message.AssistantMsg("Friday", nil, message.WithID(r.res.ReplyID))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range modelCall {
		if err := fold.AppendEvent(e); err != nil {
			t.Fatalf("%s: %v", e.Type(), err)
		}
	}
	stored := stateOf(t, a).Tail().Content[:2]
	sc, st := stored[0].(*block.ToolCall), stored[1].(*block.Text)
	if len(fold.Content) != 3 {
		t.Fatalf("fold has %d blocks: %s", len(fold.Content), block.AppendList(nil, fold.Content))
	}
	fc, ok1 := fold.Content[0].(*block.ToolCall)
	ft, ok2 := fold.Content[1].(*block.Text)
	again, ok3 := fold.Content[2].(*block.ToolCall)
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("fold kinds: %s", block.AppendList(nil, fold.Content))
	}
	if fc.ID != sc.ID || fc.Name != sc.Name || fc.Input != sc.Input || fc.Input != `{"input": "x"}` {
		t.Errorf("folded call %s %q %q, stored %s %q %q", fc.ID, fc.Name, fc.Input, sc.ID, sc.Name, sc.Input)
	}
	if ft.Text != st.Text {
		t.Errorf("folded text %q, stored %q", ft.Text, st.Text)
	}
	if again.ID != "c1" || again.Name != "echo" || again.Input != "" || again.State != block.CallPending {
		t.Errorf("re-opened block %+v", again)
	}
}
