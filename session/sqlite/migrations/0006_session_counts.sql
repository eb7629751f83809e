-- How many sessions each user has of each agent, so that a listing's total
-- is one row read (a sum over the user's agents) instead of a count of
-- every session at every page. The triggers keep it in the transaction of
-- each insert and delete of a session, whichever statement does it
-- (CreateSession, DeleteSession, DeleteAgent's sessions); a session's
-- user and agent never change. A count that falls to 0 keeps its row.
CREATE TABLE session_counts (
    user_id  TEXT    NOT NULL,
    agent_id TEXT    NOT NULL,
    n        INTEGER NOT NULL,
    PRIMARY KEY (user_id, agent_id)
) WITHOUT ROWID;
INSERT INTO session_counts (user_id, agent_id, n)
SELECT user_id, agent_id, count(*) FROM sessions GROUP BY user_id, agent_id;

CREATE TRIGGER sessions_count_insert AFTER INSERT ON sessions BEGIN
    INSERT INTO session_counts (user_id, agent_id, n) VALUES (new.user_id, new.agent_id, 1)
    ON CONFLICT (user_id, agent_id) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER sessions_count_delete AFTER DELETE ON sessions BEGIN
    UPDATE session_counts SET n = n - 1 WHERE user_id = old.user_id AND agent_id = old.agent_id;
END;
