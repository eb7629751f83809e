package permission

import (
	"slices"
	"sync"

	"github.com/agentscope-go/agentscope/block"
)

// Batch de-duplicates confirmations inside one concurrent tool batch
// (reference §3.6): once an ASK was surfaced, a later non-safety ASK that
// one of the surfaced suggested rules covers is not surfaced again; that
// call stays pending and is re-checked on the next run, by when the user may
// have accepted the rule. Use one Batch per concurrent batch (the zero value
// is ready); it is safe for concurrent use, but call Admit in call order for
// reference-identical results.
type Batch struct {
	mu   sync.Mutex
	kept []block.PermissionRule
}

// Admit reports whether decision d for s/input must be surfaced to the
// user (a REQUIRE_USER_CONFIRM). Decisions that do not ask the user (see
// [Decision.AsksUser]) and safety ASKs are always admitted and change
// nothing; a surfaced non-safety ask's SuggestedRules are kept for the
// calls after it.
func (b *Batch) Admit(s Subject, input map[string]any, d Decision) bool {
	if !d.AsksUser() || d.BypassImmune {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.kept {
		if Covers(r, s, input) {
			return false
		}
	}
	b.kept = append(b.kept, d.SuggestedRules...)
	return true
}

// Kept returns a copy of the rules kept so far.
func (b *Batch) Kept() []block.PermissionRule {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.kept)
}
