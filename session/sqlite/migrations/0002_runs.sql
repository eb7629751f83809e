-- The run lease on the session row (claimed with one UPDATE) and the queue
-- of run inputs.
ALTER TABLE sessions ADD COLUMN lease_owner   TEXT    NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN lease_expires INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN lease_epoch   INTEGER NOT NULL DEFAULT 0;
CREATE INDEX sessions_leased ON sessions (lease_expires) WHERE lease_owner <> '';

CREATE TABLE inputs (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    session_n   INTEGER NOT NULL REFERENCES sessions (n) ON DELETE CASCADE,
    data        BLOB    NOT NULL,
    created_at  INTEGER NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    claim_owner TEXT    NOT NULL DEFAULT '',
    claim_epoch INTEGER NOT NULL DEFAULT 0,
    done        INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX inputs_pending ON inputs (session_n, id) WHERE done = 0;
