package tool

import "context"

type stateKey struct{}

// WithState returns a context carrying the agent's state for
// state-injected tools (the reference's _agent_state argument). The agent
// sets it when Flags.StateInjected is true and the tool is not external.
func WithState(ctx context.Context, state any) context.Context {
	return context.WithValue(ctx, stateKey{}, state)
}

// StateFrom returns the state set by [WithState], or nil.
func StateFrom(ctx context.Context) any {
	s, _ := ctx.Value(stateKey{}).(any)
	return s
}

// GroupState is implemented by an agent state that persists activated
// tool groups (AgentState.tool_context.activated_groups); the reset_tools
// meta tool writes through it.
type GroupState interface {
	ActivatedGroups() []string
	SetActivatedGroups(groups []string)
}
