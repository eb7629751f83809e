-- Where the latest run's events start in the log (last_seq when BeginRun
-- took the lease), so that a follower starts a stream at the run in
-- progress (the same column as PostgreSQL's).
ALTER TABLE sessions ADD COLUMN run_seq INTEGER NOT NULL DEFAULT 0;
