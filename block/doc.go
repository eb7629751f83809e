// Package block holds the six content blocks a message is made of — text,
// thinking, data, hint, tool_call and tool_result — with their sources,
// states and the permission rule a tool call can carry.
//
// Blocks live below both messages and events because events carry them too
// (a REQUIRE_USER_CONFIRM event lists tool-call blocks); messages and events
// use these types directly. Each block encodes itself to exactly
// the JSON AgentScope 2.x emits (field order, null versus omitted, enum
// strings) by appending to a byte slice, and grows in amortized O(1): text
// appended to a block never copies what is already there, and a base64 data
// source keeps its bytes decoded until the JSON boundary.
//
// A tool call's state changes only through its state machine: one table of
// legal moves, applied by [ToolCall.Transition] for the agent executing the
// call and by [ToolCall.Replay] for a fold of recorded events, with
// [AwaitingCalls], [ExecutableCalls] and [UnfinishedCalls] as the loop's
// views of a message's calls.
//
// Nullable string fields are NullString values, so null and "" stay
// apart on the wire: each round-trips as it came.
package block
