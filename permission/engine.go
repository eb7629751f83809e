package permission

import (
	"context"
	"slices"
	"sync"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/pycompat"
)

// Engine evaluates invocations against a Context and learns rules. It holds
// the Context by reference, so learned rules land in the caller's (persisted)
// Context. Checks may run concurrently (a concurrent tool batch) and share a
// read lock; AddRule and SetMode take the write lock and so wait for running
// checks. A Subject must not call back into its Engine from CheckPermissions.
type Engine struct {
	mu sync.RWMutex
	pc *Context
}

// NewEngine returns an engine over pc; nil means a fresh default-mode
// context.
func NewEngine(pc *Context) *Engine {
	if pc == nil {
		pc = NewContext(ModeDefault)
	}
	return &Engine{pc: pc}
}

// Context returns the context the engine works on (see [Context] on
// sharing it).
func (e *Engine) Context() *Context { return e.pc }

// Mode returns the current mode ("" reads as ModeDefault).
func (e *Engine) Mode() Mode {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return effectiveMode(e.pc.Mode)
}

func effectiveMode(m Mode) Mode {
	if m == "" {
		return ModeDefault
	}
	return m
}

// SetMode switches the mode; an unknown mode is a *ModeError and changes
// nothing.
func (e *Engine) SetMode(m Mode) error {
	if _, err := ParseMode(string(m)); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pc.Mode = m
	return nil
}

// AddRule appends r under its tool name to the allow, deny or ask rules
// chosen by its behavior, as the agent does for every rule of an accepted
// confirmation. Rules are not de-duplicated; PASSTHROUGH (or any other
// behavior) is dropped silently, as in the reference. It reports whether
// the rule was kept.
func (e *Engine) AddRule(r block.PermissionRule) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.pc.addRule(r)
}

// Rules returns a copy of the rules of one behavior for toolName, in the
// order they were added (nil for PASSTHROUGH or no rules).
func (e *Engine) Rules(b block.Behavior, toolName string) []block.PermissionRule {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return slices.Clone(e.pc.rules(b)[toolName])
}

// Snapshot returns a deep copy of the context, safe to persist while checks
// run.
func (e *Engine) Snapshot() *Context {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.pc.Clone()
}

// AppendJSON appends the context's JSON under the engine's lock.
func (e *Engine) AppendJSON(dst []byte) []byte {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.pc.AppendJSON(dst)
}

