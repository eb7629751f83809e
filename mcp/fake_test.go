package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

// fakeEnv makes the test binary a misbehaving stdio MCP server; in mode
// "dieonce", fakeMarkEnv names the file that marks its first start.
const (
	fakeEnv     = "AGENTSCOPE_MCP_FAKE"
	fakeMarkEnv = "AGENTSCOPE_MCP_FAKE_MARK"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		fakeServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeServer speaks just enough JSON-RPC over stdio to misbehave in mode.
func fakeServer(mode string) {
	switch mode {
	case "sdk":
		sdkServer()
		return
	case "exit":
		fmt.Fprintln(os.Stderr, "fake: cannot open the database")
		os.Exit(3)
	case "garbage":
		fmt.Println("Starting up... this is a log line, not JSON")
	case "dieonce":
		// Started again (a reconnection), it never answers.
		if _, err := os.Stat(os.Getenv(fakeMarkEnv)); err == nil {
			mode = "silent"
		} else if err := os.WriteFile(os.Getenv(fakeMarkEnv), nil, 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	var outMu sync.Mutex // the late notification of "adder" writes too
	out := bufio.NewWriter(os.Stdout)
	write := func(line string) {
		outMu.Lock()
		defer outMu.Unlock()
		fmt.Fprintln(out, line)
		out.Flush()
	}
	reply := func(id json.RawMessage, result string) {
		write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result))
	}
	added := false // "adder": the call of add added the tool added
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
				Name            string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || req.ID == nil {
			continue // a notification
		}
		switch {
		case mode == "silent" || mode == "garbage":
			continue // never answers
		case req.Method == "initialize" && mode == "adder":
			reply(req.ID, fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"fake","version":"1"}}`, req.Params.ProtocolVersion))
		case req.Method == "initialize":
			reply(req.ID, fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}`, req.Params.ProtocolVersion))
		case req.Method == "tools/list" && mode == "adder":
			tools := `{"name":"good","inputSchema":{"type":"object"}},{"name":"add","inputSchema":{"type":"object"}}`
			if added {
				tools += `,{"name":"added","inputSchema":{"type":"object"}}`
			}
			reply(req.ID, `{"tools":[`+tools+`]}`)
		case req.Method == "tools/call" && mode == "adder" && req.Params.Name == "add":
			added = true
			reply(req.ID, `{"content":[{"type":"text","text":"added"}]}`)
			// A debouncing server announces the change well after the
			// result.
			time.AfterFunc(2*time.Second, func() { write(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`) })
		case req.Method == "tools/call" && mode == "dieonce":
			os.Exit(1)
		case req.Method == "tools/list":
			reply(req.ID, `{"tools":[`+
				`{"name":"good","inputSchema":{"type":"object","properties":{}}},`+
				`{"name":"bad","inputSchema":{"type":"object","properties":{}}},`+
				`{"name":"broken","inputSchema":{"type":"object","properties":{"a":{"type":"nonsense"}}}}]}`)
		case req.Method == "tools/call" && mode == "midgarbage":
			write("debug: handling a call (a log line on stdout)")
			reply(req.ID, `{"content":[{"type":"text","text":"good answer"}]}`)
		case req.Method == "tools/call" && mode == "hang":
			continue // never answers a call
		case req.Method == "tools/call" && req.Params.Name == "bad":
			reply(req.ID, `{"content":"not a list"}`)
		case req.Method == "tools/call":
			reply(req.ID, `{"content":[{"type":"text","text":"good answer"}]}`)
		default:
			reply(req.ID, `{}`)
		}
	}
}

func fakeConfig(mode string) mcp.Config {
	return mcp.Config{
		Name:         "fake",
		Command:      os.Args[0],
		Args:         []string{"-test.run=^$", "mode-" + mode},
		Env:          []string{fakeEnv + "=" + mode},
		StartTimeout: 2 * time.Second,
		Logger:       quiet,
	}
}

func TestBadServers(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want string // in the error
	}{
		{"exit", "fake: cannot open the database"},
		{"garbage", "invalid character"},
		{"silent", "deadline exceeded"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			start := time.Now()
			c, err := mcp.Connect(t.Context(), fakeConfig(tc.mode))
			if err == nil {
				c.Close()
				t.Fatal("connected")
			}
			var se *mcp.StartError
			if !errorsAs(err, &se) || !strings.Contains(err.Error(), os.Args[0]) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v", err)
			}
			t.Log(err)
			if took := time.Since(start); took > 5*time.Second {
				t.Fatalf("took %s", took)
			}
		})
	}
	t.Run("no such command", func(t *testing.T) {
		_, err := mcp.Connect(t.Context(), mcp.Config{Command: "/nonexistent/mcp-server", Args: []string{"x"}, Logger: quiet})
		if err == nil || !strings.Contains(err.Error(), `"/nonexistent/mcp-server x"`) {
			t.Fatalf("error %v", err)
		}
	})
}

// A malformed result and an unusable schema spoil one tool each; the
// agent goes on with the others.
func TestBadToolsAgentGoesOn(t *testing.T) {
	c := connect(t, fakeConfig("ok"))
	if rej := c.Rejected(); len(rej) != 1 || !strings.Contains(rej[0].Error(), "mcp__fake__broken") {
		t.Fatalf("rejected %v", rej)
	}
	if len(c.Tools()) != 2 {
		t.Fatalf("tools %d", len(c.Tools()))
	}
	local, err := tool.Func("local", "A local tool.", func(context.Context, struct{}) (string, error) { return "local answer", nil })
	if err != nil {
		t.Fatal(err)
	}
	a, _ := newAgent(t, []scripted.Turn{
		scripted.Stream(scripted.Multi(
			scripted.ToolCall("c1", "mcp__fake__bad", `{}`),
			scripted.ToolCall("c2", "mcp__fake__good", `{}`),
			scripted.ToolCall("c3", "local", `{}`),
			scripted.ToolCall("c4", "mcp__fake__broken", `{}`),
		)),
		done(),
	}, []*mcp.Client{c}, local)
	// MCP tools ask: approve them.
	res := ask(t, a, "go")
	for res.Outcome == agent.OutcomeAwaitingConfirmation {
		var fin agent.Result
		for _, err := range a.Confirm(t.Context(), approveAll(res), agent.WithResult(&fin)) {
			if err != nil {
				t.Fatal(err)
			}
		}
		res = &fin
	}
	if res.Outcome != agent.OutcomeCompleted {
		t.Fatalf("outcome %s", res.Outcome)
	}
	rs := results(t, a)
	if r := rs["c1"]; r.State != block.ResultError || !strings.HasPrefix(resultText(r), mcp.ErrorPrefix) {
		t.Errorf("malformed result: %s %q", r.State, resultText(r))
	}
	if r := rs["c2"]; r.State != block.ResultSuccess || resultText(r) != "good answer" {
		t.Errorf("good tool after the malformed result: %s %q", r.State, resultText(r))
	}
	if r := rs["c3"]; r.State != block.ResultSuccess || resultText(r) != "local answer" {
		t.Errorf("local tool: %s %q", r.State, resultText(r))
	}
	if r := rs["c4"]; r.State != block.ResultError || !strings.Contains(resultText(r), "doesn't exist") {
		t.Errorf("rejected tool: %s %q", r.State, resultText(r))
	}
}

// echoText is the Go function the benchmarks call directly and through MCP.
func echoText(s string) string { return "echo: " + s }

// sdkServer is a go-sdk stdio server with echo, block (which waits for
// its cancellation) and 100 more tools.
func sdkServer() {
	srv := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	schema := map[string]any{"type": "object", "properties": map[string]any{"s": map[string]any{"type": "string"}}, "required": []any{"s"}}
	h := func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct{ S string }
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: echoText(in.S)}}}, nil
	}
	srv.AddTool(&sdk.Tool{Name: "echo", Description: "Echo s.", InputSchema: schema}, h)
	srv.AddTool(&sdk.Tool{Name: "block", InputSchema: schema}, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		<-ctx.Done() // until the client cancels
		return nil, ctx.Err()
	})
	for i := range 100 {
		srv.AddTool(&sdk.Tool{Name: fmt.Sprintf("tool_%03d", i), Description: "One of many.", InputSchema: schema}, h)
	}
	if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Misbehaviour during a call, not at startup: each call is a clear error
// result within a bound, and the agent's other tool works after it.
func TestBadCallsAgentGoesOn(t *testing.T) {
	for _, tc := range []struct {
		name, mode, tool string
		callTimeout      time.Duration
		want             string // the error result starts with it
	}{
		{"garbage on stdout mid-call", "midgarbage", "good",
			0, mcp.ErrorPrefix + `the connection to the MCP server "fake" failed (calling "tools/call": invalid character`},
		{"hang mid-call", "hang", "good",
			300 * time.Millisecond, mcp.ErrorPrefix + `the call to "good" timed out after 300ms`},
		{"malformed result", "ok", "bad", 0, mcp.ErrorPrefix},
		{"invalid schema", "ok", "broken", 0, "ToolNotFoundError: The tool named 'mcp__fake__broken' doesn't exist."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := fakeConfig(tc.mode)
			cfg.CallTimeout = tc.callTimeout
			c := connect(t, cfg)
			local, err := tool.Func("local", "A local tool.", func(context.Context, struct{}) (string, error) { return "local answer", nil })
			if err != nil {
				t.Fatal(err)
			}
			a, _ := newAgent(t, []scripted.Turn{
				call("c1", "mcp__fake__"+tc.tool, `{}`), call("c2", "local", `{}`), done(),
			}, []*mcp.Client{c}, local)
			if err := a.Permissions().SetMode("bypass"); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res := ask(t, a, "go")
			took := time.Since(start)
			if res.Outcome != agent.OutcomeCompleted {
				t.Fatalf("outcome %s", res.Outcome)
			}
			rs := results(t, a)
			if r := rs["c1"]; r.State != block.ResultError || !strings.HasPrefix(resultText(r), tc.want) {
				t.Errorf("the bad call: %s %q, want it to start with %q", r.State, resultText(r), tc.want)
			}
			if r := rs["c2"]; r.State != block.ResultSuccess || resultText(r) != "local answer" {
				t.Errorf("the healthy tool after it: %s %q", r.State, resultText(r))
			}
			if bound := tc.callTimeout + 3*time.Second; took > bound {
				t.Errorf("the reply took %s, more than %s", took, bound)
			}
		})
	}
}

// An interrupt that arrives while another caller reconnects (sessions of
// serve share one client) is answered at once, not after the other
// caller's StartTimeout.
func TestInterruptWhileAnotherReconnects(t *testing.T) {
	cfg := fakeConfig("dieonce")
	cfg.Env = append(cfg.Env, fakeMarkEnv+"="+t.TempDir()+"/started")
	cfg.StartTimeout = 3 * time.Second
	c := connect(t, cfg)
	good := lookup(t, c, "mcp__fake__good")
	// The server exits on the call: the connection is gone.
	if r := fold(t, run(t.Context(), good, map[string]any{})); r.State != block.ResultError {
		t.Fatalf("the call that kills the server: %s %q", r.State, text(r))
	}
	// This call reconnects to a server that never answers the handshake.
	first := make(chan struct{})
	go func() {
		defer close(first)
		for range good.Call(context.Background(), map[string]any{}) {
		}
	}()
	time.Sleep(300 * time.Millisecond) // the first call holds the reconnection
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	var err error
	for _, e := range good.Call(ctx, map[string]any{}) {
		err = e
	}
	if took := time.Since(start); !errors.Is(err, context.Canceled) || took > time.Second {
		t.Fatalf("the interrupted call ended with %v after %s", err, took)
	}
	<-first
}
