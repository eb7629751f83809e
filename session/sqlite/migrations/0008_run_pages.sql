-- Fewer pages written by each run (the lease index, the inputs' ids).

-- One index of the leased sessions instead of two. sessions_leased
-- (lease_expires) and sessions_by_lease_owner (lease_owner) were each
-- written by every run's start and end (an entry in, an entry out) and
-- sessions_leased by every lease renewal too, yet no statement read
-- either: SQLite cannot use a partial index WHERE lease_owner <> '' for
-- lease_owner = ?, and the rescue's scan for dead runs is an OR over the
-- whole table. sessions_held serves the one lookup by owner (HeldBy, which
-- now names the index's condition, in its order), and a renewal, which
-- only moves lease_expires, no longer touches an index.
DROP INDEX sessions_leased;
DROP INDEX sessions_by_lease_owner;
CREATE INDEX sessions_held ON sessions (lease_owner, created_at, n) WHERE lease_owner <> '';

-- The inputs' ids without AUTOINCREMENT: each insert of one (every run's
-- start) also wrote the table's row of sqlite_sequence, a page of its
-- own. An id is now the largest there plus one, so after a session is
-- deleted its inputs' ids may be given again, to another session's: every
-- statement names an input with its session (CompleteInput) or reads a
-- session's inputs in id order, which a session's own inputs, never
-- deleted while it lives, keep. SQLite cannot alter a column's key, so the
-- table is copied.
CREATE TABLE inputs_v8 (
    id          INTEGER PRIMARY KEY,
    session_n   INTEGER NOT NULL REFERENCES sessions (n) ON DELETE CASCADE,
    data        BLOB    NOT NULL,
    created_at  INTEGER NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    claim_owner TEXT    NOT NULL DEFAULT '',
    claim_epoch INTEGER NOT NULL DEFAULT 0,
    done        INTEGER NOT NULL DEFAULT 0
);
INSERT INTO inputs_v8 (id, session_n, data, created_at, attempts, claim_owner, claim_epoch, done)
SELECT id, session_n, data, created_at, attempts, claim_owner, claim_epoch, done FROM inputs;
DROP TABLE inputs;
ALTER TABLE inputs_v8 RENAME TO inputs;
CREATE INDEX inputs_pending ON inputs (session_n, id) WHERE done = 0;
