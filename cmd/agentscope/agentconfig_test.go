package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/agentscope-go/agentscope/engine"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/session/sqlite"
)

// The example config committed under examples/ loads, and each of its
// agents serves a reply (on the demo model) through the API, as `serve
// --config examples/agents.json` would.
func TestServeConfigExample(t *testing.T) {
	specs, err := readAgentFile(filepath.Join("..", "..", "examples", "agents.json"))
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	agents, closeMCP, err := buildAgents(context.Background(), specs, func(int) string { return "" }, mcpSetup{Logger: logger}, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer closeMCP()
	if len(agents) != 2 || agents[0].ID != "demo" || agents[1].ID != "reader" || agents[1].Name != "reader" {
		t.Fatalf("agents %+v", agents)
	}
	reader, err := agents[1].New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := reader.Permissions().Mode(); m != permission.ModeExplore {
		t.Errorf("reader's permission mode %q, want explore", m)
	}
	var names []string
	for _, tl := range reader.Toolkit().Tools(nil) {
		names = append(names, tl.Name())
	}
	if got := strings.Join(names, ","); got != "Read,Glob,Grep,calculate,get_time" {
		t.Errorf("reader's tools %s", got)
	}

	store, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(t.TempDir(), "example.db")})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: engine.Config{Store: store, Agents: agents}, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close(); store.Close() })
	s := &apiServer{t: t, url: hs.URL}
	var list struct {
		Agents []struct{ ID, Name string } `json:"agents"`
	}
	s.get("/agent/", &list)
	if len(list.Agents) != 2 || list.Agents[0].ID != "demo" || list.Agents[1].ID != "reader" {
		t.Fatalf("GET /agent/: %+v", list)
	}
	for _, tc := range []struct{ agent, prompt, want string }{
		{"demo", "save a note: from the example\ny\n", `saved the note "from the example"`},
		{"reader", "calculate 12*(3+4)\n", "The calculate tool says: 12*(3+4) = 84"},
	} {
		var errb syncBuffer
		var out syncBuffer
		code := run(context.Background(), []string{"chat", "--server", s.url, "--user", "tester", "--agent", tc.agent},
			strings.NewReader(tc.prompt), &out, &errb)
		if code != exitOK || !strings.Contains(out.String(), tc.want) {
			t.Fatalf("agent %s: exit %d, no %q in\n%s\n%s", tc.agent, code, tc.want, out.String(), errb.String())
		}
		sid := regexp.MustCompile(`session ([0-9a-f]+) \(agent ` + tc.agent + `\)`).FindStringSubmatch(errb.String())
		if sid == nil {
			t.Fatalf("no session id in %s", errb.String())
		}
		if msgs := s.messages(sid[1]); len(msgs) != 2 || !strings.Contains(msgs[1], tc.want) {
			t.Fatalf("agent %s: transcript %q", tc.agent, msgs)
		}
	}
}

