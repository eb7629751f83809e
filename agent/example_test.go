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
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// Only Name and Model are required; every zero value is the reference's
// default (50 rounds, runtime-state injection on, slog.Default()).
func ExampleNew() {
	a, err := agent.New(agent.Config{
		Name:         "Friday",
		Model:        scripted.New("demo-model", []scripted.Turn{scripted.Stream(scripted.Text("Hello!"))}),
		SystemPrompt: "You are a helpful assistant.",
		MaxIters:     10,
		RuntimeState: agent.RuntimeStateConfig{Disabled: true},
	})
	if err != nil {
		panic(err)
	}
	res, err := a.Reply(context.Background(), []*message.Msg{message.UserText("user", "Hi")})
	if err != nil {
		panic(err)
	}
	text, _ := res.Msg.TextContent("\n")
	fmt.Println(res.Outcome, text)
	// Output:
	// completed Hello!
}

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
	a, _ := agent.New(agent.Config{Name: "Friday", Model: model, Toolkit: tk, RuntimeState: agent.RuntimeStateConfig{Disabled: true}})

	var res agent.Result
	msgs := []*message.Msg{message.UserText("user", "Weather in Oslo?")}
	for e, err := range a.Stream(context.Background(), msgs, agent.WithResult(&res)) {
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

// A structured final output: the model fills the schema through the
// GenerateStructuredOutput tool the agent mounts for the reply.
func ExampleAgent_Reply_structuredOutput() {
	model := scripted.New("demo-model", []scripted.Turn{
		scripted.Stream(scripted.ToolCall("call_1", "GenerateStructuredOutput", `{"city": "Oslo", "sky": "sunny"}`)),
	})
	a, _ := agent.New(agent.Config{Name: "Friday", Model: model, RuntimeState: agent.RuntimeStateConfig{Disabled: true}})
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"sky":{"type":"string"}},"required":["city","sky"]}`)
	res, err := a.Reply(context.Background(), []*message.Msg{message.UserText("user", "Weather in Oslo?")}, agent.WithStructuredSchema(schema))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Outcome, res.Msg.StructuredOutput["city"], res.Msg.StructuredOutput["sky"])
	// Output:
	// completed Oslo sunny
}

// A reply parks on a permission prompt; its state is saved, loaded by
// another agent (in real life: another process, later) and resumed with
// the user's approval.
func ExampleAgent_Confirm() {
	rm, _ := tool.New("rm", "Remove a file.", json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
		func(_ context.Context, in map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) { yield(tool.Text(fmt.Sprint("removed ", in["path"])), nil) }
		})
	turns := []scripted.Turn{
		scripted.Stream(scripted.ToolCall("call_1", "rm", `{"path": "build.log"}`)),
		scripted.Stream(scripted.Text("Done.")),
	}
	tk, _ := tool.NewToolkit([]tool.Tool{rm})
	a, _ := agent.New(agent.Config{Name: "Friday", Model: scripted.New("m", turns), Toolkit: tk, RuntimeState: agent.RuntimeStateConfig{Disabled: true}})

	res, _ := a.Reply(context.Background(), []*message.Msg{message.UserText("user", "Delete build.log")})
	fmt.Println(res.Outcome, res.Pending[0].Name, res.Pending[0].Input)
	st, _ := a.State()
	saved, _ := json.Marshal(st)

	// Later: a new agent on the saved state.
	var loaded state.AgentState
	_ = json.Unmarshal(saved, &loaded)
	tk2, _ := tool.NewToolkit([]tool.Tool{rm})
	b, _ := agent.New(agent.Config{Name: "Friday", Model: scripted.New("m", turns[1:]), Toolkit: tk2, State: &loaded, RuntimeState: agent.RuntimeStateConfig{Disabled: true}})
	approve := &event.UserConfirmResult{ReplyID: res.ReplyID, ConfirmResults: []event.ConfirmResult{{
		Confirmed: true,
		ToolCall:  res.Pending[0], // echo the call back (edit Name/Input to change it)
		Rules:     res.Pending[0].SuggestedRules,
	}}}
	var done agent.Result
	for _, err := range b.Confirm(context.Background(), approve, agent.WithResult(&done)) {
		if err != nil {
			panic(err)
		}
	}
	var texts []string
	for _, blk := range done.Msg.Content {
		switch blk := blk.(type) {
		case *block.ToolResult:
			texts = append(texts, "result: "+blk.Output.Blocks[0].(*block.Text).Text)
		case *block.Text:
			texts = append(texts, "text: "+blk.Text)
		}
	}
	fmt.Println(done.Outcome, strings.Join(texts, "; "))
	fmt.Println(len(b.Permissions().Rules(block.Allow, "rm")), "rule learned")
	// Output:
	// awaiting_confirmation rm {"path": "build.log"}
	// completed result: removed build.log; text: Done.
	// 1 rule learned
}

// A tool marked External is run by the host: the reply parks with the call
// in Result.Pending, and DeliverExternal hands its result back.
func ExampleAgent_DeliverExternal() {
	deploy, _ := tool.New("deploy", "Deploy the site.", json.RawMessage(`{"type":"object","properties":{}}`), nil,
		tool.External(), tool.WithPermissionCheck(func(context.Context, map[string]any, *permission.Context) permission.Decision {
			return permission.Decision{Behavior: block.Allow}
		}))
	tk, _ := tool.NewToolkit([]tool.Tool{deploy})
	model := scripted.New("m", []scripted.Turn{
		scripted.Stream(scripted.ToolCall("call_1", "deploy", `{}`)),
		scripted.Stream(scripted.Text("Deployed.")),
	})
	a, _ := agent.New(agent.Config{Name: "Friday", Model: model, Toolkit: tk, RuntimeState: agent.RuntimeStateConfig{Disabled: true}})
	res, _ := a.Reply(context.Background(), []*message.Msg{message.UserText("user", "Ship it")})
	fmt.Println(res.Outcome, res.Pending[0].Name)

	// The host ran the deployment.
	out := &event.ExternalExecutionResult{ReplyID: res.ReplyID, ExecutionResults: []*block.ToolResult{{
		ID: res.Pending[0].ID, Name: "deploy", Output: block.PlainBody("v42 is live"), State: block.ResultSuccess,
	}}}
	var done agent.Result
	for e, err := range a.DeliverExternal(context.Background(), out, agent.WithResult(&done)) {
		if err != nil {
			panic(err)
		}
		fmt.Println(e.Type())
	}
	fmt.Println(done.Outcome)
	// Output:
	// awaiting_external deploy
	// TOOL_RESULT_TEXT_DELTA
	// TOOL_RESULT_END
	// MODEL_CALL_START
	// TEXT_BLOCK_START
	// TEXT_BLOCK_DELTA
	// TEXT_BLOCK_END
	// MODEL_CALL_END
	// REPLY_END
	// completed
}

// Interrupt abandons a parked reply: the pending call gets an interrupted
// result and the reply ends.
func ExampleAgent_Interrupt() {
	rm, _ := tool.Func("rm", "Remove a file.", func(context.Context, struct{}) (string, error) { return "removed", nil })
	tk, _ := tool.NewToolkit([]tool.Tool{rm})
	model := scripted.New("m", []scripted.Turn{scripted.Stream(scripted.ToolCall("call_1", "rm", `{}`))})
	a, _ := agent.New(agent.Config{Name: "Friday", Model: model, Toolkit: tk, RuntimeState: agent.RuntimeStateConfig{Disabled: true}})
	res, _ := a.Reply(context.Background(), []*message.Msg{message.UserText("user", "Delete everything")})
	fmt.Println(res.Outcome)

	var done agent.Result
	for e, err := range a.Interrupt(context.Background(), agent.WithResult(&done)) {
		if err != nil {
			panic(err)
		}
		fmt.Println(e.Type())
	}
	fmt.Println(done.Outcome)
	// Output:
	// awaiting_confirmation
	// TOOL_RESULT_START
	// TOOL_RESULT_TEXT_DELTA
	// TOOL_RESULT_END
	// REPLY_END
	// interrupted
}

// A middleware sets the hooks it needs. This one counts model calls and
// tags the system prompt; hooks that share state are method values of one
// type, or closures over it.
func ExampleMiddleware() {
	calls := 0
	counter := agent.Middleware{
		Name: "counter",
		ModelCall: func(ctx context.Context, _ *agent.Agent, in agent.ModelCallInput, next agent.ModelCallHandler) iter.Seq2[model.Chunk, error] {
			calls++
			return next(ctx, in)
		},
		SystemPrompt: func(_ context.Context, _ *agent.Agent, prompt string) (string, error) {
			return prompt + " Answer in English.", nil
		},
	}
	m := scripted.New("m", []scripted.Turn{scripted.Stream(scripted.Text("Hi!"))}, scripted.WithRecording())
	a, _ := agent.New(agent.Config{
		Name: "Friday", Model: m, SystemPrompt: "Be brief.",
		Middleware:   []agent.Middleware{counter},
		RuntimeState: agent.RuntimeStateConfig{Disabled: true},
	})
	if _, err := a.Reply(context.Background(), []*message.Msg{message.UserText("user", "Hello")}); err != nil {
		panic(err)
	}
	var sent []map[string]any
	_ = json.Unmarshal(m.Calls()[0].Messages, &sent)
	fmt.Println(calls, "model call; system prompt:", sent[0]["content"].([]any)[0].(map[string]any)["text"])
	// Output:
	// 1 model call; system prompt: Be brief. Answer in English.
}
