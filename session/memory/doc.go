// Package memory is the in-memory session.Store: the same semantics as the
// SQL backends (it passes the same contract suite, sessiontest), nothing
// durable. It serves tests and the in-process demo; every session has its
// own lock, so runs on different sessions do not contend.
package memory
