-- What each session does, kept by the run transactions (BeginRun: running;
-- FinishRun: what the run left), so that listing sessions reads it off the
-- row instead of decoding every state. A new session is idle.
--
-- Rows from before: a session holding a lease is running (its run, live or
-- dead, ends with a FinishRun that sets it right, or the rescue's does); one
-- without a state is idle; one with a state is '' (unknown), because only
-- the engine can read an AgentState and knows its agent's name: it derives
-- the status once, the first time it reads the row, and stores it
-- (FillStatus), which never overwrites a status a run stored since.
ALTER TABLE sessions ADD COLUMN status TEXT NOT NULL DEFAULT 'idle';
UPDATE sessions SET status = CASE WHEN lease_owner <> '' THEN 'running' ELSE '' END
WHERE lease_owner <> '' OR EXISTS (SELECT 1 FROM states st WHERE st.session_n = sessions.n);

-- A page of a user's sessions, newest first, read off this index in order
-- and stopped after the page: sessions_by_owner leads with agent_id, so a
-- listing of every agent's sessions sorted all of the user's rows first.
CREATE INDEX sessions_by_user ON sessions (user_id, created_at DESC, n DESC);