// Check decides one invocation of s with input, following the reference's
// per-mode evaluation order:
//
//  1. a matching deny rule → DENY;
//  2. a matching ask rule → ASK with suggestions (DENY in DONT_ASK);
//  3. a read-only invocation → ALLOW;
//  4. the tool's own check (not consulted in EXPLORE, which denies here):
//     ALLOW/DENY are returned as they are; a safety ASK is returned with
//     suggestions (DENY in DONT_ASK, ignored in BYPASS); anything else
//     continues;
//  5. a matching allow rule → ALLOW (for a [Composite], allow rules
//     covering every part together);
//  6. the mode's fallback: ASK with suggestions (DEFAULT, ACCEPT_EDITS),
//     ALLOW (BYPASS) or DENY (DONT_ASK).
//
// DONT_ASK never returns ASK. The engine's own steps never return
// PASSTHROUGH. A nil subject, or a mode that is unknown because it was set
// directly on the Context, fails closed with DENY.
func (e *Engine) Check(ctx context.Context, s Subject, input map[string]any) Decision {
	if s == nil {
		return Decision{Behavior: block.Deny, Message: pycompat.PermissionNoTool, Reason: pycompat.ReasonNoTool}
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	return evaluate(ctx, e.pc, s, input)
}

func evaluate(ctx context.Context, pc *Context, s Subject, input map[string]any) Decision {
	name := s.Name()
	mode := effectiveMode(pc.Mode)
	if _, err := ParseMode(string(mode)); err != nil {
		return Decision{Behavior: block.Deny, Message: pycompat.PermissionUnknownMode(string(mode)), Reason: err.Error()}
	}

	if r, ok := firstMatch(pc.DenyRules[name], s, input); ok {
		return Decision{Behavior: block.Deny, Message: pycompat.PermissionRuleDenied(name), Reason: ruleReason(r)}
	}
	if r, ok := firstMatch(pc.AskRules[name], s, input); ok {
		d := Decision{
			Behavior:       block.Ask,
			Message:        pycompat.PermissionRequired(name),
			Reason:         ruleReason(r),
			SuggestedRules: s.SuggestRules(input),
		}
		if mode == ModeDontAsk {
			return dontAsk(name, d)
		}
		return d
	}
	if s.ReadOnly(input) {
		return Decision{
			Behavior: block.Allow,
			Message:  pycompat.PermissionReadOnly(name),
			Reason:   pycompat.ReasonReadOnly,
		}
	}
	if mode == ModeExplore {
		// The read-only verdict settles EXPLORE: neither the tool's own
		// check nor allow rules may grant a modification.
		return Decision{
			Behavior: block.Deny,
			Message:  pycompat.PermissionExploreDenied(name),
			Reason:   pycompat.ReasonExplore,
		}
	}

	own := s.CheckPermissions(ctx, input, pc)
	switch own.Behavior {
	case block.Allow, block.Deny:
		return own
	}
	if own.SafetyAsk() && mode != ModeBypass {
		own.SuggestedRules = s.SuggestRules(input)
		if mode == ModeDontAsk {
			return dontAsk(name, own)
		}
		return own
	}

	if allowed(pc.AllowRules[name], s, input) {
		return Decision{Behavior: block.Allow, Message: pycompat.PermissionGranted(name), UpdatedInput: input}
	}

	switch mode {
	case ModeBypass:
		return Decision{
			Behavior: block.Allow,
			Message:  pycompat.PermissionBypass(name),
			Reason:   pycompat.ReasonBypass,
		}
	case ModeDontAsk:
		return Decision{
			Behavior: block.Deny,
			Message:  pycompat.PermissionDontAskDenied(name),
			Reason:   pycompat.ReasonDontAsk,
		}
	}
	// DEFAULT and ACCEPT_EDITS: the tool's own ASK message is discarded.
	return Decision{
		Behavior:       block.Ask,
		Message:        pycompat.PermissionRequired(name),
		Reason:         pycompat.ReasonMode(string(mode)),
		SuggestedRules: s.SuggestRules(input),
	}
}

// allowed reports whether allow rules grant the invocation: together
// for a Composite, else one matching rule.
func allowed(rules []block.PermissionRule, s Subject, input map[string]any) bool {
	if len(rules) == 0 {
		return false
	}
	if c, ok := s.(Composite); ok {
		return c.CoveredBy(rules, input)
	}
	_, ok := firstMatch(rules, s, input)
	return ok
}

func firstMatch(rules []block.PermissionRule, s Subject, input map[string]any) (block.PermissionRule, bool) {
	for _, r := range rules {
		if matches(r, s, input) {
			return r, true
		}
	}
	return block.PermissionRule{}, false
}

// ruleReason renders the reference's f"Rule: {rule_content}", where a null
// content prints as Python's None.
func ruleReason(r block.PermissionRule) string {
	return pycompat.ReasonRule(r.RuleContent.String, r.RuleContent.Valid)
}

// dontAsk converts an ASK into DONT_ASK's DENY, keeping the suggestions so
// a client can still show which rule would unblock the call.
func dontAsk(name string, ask Decision) Decision {
	return Decision{
		Behavior:       block.Deny,
		Message:        pycompat.PermissionDontAskConverted(name),
		Reason:         pycompat.ReasonDontAskConverted(ask.Reason),
		SuggestedRules: ask.SuggestedRules,
	}
}

// UserConfirmed is the decision for a call the user already approved: the
// agent skips the engine but still runs its permission middlewares on this.
func UserConfirmed() Decision {
	return Decision{Behavior: block.Allow, Message: pycompat.PermissionUserApproved}
}
