// Package postgres is the session.Store for several replicas on one
// PostgreSQL database, through pgx v5 and its pool.
//
// The claims that must be atomic across processes are single statements on
// the session row: the lease is taken by one UPDATE that matches only a
// free, expired or already-owned lease (RETURNING the result), and an
// event batch is one statement that moves the row's counter and inserts
// the events at the sequences it reserved, so concurrent appenders queue
// on the row lock and the log has no gap. The events table has no foreign
// key (its per-row check cost more than the insert; DeleteSession removes
// a session's events itself). JSON is stored as bytea, byte for
// byte. The schema is migrated on Open under an advisory lock, so replicas
// starting together migrate once (see package session for the tables).
//
// The store is a session.Notifier: AppendRun and FinishRun send a NOTIFY
// on Channel in the statement or transaction that appends the events (so
// it leaves at commit, never before the rows), and so do the deletes;
// Listen holds a LISTEN connection of its own, outside the pool, and
// reconnects it. A notice carries a session id and a sequence, never the
// events, and every listening replica gets every one.
package postgres
