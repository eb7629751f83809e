// Package sqlite is the embedded session.Store: one SQLite file through the
// pure-Go modernc.org/sqlite driver (no cgo), in WAL mode with
// synchronous=NORMAL, foreign keys on and a busy timeout.
//
// SQLite allows one writer at a time, so every write goes through a single
// connection: writers queue in database/sql rather than colliding in
// SQLITE_BUSY retries, and a read-modify-write inside one transaction
// (the lease claim, the event counter) cannot interleave with another.
// Reads use a separate pool of query_only connections, which WAL lets run
// beside the writer. The schema is migrated on Open from the numbered
// files in migrations/ (see package session for what each table holds).
package sqlite
