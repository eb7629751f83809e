package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentscope-go/agentscope/engine"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/demo"
	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/provider"
	"github.com/agentscope-go/agentscope/offload"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
	"github.com/agentscope-go/agentscope/tool/builtin"
)

// agentFile is the JSON file of `serve --config`: the agents to serve.
// JSON because the standard library reads it and nothing else in the
// repository needs YAML or TOML.
type agentFile struct {
	Agents []json.RawMessage `json:"agents"`
}

// agentSpec is one agent of a config file, or of serve's flags: the same
// fields either way.
type agentSpec struct {
	// ID is what clients send as agent_id. Required in a file.
	ID string `json:"id"`
	// Name authors the agent's replies ("": "assistant").
	Name string `json:"name"`
	// Description is shown by GET /agent/ ("": the model's).
	Description string `json:"description"`
	// Model is a model URI, as `run --model` takes ("demo": the keyless
	// demo model). Required in a file.
	Model string `json:"model"`
	// BaseURL overrides the provider's API URL.
	BaseURL string `json:"base_url"`
	// SystemPrompt is the system prompt.
	SystemPrompt string `json:"system_prompt"`
	// Tools is a tool set ("demo", "builtin", "none") or a list of tool
	// names and sets (["Read", "Grep", "calculate"]); absent: "demo" for
	// the demo model, else none.
	Tools json.RawMessage `json:"tools"`
	// MCP are MCP servers whose tools the agent gets: the SPECs of
	// `run --mcp`.
	MCP []string `json:"mcp"`
	// A2A are remote A2A agents the agent gets as tools (a2a__NAME): the
	// NAME=URL values of `run --a2a`.
	A2A []string `json:"a2a"`
	// PermissionMode is the reference's permission mode ("": default).
	PermissionMode string `json:"permission_mode"`
	// MaxIters bounds the reasoning-acting rounds of a reply (0: the
	// agent's default).
	MaxIters int `json:"max_iters"`
	// Context is the agent's long-context settings (absent: the
	// reference's defaults, agent.ContextConfig).
	Context *contextSettings `json:"context"`
	// Sandbox runs the agent's Bash tool in an OS sandbox
	// (builtin.Sandbox): "workspace-write" or "read-only" ("": none, or
	// serve's and chat's --sandbox). The agent must have Bash.
	Sandbox string `json:"sandbox"`
	// SandboxNetwork lets the sandboxed Bash use the network (only with
	// Sandbox).
	SandboxNetwork bool `json:"sandbox_network"`
	// ExternalTools are tools the host runs, not the server
	// (tool.External): a call of one, once allowed, parks the reply with
	// REQUIRE_EXTERNAL_EXECUTION until a client posts the result as an
	// EXTERNAL_EXECUTION_RESULT.
	ExternalTools []externalTool `json:"external_tools"`

	// secretPaths are files the agent's tools read only after asking
	// (builtin.Config.SecretPaths): the store of the server serving it.
	secretPaths []string
	// remotes are the connected agents of A2A, whose tools each run gets.
	remotes []remoteAgent
	// timeouts bound the model's silences (run's --timeout; zero: the
	// provider's defaults).
	timeouts model.Timeouts
	// offload is the folder what the context sheds goes to (offload.Dir;
	// "": it is dropped): beside the store of the server serving it.
	offload string
}

// contextSettings are the fields of agent.ContextConfig an agents file
// may set; zero keeps the reference's default.
type contextSettings struct {
	// ContextSize is the model's context window in tokens.
	ContextSize int `json:"context_size"`
	// TriggerRatio is the share of it past which the context is
	// compressed.
	TriggerRatio float64 `json:"trigger_ratio"`
	// ReserveRatio is the share kept, newest first, out of a compression.
	ReserveRatio float64 `json:"reserve_ratio"`
	// ToolResultLimit is the size in tokens past which a tool result is
	// cut (the rest offloaded).
	ToolResultLimit int `json:"tool_result_limit"`
	// MaxImages is how many images the context keeps (-1: none).
	MaxImages int `json:"max_images"`
}

