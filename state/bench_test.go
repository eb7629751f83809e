package state_test

import (
	"fmt"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/state"
)

// BenchmarkStateUnmarshal loads a saved session of 200 exchanges (a user
// question, then a reply with thinking, a tool call, its result and an
// answer): loading a session is one of the paths issue 7 speeds up.
func BenchmarkStateUnmarshal(b *testing.B) {
	src := &stamp.Fixed{}
	s := state.New(src)
	for i := range 200 {
		q, err := message.UserMsg("user", []block.Block{block.NewText(fmt.Sprintf("question %d: what is in the directory?", i))}, message.WithStamp(src))
		if err != nil {
			b.Fatal(err)
		}
		s.Context = append(s.Context, q)
		s.AppendContext(src, "Friday",
			&block.Thinking{Thinking: "Let me list the files first, then answer."},
			&block.ToolCall{ID: fmt.Sprint("call_", i), Name: "Bash", Input: `{"command": "ls -la"}`, State: block.CallFinished, SuggestedRules: []block.PermissionRule{}},
			&block.ToolResult{ID: fmt.Sprint("call_", i), Name: "Bash", Output: block.BlocksBody(block.NewText("total 0\ndrwxr-xr-x 2 u u 40 .\n")), State: block.ResultSuccess},
			block.NewText("The directory is empty."))
	}
	data, err := s.MarshalJSON()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var back state.AgentState
		if err := back.UnmarshalJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}
