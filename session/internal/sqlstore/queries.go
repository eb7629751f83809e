package sqlstore

import (
	"fmt"
	"reflect"
	"strings"
)

// Queries are the statements both backends run, rendered for one dialect.
// Parameters are named in each field's comment, in order.
type Queries struct {
	// GetSession: id, user.
	GetSession string
	// SessionN is a session's row number: id, user.
	SessionN string
	// ListUser is a page of a user's sessions with the total in each
	// row: user, limit, offset. ListUserAfter starts after a cursor:
	// user, created_at, n, limit, offset. ListAgent and ListAgentAfter
	// are those of one agent's sessions, with the agent after the user.
	// Four statements rather than one with optional terms, so that each
	// plan reads its index from the cursor on (a generic plan of "$3 IS
	// NULL OR …" would scan from the newest).
	ListUser, ListUserAfter, ListAgent, ListAgentAfter string
	// CountUser and CountAgent are the total, for a page that came back
	// empty: user (and agent).
	CountUser, CountAgent string
	// UpdateSession: name (NULL: keep), config (NULL: keep), now, id, user.
	UpdateSession string
	// FillStatus: id, user, status. It matches only a stale status.
	FillStatus string
	// LoadState: id, user.
	LoadState string
	// MessagePos is the session's row number and the position of message
	// $3 in its transcript: id, user, message id.
	MessagePos string
	// ListMessages: session n, before position, limit.
	ListMessages string
	// ReadEvents: id, user, after, limit.
	ReadEvents string
	// LastSeq: id, user.
	LastSeq string
	// PendingInputs: id, user.
	PendingInputs string
	// Recoverable: now, limit.
	Recoverable string
	// HeldBy: owner, limit.
	HeldBy string
	// CountStatuses: none.
	CountStatuses string

	// ClaimLease takes the lease for a run: owner, expiry, id, user, now,
	// returning n, created_at and LeaseCols. It matches a lease that is
	// free, expired or the owner's, starts a new epoch, marks the session
	// running and notes where the run's events start (run_seq). No row:
	// another owner holds it (or no such session).
	ClaimLease string
	// LeaseOf: id, user.
	LeaseOf string
	// StateOf: session n, the version the caller knows (its data then
	// left out).
	StateOf string
	// ClaimLeftovers claims every pending input again: session n.
	ClaimLeftovers string
	// EnqueueClaimed queues an input claimed by the run queuing it:
	// session n, data, now.
	EnqueueClaimed string
	// Renew: id, user, owner, epoch, expiry; LeaseCols and whether a stop
	// was asked of the run.
	Renew string
	// AskStop: id, user, owner, epoch.
	AskStop string
	// Finish frees the lease of the run named and stores its status,
	// first in a run's end, so that it locks the row (PostgreSQL) and
	// fences the rest: id, user, owner, epoch, status, updated_at (NULL:
	// keep).
	Finish string
	// InsertState saves a first state: session n, data.
	InsertState string
	// UpdateState saves a state over a version: session n, data, version.
	UpdateState string
	// CompleteInput marks a claimed input done: id, session n.
	CompleteInput string

	// CreateAgent: id, user, config, now.
	CreateAgent string
	// GetAgent: id, user.
	GetAgent string
	// ListAgents: user.
	ListAgents string
	// UpdateAgent: config, now, id, user.
	UpdateAgent string
	// DeleteAgent: id, user.
	DeleteAgent string
	// DeleteAgentSessions returns their row numbers: user, agent.
	DeleteAgentSessions string
	// DeleteSession returns its row number: id, user.
	DeleteSession string
}

