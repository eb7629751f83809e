package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/server/client"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// toolValidator checks an edited tool call as the agent will before it
// runs it (tool.Toolkit.Prepare: the tool exists, its input parses and
// is valid against the tool's input schema), for a chat in-process, which
// has the agents. An agent it does not know (one a user created) is not
// checked. Each agent's toolkit is built once.
func toolValidator(agents []engine.Agent) func(agentID string, call *block.ToolCall) error {
	var mu sync.Mutex
	kits := map[string]*tool.Toolkit{}
	return func(agentID string, call *block.ToolCall) error {
		mu.Lock()
		tk, seen := kits[agentID]
		if !seen {
			for _, a := range agents {
				if a.ID == agentID && a.New != nil {
					if built, err := a.New(state.New(nil)); err == nil {
						tk = built.Toolkit()
					}
				}
			}
			kits[agentID] = tk
		}
		mu.Unlock()
		if tk == nil {
			return nil
		}
		_, _, err := tk.Prepare(call, tk.GroupNames())
		return err
	}
}

// remoteValidator checks an edited tool call against the schemas the
// server gives for the session's agent (GET /agent/{id}/tools), for a
// chat with --server, as the agent will check it. The schemas are asked
// for once per agent; a server that cannot say (an older one, an agent
// of another kind) leaves the check to the agent, which refuses a bad
// edit itself.
func remoteValidator(ctx context.Context, c *client.Client) func(agentID string, call *block.ToolCall) error {
	var mu sync.Mutex
	known := map[string]map[string]*tool.Validator{} // agent -> tool -> its validator (nil map: unknown)
	return func(agentID string, call *block.ToolCall) error {
		mu.Lock()
		tools, seen := known[agentID]
		if !seen {
			if schemas, err := c.AgentTools(ctx, agentID); err == nil {
				tools = map[string]*tool.Validator{}
				for _, s := range schemas {
					if v, err := tool.NewValidator(s.Name, s.Parameters); err == nil {
						tools[s.Name] = v
					}
				}
			}
			known[agentID] = tools
		}
		mu.Unlock()
		if tools == nil {
			return nil
		}
		v, ok := tools[call.Name]
		if !ok {
			return fmt.Errorf("the agent has no tool %q", call.Name)
		}
		input, err := tool.ParseInput(call.Input)
		if err != nil {
			return err
		}
		return v.Validate(input)
	}
}
