-- The run lease on the session row (claimed with one UPDATE) and the queue
-- of run inputs.
ALTER TABLE sessions
    ADD COLUMN lease_owner   text        NOT NULL DEFAULT '',
    ADD COLUMN lease_expires timestamptz,
    ADD COLUMN lease_epoch   bigint      NOT NULL DEFAULT 0;
CREATE INDEX sessions_leased ON sessions (lease_expires) WHERE lease_owner <> '';

CREATE TABLE inputs (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_n   bigint      NOT NULL REFERENCES sessions (n) ON DELETE CASCADE,
    data        bytea       NOT NULL,
    created_at  timestamptz NOT NULL,
    attempts    int         NOT NULL DEFAULT 0,
    claim_owner text        NOT NULL DEFAULT '',
    claim_epoch bigint      NOT NULL DEFAULT 0,
    done        boolean     NOT NULL DEFAULT false
);
CREATE INDEX inputs_pending ON inputs (session_n, id) WHERE NOT done;
