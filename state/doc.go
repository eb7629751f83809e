// Package state holds AgentState, everything an agent needs to continue a
// conversation — the context messages, the current reply's bookkeeping
// (reply id, iteration count, structured-output schema and result), the
// permission policy, tool and task bookkeeping and per-middleware storage —
// in the reference implementation's exact JSON, so that a state saved by
// one process (or by AgentScope itself) resumes in another, parked
// human-in-the-loop replies included.
//
// The helpers mirror the reference's: AppendContext grows the current
// reply's message, AwaitingToolCalls and UnfinishedToolCalls tell the loop
// what a reply still waits for.
package state
