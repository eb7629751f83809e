-- Where the latest run's events start in the log (last_seq when BeginRun
-- took the lease), so that a follower on any replica starts a stream at
-- the run in progress, wherever it runs.
ALTER TABLE sessions ADD COLUMN run_seq bigint NOT NULL DEFAULT 0;