// externalTool is one entry of an agent's external_tools: what the model
// is told of a tool the host runs.
type externalTool struct {
	// Name is the tool's name, as the model calls it. Required.
	Name string `json:"name"`
	// Description tells the model what the tool does. Required: without
	// it a model has nothing to choose the tool by.
	Description string `json:"description"`
	// Parameters is the JSON Schema of the tool's arguments, an object
	// schema (absent: no arguments).
	Parameters json.RawMessage `json:"parameters"`
}

// noParameters is the schema of an external tool that gives none.
var noParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// tool builds the external tool; its schema errors are tool.New's.
func (e externalTool) tool() (tool.Tool, error) {
	params := e.Parameters
	if len(params) == 0 || string(params) == "null" {
		params = noParameters
	}
	return tool.New(e.Name, e.Description, params, nil, tool.External())
}

// toolNameOK is what every provider takes as a tool name (OpenAI's and
// Anthropic's rule, which mcp.ToolName also keeps to).
func toolNameOK(name string) bool {
	if len(name) > 64 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// checkExternal validates the external_tools entries against each other
// and against the agent's other tools (names: the tools field's). Its
// errors start with the field's name.
func (s *agentSpec) checkExternal(names []string) error {
	seen := map[string]int{}
	for i, e := range s.ExternalTools {
		where := fmt.Sprintf("external_tools[%d]", i)
		switch {
		case e.Name == "":
			return fmt.Errorf("%s.name: required", where)
		case !toolNameOK(e.Name):
			return fmt.Errorf("%s.name: %q: want 1 to 64 letters, digits, _ or -", where, e.Name)
		case e.Description == "":
			return fmt.Errorf("%s.description: required: the model picks a tool by its description", where)
		case slices.Contains(names, e.Name):
			return fmt.Errorf("%s.name: %q is also one of the agent's tools", where, e.Name)
		case e.Name == tool.MetaToolName || e.Name == tool.StructuredOutputName:
			return fmt.Errorf("%s.name: %q is the name of a tool the agent makes itself", where, e.Name)
		case strings.HasPrefix(e.Name, "mcp__") || strings.HasPrefix(e.Name, "a2a__"):
			// The MCP servers' and the remote agents' tools, whose names
			// are known only once they are connected.
			return fmt.Errorf("%s.name: %q: the prefixes mcp__ and a2a__ are the MCP servers' and A2A agents' tools", where, e.Name)
		}
		if j, dup := seen[e.Name]; dup {
			return fmt.Errorf("%s.name: %q is also the name of external_tools[%d]", where, e.Name, j)
		}
		seen[e.Name] = i
		if _, err := e.tool(); err != nil {
			return fmt.Errorf("%s.parameters: %w", where, err)
		}
	}
	return nil
}

// protectStore names the files of the SQLite store db as secret paths of
// every agent, so one user's agent cannot read another's sessions (a
// postgres:// store has no file here).
//
// It also gives every agent the folder beside the store that its context
// offloads to (db + ".offload", offload.Dir's layout: one folder per
// session), which is a secret path too: it holds every user's cut tool
// results and compressed messages, so a model reads one back only once
// the user allows it.
func protectStore(specs []agentSpec, db string) {
	if strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") || db == "" {
		return
	}
	abs, err := filepath.Abs(db)
	if err != nil {
		abs = db
	}
	for i := range specs {
		specs[i].secretPaths = append(specs[i].secretPaths, abs, abs+"-wal", abs+"-shm", abs+"-journal", offloadDir(abs))
		specs[i].offload = offloadDir(abs)
	}
}

// privateOffload gives spec an offload folder of its own for the life of
// the process, for the commands that keep no store to put one beside
// (run, mcp): what the context cuts from long tool results stays
// readable (after asking: it is a secret path, as the store's is) while
// the process runs; the returned func removes it.
func privateOffload(spec *agentSpec) (func(), error) {
	dir, err := os.MkdirTemp("", "agentscope-offload-")
	if err != nil {
		return nil, fmt.Errorf("offload folder: %w", err)
	}
	spec.offload = dir
	spec.secretPaths = append(spec.secretPaths, dir)
	return func() { os.RemoveAll(dir) }, nil
}

// offloadDir is the offload folder of the SQLite store at db.
func offloadDir(db string) string { return db + ".offload" }

