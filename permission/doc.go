// Package permission decides whether the agent may run a tool call: allow it,
// deny it, or ask the user first.
//
// A [Context] holds the persisted policy (the mode, working directories and
// allow/deny/ask rules) in the reference's exact JSON, so it can live inside
// the agent state. An [Engine] evaluates one invocation of a [Subject] — the
// permission-facing side of a tool — against that Context following the
// per-mode evaluation order of the reference engine, and learns rules the user
// accepts ([Engine.AddRule]). Tools plug in by implementing [Subject]; the
// embeddable [Defaults] gives the behaviour of a generic function tool
// (always ask, tool-level rules only, one tool-level suggestion), and a tool
// with a richer policy (shell commands, file paths) overrides the methods it
// needs.
package permission
