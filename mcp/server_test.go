package mcp_test

import (
	"context"
	"encoding/json"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

// served connects a go-sdk client in memory to an agent served with
// mcp.NewServer; progress notifications go to progress.
func served(t *testing.T, newAgent func() (*agent.Agent, error), progress func(*sdk.ProgressNotificationParams)) *sdk.ClientSession {
	t.Helper()
	srv, err := mcp.NewServer(mcp.ServerConfig{NewAgent: newAgent, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			if progress != nil {
				progress(r.Params)
			}
		},
	})
	cs, err := c.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func scriptedAgent(turns []scripted.Turn, tools ...tool.Tool) func() (*agent.Agent, error) {
	return func() (*agent.Agent, error) {
		tk, err := tool.NewToolkit(tools)
		if err != nil {
			return nil, err
		}
		return agent.New(agent.Config{Name: "Friday", Model: scripted.New("m", turns), Toolkit: tk,
			RuntimeState: agent.RuntimeStateConfig{Disabled: true}, Logger: quiet})
	}
}

func TestServerAnswers(t *testing.T) {
	var mu sync.Mutex
	deltas := map[float64]string{}
	cs := served(t, scriptedAgent([]scripted.Turn{scripted.Stream(
		scripted.Text("Hello"), scripted.Text(", Ada"), scripted.Data("img", "image/png", "iVBORw0KGgo="),
	)}), func(p *sdk.ProgressNotificationParams) {
		mu.Lock()
		deltas[p.Progress] = p.Message
		mu.Unlock()
	})
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schema, _ := json.Marshal(tools.Tools[0].InputSchema)
	if len(tools.Tools) != 1 || tools.Tools[0].Name != "ask" || !strings.Contains(string(schema), `"message"`) {
		t.Fatalf("tools %+v %s", tools.Tools, schema)
	}
	params := &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{"message": "Greet Ada"}}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(t.Context(), params)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("result %+v", res)
	}
	if txt := res.Content[0].(*sdk.TextContent).Text; txt != "Hello, Ada" {
		t.Fatalf("text %q", txt)
	}
	if img, ok := res.Content[1].(*sdk.ImageContent); !ok || img.MIMEType != "image/png" || string(img.Data[1:4]) != "PNG" {
		t.Fatalf("image %+v", res.Content[1])
	}
	// Notifications are handled apart from the result: they may come
	// after it, each numbered.
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		got := deltas[1] + deltas[2]
		n := len(deltas)
		mu.Unlock()
		if n == 2 && got == "Hello, Ada" {
			break
		}
		if n > 2 || time.Now().After(deadline) {
			t.Fatalf("progress %v", deltas)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestServerParkedReply(t *testing.T) {
	rm, err := tool.Func("rm", "Remove a file.", func(context.Context, struct {
		Path string `json:"path"`
	}) (string, error) {
		return "removed", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	turns := []scripted.Turn{scripted.Stream(scripted.ToolCall("call_1", "rm", `{"path":"x"}`)), scripted.Stream(scripted.Text("Done."))}
	cs := served(t, scriptedAgent(turns, rm), nil)
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{"message": "rm x"}})
	if err != nil {
		t.Fatal(err)
	}
	if txt := res.Content[0].(*sdk.TextContent).Text; !res.IsError || !strings.Contains(txt, "permission to run: rm (call_1)") {
		t.Fatalf("result %v %q", res.IsError, txt)
	}

	// Unattended (bypass), the same reply runs through.
	bypass := func() (*agent.Agent, error) {
		a, err := scriptedAgent(turns, rm)()
		if err == nil {
			err = a.Permissions().SetMode(permission.ModeBypass)
		}
		return a, err
	}
	cs2 := served(t, bypass, nil)
	res, err = cs2.CallTool(t.Context(), &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{"message": "rm x"}})
	if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != "Done." {
		t.Fatalf("bypass: %v %+v", err, res)
	}
}

// The client's cancellation interrupts the reply: its tool call is
// answered interrupted.
func TestServerCancelInterrupts(t *testing.T) {
	started := make(chan struct{})
	wait, err := tool.New("wait", "Wait.", json.RawMessage(`{"type":"object","properties":{}}`),
		func(ctx context.Context, _ map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) {
				close(started)
				<-ctx.Done()
				yield(tool.Chunk{}, ctx.Err())
			}
		}, tool.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	var a *agent.Agent
	newAgent := func() (*agent.Agent, error) {
		var err error
		a, err = scriptedAgent([]scripted.Turn{scripted.Stream(scripted.ToolCall("call_1", "wait", `{}`))}, wait)()
		return a, err
	}
	cs := served(t, newAgent, nil)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{"message": "wait"}}); err == nil {
		t.Fatal("the cancelled call returned a result")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		var got *block.ToolResult
		if st, err := a.State(); err == nil {
			for _, m := range st.Context {
				for _, b := range m.Content {
					if r, ok := b.(*block.ToolResult); ok {
						got = r
					}
				}
			}
		}
		if got != nil {
			if got.State != block.ResultInterrupted {
				t.Fatalf("tool result %s", got.State)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the reply was not interrupted")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
