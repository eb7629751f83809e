package permission

import "github.com/agentscope-go/agentscope/block"

// Rule is a permission rule as carried on tool-call blocks and events.
// RuleContent "" is the wire null: the rule covers every invocation of the
// tool.
type Rule = block.PermissionRule

// Behavior is what a rule or a decision says.
type Behavior = block.Behavior

// Behaviors, re-exported so callers of this package need not import block.
const (
	Allow       = block.Allow
	Deny        = block.Deny
	Ask         = block.Ask
	Passthrough = block.Passthrough
)

// SourceSuggested is the source of rules the engine suggests.
const SourceSuggested = "suggested"
