// Package event defines the 28 events an agent reply streams to the outside
// world — what is happening, as opposed to package message's Msg, which is
// what was said.
//
// Every event is a pointer to a struct that embeds Base (id, created_at,
// metadata) and implements Event. AppendJSON writes exactly the JSON
// AgentScope 2.x emits for that event (field order included), appending to a
// caller's buffer so that streaming a token costs no allocation; Decode reads
// any event back by its "type" tag and rejects unknown types and missing
// required fields with typed errors. Block values inside events (tool calls,
// tool results, hint bodies) are the ones of package block.
//
// The vocabulary that both planes share — roles, reply finish reasons and
// ErrorInfo — is defined here, at the lower of the two layers, and used
// under these names by package message.
package event