// shared is every statement, in PostgreSQL's placeholders and the tokens
// Dialect.Render replaces.
var shared = Queries{
	GetSession: `SELECT ` + RecordCols + ` FROM sessions WHERE id = $1 AND user_id = $2`,
	SessionN:   `SELECT n FROM sessions WHERE id = $1 AND user_id = $2`,
	// One statement each, so the page and the total agree. The total is
	// read off session_counts (kept by triggers on sessions, in the
	// transaction of each insert and delete), not counted: a count(*)
	// of 100,000 sessions costs more than the page.
	ListUser:       listPage(false, false),
	ListUserAfter:  listPage(false, true),
	ListAgent:      listPage(true, false),
	ListAgentAfter: listPage(true, true),
	CountUser:      countOf(false),
	CountAgent:     countOf(true),
	UpdateSession: `UPDATE sessions SET name = coalesce($1, name), config = coalesce($2, config), updated_at = $3
		WHERE id = $4 AND user_id = $5 RETURNING ` + RecordCols,
	FillStatus: `UPDATE sessions SET status = $3
		WHERE id = $1 AND user_id = $2 AND (status = '' OR (status = 'running' AND lease_owner = ''))`,
	LoadState: `SELECT st.version, st.data FROM sessions s LEFT JOIN states st ON st.session_n = s.n WHERE s.id = $1 AND s.user_id = $2`,
	MessagePos: `SELECT s.n, (SELECT pos FROM messages m WHERE m.session_n = s.n AND m.msg_id = $3)
		FROM sessions s WHERE s.id = $1 AND s.user_id = $2`,
	ListMessages: `SELECT msg_id, data FROM messages WHERE session_n = $1 AND pos < $2 ORDER BY pos DESC LIMIT $3`,
	ReadEvents: `SELECT seq, data FROM events
		WHERE session_n = (SELECT n FROM sessions WHERE id = $1 AND user_id = $2) AND seq > $3 ORDER BY seq LIMIT $4`,
	LastSeq: `SELECT last_seq FROM sessions WHERE id = $1 AND user_id = $2`,
	PendingInputs: `SELECT (SELECT count(*) FROM inputs i WHERE i.session_n = s.n AND i.done = {false})
		FROM sessions s WHERE s.id = $1 AND s.user_id = $2`,
	// The sessions a rescue takes: a lease that expired, or no lease and
	// inputs pending. Two arms (disjoint: one leased, one not), so that each reads a partial index of the
	// few rows it needs (the leased sessions, the pending inputs) and not
	// the whole table, which one OR over both made both databases scan at
	// every rescue of every replica (on Postgres, a JIT compile with it).
	Recoverable: `SELECT user_id, id FROM (
		SELECT s.user_id, s.id, s.created_at, s.n FROM sessions s
			WHERE s.lease_owner <> '' AND s.lease_expires <= $1
		UNION ALL
		SELECT s.user_id, s.id, s.created_at, s.n FROM sessions s
			WHERE s.lease_owner = '' AND s.n IN (SELECT i.session_n FROM inputs i WHERE i.done = {false})
		) r ORDER BY created_at, n LIMIT $2`,
	// lease_owner <> '' lets both databases read the partial index
	// sessions_held (the owner is never empty: check.Owner).
	HeldBy: `SELECT user_id, id FROM sessions WHERE lease_owner = $1 AND lease_owner <> '' ORDER BY created_at, n LIMIT $2`,
	// A scan of the sessions, once a scrape (GET /metrics), not per run.
	CountStatuses: `SELECT status, count(*) FROM sessions GROUP BY status`,

	ClaimLease: `UPDATE sessions SET lease_epoch = lease_epoch + 1, lease_owner = $1, lease_expires = $2, status = 'running', run_seq = last_seq
		WHERE id = $3 AND user_id = $4 AND (lease_owner = $1 OR lease_owner = '' OR lease_expires <= $5)
		RETURNING n, created_at, ` + LeaseCols,
	LeaseOf:        `SELECT ` + LeaseCols + ` FROM sessions WHERE id = $1 AND user_id = $2`,
	StateOf:        `SELECT version, CASE WHEN version = $2 THEN NULL ELSE data END FROM states WHERE session_n = $1`,
	ClaimLeftovers: `UPDATE inputs SET attempts = attempts + 1 WHERE session_n = $1 AND done = {false} RETURNING ` + InputCols,
	EnqueueClaimed: `INSERT INTO inputs (session_n, data, created_at, attempts) VALUES ($1, $2, $3, 1) RETURNING ` + InputCols,
	Renew: `UPDATE sessions SET lease_expires = $5 WHERE id = $1 AND user_id = $2 AND lease_owner = $3 AND lease_epoch = $4
		RETURNING ` + LeaseCols + `, CASE WHEN stop_epoch = lease_epoch THEN 1 ELSE 0 END`,
	AskStop: `UPDATE sessions SET stop_epoch = lease_epoch WHERE id = $1 AND user_id = $2 AND lease_owner = $3 AND lease_epoch = $4`,
	Finish: `UPDATE sessions SET lease_owner = '', lease_expires = {never}, status = $5, updated_at = coalesce($6, updated_at)
		WHERE id = $1 AND user_id = $2 AND lease_owner = $3 AND lease_epoch = $4 RETURNING n`,
	InsertState:   `INSERT INTO states (session_n, version, data) VALUES ($1, 1, $2) ON CONFLICT DO NOTHING`,
	UpdateState:   `UPDATE states SET version = version + 1, data = $2 WHERE session_n = $1 AND version = $3`,
	CompleteInput: `UPDATE inputs SET done = {true} WHERE id = $1 AND session_n = $2 AND done = {false} AND attempts > 0`,

	CreateAgent: `INSERT INTO agents (id, user_id, config, created_at, updated_at) VALUES ($1, $2, $3, $4, $4) RETURNING ` + AgentCols,
	GetAgent:    `SELECT ` + AgentCols + ` FROM agents WHERE id = $1 AND user_id = $2`,
	ListAgents:  `SELECT ` + AgentCols + ` FROM agents WHERE user_id = $1 ORDER BY n`,
	UpdateAgent: `UPDATE agents SET config = $1, updated_at = $2 WHERE id = $3 AND user_id = $4 RETURNING ` + AgentCols,
	DeleteAgent: `DELETE FROM agents WHERE id = $1 AND user_id = $2`,
	// The sessions' rows cascade to their state, transcript and inputs
	// (and, on SQLite, events; PostgreSQL's events have no foreign key
	// and are deleted by the row numbers returned).
	DeleteAgentSessions: `DELETE FROM sessions WHERE user_id = $1 AND agent_id = $2 RETURNING n`,
	DeleteSession:       `DELETE FROM sessions WHERE id = $1 AND user_id = $2 RETURNING n`,
}

