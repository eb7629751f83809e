package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

// greeter is a hand-written tool: the five methods of tool.Tool and
// nothing about permissions.
type greeter struct{}

func (greeter) Name() string        { return "greet" }
func (greeter) Description() string { return "Greet someone by name." }
func (greeter) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
}
func (greeter) Flags() tool.Flags { return tool.Flags{ConcurrencySafe: true} }
func (greeter) Call(_ context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
	return func(yield func(tool.Chunk, error) bool) {
		yield(tool.Text("Hello, "+input["name"].(string)+"!"), nil)
	}
}

// A tool is five methods. One without a permission policy of its own is
// judged as the reference's generic tool: the user is asked, and the
// suggestion is to allow the whole tool.
func ExampleTool() {
	tk, _ := tool.NewToolkit([]tool.Tool{greeter{}})
	call := &block.ToolCall{ID: "call_1", Name: "greet", Input: `{"name": "Ada"}`}
	t, input, err := tk.Prepare(call, nil)
	if err != nil {
		panic(err)
	}
	e := permission.NewEngine(nil)
	d := e.Check(context.Background(), tool.PermissionSubject(t), input)
	fmt.Println(d.Behavior, "-", d.Message, "- suggests", d.SuggestedRules[0].ToolName)

	res := (&tool.Runner{}).Collect(context.Background(), call.ID, t, input)
	fmt.Println(res.State, res.Content[0].(*block.Text).Text)
	// Output:
	// ask - Permission required for greet - suggests greet
	// success Hello, Ada!
}

// shellTool has a permission policy of its own: it implements
// permission.Policy by embedding permission.Defaults and overriding what
// differs — "ls" only reads, and rule content is a command prefix.
type shellTool struct{ permission.Defaults }

func (shellTool) Name() string        { return "Shell" }
func (shellTool) Description() string { return "Run a shell command." }
func (shellTool) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)
}
func (shellTool) Flags() tool.Flags { return tool.Flags{} }
func (shellTool) Call(_ context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
	return func(yield func(tool.Chunk, error) bool) { yield(tool.Text("ran "+command(input)), nil) }
}

func (shellTool) ReadOnly(input map[string]any) bool { return command(input) == "ls" }
func (shellTool) MatchRule(content string, input map[string]any) bool {
	return strings.HasPrefix(command(input), content)
}

func command(input map[string]any) string { s, _ := input["command"].(string); return s }

// A tool implementing permission.Policy is judged by it.
func ExamplePermissionSubject() {
	sh := shellTool{permission.Defaults{ToolName: "Shell"}}
	s := tool.PermissionSubject(sh)
	e := permission.NewEngine(nil)
	ctx := context.Background()
	e.AddRule(block.PermissionRule{ToolName: "Shell", RuleContent: block.Some("git "), Behavior: block.Allow, Source: "userSettings"})
	for _, cmd := range []string{"ls", "git status", "rm -rf build"} {
		d := e.Check(ctx, s, map[string]any{"command": cmd})
		fmt.Printf("%-12s %s - %s\n", cmd, d.Behavior, d.Message)
	}
	// Output:
	// ls           allow - Permission granted for Shell (read-only invocation)
	// git status   allow - Permission granted for Shell
	// rm -rf build ask - Permission required for Shell
}
