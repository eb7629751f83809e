package tool

import (
	"context"
	"slices"
	"sync"
)

type stateKey struct{}

// WithState returns a context carrying the agent's state for
// state-injected tools (the reference's _agent_state argument). The agent
// sets it when Flags.StateInjected is true and the tool is not external.
func WithState(ctx context.Context, state any) context.Context {
	return context.WithValue(ctx, stateKey{}, state)
}

// StateFrom returns the state set by [WithState], or nil.
func StateFrom(ctx context.Context) any { return ctx.Value(stateKey{}) }

// GroupState is implemented by an agent state that persists activated
// tool groups (AgentState.tool_context.activated_groups); the reset_tools
// meta tool writes through it.
type GroupState interface {
	ActivatedGroups() []string
	SetActivatedGroups(groups []string)
}

// Groups is a minimal, concurrency-safe GroupState for hosts that keep
// the activated set outside an agent state (and for tests).
type Groups struct {
	mu     sync.Mutex
	groups []string
}

// ActivatedGroups returns a copy of the set.
func (g *Groups) ActivatedGroups() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.groups)
}

// SetActivatedGroups replaces the set.
func (g *Groups) SetActivatedGroups(groups []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.groups = slices.Clone(groups)
}
