// Package message holds Msg — what was said: a named author, a role and an
// ordered list of typed content blocks — the replayable truth an agent keeps
// in its state.
//
// Role rules are enforced when a Msg is built or decoded (a user message
// holds only text and data, a system message only text), with a typed
// *RoleError. Msg encodes to exactly the JSON AgentScope 2.x emits.
//
// (*Msg).AppendEvent folds the events of a reply into the assistant Msg they
// describe, so that applying a reply's events in order to an empty assistant
// Msg rebuilds it. Folding is linear: text grows in amortized O(1), data
// stays decoded until it is written, and the block a delta targets is found
// through an index rather than a scan.
package message
