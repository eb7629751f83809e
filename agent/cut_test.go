package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// foldCut is what a dead run left in its log: a reply with one tool call
// whose result had started (c1) and one never started (c2).
func foldCut(t *testing.T, replyID string) *message.Msg {
	t.Helper()
	reply, err := message.AssistantMsg("assistant", nil, message.WithID(replyID))
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []event.Event{
		&event.ReplyStart{SessionID: "s1", ReplyID: replyID, Name: "assistant", Role: event.RoleAssistant},
		&event.ToolCallStart{ReplyID: replyID, ToolCallID: "c1", ToolCallName: "wait"},
		&event.ToolCallDelta{ReplyID: replyID, ToolCallID: "c1", Delta: "{}"},
		&event.ToolCallEnd{ReplyID: replyID, ToolCallID: "c1"},
		&event.ToolCallStart{ReplyID: replyID, ToolCallID: "c2", ToolCallName: "wait"},
		&event.ToolCallDelta{ReplyID: replyID, ToolCallID: "c2", Delta: "{}"},
		&event.ToolCallEnd{ReplyID: replyID, ToolCallID: "c2"},
		&event.ToolResultStart{ReplyID: replyID, ToolCallID: "c1", ToolCallName: "wait"},
	} {
		event.Stamp(ev, nil)
		if _, ok := ev.(*event.ReplyStart); ok {
			continue
		}
		if err := reply.AppendEvent(ev); err != nil {
			t.Fatal(err)
		}
	}
	return reply
}

// A reply cut mid-run is closed: every call answered as interrupted (a
// started result ended, a missing one started and ended), REPLY_END
// (interrupted), the reply after its input in the context; and the agent
// built on that state answers the next message.
func TestCloseCut(t *testing.T) {
	const replyID = "0123456789abcdef0123456789abcdef"
	st := state.New(nil)
	st.SessionID = "s1"
	in := message.UserText("user", "wait twice")
	reply := foldCut(t, replyID)
	evs, err := agent.CloseCut(st, reply, []*message.Msg{in}, "the server stopped")
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ev := range evs {
		types = append(types, string(ev.Type()))
		if ev.Header().ID == "" {
			t.Errorf("%s is not stamped", ev.Type())
		}
	}
	want := "TOOL_RESULT_TEXT_DELTA TOOL_RESULT_END TOOL_RESULT_START TOOL_RESULT_TEXT_DELTA TOOL_RESULT_END REPLY_END"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("closing events %s\nwant %s", got, want)
	}
	if end := evs[len(evs)-1].(*event.ReplyEnd); end.FinishedReason != event.ReplyInterrupted || end.SessionID != "s1" || end.ReplyID != replyID {
		t.Fatalf("REPLY_END %+v", end)
	}
	if reply.FinishedReason != event.ReplyInterrupted {
		t.Errorf("reply finished %q", reply.FinishedReason)
	}
	results := map[string]*block.ToolResult{}
	for _, b := range reply.Content {
		if r, ok := b.(*block.ToolResult); ok {
			results[r.ID] = r
		}
	}
	for _, id := range []string{"c1", "c2"} {
		r := results[id]
		if r == nil || r.State != block.ResultInterrupted || !strings.Contains(string(r.AppendJSON(nil)), "the server stopped") {
			t.Errorf("result of %s: %+v", id, r)
		}
	}
	if len(st.Context) != 2 || st.Context[0] != in || st.Context[1] != reply || st.Reply.ReplyID != replyID {
		t.Fatalf("context %d messages, reply context %+v", len(st.Context), st.Reply)
	}

	// The state is a valid one to go on from.
	a, err := agent.New(agent.Config{Name: "assistant", Model: scripted.New("m", []scripted.Turn{scripted.Stream(scripted.Text("ok"))}),
		State: st, RuntimeState: agent.RuntimeStateConfig{Disabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Reply(context.Background(), []*message.Msg{message.UserText("user", "and now?")})
	if err != nil {
		t.Fatalf("the next reply on the closed state: %v", err)
	}
	if res.Msg == nil || res.Msg.FinishedReason != event.ReplyCompleted {
		t.Fatalf("the next reply: %+v", res)
	}
}

// A resumed reply that was cut replaces its stored message in the context
// (the input is then nil: a resume adds none); no notice gives the
// agent's own interrupted text.
func TestCloseCutResumed(t *testing.T) {
	const replyID = "fedcba9876543210fedcba9876543210"
	st := state.New(nil)
	st.SessionID = "s1"
	in := message.UserText("user", "wait twice")
	parked, err := message.AssistantMsg("assistant", nil, message.WithID(replyID))
	if err != nil {
		t.Fatal(err)
	}
	st.Context = append(st.Context, in, parked)
	reply := foldCut(t, replyID)
	if _, err := agent.CloseCut(st, reply, nil, ""); err != nil {
		t.Fatal(err)
	}
	if len(st.Context) != 2 || st.Context[1] != reply {
		t.Fatalf("context has %d messages; the stored reply replaced: %v", len(st.Context), st.Context[len(st.Context)-1] == reply)
	}
	if !strings.Contains(string(reply.AppendJSON(nil)), tool.InterruptedText) {
		t.Errorf("no %q in %s", tool.InterruptedText, reply.AppendJSON(nil))
	}
	if _, err := agent.CloseCut(st, nil, nil, ""); err == nil {
		t.Error("CloseCut with no reply: no error")
	}
}
