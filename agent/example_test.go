package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// A reply that calls a tool, then answers. Stream yields the events as they
// happen; WithResult collects the outcome.
func ExampleAgent_Stream() {
	type weatherIn struct {
		City string `json:"city"`
	}
	weather, _ := tool.Func("get_weather", "Get the weather of a city.",
		func(_ context.Context, in weatherIn) (string, error) { return "Sunny in " + in.City + ".", nil },
		// Function tools ask the user by default; this one is harmless.
		tool.WithPermissionCheck(func(context.Context, map[string]any, *permission.Context) permission.Decision {
			return permission.Decision{Behavior: block.Allow}
		}))
	tk, _ := tool.NewToolkit([]tool.Tool{weather})
	model := scripted.New("demo-model", []scripted.Turn{
		scripted.Stream(scripted.ToolCall("call_1", "get_weather", `{"city": "Oslo"}`)),
		scripted.Stream(scripted.Text("It is sunny"), scripted.Text(" in Oslo.")),
	})
	a, _ := agent.New("Friday", model, agent.WithToolkit(tk), agent.WithoutInjection())

	var res agent.Result
	for e, err := range a.Stream(context.Background(), message.UserText("user", "Weather in Oslo?"), agent.WithResult(&res)) {
		if err != nil {
			panic(err)
		}
		switch e := e.(type) {
		case *event.TextBlockDelta:
			fmt.Printf("%s %q\n", e.Type(), e.Delta)
		case *event.ToolResultTextDelta:
			fmt.Printf("%s %q\n", e.Type(), e.Delta)
		default:
			fmt.Println(e.Type())
		}
	}
	fmt.Println(res.Outcome)
	// Output:
	// REPLY_START
	// MODEL_CALL_START
	// TOOL_CALL_START
	// TOOL_CALL_DELTA
	// TOOL_CALL_END
	// MODEL_CALL_END
	// TOOL_RESULT_START
	// TOOL_RESULT_TEXT_DELTA "Sunny in Oslo."
	// TOOL_RESULT_END
	// MODEL_CALL_START
	// TEXT_BLOCK_START
	// TEXT_BLOCK_DELTA "It is sunny"
	// TEXT_BLOCK_DELTA " in Oslo."
	// TEXT_BLOCK_END
	// MODEL_CALL_END
	// REPLY_END
	// completed
}

// A reply parks on a permission prompt; its state is saved, loaded by
// another agent (in real life: another process, later) and resumed with
// the user's approval.
func ExampleAgent_Reply_humanInTheLoop() {
	rm, _ := tool.New("rm", "Remove a file.", json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
		func(_ context.Context, in map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) { yield(tool.Text(fmt.Sprint("removed ", in["path"])), nil) }
		})
	turns := []scripted.Turn{
		scripted.Stream(scripted.ToolCall("call_1", "rm", `{"path": "build.log"}`)),
		scripted.Stream(scripted.Text("Done.")),
	}
	tk, _ := tool.NewToolkit([]tool.Tool{rm})
	a, _ := agent.New("Friday", scripted.New("m", turns), agent.WithToolkit(tk), agent.WithoutInjection())

	res, _ := a.Reply(context.Background(), message.UserText("user", "Delete build.log"))
	fmt.Println(res.Outcome, res.Pending[0].Name, res.Pending[0].Input)
	saved, _ := json.Marshal(a.State())

	// Later: a new agent on the saved state.
	var st state.AgentState
	_ = json.Unmarshal(saved, &st)
	tk2, _ := tool.NewToolkit([]tool.Tool{rm})
	b, _ := agent.New("Friday", scripted.New("m", turns[1:]), agent.WithToolkit(tk2), agent.WithState(&st), agent.WithoutInjection())
	approve := &event.UserConfirmResult{ReplyID: st.Reply.ReplyID, ConfirmResults: []event.ConfirmResult{{
		Confirmed: true,
		ToolCall:  res.Pending[0], // echo the call back (edit Name/Input to change it)
		Rules:     res.Pending[0].SuggestedRules,
	}}}
	res, _ = b.Reply(context.Background(), approve)
	var texts []string
	for _, blk := range res.Msg.Content {
		switch blk := blk.(type) {
		case *block.ToolResult:
			texts = append(texts, "result: "+blk.Output.Blocks[0].(*block.Text).Text)
		case *block.Text:
			texts = append(texts, "text: "+blk.Text)
		}
	}
	fmt.Println(res.Outcome, strings.Join(texts, "; "))
	fmt.Println(len(b.Permissions().Rules(block.Allow, "rm")), "rule learned")
	// Output:
	// awaiting_confirmation rm {"path": "build.log"}
	// completed result: removed build.log; text: Done.
	// 1 rule learned
}
