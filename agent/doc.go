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
// Interruption is context cancellation: a cancelled reply closes every
// unfinished tool call with an interrupted result, emits
// REPLY_END(interrupted) and ends with the configured fallback message.
// Middlewares wrap the reply, reasoning, model call, acting and permission
// steps as onions (the first middleware is the outermost layer) and
// transform the system prompt as a pipeline.
//
// The reference is AgentScope 2.x's Agent._reply_impl; its behaviour, event
// order and strings are reproduced exactly (see conformance/DEVIATIONS.md
// for the few deliberate differences).
package agent
