// Package agent is the reply engine: an Agent answers one input (user
// messages, a human's confirmation, an external tool result, an interrupt)
// by running the reference ReAct loop as a state machine over its
// state.AgentState and streaming the reference's events.
//
// Each turn of the loop asks the pure function decide what to do next —
// reason (call the model), act (run tool calls) or exit — and the loop body
// only executes that action. Everything a reply waits for is written into
// the state before the event announcing it, so a reply parked on a
// permission prompt or an external tool is just a saved state: any process
// holding it resumes the reply with a confirmation or a result event.
//
// An agent is built from one Config whose zero values are the reference's
// defaults. A new input starts a reply (Agent.Stream, Agent.Reply); a
// parked reply is resumed with Agent.Confirm or Agent.DeliverExternal, or
// abandoned with Agent.Interrupt. Each returns the reply's events as an
// iter.Seq2; WithResult collects how it ended.
//
// # Concurrent batches
//
// Consecutive concurrency-safe tool calls run as one batch, each on its own
// goroutine, and their events come out in the order of the reference,
// whose batch is asyncio tasks on one thread: the calls start in call
// order, a call runs until its tool waits, and a call whose wait ends
// rejoins the back of the line. Tools are plain Go (time.Sleep, channels,
// I/O, an iterator yielding chunks) and need not know about this. A tool's
// chunk yields and its return are the points the engine sees; a tool
// waits, for the engine, when its next chunk (or its return) has not come
// within the preemption period (Config.Preemption, 20ms by default). So the
// order is the reference's for tools whose segments between chunks either
// run through in less than that period or wait longer than it, as long as
// the waits of different calls end further apart than the period times
// the number of waits in the batch (noticing a wait takes up to a period);
// a shorter wait counts as work (the call keeps its turn), and a segment
// computing for longer than the period counts as a wait. The events of
// one call keep their own order (START, chunks, END) whatever the timing.
//
// Interruption is context cancellation: no model call or tool starts once
// it is visible, every unfinished tool call gets an interrupted result,
// REPLY_END(interrupted) is emitted and the reply ends with the configured
// fallback message. A context already done when a reply would start runs
// nothing. Middleware hooks wrap the reply, reasoning, model call, acting,
// permission and context-compression steps as onions (the first middleware is the outermost
// layer) and transform the system prompt as a pipeline.
//
// # Long contexts
//
// Config.Context (ContextConfig) keeps the context inside the model's
// window, on by default as in the reference: a tool result past the limit
// is stored cut, with a reminder naming where an Offloader saved the rest;
// before every reasoning step the oldest images beyond the limit are
// replaced by a reminder and, once the estimated input (a TokenCounter;
// the reference's Estimator by default) passes the trigger, the older
// messages are replaced by a structured summary the model writes. The
// cut never separates a tool call from its result, a failed summary call
// falls back to the previous summary, and the new context is swapped in
// only once complete, so a cancellation leaves the state as it was. No
// event announces a compression (the reference emits none).
//
// The reference is AgentScope 2.x's Agent._reply_impl; its behaviour, event
// order and strings are reproduced exactly (see conformance/DEVIATIONS.md
// for the few deliberate differences).
package agent
