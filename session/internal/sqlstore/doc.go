// Package sqlstore is the SQL that the SQLite and PostgreSQL backends
// share, written once. Each statement is written in PostgreSQL's
// placeholders ($1, $2, …) with a few tokens for what the two dialects
// spell differently, and a Dialect renders it for its backend once, at
// init: SQLite gets ?1, ?2, … (numbered, so a parameter used twice is
// bound once, as in PostgreSQL), 0 and 1 for booleans, 0 for a lease with
// no expiry (its times are Unix microseconds; PostgreSQL's are
// timestamptz, NULL for none).
//
// What stays in each backend is what they cannot share: schema files (the
// types differ), the migration runner (PostgreSQL's takes an advisory
// lock), and the hot writes that PostgreSQL does in one statement with
// arrays (unnest) where SQLite, with no arrays and one writer, prepares
// multi-row INSERTs.
package sqlstore
