-- How many sessions each user has of each agent, so that a listing's total
-- is one row read (a sum over the user's agents) instead of a count of
-- every session at every page. The trigger keeps it in the transaction of
-- each insert and delete of a session, whichever statement does it
-- (CreateSession, DeleteSession, DeleteAgent's sessions); a session's
-- user and agent never change. A count that falls to 0 keeps its row.
--
-- The lock holds off the inserts and deletes of replicas still running
-- the previous build until this commits: none falls between the count
-- below and the trigger (readers go on).
LOCK TABLE sessions IN SHARE ROW EXCLUSIVE MODE;
CREATE TABLE session_counts (
    user_id  text   NOT NULL,
    agent_id text   NOT NULL,
    n        bigint NOT NULL,
    PRIMARY KEY (user_id, agent_id)
);
INSERT INTO session_counts (user_id, agent_id, n)
SELECT user_id, agent_id, count(*) FROM sessions GROUP BY user_id, agent_id;

CREATE FUNCTION sessions_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO session_counts AS c (user_id, agent_id, n) VALUES (NEW.user_id, NEW.agent_id, 1)
        ON CONFLICT (user_id, agent_id) DO UPDATE SET n = c.n + 1;
    ELSE
        UPDATE session_counts SET n = n - 1 WHERE user_id = OLD.user_id AND agent_id = OLD.agent_id;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER sessions_count AFTER INSERT OR DELETE ON sessions
    FOR EACH ROW EXECUTE FUNCTION sessions_count();