// demoTools are the tools of the "demo" set, by name, in order.
var demoToolNames = []string{"calculate", "get_time", "save_note", "wait"}

// toolsUsage is what every command's --tools says it takes.
const toolsUsage = "tool `set` or names: \"demo\" (calculate, get_time, save_note, wait), \"builtin\" (Bash, Read, Write, Edit, Glob, Grep), \"none\", or a comma list of tool names"

// toolSets are the set names a tools field may use.
var toolSets = map[string][]string{"demo": demoToolNames, "builtin": builtin.Names, "none": nil}

// readAgentFile reads and checks a config file: every error names the
// file and the field.
func readAgentFile(path string) ([]agentSpec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f agentFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, jsonError(data, err))
	}
	if len(f.Agents) == 0 {
		return nil, fmt.Errorf("%s: agents: at least one agent is required", path)
	}
	specs := make([]agentSpec, len(f.Agents))
	ids := map[string]int{}
	for i, raw := range f.Agents {
		where := fmt.Sprintf("%s: agents[%d]", path, i)
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(&specs[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", where, jsonError(raw, err))
		}
		s := &specs[i]
		switch {
		case s.ID == "":
			return nil, fmt.Errorf("%s.id: required", where)
		case s.Model == "":
			return nil, fmt.Errorf("%s.model: required: a model URI such as openai:gpt-4.1, or demo", where)
		}
		if j, dup := ids[s.ID]; dup {
			return nil, fmt.Errorf("%s.id: %q is also the id of agents[%d]", where, s.ID, j)
		}
		ids[s.ID] = i
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("%s.%w", where, err)
		}
	}
	return specs, nil
}

// jsonError says where in data a decoding error is, for a person.
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the JSON ends too soon (a missing } or ])")
	case errors.As(err, &se):
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Errorf("line %d: %v", line, se)
	case errors.As(err, &te) && te.Field != "":
		return fmt.Errorf("%s: want a JSON %s, got %s", te.Field, te.Type, te.Value)
	}
	return err
}

// check validates the fields that need no network: tools, MCP specs,
// permission mode, max_iters. Its errors start with the field's name.
func (s *agentSpec) check() error {
	names, err := s.toolNames()
	if err != nil {
		return fmt.Errorf("tools: %w", err)
	}
	if err := s.checkExternal(names); err != nil {
		return err
	}
	for i, spec := range s.MCP {
		if _, err := mcp.ParseSpec(spec); err != nil {
			return fmt.Errorf("mcp[%d]: %w", i, err)
		}
	}
	for i, spec := range s.A2A {
		if _, err := parseA2ASpec(spec); err != nil {
			return fmt.Errorf("a2a[%d]: %w", i, err)
		}
	}
	if s.PermissionMode != "" {
		if _, err := permission.ParseMode(s.PermissionMode); err != nil {
			return fmt.Errorf("permission_mode: %q: want one of default, accept_edits, explore, bypass, dont_ask", s.PermissionMode)
		}
	}
	if s.MaxIters < 0 {
		return fmt.Errorf("max_iters: %d: want 1 or more (0: the default)", s.MaxIters)
	}
	if s.Sandbox != "" {
		if _, err := builtin.ParseSandboxMode(s.Sandbox); err != nil {
			return fmt.Errorf("sandbox: %q: want workspace-write or read-only", s.Sandbox)
		}
		if !s.hasBash() {
			return errors.New("sandbox: the agent has no Bash tool to confine (add builtin or Bash to its tools)")
		}
	} else if s.SandboxNetwork {
		return errors.New("sandbox_network: only with sandbox (workspace-write or read-only)")
	}
	return nil
}

// toolNames expands the tools field into tool names.
func (s *agentSpec) toolNames() ([]string, error) {
	if len(s.Tools) == 0 || string(s.Tools) == "null" {
		if s.Model == "" || s.Model == demo.Name {
			return demoToolNames, nil
		}
		return nil, nil
	}
	var set string
	if json.Unmarshal(s.Tools, &set) == nil {
		return expandTools([]string{set}, true)
	}
	var list []string
	if err := json.Unmarshal(s.Tools, &list); err != nil {
		return nil, errors.New(`want a tool set ("demo", "builtin", "none") or a list of tool names`)
	}
	return expandTools(list, false)
}