// A bad config file is refused before anything starts, with an error that
// names the file and the field.
func TestServeConfigErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, file, want string }{
		{"cut short", `{"agents": [`, "bad.json: the JSON ends too soon"},
		{"malformed", "{\"agents\": [\n  {\"id\": \"a\",,}]}", "bad.json: line 2: invalid character ','"},
		{"unknown top-level field", `{"agent": []}`, `unknown field "agent"`},
		{"no agents", `{"agents": []}`, "agents: at least one agent is required"},
		{"unknown agent field", `{"agents": [{"id":"a","model":"demo","modle":"x"}]}`, `agents[0]: json: unknown field "modle"`},
		{"wrong type", `{"agents": [{"id":"a","model":"demo","max_iters":"5"}]}`, "agents[0]: max_iters: want a JSON int"},
		{"no id", `{"agents": [{"model":"demo"}]}`, "agents[0].id: required"},
		{"no model", `{"agents": [{"id":"a"}]}`, "agents[0].model: required"},
		{"duplicate id", `{"agents": [{"id":"a","model":"demo"},{"id":"a","model":"demo"}]}`, `agents[1].id: "a" is also the id of agents[0]`},
		{"unknown tool", `{"agents": [{"id":"a","model":"demo","tools":["Read","Nope"]}]}`, `agents[0].tools: [1] unknown tool "Nope"`},
		{"unknown tool set", `{"agents": [{"id":"a","model":"demo","tools":"everything"}]}`, `agents[0].tools: unknown tool "everything"`},
		{"tools of a wrong type", `{"agents": [{"id":"a","model":"demo","tools":5}]}`, `agents[0].tools: want a tool set`},
		{"bad permission mode", `{"agents": [{"id":"a","model":"demo","permission_mode":"yolo"}]}`, `agents[0].permission_mode: "yolo"`},
		{"negative max_iters", `{"agents": [{"id":"a","model":"demo","max_iters":-1}]}`, "agents[0].max_iters: -1"},
		{"bad mcp spec", `{"agents": [{"id":"a","model":"demo","mcp":[""]}]}`, "agents[0].mcp[0]:"},
		{"bad a2a spec", `{"agents": [{"id":"a","model":"demo","a2a":["x=ftp://host/"]}]}`, "agents[0].a2a[0]: \"x=ftp://host/\": want NAME=URL"},
		{"a2a agent not there", `{"agents": [{"id":"a","model":"demo","a2a":["x=http://127.0.0.1:1"]}]}`, "agents[0].a2a[0]: \"x=http://127.0.0.1:1\": a2a: agent card"},
		{"bad sandbox", `{"agents": [{"id":"a","model":"demo","tools":"builtin","sandbox":"strict"}]}`, `agents[0].sandbox: "strict": want workspace-write or read-only`},
		{"sandbox without Bash", `{"agents": [{"id":"a","model":"demo","tools":["Read"],"sandbox":"read-only"}]}`, "agents[0].sandbox: the agent has no Bash tool"},
		{"sandbox_network alone", `{"agents": [{"id":"a","model":"demo","tools":"builtin","sandbox_network":true}]}`, "agents[0].sandbox_network: only with sandbox"},
		{"external tool without a name", `{"agents": [{"id":"a","model":"demo","external_tools":[{"description":"d"}]}]}`, "agents[0].external_tools[0].name: required"},
		{"external tool with a bad name", `{"agents": [{"id":"a","model":"demo","external_tools":[{"name":"look up","description":"d"}]}]}`, `agents[0].external_tools[0].name: "look up": want 1 to 64 letters`},
		{"external tool without a description", `{"agents": [{"id":"a","model":"demo","external_tools":[{"name":"lookup"}]}]}`, "agents[0].external_tools[0].description: required"},
		{"external tool named as a tool", `{"agents": [{"id":"a","model":"demo","tools":"demo","external_tools":[{"name":"calculate","description":"d"}]}]}`, `agents[0].external_tools[0].name: "calculate" is also one of the agent's tools`},
		{"external tool named as a built-in", `{"agents": [{"id":"a","model":"demo","tools":["Read"],"external_tools":[{"name":"x","description":"d"},{"name":"Read","description":"d"}]}]}`, `agents[0].external_tools[1].name: "Read" is also one of the agent's tools`},
		{"external tool named as the meta tool", `{"agents": [{"id":"a","model":"demo","external_tools":[{"name":"reset_tools","description":"d"}]}]}`, `agents[0].external_tools[0].name: "reset_tools" is the name of a tool the agent makes itself`},
		{"external tool named as an MCP tool", `{"agents": [{"id":"a","model":"demo","external_tools":[{"name":"mcp__fs__read","description":"d"}]}]}`, `agents[0].external_tools[0].name: "mcp__fs__read": the prefixes`},
		{"external tool twice", `{"agents": [{"id":"a","model":"demo","external_tools":[{"name":"x","description":"d"},{"name":"x","description":"e"}]}]}`, `agents[0].external_tools[1].name: "x" is also the name of external_tools[0]`},
		{"external tool with a non-object schema", `{"agents": [{"id":"a","model":"demo","external_tools":[{"name":"x","description":"d","parameters":{"type":"string"}}]}]}`, "agents[0].external_tools[0].parameters: tool x: invalid input schema"},
		{"external tool with a broken schema", `{"agents": [{"id":"a","model":"demo","external_tools":[{"name":"x","description":"d","parameters":{"type":"object","properties":5}}]}]}`, "agents[0].external_tools[0].parameters: tool x: invalid input schema"},
		{"external tool with an unknown field", `{"agents": [{"id":"a","model":"demo","external_tools":[{"name":"x","description":"d","params":{}}]}]}`, `agents[0]: json: unknown field "params"`},
		{"external_tools of a wrong type", `{"agents": [{"id":"a","model":"demo","external_tools":{"name":"x"}}]}`, "agents[0]: external_tools: want a JSON"},
		{"unknown model scheme", `{"agents": [{"id":"a","model":"nosuch:model"}]}`, "agents[0].model:"},
		{"model without its key", `{"agents": [{"id":"a","model":"demo"},{"id":"b","model":"anthropic:claude-sonnet-4-5"}]}`, "agents[1].model: setup: no API key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ANTHROPIC_API_KEY", "")
			path := filepath.Join(dir, "bad.json")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runIn(t, "", "serve", "--config", path, "--db", filepath.Join(dir, "never.db"), "--addr", "127.0.0.1:0")
			if code != exitUsage || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, path) {
				t.Fatalf("exit %d, want %d; stderr %q, want it to name %s and say %q", code, exitUsage, stderr, path, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "never.db")); err == nil {
				t.Fatal("a bad config opened the store")
			}
		})
	}
	// The agent flags and --config do not mix.
	code, _, stderr := runIn(t, "", "serve", "--config", filepath.Join("..", "..", "examples", "agents.json"), "--model", "demo", "--addr", "127.0.0.1:0")
	if code != exitUsage || !strings.Contains(stderr, "--config and --model") {
		t.Fatalf("--config with --model: exit %d, %s", code, stderr)
	}
	// The flags get the same checks, named by flag.
	code, _, stderr = runIn(t, "", "serve", "--tools", "Read,Nope", "--addr", "127.0.0.1:0")
	if code != exitUsage || !strings.Contains(stderr, `--tools: unknown tool "Nope"`) {
		t.Fatalf("--tools with an unknown tool: exit %d, %s", code, stderr)
	}
	code, _, stderr = runIn(t, "", "serve", "--permission-mode", "yolo", "--addr", "127.0.0.1:0")
	if code != exitUsage || !strings.Contains(stderr, "permission-mode") {
		t.Fatalf("--permission-mode yolo: exit %d, %s", code, stderr)
	}
}

