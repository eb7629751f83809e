package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

// A server's tools mounted in an agent's toolkit. The server here is a
// go-sdk server on 127.0.0.1; a stdio server is
// mcp.Config{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}}.
func ExampleConnect() {
	srv := sdk.NewServer(&sdk.Implementation{Name: "greeter", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{
		Name:        "greet",
		Description: "Greet someone.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}, // allowed without asking
	}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Hello, " + string(req.Params.Arguments)}}}, nil
	})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer hs.Close()

	ctx := context.Background()
	c, err := mcp.Connect(ctx, mcp.Config{URL: hs.URL + "/mcp"}) // named "greeter" by its serverInfo
	if err != nil {
		panic(err)
	}
	defer c.Close()
	tk, _ := tool.NewToolkit(nil)
	if err := c.Mount(tk, ""); err != nil {
		panic(err)
	}
	for _, t := range tk.Tools(nil) {
		fmt.Println(t.Name())
	}

	m := scripted.New("m", []scripted.Turn{
		scripted.Stream(scripted.ToolCall("call_1", "mcp__greeter__greet", `{"name":"Ada"}`)),
		scripted.Stream(scripted.Text("Done.")),
	})
	a, _ := agent.New(agent.Config{
		Name: "Friday", Model: m, Toolkit: tk,
		// Each model call sees the server's current tools.
		Middleware:   []agent.Middleware{c.Middleware()},
		RuntimeState: agent.RuntimeStateConfig{Disabled: true},
	})
	res, err := a.Reply(ctx, []*message.Msg{message.UserText("user", "Greet Ada")})
	if err != nil {
		panic(err)
	}
	st, _ := a.State()
	for _, msg := range st.Context {
		for _, b := range msg.Content {
			if r, ok := b.(*block.ToolResult); ok {
				fmt.Println(r.State, r.Output.Blocks[0].(*block.Text).Text)
			}
		}
	}
	fmt.Println(res.Outcome)
	// Output:
	// mcp__greeter__greet
	// success Hello, {"name":"Ada"}
	// completed
}
