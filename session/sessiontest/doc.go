// Package sessiontest is the contract every session.Store backend passes:
// Run checks the semantics (CRUD, user isolation, transcript order and
// paging, gapless event sequences under concurrent appenders, leases,
// the input queue, optimistic state saves, delete cascade, cancellation,
// typed errors) and Bench measures the hot paths the same way on each.
package sessiontest