// expandTools turns sets and tool names into tool names, each once. A lone
// string (set) must be a set name or, as for the --tools flag, a comma
// list.
func expandTools(items []string, lone bool) ([]string, error) {
	if lone {
		items = strings.Split(items[0], ",")
	}
	var out []string
	add := func(n string) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for i, it := range items {
		it = strings.TrimSpace(it)
		if names, ok := toolSets[it]; ok {
			for _, n := range names {
				add(n)
			}
			continue
		}
		if !slices.Contains(demoToolNames, it) && !slices.Contains(builtin.Names, it) {
			where := fmt.Sprintf("[%d] ", i)
			if lone {
				where = ""
			}
			return nil, fmt.Errorf("%sunknown tool %q: want a set (demo, builtin, none) or one of %s, %s", where, it,
				strings.Join(demoToolNames, ", "), strings.Join(builtin.Names, ", "))
		}
		add(it)
	}
	return out, nil
}

// newTools builds a fresh instance of each named tool, the built-in ones
// with cfg.
func newTools(names []string, cfg builtin.Config) ([]tool.Tool, error) {
	var out []tool.Tool
	var demoTs []tool.Tool
	var builtinTs []tool.Tool
	for _, n := range names {
		switch {
		case slices.Contains(demoToolNames, n):
			if demoTs == nil {
				ts, err := demo.Tools(nil)
				if err != nil {
					return nil, err
				}
				note, err := demo.SaveNote(nil)
				if err != nil {
					return nil, err
				}
				wait, err := demo.Wait()
				if err != nil {
					return nil, err
				}
				demoTs = append(ts, note, wait)
			}
			for _, t := range demoTs {
				if t.Name() == n {
					out = append(out, t)
				}
			}
		default:
			if builtinTs == nil {
				builtinTs = builtin.Tools(cfg)
			}
			for _, t := range builtinTs {
				if t.Name() == n {
					out = append(out, t)
				}
			}
		}
	}
	return out, nil
}

