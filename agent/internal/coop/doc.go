// Package coop runs the tool calls of one concurrent batch with the event
// order of the reference implementation. It is the engine's concern: tools
// are plain Go and know nothing about it.
//
// # The reference's order
//
// The reference runs a concurrent batch as asyncio tasks on one thread
// (asyncio.gather over one worker per call, each pushing its events into a
// shared queue that the agent drains in order). Hence:
//
//  1. The calls start in call order.
//  2. A call runs until its tool awaits something that is not ready (a
//     sleep, I/O, a lock); then the first call in the ready queue runs.
//     Yielding a chunk is not an await: a tool that yields chunks without
//     awaiting in between emits them all in one go, and its START, deltas
//     and END stay together.
//  3. A call whose await completes joins the back of the ready queue, so
//     calls resume in the order their waits end.
//  4. Events come out in the order they are produced.
//
// # How Go tools map onto it
//
// A Go tool runs on its own goroutine (tool.Runner) and hands its chunks to
// the call's worker one at a time; [Lockstep] keeps it paused after each
// chunk until the worker asks for the next, as an async generator is. The
// points the engine sees are the tool's chunk yields and its return. A
// [Batch] passes a turn among the calls in FIFO order, and only the holder
// emits. A call keeps the turn while its tool produces the next chunk (or
// returns) at once; a tool that blocks in plain Go code (time.Sleep, a
// channel, I/O, a mutex) is a tool awaiting something. The Go runtime does
// not say when a goroutine blocks, so "blocks" is read as "has not produced
// its next chunk or returned within the preemption period P": then the turn
// passes on, and the call rejoins the queue when the chunk arrives.
//
// What this guarantees, for any number of calls and any mix of plain tools
// (one result) and streaming tools (several chunks, waiting in between or
// not):
//
//   - a tool segment (start to first chunk, chunk to chunk, last chunk to
//     return) that runs without blocking and takes less than P keeps the
//     turn: its events are contiguous, as in the reference;
//   - a segment that waits longer than P gives the turn to the next ready
//     call, and the calls resume in the order their waits end. The order
//     is exactly the reference's for the same tools when each such wait
//     is read as P of work holding the loop followed by a wait for the
//     rest (P → 0 gives the reference's order itself). It is the
//     reference's order itself whenever, in the reference, the batch's
//     waits end further apart than P times the number of waits in the
//     batch (each wait the engine notices may shift what follows by up to
//     P; merely "more than P apart" is not enough for larger batches).
//
// What it does not guarantee:
//
//   - a wait shorter than P counts as work: the call keeps the turn (in the
//     reference its siblings would run meanwhile). asyncio.sleep(0), a
//     yield that does not wait, cannot be seen at all: a tool that means
//     it calls [Yield] (agent.Yield), which puts the call at the back of
//     the line at once, as the reference's loop does;
//   - a segment that computes for longer than P without blocking, or whose
//     goroutine the machine does not schedule for P, is treated as waiting
//     (in the reference it would hold the loop);
//   - waits of different calls that end close together (within the
//     accumulated P) may resume in another order than the reference's
//     (whose order there depends on the clock too).
//
// The order of events inside one call (START, its chunks, END) and the
// content of the results never depend on timing.
//
// # Cancellation
//
// A cancelled batch cancels its calls in call order at the consumer's next
// wait; calls whose tools were waiting are queued in call order, and each
// keeps the turn until it has reported, so interrupted results come out in
// call order. Until the consumer's next wait a call queued before it may
// still get the turn; the agent checks the reply's own context before it
// starts a tool, so such a call reports its interruption without running.
// [DeferCancel] gives a tool outside a batch the same grace: a
// cancellation lands P after it was requested, so a tool that runs straight
// through is not cut short.
package coop
