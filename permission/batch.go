package permission

import "sync"

// Batch de-duplicates confirmations inside one concurrent tool batch
// (reference §3.6): once an ASK was surfaced, a later non-safety ASK that one
// of the surfaced suggested rules would cover is not surfaced again; that
// call stays pending and is re-checked on the next run (by when the user may
// have accepted the rule). Use one Batch per concurrent batch; it is safe for
// concurrent use, but call Admit in call order for reference-identical
// results.
type Batch struct {
	mu   sync.Mutex
	kept []Rule
}

// Admit reports whether the "ask the user" decision d for s/input must be
// surfaced (a REQUIRE_USER_CONFIRM). Safety ASKs are always surfaced; a
// surfaced decision's SuggestedRules are kept for later calls. Decisions that
// do not ask the user are always admitted and change nothing.
func (b *Batch) Admit(s Subject, input map[string]any, d Decision) bool {
	panic("unimplemented")
}

// Kept returns a copy of the rules kept so far.
func (b *Batch) Kept() []Rule {
	panic("unimplemented")
}
