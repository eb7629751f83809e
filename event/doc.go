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
//
// The 28 types and their methods (events.go) are generated from one table,
// internal/gen/table.go: a field's kind there decides its Go type, how
// AppendJSON writes it and how Decode reads it, so the encoder and the
// decoder cannot drift apart and a new event is one table row. Edit the
// table and run go generate; a test fails while events.go is stale.
//
// Decode scans the text once (package internal/wire) and reads each field
// from the scan; the strings of one event share one allocation, which lives
// as long as any of them.
package event

//go:generate go run ./internal/gen -o events.go
