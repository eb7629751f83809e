package permission

import (
	"context"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/pycompat"
)

// Policy is a tool's own permission behaviour: what the engine asks a tool
// about one invocation. It is optional for tools: a tool that does not
// implement it is judged by [Defaults], the reference's generic-tool policy.
// input is the tool's parsed JSON arguments and must not be modified.
type Policy interface {
	// ReadOnly reports whether this invocation only reads; read-only
	// invocations are allowed after deny/ask rules in every mode.
	ReadOnly(input map[string]any) bool
	// CheckPermissions is the tool's own policy. Return ALLOW or DENY to
	// settle, a BypassImmune ASK for a safety concern, or a plain ASK /
	// PASSTHROUGH to let rules and the mode decide. pc is the engine's
	// context, read-only for the duration of the call (do not call back
	// into the Engine from here).
	CheckPermissions(ctx context.Context, input map[string]any, pc *Context) Decision
	// MatchRule reports whether a rule with non-empty content covers this
	// invocation (empty content is matched by the engine itself).
	MatchRule(ruleContent string, input map[string]any) bool
	// SuggestRules proposes rules the user may accept with an ASK.
	SuggestRules(input map[string]any) []block.PermissionRule
}

// Composite is an optional extension of a Policy whose one invocation is
// several (a shell line of several commands). The engine grants it by
// allow rules only when CoveredBy says the rules, together, cover every
// part; MatchRule still decides deny and ask rules, which stop the
// invocation when they match any part. Without it, one allow rule must
// match the invocation through MatchRule.
type Composite interface {
	// CoveredBy reports whether the allow rules (all for this tool,
	// content or not) cover input.
	CoveredBy(allow []block.PermissionRule, input map[string]any) bool
}

// Subject is one tool as the engine judges it: the name its rules are
// keyed by, and its policy. [Defaults] is the Subject of a generic tool;
// package tool's PermissionSubject gives any tool's.
type Subject interface {
	Name() string
	Policy
}

// Defaults gives a generic tool the reference's base behaviour: never
// read-only unless IsReadOnly, the tool's own check always a non-safety ASK,
// rules with content never match, and one tool-level allow suggestion.
// Embed it and override the methods a richer policy needs.
type Defaults struct {
	ToolName   string
	IsReadOnly bool
}

// Name returns ToolName.
func (d Defaults) Name() string { return d.ToolName }

// ReadOnly returns IsReadOnly whatever the input.
func (d Defaults) ReadOnly(map[string]any) bool { return d.IsReadOnly }

// FunctionToolMessage is the message of the reference function tools' own
// (non-safety) ASK.
const FunctionToolMessage = pycompat.FunctionToolMessage

// CheckPermissions returns a non-safety ASK with [FunctionToolMessage], like
// the reference's function tools; the engine then lets allow rules and the
// mode decide.
func (d Defaults) CheckPermissions(context.Context, map[string]any, *Context) Decision {
	return Decision{Behavior: block.Ask, Message: FunctionToolMessage}
}

// MatchRule matches only empty content: a generic tool has no argument
// patterns.
func (d Defaults) MatchRule(ruleContent string, _ map[string]any) bool { return ruleContent == "" }

// SuggestRules returns [DefaultSuggestions] for ToolName.
func (d Defaults) SuggestRules(map[string]any) []block.PermissionRule {
	return DefaultSuggestions(d.ToolName)
}

// DefaultSuggestions is the suggestion of a tool without argument patterns:
// one allow rule for the whole tool, source "suggested".
func DefaultSuggestions(toolName string) []block.PermissionRule {
	return []block.PermissionRule{{ToolName: toolName, Behavior: block.Allow, Source: SourceSuggested}}
}

// Covers reports whether rule r applies to this invocation of s: same tool
// name, and empty content or s.MatchRule says so.
func Covers(r block.PermissionRule, s Subject, input map[string]any) bool {
	return r.ToolName == s.Name() && matches(r, s, input)
}

// matches is the engine's rule test; the tool name is implied by the map
// the rule was found under.
func matches(r block.PermissionRule, s Subject, input map[string]any) bool {
	// null and "" both name the whole tool (the reference stores "" for
	// tools without a content matcher).
	return r.RuleContent.String == "" || s.MatchRule(r.RuleContent.String, input)
}
