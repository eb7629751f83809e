package state_test

import (
	"encoding/json"
	"fmt"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/state"
)

// A state is saved as the reference's JSON and loaded back, parked tool
// calls included.
func Example() {
	src := &stamp.Fixed{Time: "2026-08-22T09:14:04.512348"}
	st := state.New(src)
	st.Context = append(st.Context, message.UserText("user", "Delete build.log", message.WithStamp(src)))
	st.AppendContext(src, "Friday", &block.ToolCall{ID: "call_1", Name: "rm", Input: `{"path": "build.log"}`, State: block.CallAsking})

	data, _ := json.Marshal(st)
	var loaded state.AgentState
	if err := json.Unmarshal(data, &loaded); err != nil {
		panic(err)
	}
	for _, c := range loaded.AwaitingToolCalls("Friday") {
		fmt.Println(c.ID, c.State)
	}
	fmt.Println(loaded.Reply.ReplyID == st.Reply.ReplyID)
	// Output:
	// call_1 asking
	// true
}
