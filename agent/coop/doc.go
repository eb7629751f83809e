// Package coop runs the tool calls of one concurrent batch with the event
// order of the reference implementation, whose batches are asyncio tasks on
// one thread: a call runs until it really waits (a sleep, a pause between
// chunks, I/O), then the next ready call runs. The order in which calls
// emit their events is therefore deterministic for everything that does not
// depend on wall-clock time — the reference's traces rely on it.
//
// A [Batch] gives each call a turn (a baton passed in FIFO order, like the
// asyncio ready queue). Calls still run on their own goroutines, and tools
// keep real concurrency: a tool that waits through [Sleep] or [Block] hands
// its turn on while it waits; a tool that blocks without telling (an HTTP
// call, a mutex) is preempted after a grace period so it cannot stall its
// siblings. Only the ordering of events is serialized, never the work.
//
// Outside a batch, [Sleep] is an ordinary context-aware sleep that reports
// a cancellation already pending before it starts waiting (the point where
// an asyncio task would receive its CancelledError).
package coop
