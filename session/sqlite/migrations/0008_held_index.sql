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
