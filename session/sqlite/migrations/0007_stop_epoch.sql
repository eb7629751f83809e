-- The epoch of the run an interrupt was asked of (0: none). An interrupt
-- asked on a replica that does not run the session is a notice to the
-- owner, which a broken LISTEN connection can lose; the owner also reads
-- this column each time it renews the run's lease (the same column as
-- PostgreSQL's).
ALTER TABLE sessions ADD COLUMN stop_epoch INTEGER NOT NULL DEFAULT 0;
