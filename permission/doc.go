// Package permission decides whether the agent may run a tool call: allow it,
// deny it, or ask the user first.
//
// A [Context] holds the persisted policy (the mode, working directories and
// allow/deny/ask rules) in the reference's exact permission_context JSON, so
// it can live inside the agent state. An [Engine] evaluates one invocation of
// a [Subject] — the permission-facing side of a tool — against that Context
// in the reference's per-mode order, and learns the rules a user accepts
// ([Engine.AddRule]). A [Batch] keeps one concurrent tool batch from asking
// the user twice for what one accepted rule would cover.
//
// Tools plug in through [Subject]: a name and a [Policy]. A tool without a
// policy of its own is judged by [Defaults], a generic function tool's
// policy (its own check always asks, only tool-level rules match, one
// tool-level suggestion); a tool with a richer policy — a shell tool
// matching command prefixes, a file tool matching path globs and
// auto-allowing edits inside [Context.InWorkingDirectory] — implements
// [Policy] (embedding Defaults and overriding the methods it needs) and
// returns a BypassImmune ASK for safety concerns that no allow rule may
// silence.
package permission
