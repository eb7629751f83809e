package permission

import "github.com/agentscope-go/agentscope/block"

// Decision is the engine's (or a tool's) verdict on one invocation. It is
// never serialized; only its SuggestedRules reach the wire, on the tool-call
// block.
type Decision struct {
	Behavior block.Behavior
	// Message is the human-readable verdict; a DENY message becomes the
	// tool result the model sees.
	Message string
	// Reason says which step decided ("Rule: git:*", "Mode: default", ...).
	Reason string
	// UpdatedInput, when non-nil, is a tool's rewrite of the input. An
	// allow-rule ALLOW carries the checked input itself (as the reference
	// does), so treat it as read-only.
	UpdatedInput map[string]any
	// SuggestedRules are offered to the user with an ASK (kept on a
	// DONT_ASK conversion to DENY).
	SuggestedRules []block.PermissionRule
	// BypassImmune marks a safety ASK: allow rules cannot override it and
	// DONT_ASK converts it to DENY; only BYPASS mode ignores it.
	BypassImmune bool
}

// AsksUser reports whether the agent must ask the user: ASK and PASSTHROUGH
// both mean "ask" at the agent level.
func (d Decision) AsksUser() bool { return d.Behavior == block.Ask || d.Behavior == block.Passthrough }

// SafetyAsk reports whether d is an ASK that allow rules cannot override.
func (d Decision) SafetyAsk() bool { return d.Behavior == block.Ask && d.BypassImmune }