// build makes the server's agent: the model and the tools are made (and
// checked) once and shared; each run gets a clone of their toolkit, with
// the MCP servers' tools as they are then. servers are the agent's
// connected MCP servers.
func (s *agentSpec) build(logger *slog.Logger, servers ...*mcp.Client) (engine.Agent, error) {
	if err := s.check(); err != nil {
		return engine.Agent{}, err
	}
	names, _ := s.toolNames()
	toolCfg := s.builtinConfig()
	if toolCfg.Sandbox.On() {
		// Refused here, the agent never starts; later, every command of
		// its Bash would be.
		if err := builtin.CheckSandbox(); err != nil {
			return engine.Agent{}, fmt.Errorf("sandbox: %w", err)
		}
	}
	name := s.Name
	if name == "" {
		name = "assistant"
	}
	var m model.ChatModel
	spec := engine.Agent{ID: s.ID, Name: name, Description: s.Description}
	if s.Model == "" || s.Model == demo.Name {
		m = demo.New(demo.WithDelay(15 * time.Millisecond))
		if spec.ID == "" {
			spec.ID = demoAgentID
		}
		if spec.Description == "" {
			spec.Description = "DEMO: the keyless rule-based demo model, not a real LLM; start with --model URI for one"
		}
	} else {
		opts := []provider.Option{provider.WithLogger(logger), provider.WithTimeouts(s.timeouts)}
		if s.BaseURL != "" {
			opts = append(opts, provider.WithBaseURL(s.BaseURL))
		}
		var err error
		if m, err = provider.New(s.Model, opts...); err != nil {
			return spec, fmt.Errorf("model: %w", err)
		}
		if spec.ID == "" {
			spec.ID = "default"
		}
		if spec.Description == "" {
			spec.Description = "model " + s.Model
		}
	}
	var mode permission.Mode
	if s.PermissionMode != "" {
		mode, _ = permission.ParseMode(s.PermissionMode)
	}
	// The agent's own tools keep nothing between calls (a built-in tool's
	// state is in the run's AgentState, the remote agents' tools hold only
	// their client), so they and their compiled schemas are made once.
	// Each run gets a clone of one toolkit, not the toolkit itself: a run
	// mounts tools of its own (the reply's structured-output tool, the MCP
	// servers' tools as they are then) that no other run may see.
	ts, err := newTools(names, toolCfg)
	if err != nil {
		return spec, err
	}
	for _, e := range s.ExternalTools {
		t, err := e.tool()
		if err != nil {
			return spec, fmt.Errorf("external_tools: %w", err)
		}
		ts = append(ts, t)
	}
	remote, err := a2aTools(s.remotes)
	if err != nil {
		return spec, err
	}
	base, err := tool.NewToolkit(append(ts, remote...))
	if err != nil {
		return spec, err
	}
	spec.Derive = func(st *state.AgentState, o engine.Overrides) (*agent.Agent, error) {
		tk := base.Clone()
		// Each run mounts the servers' tools in its own toolkit, and their
		// middlewares keep them current between its model calls.
		var mws []agent.Middleware
		for _, c := range servers {
			if err := c.Mount(tk, ""); err != nil {
				return nil, fmt.Errorf("MCP server %q: %w", c.Name(), err)
			}
			mws = append(mws, c.Middleware())
		}
		cfg := agent.Config{Name: name, Model: m, SystemPrompt: s.SystemPrompt, MaxIters: s.MaxIters, Toolkit: tk, State: st, Logger: logger, Middleware: mws, Context: s.contextConfig()}
		if o.Name != "" {
			cfg.Name = o.Name
		}
		if o.SystemPrompt != "" {
			cfg.SystemPrompt = o.SystemPrompt
		}
		if o.MaxIters > 0 {
			cfg.MaxIters = o.MaxIters
		}
		a, err := agent.New(cfg)
		if err == nil && mode != "" {
			err = a.Permissions().SetMode(mode)
		}
		return a, err
	}
	derive := spec.Derive
	spec.New = func(st *state.AgentState) (*agent.Agent, error) { return derive(st, engine.Overrides{}) }
	// One agent now, so that a setting the agent refuses (a context
	// ratio out of range) stops the command at start, not every run.
	if _, err := spec.New(nil); err != nil {
		return spec, err
	}
	return spec, nil
}

// contextConfig is the agent's long-context configuration: the file's
// settings and the offload folder.
func (s *agentSpec) contextConfig() agent.ContextConfig {
	var cc agent.ContextConfig
	if c := s.Context; c != nil {
		cc = agent.ContextConfig{ContextSize: c.ContextSize, TriggerRatio: c.TriggerRatio, ReserveRatio: c.ReserveRatio,
			ToolResultLimit: c.ToolResultLimit, MaxImages: c.MaxImages}
	}
	if s.offload != "" {
		cc.Offloader = offload.Dir{Root: s.offload}
	}
	return cc
}

// buildAgents connects each agent's MCP servers (with mcpBase's timeout
// and reporting) and builds the agents; close stops every MCP server
// started. Errors start with where(i), the place agent i was given.
func buildAgents(ctx context.Context, specs []agentSpec, where func(i int) string, mcpBase mcpSetup, logger *slog.Logger) (agents []engine.Agent, close func(), err error) {
	var closers []func()
	close = func() {
		for _, c := range closers {
			c()
		}
	}
	for i := range specs {
		s := &specs[i]
		setup := mcpBase
		setup.Specs = s.MCP
		clients, closeMCP, err := connectMCP(ctx, setup)
		if err != nil {
			close()
			return nil, nil, fmt.Errorf("%smcp: %w", where(i), err)
		}
		closers = append(closers, closeMCP)
		a2aWhere := func(j int) string { return fmt.Sprintf("%sa2a[%d]: ", where(i), j) }
		if where(i) == "--" {
			a2aWhere = func(int) string { return "--a2a " }
		}
		if s.remotes, err = connectA2A(ctx, s.A2A, a2aWhere); err != nil {
			close()
			return nil, nil, err
		}
		a, err := s.build(logger, clients...)
		if err != nil {
			close()
			return nil, nil, fmt.Errorf("%s%w", where(i), err)
		}
		agents = append(agents, a)
	}
	return agents, close, nil
}
