-- The agents users create over the API (POST /agent/), and the lookup of
-- the leases one owner holds (a restarted server closes its dead runs).
CREATE TABLE agents (
    n          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- internal key, creation order
    id         text        NOT NULL UNIQUE,                     -- uuid4 hex, the public id
    user_id    text        NOT NULL,
    config     bytea       NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX agents_by_user ON agents (user_id, n);
CREATE INDEX sessions_by_lease_owner ON sessions (lease_owner) WHERE lease_owner <> '';
