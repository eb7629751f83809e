package permission

import (
	"context"
	"sync"
)

// Engine evaluates invocations against a Context and learns rules. It holds
// the Context by reference, so learned rules land in the caller's (persisted)
// Context. Check may run concurrently (a concurrent tool batch); AddRule and
// SetMode wait for running checks.
type Engine struct {
	mu sync.RWMutex
	pc *Context
}

// NewEngine returns an engine over pc; nil means a fresh default-mode
// context.
func NewEngine(pc *Context) *Engine {
	panic("unimplemented")
}

// Context returns the context the engine works on (see [Context] on
// sharing it).
func (e *Engine) Context() *Context { return e.pc }

// Mode returns the current mode.
func (e *Engine) Mode() Mode {
	panic("unimplemented")
}

// SetMode switches the mode; an unknown mode is a *ModeError.
func (e *Engine) SetMode(m Mode) error {
	panic("unimplemented")
}

// AddRule appends r under its tool name to the allow, deny or ask rules
// chosen by its behavior. Rules are not de-duplicated; PASSTHROUGH (or any
// other behavior) is dropped silently, as in the reference.
func (e *Engine) AddRule(r Rule) {
	panic("unimplemented")
}

// Rules returns a copy of the rules of one behavior for toolName, in the
// order they were added.
func (e *Engine) Rules(b Behavior, toolName string) []Rule {
	panic("unimplemented")
}

// Snapshot returns a deep copy of the context, safe to persist while checks
// run.
func (e *Engine) Snapshot() *Context {
	panic("unimplemented")
}

// Check decides one invocation of s with input, following the reference's
// per-mode evaluation order (deny rules, ask rules, read-only fast path, the
// tool's own check, allow rules, mode fallback). It never returns
// PASSTHROUGH from its own steps, but passes a tool's ALLOW/DENY through.
// A context whose mode is unknown (set directly on the struct) fails closed
// with DENY.
func (e *Engine) Check(ctx context.Context, s Subject, input map[string]any) Decision {
	panic("unimplemented")
}

// UserConfirmed is the decision for a call the user already approved: the
// agent skips the engine but still runs its permission middlewares on this.
func UserConfirmed() Decision {
	return Decision{Behavior: Allow, Message: "Already allowed by user confirmation."}
}
