package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/state"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeMCPEnv makes the test binary a stdio MCP server named "fake" with
// the tools good and broken (an input schema that is not valid JSON
// Schema); in mode "hang" it never answers a call.
const fakeMCPEnv = "AGENTSCOPE_CLI_FAKE_MCP"

func fakeMCPServer(mode string) {
	out := bufio.NewWriter(os.Stdout)
	reply := func(id json.RawMessage, result string) {
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
		out.Flush()
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || req.ID == nil {
			continue // a notification
		}
		switch {
		case req.Method == "initialize":
			reply(req.ID, fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}`, req.Params.ProtocolVersion))
		case req.Method == "tools/list":
			reply(req.ID, `{"tools":[`+
				`{"name":"good","inputSchema":{"type":"object","properties":{}}},`+
				`{"name":"broken","inputSchema":{"type":"object","properties":{"a":{"type":"nonsense"}}}}]}`)
		case req.Method == "tools/call" && mode == "hang":
			continue
		case req.Method == "tools/call":
			reply(req.ID, `{"content":[{"type":"text","text":"good answer"}]}`)
		default:
			reply(req.ID, `{}`)
		}
	}
}

// fakeMCPSpec is the --mcp SPEC of the fake server in mode.
func fakeMCPSpec(t *testing.T, mode string) string {
	t.Helper()
	return fmt.Sprintf("fake=env %s=%s %s -test.run=^$", fakeMCPEnv, mode, os.Args[0])
}

// webMCP serves a go-sdk MCP server named "web", with the tool hello,
// over streamable HTTP on 127.0.0.1, and returns its URL.
func webMCP(t *testing.T) string {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "hello", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello from the web"}}}, nil
		})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp"
}

// A server that hangs mid-call: with --mcp-timeout the reply goes on with
// an error result in time; the default bound is documented in -h.
func TestRunMCPTimeout(t *testing.T) {
	srv, bodies := toolCallServer(t, "mcp__fake__good", `{}`)
	start := time.Now()
	code, stdout, stderr := runIn(t, "", "run", "--model", "openai-compatible:m@"+srv.URL+"/v1",
		"--mcp", fakeMCPSpec(t, "hang"), "--mcp-timeout", "500ms", "--permission-mode", "bypass", "go")
	took := time.Since(start)
	b := bodies()
	if code != 0 || stdout != "Done.\n" || len(b) != 2 {
		t.Fatalf("exit %d, stdout %q, stderr %q, requests %q", code, stdout, stderr, b)
	}
	if want := `Error occurred when calling MCP tool: the call to \"good\" timed out after 500ms`; !strings.Contains(b[1], want) {
		t.Fatalf("the tool result in the second request lacks %q: %s", want, b[1])
	}
	if took > 5*time.Second {
		t.Fatalf("run took %s with --mcp-timeout 500ms", took)
	}
	for _, cmd := range []string{"run", "serve", "mcp"} {
		_, _, help := runIn(t, "", cmd, "-h")
		if !strings.Contains(help, "-mcp-timeout duration") || !strings.Contains(help, "(default 5m0s)") {
			t.Errorf("%s -h does not show --mcp-timeout with its 5m default:\n%s", cmd, help)
		}
	}
	code, _, stderr = runIn(t, "", "run", "--model", "demo", "--mcp", fakeMCPSpec(t, "ok"), "--mcp-timeout", "-1s", "hi")
	if code == 0 || !strings.Contains(stderr, "--mcp-timeout must not be negative") {
		t.Fatalf("a negative --mcp-timeout: exit %d, stderr %q", code, stderr)
	}
}

// A tool left out for its schema is named on stderr; the agent uses the
// server's good tool all the same.
func TestRunMCPRejectedTool(t *testing.T) {
	srv, bodies := toolCallServer(t, "mcp__fake__good", `{}`)
	code, stdout, stderr := runIn(t, "", "run", "--model", "openai-compatible:m@"+srv.URL+"/v1",
		"--mcp", fakeMCPSpec(t, "ok"), "--permission-mode", "bypass", "go")
	b := bodies()
	if code != 0 || stdout != "Done.\n" || len(b) != 2 || !strings.Contains(b[1], "good answer") {
		t.Fatalf("exit %d, stdout %q, stderr %q, requests %q", code, stdout, stderr, b)
	}
	if !strings.Contains(stderr, `agentscope run: MCP server "fake": a tool is left out:`) || !strings.Contains(stderr, "mcp__fake__broken") {
		t.Fatalf("stderr does not name the left-out tool: %q", stderr)
	}
	if strings.Contains(b[0], "mcp__fake__broken") {
		t.Fatalf("the model was offered the broken tool: %s", b[0])
	}
}

// Two --mcp flags, a URL and a command line, add up; two servers with one
// name are refused.
func TestRunMCPTwoServers(t *testing.T) {
	url := webMCP(t)
	srv, bodies := toolCallServer(t, "mcp__web__hello", `{}`)
	code, stdout, stderr := runIn(t, "", "run", "--model", "openai-compatible:m@"+srv.URL+"/v1",
		"--mcp", url, "--mcp", fakeMCPSpec(t, "ok"), "--permission-mode", "bypass", "go")
	b := bodies()
	if code != 0 || stdout != "Done.\n" || len(b) != 2 {
		t.Fatalf("exit %d, stdout %q, stderr %q, requests %q", code, stdout, stderr, b)
	}
	if !strings.Contains(b[0], `"name":"mcp__web__hello"`) || !strings.Contains(b[0], `"name":"mcp__fake__good"`) || !strings.Contains(b[1], "hello from the web") {
		t.Fatalf("requests %q", b)
	}
	code, _, stderr = runIn(t, "", "run", "--model", "demo", "--mcp", url, "--mcp", "web="+fakeMCPSpec(t, "ok")[len("fake="):], "hi")
	if code != exitFailure || !strings.Contains(stderr, `are both named "web": name one with NAME=`) {
		t.Fatalf("a duplicate name: exit %d, stderr %q", code, stderr)
	}
}

// agentscope mcp --http off loopback needs a token.
func TestMCPHTTPOffLoopbackNeedsToken(t *testing.T) {
	t.Setenv("AGENTSCOPE_TOKEN", "")
	code, _, stderr := runIn(t, "", "mcp", "--http", "0.0.0.0:0")
	if code != exitUsage || !strings.Contains(stderr, "listening on 0.0.0.0:0 (not loopback) requires a token") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// A served agent (serve and mcp build one per run) sees a tool its MCP
// server added during a call in the same run's next model call, and the
// next run has it too.
func TestServedAgentSeesToolsAddedMidRun(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "grow", Version: "1"}, nil)
	obj := map[string]any{"type": "object"}
	srv.AddTool(&sdk.Tool{Name: "add", InputSchema: obj}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		srv.AddTool(&sdk.Tool{Name: "two", InputSchema: obj}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "two"}}}, nil
		})
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "added"}}}, nil
	})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	llm, bodies := toolCallServer(t, "mcp__grow__add", `{}`)
	logger := slog.New(slog.DiscardHandler)
	spec := agentSpec{ID: "a", Model: "openai-compatible:m@" + llm.URL + "/v1", MCP: []string{"grow=" + hs.URL + "/mcp"}, PermissionMode: "bypass"}
	agents, closeMCP, err := buildAgents(t.Context(), []agentSpec{spec}, func(int) string { return "" }, mcpSetup{CallTimeout: time.Minute, Logger: logger}, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer closeMCP()
	for run := range 2 {
		a, err := agents[0].New(state.New(nil))
		if err != nil {
			t.Fatal(err)
		}
		u, _ := message.UserMsg("user", []block.Block{block.NewText("go")})
		if _, err := a.Reply(t.Context(), []*message.Msg{u}); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
	}
	b := bodies()
	if len(b) != 3 || strings.Contains(b[0], "mcp__grow__two") || !strings.Contains(b[1], `"name":"mcp__grow__two"`) || !strings.Contains(b[2], `"name":"mcp__grow__two"`) {
		t.Fatalf("the requests after the call that added mcp__grow__two do not all offer it: %q", b)
	}
}
