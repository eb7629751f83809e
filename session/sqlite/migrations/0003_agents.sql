-- The agents users create over the API (POST /agent/), and the lookup of
-- the leases one owner holds (a restarted server closes its dead runs).
CREATE TABLE agents (
    n          INTEGER PRIMARY KEY AUTOINCREMENT, -- internal key, creation order
    id         TEXT    NOT NULL UNIQUE,           -- uuid4 hex, the public id
    user_id    TEXT    NOT NULL,
    config     BLOB    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX agents_by_user ON agents (user_id, n);
CREATE INDEX sessions_by_lease_owner ON sessions (lease_owner) WHERE lease_owner <> '';
