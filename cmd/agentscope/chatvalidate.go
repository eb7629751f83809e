package main

import (
	"sync"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/engine"
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
