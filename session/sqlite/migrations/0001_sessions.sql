-- Sessions with their state, transcript and event log. Times are Unix
-- microseconds (UTC); JSON is stored as the bytes given, never re-encoded.
CREATE TABLE sessions (
    n          INTEGER PRIMARY KEY AUTOINCREMENT, -- internal key, creation order
    id         TEXT    NOT NULL UNIQUE,           -- uuid4 hex, the public id
    user_id    TEXT    NOT NULL,
    agent_id   TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    config     BLOB    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    last_seq   INTEGER NOT NULL DEFAULT 0,        -- sequence of the last event
    last_pos   INTEGER NOT NULL DEFAULT 0         -- position of the last message
);
CREATE INDEX sessions_by_owner ON sessions (user_id, agent_id, created_at, n);

CREATE TABLE states (
    session_n INTEGER PRIMARY KEY REFERENCES sessions (n) ON DELETE CASCADE,
    version   INTEGER NOT NULL,
    data      BLOB    NOT NULL
);

CREATE TABLE messages (
    session_n INTEGER NOT NULL REFERENCES sessions (n) ON DELETE CASCADE,
    msg_id    TEXT    NOT NULL,
    pos       INTEGER NOT NULL,
    data      BLOB    NOT NULL,
    PRIMARY KEY (session_n, msg_id)
) WITHOUT ROWID;
CREATE UNIQUE INDEX messages_by_pos ON messages (session_n, pos);

CREATE TABLE events (
    session_n INTEGER NOT NULL REFERENCES sessions (n) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    data      BLOB    NOT NULL,
    PRIMARY KEY (session_n, seq)
) WITHOUT ROWID;
