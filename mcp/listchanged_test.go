package mcp_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

// countLists counts the tools/list requests srv receives.
func countLists(srv *sdk.Server) *atomic.Int64 {
	var n atomic.Int64
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "tools/list" {
				n.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	return &n
}

var readOnly = &sdk.ToolAnnotations{ReadOnlyHint: true}

func okResult(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
}

// A tool call that makes a go-sdk server add a tool: the server's
// list_changed notification trails the result (go-sdk debounces it), yet
// the next model call of the same reply offers the new tool.
func TestListChangedBeforeNextModelCall(t *testing.T) {
	for i := range 5 {
		srv := newGoServer()
		srv.AddTool(&sdk.Tool{Name: "add", InputSchema: objSchema, Annotations: readOnly}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			srv.AddTool(&sdk.Tool{Name: "two", InputSchema: objSchema, Annotations: readOnly}, okResult)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "added"}}}, nil
		})
		c := goServer(t, srv, mcp.Config{Name: "s"})
		a, m := newAgent(t, []scripted.Turn{call("c1", "mcp__s__add", `{}`), call("c2", "mcp__s__two", `{}`), done()}, []*mcp.Client{c})
		ask(t, a, "add")
		if tools := string(m.Calls()[1].Tools); !strings.Contains(tools, "mcp__s__two") {
			t.Fatalf("reply %d: the second model call did not offer mcp__s__two: %s", i, tools)
		}
		if r := results(t, a)["c2"]; r == nil || resultText(r) != "ok" {
			t.Fatalf("reply %d: the new tool's result %+v", i, r)
		}
	}
}

// A server (the fake) that announces the change seconds after the
// result: the next model call has the new tool all the same.
func TestListChangedNotificationLate(t *testing.T) {
	c := connect(t, fakeConfig("adder"))
	local, err := tool.Func("local", "A local tool.", func(context.Context, struct{}) (string, error) { return "local answer", nil })
	if err != nil {
		t.Fatal(err)
	}
	a, m := newAgent(t, []scripted.Turn{call("c1", "mcp__fake__add", `{}`), call("c2", "local", `{}`), done()}, []*mcp.Client{c}, local)
	if err := a.Permissions().SetMode("bypass"); err != nil {
		t.Fatal(err)
	}
	ask(t, a, "add")
	if strings.Contains(string(m.Calls()[0].Tools), "mcp__fake__added") {
		t.Fatal("the first model call already offered mcp__fake__added")
	}
	for i := 1; i < 3; i++ {
		if !strings.Contains(string(m.Calls()[i].Tools), "mcp__fake__added") {
			t.Fatalf("model call %d did not offer mcp__fake__added: %s", i, m.Calls()[i].Tools)
		}
	}
}

// Keeping the list current asks nothing of the server when nothing
// happened: model calls after local tool calls list nothing; one after a
// call to the server lists once.
func TestListChangedCheapWhenNothingChanged(t *testing.T) {
	srv := newGoServer()
	lists := countLists(srv)
	srv.AddTool(&sdk.Tool{Name: "one", InputSchema: objSchema, Annotations: readOnly}, okResult)
	c := goServer(t, srv, mcp.Config{Name: "s"})
	if n := lists.Load(); n != 1 {
		t.Fatalf("%d listings at Connect", n)
	}
	local, err := tool.Func("local", "A local tool.", func(context.Context, struct{}) (string, error) { return "local answer", nil })
	if err != nil {
		t.Fatal(err)
	}
	a, m := newAgent(t, []scripted.Turn{
		call("c1", "local", `{}`), call("c2", "local", `{}`), done(),
		call("c3", "mcp__s__one", `{}`), call("c4", "local", `{}`), done(),
	}, []*mcp.Client{c}, local)
	if err := a.Permissions().SetMode("bypass"); err != nil {
		t.Fatal(err)
	}
	ask(t, a, "local only")
	if n := lists.Load(); n != 1 || len(m.Calls()) != 3 {
		t.Fatalf("%d listings after %d model calls with local tools only", n, len(m.Calls()))
	}
	ask(t, a, "one server call")
	if n := lists.Load(); n != 2 {
		t.Fatalf("%d listings after a reply with one server call, want 2", n)
	}
	if r := results(t, a)["c3"]; resultText(r) != "ok" {
		t.Fatalf("c3 %q", resultText(r))
	}
}
