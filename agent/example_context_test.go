package agent_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/offload"
	"github.com/agentscope-go/agentscope/state"
)

// Context compression is on by default; here the window is made small so
// that a long history crosses the threshold (0.8 × 1,000 estimated
// tokens). Before the reasoning step the model is asked for a structured
// summary of the older messages (its first scripted turn); the summary
// replaces them in the state, the compressed messages go to the
// offloader's directory, and the reply goes on with the summary and the
// newest messages.
func ExampleContextConfig() {
	dir, _ := os.MkdirTemp("", "offload-example")
	defer os.RemoveAll(dir)

	st := state.New(nil)
	for i := range 4 {
		st.Context = append(st.Context,
			message.UserText("user", fmt.Sprintf("Note %d: %s", i, strings.Repeat("lorem ipsum ", 80))),
			message.AssistantText("Friday", "Noted."))
	}
	m := scripted.New("demo-model", []scripted.Turn{
		scripted.Stream(scripted.ToolCall("s1", "generate_structured_output",
			`{"task_overview": "Keep notes.", "current_state": "Four notes taken.", "important_discoveries": "None.", "next_steps": "Take more.", "context_to_preserve": "Reply with one word."}`)),
		scripted.Stream(scripted.Text("Noted.")),
	})
	a, _ := agent.New(agent.Config{
		Name: "Friday", Model: m, State: st,
		Logger:       slog.New(slog.DiscardHandler),
		RuntimeState: agent.RuntimeStateConfig{Disabled: true},
		Context: agent.ContextConfig{
			ContextSize:     1000,                   // the model's window, in tokens
			Offloader:       offload.Dir{Root: dir}, // where the compressed messages go
			ToolResultLimit: 2000,                   // tool results past this are cut
		},
	})
	if _, err := a.Reply(context.Background(), []*message.Msg{message.UserText("user", "Note 4.")}); err != nil {
		panic(err)
	}
	after, _ := a.State()
	summary := after.Summary.Text
	fmt.Println(strings.Split(summary, "\n")[0])
	fmt.Println(strings.Contains(summary, "# Current State\nFour notes taken."))
	fmt.Println(strings.Contains(summary, "The compressed context is offloaded to '"+dir))
	fmt.Println(len(after.Context), "messages kept")
	// Output:
	// <system-info>Here is a summary of your previous work
	// true
	// true
	// 3 messages kept
}
