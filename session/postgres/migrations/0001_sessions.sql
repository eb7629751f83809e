-- Sessions with their state, transcript and event log. JSON is stored as
-- the bytes given (bytea), never re-encoded: jsonb would reorder keys.
CREATE TABLE sessions (
    n          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- internal key, creation order
    id         text        NOT NULL UNIQUE,                     -- uuid4 hex, the public id
    user_id    text        NOT NULL,
    agent_id   text        NOT NULL,
    name       text        NOT NULL,
    config     bytea       NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    last_seq   bigint      NOT NULL DEFAULT 0, -- sequence of the last event
    last_pos   bigint      NOT NULL DEFAULT 0  -- position of the last message
);
CREATE INDEX sessions_by_owner ON sessions (user_id, agent_id, created_at, n);

CREATE TABLE states (
    session_n bigint PRIMARY KEY REFERENCES sessions (n) ON DELETE CASCADE,
    version   bigint NOT NULL,
    data      bytea  NOT NULL
);

CREATE TABLE messages (
    session_n bigint NOT NULL REFERENCES sessions (n) ON DELETE CASCADE,
    msg_id    text   NOT NULL,
    pos       bigint NOT NULL,
    data      bytea  NOT NULL,
    PRIMARY KEY (session_n, msg_id)
);
CREATE UNIQUE INDEX messages_by_pos ON messages (session_n, pos);

-- No foreign key here, unlike the other tables: its per-row check cost
-- more than the insert itself in a batch, and is not needed, since events
-- are only inserted by the statement that locks and updates their
-- session's row, and DeleteSession deletes them after the row.
CREATE TABLE events (
    session_n bigint NOT NULL,
    seq       bigint NOT NULL,
    data      bytea  NOT NULL,
    PRIMARY KEY (session_n, seq)
);