// serve's agent flags build the agent a config file would: a comma list
// of tool names, the permission mode and max_iters, on every run's agent,
// and a user's agent built on it (Derive) keeps them under its own name
// and prompt.
func TestServeFlagAgent(t *testing.T) {
	s := agentSpec{ID: "mine", Model: "demo", Name: "helper", PermissionMode: "dont_ask", MaxIters: 3, Tools: []byte(`"Read, calculate"`)}
	a, err := s.build(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != "mine" || a.Name != "helper" || !strings.HasPrefix(a.Description, "DEMO") {
		t.Fatalf("agent %+v", a)
	}
	for _, o := range []engine.Overrides{{}, {Name: "other", SystemPrompt: "p", MaxIters: 7}} {
		ag, err := a.Derive(nil, o)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range ag.Toolkit().Tools(nil) {
			names = append(names, tl.Name())
		}
		want := "helper"
		if o.Name != "" {
			want = o.Name
		}
		if ag.Name() != want || ag.Permissions().Mode() != permission.ModeDontAsk || strings.Join(names, ",") != "Read,calculate" {
			t.Errorf("overrides %+v: agent %s, mode %s, tools %v", o, ag.Name(), ag.Permissions().Mode(), names)
		}
	}
}

// An agent's external_tools join its other tools as external ones (the
// host runs them), with the file's description and parameters; one that
// gives no parameters takes none.
func TestServeConfigExternalTools(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agents.json")
	file := `{"agents": [{"id":"a","model":"demo","tools":["calculate"],"external_tools":[
		{"name":"lookup","description":"looks a word up","parameters":{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]}},
		{"name":"ring","description":"rings the bell"}]}]}`
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	specs, err := readAgentFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := specs[0].build(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ag, err := a.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range ag.Toolkit().Tools(nil) {
		names = append(names, tl.Name())
	}
	if got := strings.Join(names, ","); got != "calculate,lookup,ring" {
		t.Fatalf("tools %s", got)
	}
	for _, tc := range []struct{ name, desc, schema string }{
		{"lookup", "looks a word up", `{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]}`},
		{"ring", "rings the bell", `{"type":"object","properties":{}}`},
	} {
		tl, ok := ag.Toolkit().Lookup(tc.name)
		if !ok {
			t.Fatalf("no tool %s", tc.name)
		}
		if !tl.Flags().External || tl.Description() != tc.desc || string(tl.InputSchema()) != tc.schema {
			t.Errorf("%s: external %v, description %q, schema %s", tc.name, tl.Flags().External, tl.Description(), tl.InputSchema())
		}
	}
	if calc, _ := ag.Toolkit().Lookup("calculate"); calc.Flags().External {
		t.Error("calculate became external")
	}
}

// A config file's external tool over the real binary's API, as README
// tells a client to answer it: the scripted model calls it, the reply
// parks (REQUIRE_EXTERNAL_EXECUTION, status awaiting_external_result),
// a result for a call it is not waiting on is refused, and the README's
// EXTERNAL_EXECUTION_RESULT resumes it with the result in the answer.
func TestServeExternalToolResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and execs the binary")
	}
	path := filepath.Join(t.TempDir(), "agents.json")
	cfg, _ := json.Marshal(map[string]any{"agents": []map[string]any{{"id": "ext", "model": uiModel(t), "tools": "none",
		"permission_mode": "bypass", "external_tools": []map[string]any{{"name": "lookup", "description": "looks a word up",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"word": map[string]any{"type": "string"}}}}}}}})
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, buildBinary(t), freeAddr(t), filepath.Join(t.TempDir(), "ext.db"), "--config", path)
	code, body := s.call("POST", "/sessions/", `{"agent_id":"ext"}`)
	var created struct {
		SessionID string `json:"session_id"`
	}
	if code != 201 || json.Unmarshal([]byte(body), &created) != nil {
		t.Fatalf("create: %d %s", code, body)
	}
	sid := created.SessionID
	ch, _ := s.sse(sid, 0)
	msg := `{"role":"user","name":"newcomer","content":[{"type":"text","text":"EXTERNAL serendipity"}]}`
	if code, body := s.call("POST", "/chat/", fmt.Sprintf(`{"agent_id":"ext","session_id":%q,"input":%s}`, sid, msg)); code != 200 {
		t.Fatalf("chat: %d %s", code, body)
	}
	parked := until(t, ch, event.TypeRequireExternalExecution)
	req := parked[len(parked)-1].ev.(*event.RequireExternalExecution)
	if len(req.ToolCalls) != 1 || req.ToolCalls[0].Name != "lookup" || req.ToolCalls[0].Input != `{"word":"serendipity"}` {
		t.Fatalf("parked on %+v", req.ToolCalls)
	}
	if _, body := s.call("GET", "/sessions/"+sid+"/status?agent_id=ext", ""); !strings.Contains(body, `"awaiting_external_result"`) {
		t.Fatalf("status %s", body)
	}
	answer := func(id string) (int, string) {
		return s.call("POST", "/chat/", fmt.Sprintf(`{"agent_id":"ext","session_id":%q,"input":{"type":"EXTERNAL_EXECUTION_RESULT","reply_id":%q,`+
			`"execution_results":[{"type":"tool_result","id":%q,"name":"lookup","output":"a happy accident","state":"success"}]}}`, sid, req.ReplyID, id))
	}
	if code, body := answer("call_other"); code != 422 {
		t.Fatalf("a result for another call: %d %s, want 422", code, body)
	}
	if code, body := answer(req.ToolCalls[0].ID); code != 200 {
		t.Fatalf("result: %d %s", code, body)
	}
	frames := until(t, ch, event.TypeReplyEnd)
	if end := frames[len(frames)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyCompleted {
		t.Fatalf("reply ended %s", end.FinishedReason)
	}
	if _, body := s.call("GET", "/sessions/"+sid+"/messages", ""); !strings.Contains(body, "the lookup says: a happy accident") {
		t.Fatalf("transcript %s", body)
	}
}