// listPage is a listing statement (see Queries.ListUser): of one agent
// (its id $2) or of all, from the newest or after a cursor. The cursor's
// term is written so that its first half, created_at <= $c, bounds the
// index scan in both databases (sessions_by_user; sessions_by_owner read
// backwards), whichever way the index is sorted; the second drops the
// rows of the cursor's microsecond at or above its n.
func listPage(agent, after bool) string {
	where, next := `user_id = $1`, 2
	if agent {
		where, next = where+` AND agent_id = $2`, 3
	}
	if after {
		c, n := fmt.Sprintf("$%d", next), fmt.Sprintf("$%d", next+1)
		where += ` AND created_at <= ` + c + ` AND (created_at < ` + c + ` OR n < ` + n + `)`
		next += 2
	}
	// The page's rows are picked off the index alone (it holds n), and
	// only then read: an offset skips index entries, not rows.
	return `SELECT ` + RecordCols + `, ` + totalOf(agent) + ` FROM sessions WHERE n IN (SELECT n FROM sessions WHERE ` + where +
		fmt.Sprintf(` ORDER BY created_at DESC, n DESC LIMIT $%d OFFSET $%d) ORDER BY created_at DESC, n DESC`, next, next+1)
}

// totalOf is the count of a user's sessions (of one agent, $2), as a
// scalar subquery.
func totalOf(agent bool) string {
	q := `(SELECT coalesce(sum(n), 0) FROM session_counts WHERE user_id = $1`
	if agent {
		q += ` AND agent_id = $2`
	}
	return q + `)`
}

func countOf(agent bool) string { return `SELECT ` + totalOf(agent) }

func newDialect(name string, sqlite bool) *Dialect {
	d := &Dialect{Name: name, sqlite: sqlite}
	if sqlite {
		d.tokens = strings.NewReplacer("{false}", "0", "{true}", "1", "{never}", "0")
	} else {
		d.tokens = strings.NewReplacer("{false}", "false", "{true}", "true", "{never}", "NULL")
	}
	src, dst := reflect.ValueOf(shared), reflect.ValueOf(&d.Q).Elem()
	for i := range src.NumField() {
		dst.Field(i).SetString(d.Render(src.Field(i).String()))
	}
	return d
}

// All lists d's statements, for a backend that prepares them.
func (d *Dialect) All() []string {
	v := reflect.ValueOf(d.Q)
	out := make([]string, v.NumField())
	for i := range out {
		out[i] = v.Field(i).String()
	}
	return out
}
