// Package stamp produces the identifiers and timestamps that messages, blocks
// and events carry on the wire.
//
// AgentScope 2.x identifies everything with uuid4().hex (32 lowercase hex
// characters) and timestamps with Python's naive local-time isoformat()
// ("2026-08-22T09:14:04.512348", no zone, fraction omitted when it is zero).
// A Source hands out both. It is a value passed to whoever creates entities —
// an agent, a factory call, a test — rather than a process-wide setting, so
// two agents in one process can use different sources and golden tests can be
// deterministic without racing on a global.
package stamp
