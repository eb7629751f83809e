// Package conformance replays the golden traces recorded from the
// reference implementation (testdata/conformance/golden) against this
// engine and compares what it records with what the reference recorded.
//
// For each trace file the runner builds the harness the traces were
// recorded with — scripted tools, the scripted model, the swallowing
// middleware, the agent configuration — from the file's spec, feeds the
// spec's inputs one by one (cancelling the reply's context where the
// scenario says so), records each step's stream, outcome, model calls,
// context and state, the final context and every reply folded from its
// events, and compares that document with the golden one after
// normalizing generated ids (<id:N>, per section at level 1, per file at
// level 2) and timestamps (<ts>). Differences at field paths excused in
// DEVIATIONS.md (embedded) are ignored; every other difference fails the
// file with the path of the first one.
//
// The runner contract is testdata/conformance/README.md, with one rule it
// leaves implicit: a step whose input kind is "none" has no input_object
// key at all (there is no object to record), rather than "input_object":
// null. Every other kind records the JSON of what was fed to the agent.
package conformance
