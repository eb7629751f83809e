-- One index of the leased sessions instead of two (the same as SQLite's).
-- sessions_leased (lease_expires) and sessions_by_lease_owner
-- (lease_owner) were each updated by every run's start and end, and
-- sessions_leased by every lease renewal too (which kept renewals from
-- being heap-only updates); the rescue's scan for dead runs is an OR that
-- neither serves. sessions_held serves the one lookup by owner (HeldBy,
-- which names the index's condition, in its order), and a renewal, which
-- only moves lease_expires, changes no indexed column.
DROP INDEX sessions_leased;
DROP INDEX sessions_by_lease_owner;
CREATE INDEX sessions_held ON sessions (lease_owner, created_at, n) WHERE lease_owner <> '';
