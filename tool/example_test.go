package tool_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/tool"
)

type addArgs struct {
	A int `json:"a" desc:"The first number"`
	B int `json:"b" desc:"The second number"`
}

// A typed Go function becomes a tool: its schema comes from the input
// struct, arguments are validated before the call, the result is text.
func ExampleFunc() {
	add, err := tool.Func("add_numbers", "Add two numbers together.",
		func(_ context.Context, in addArgs) (string, error) {
			return fmt.Sprintf("Result: %d", in.A+in.B), nil
		})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(add.InputSchema()))

	tk, _ := tool.NewToolkit([]tool.Tool{add})
	call := &block.ToolCall{ID: "call_1", Name: "add_numbers", Input: `{"a": 3, "b": 5}`}
	t, input, err := tk.Prepare(call, nil)
	if err != nil {
		panic(err)
	}
	res := (&tool.Runner{}).Collect(context.Background(), call.ID, t, input)
	fmt.Println(res.State, res.Content[0].(*block.Text).Text)

	_, _, err = tk.Prepare(&block.ToolCall{ID: "call_2", Name: "add_numbers", Input: `{"a": "one", "b": 2}`}, nil)
	fmt.Println(err)
	// Output:
	// {"type":"object","properties":{"a":{"type":"integer","description":"The first number"},"b":{"type":"integer","description":"The second number"}},"required":["a","b"]}
	// success Result: 8
	// Input validation failed for tool 'add_numbers': 'one' is not of type 'integer'
}

// Groups hide tools until the model activates them with reset_tools; the
// activated set lives in the agent state (here a tool.Groups).
func ExampleToolkit() {
	search, _ := tool.Func("web_search", "Search the web.",
		func(_ context.Context, in struct {
			Query string `json:"query"`
		}) (string, error) {
			return "results for " + in.Query, nil
		})
	tk, _ := tool.NewToolkit(nil, tool.Group{
		Name: "browsing", Description: "Tools to browse the web.",
		Instructions: "Cite your sources.", Tools: []tool.Tool{search},
	})
	var state tool.Groups
	names := func() string {
		var out []string
		for _, s := range tk.Schemas(state.ActivatedGroups()) {
			out = append(out, s.Name)
		}
		return strings.Join(out, ", ")
	}
	fmt.Println("visible:", names())

	_, err := tk.Available("web_search", state.ActivatedGroups())
	fmt.Println(err)

	reset, input, _ := tk.Prepare(&block.ToolCall{ID: "c1", Name: "reset_tools", Input: `{"browsing": true}`}, state.ActivatedGroups())
	ctx := tool.WithState(context.Background(), &state)
	res := (&tool.Runner{}).Collect(ctx, "c1", reset, input)
	fmt.Println(res.Content[0].(*block.Text).Text)
	fmt.Println("visible:", names())
	// Output:
	// visible: reset_tools
	// ToolGroupInactiveError: The tool 'web_search' in group 'browsing' is currently inactive. You should first activate the group by calling the 'reset_tools' tool.
	// The currently activated tool group(s): browsing.
	// <tool-instructions>
	// The tool instructions are a collection of suggestions, rules and notifications about how to use the tools in the activated groups.
	// <group name="browsing">Cite your sources.</group>
	// </tool-instructions>
	// visible: reset_tools, web_search
}

// Run never fails: errors, panics and cancellation become the last chunk.
func ExampleRun() {
	flaky, _ := tool.Func("flaky", "Fails.", func(context.Context, struct{}) (string, error) {
		return "", fmt.Errorf("disk on fire")
	})
	for c := range tool.Run(context.Background(), flaky, nil) {
		fmt.Println(c.State, c.Content[0].(*block.Text).Text)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for c := range tool.Run(ctx, flaky, nil) {
		fmt.Println(c.State, c.Content[0].(*block.Text).Text)
	}
	// Output:
	// error disk on fire
	// interrupted <system-reminder>The tool call has been interrupted by the user.</system-reminder>
}
