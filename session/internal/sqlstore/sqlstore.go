package sqlstore

import (
	"database/sql/driver"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/internal/check"
)

// Dialect is one backend's spelling of the shared SQL.
type Dialect struct {
	// Name names the backend in errors.
	Name   string
	sqlite bool
	// Q is every shared statement in this dialect.
	Q Queries
	// tokens replaces the tokens Render replaces: built once, since
	// every statement of Q is rendered at package initialisation.
	tokens *strings.Replacer
}

// The dialects.
var (
	SQLite   = newDialect("sqlite", true)
	Postgres = newDialect("postgres", false)
)

var placeholder = regexp.MustCompile(`\$([0-9]+)`)

// Render is q in d: placeholders and tokens replaced. The tokens are
// {false} and {true} (a boolean column's values) and {never} (the expiry
// of a lease that is free).
func (d *Dialect) Render(q string) string {
	if d.sqlite {
		q = placeholder.ReplaceAllString(q, "?$1")
	}
	return d.tokens.Replace(q)
}

// Time is t as d stores it: Unix microseconds on SQLite, a UTC time on
// PostgreSQL, at the microsecond precision of both.
func (d *Dialect) Time(t time.Time) any {
	t = check.Time(t)
	if d.sqlite {
		return t.UnixMicro()
	}
	return t
}

// NoLimit is the LIMIT parameter that limits nothing.
func (d *Dialect) NoLimit() any {
	if d.sqlite {
		return int64(-1)
	}
	return nil
}

// Bool is b as d's boolean parameter.
func (d *Dialect) Bool(b bool) any {
	if d.sqlite {
		if b {
			return int64(1)
		}
		return int64(0)
	}
	return b
}

// TimeCol scans a time column of either dialect: Unix microseconds (0 is
// no time), a time, or NULL.
type TimeCol struct{ T time.Time }

// Scan implements sql.Scanner.
func (c *TimeCol) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		c.T = time.Time{}
	case int64:
		c.T = time.Time{}
		if v != 0 {
			c.T = time.UnixMicro(v).UTC()
		}
	case time.Time:
		c.T = v.UTC()
	default:
		return fmt.Errorf("sqlstore: a time column holds %T", v)
	}
	return nil
}

var _ interface{ Scan(any) error } = (*TimeCol)(nil)

// Value implements driver.Valuer, for drivers that scan through it.
func (c TimeCol) Value() (driver.Value, error) { return c.T, nil }

// Scanner is a row of either driver.
type Scanner interface{ Scan(dest ...any) error }

// Rows are a query's result rows, as both drivers give them.
type Rows interface {
	Scanner
	Next() bool
	Err() error
}

// ScanStatuses reads the rows of Queries.CountStatuses.
func ScanStatuses(rows Rows) (map[session.Status]int64, error) {
	out := map[session.Status]int64{}
	for rows.Next() {
		var st string
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[session.Status(st)] = n
	}
	return out, rows.Err()
}

// RecordCols are the columns ScanRecord reads: a session's record, its
// status, its lease, where its log stands and its row number (the
// record's Order).
const RecordCols = `id, user_id, agent_id, name, config, created_at, updated_at, status, lease_owner, lease_expires, lease_epoch, run_seq, last_seq, n`

// ScanRecord reads RecordCols, then extra.
func ScanRecord(row Scanner, extra ...any) (session.Record, error) {
	var r session.Record
	var created, updated, expires TimeCol
	var cfg []byte
	var status string
	dest := append([]any{&r.ID, &r.UserID, &r.AgentID, &r.Name, &cfg, &created, &updated, &status, &r.Lease.Owner, &expires, &r.Lease.Epoch, &r.RunSeq, &r.LastSeq, &r.Order}, extra...)
	if err := row.Scan(dest...); err != nil {
		return session.Record{}, err
	}
	r.Config, r.CreatedAt, r.UpdatedAt, r.Status, r.Lease.Expires = cfg, created.T, updated.T, session.Status(status), expires.T
	return r, nil
}

// LeaseCols are the columns ScanLease reads.
const LeaseCols = `lease_owner, lease_expires, lease_epoch`

// ScanLease reads LeaseCols, then extra.
func ScanLease(row Scanner, extra ...any) (session.Lease, error) {
	var l session.Lease
	var exp TimeCol
	if err := row.Scan(append([]any{&l.Owner, &exp, &l.Epoch}, extra...)...); err != nil {
		return session.Lease{}, err
	}
	l.Expires = exp.T
	return l, nil
}

// InputCols are the columns ScanInput reads.
const InputCols = `id, data, created_at, attempts`

// ScanInput reads InputCols.
func ScanInput(row Scanner) (session.Input, error) {
	var in session.Input
	var data []byte
	var created TimeCol
	if err := row.Scan(&in.ID, &data, &created, &in.Attempts); err != nil {
		return session.Input{}, err
	}
	in.JSON, in.CreatedAt = data, created.T
	return in, nil
}

// AgentCols are the columns ScanAgent reads.
const AgentCols = `id, user_id, config, created_at, updated_at`

// ScanAgent reads AgentCols.
func ScanAgent(row Scanner) (session.AgentRecord, error) {
	var r session.AgentRecord
	var created, updated TimeCol
	var cfg []byte
	if err := row.Scan(&r.ID, &r.UserID, &cfg, &created, &updated); err != nil {
		return session.AgentRecord{}, err
	}
	r.Config, r.CreatedAt, r.UpdatedAt = cfg, created.T, updated.T
	return r, nil
}

// NotFound is the error of a session k that does not exist (for its
// user).
func NotFound(k session.Key) error {
	return fmt.Errorf("session %s: %w", k.SessionID, session.ErrNotFound)
}

// NotHeld is the error of a run's write naming a lease that is not k's.
func NotHeld(k session.Key, l session.Lease) error {
	return fmt.Errorf("session %s: lease %s/%d: %w", k.SessionID, l.Owner, l.Epoch, session.ErrNotHeld)
}

// InputNotFound is the error of an input FinishRun cannot mark done.
func InputNotFound(id int64) error {
	return fmt.Errorf("input %d: %w", id, session.ErrNotFound)
}

// Conflict is the error of a state saved over a version that is not the
// stored one.
func Conflict(k session.Key, expected int64) error {
	return fmt.Errorf("session %s: state is no longer at version %d: %w", k.SessionID, expected, session.ErrConflict)
}

// List is the listing statement of q and its parameters; limit is the
// LIMIT parameter (NoLimit for none).
func (d *Dialect) List(q session.ListQuery, limit any) (string, []any) {
	args := []any{q.UserID}
	if q.AgentID != "" {
		args = append(args, q.AgentID)
	}
	if q.After != nil {
		args = append(args, d.Time(q.After.CreatedAt), q.After.Order)
	}
	args = append(args, limit, q.Offset)
	switch {
	case q.AgentID != "" && q.After != nil:
		return d.Q.ListAgentAfter, args
	case q.AgentID != "":
		return d.Q.ListAgent, args
	case q.After != nil:
		return d.Q.ListUserAfter, args
	}
	return d.Q.ListUser, args
}

// Count is the statement counting q's sessions, and its parameters.
func (d *Dialect) Count(q session.ListQuery) (string, []any) {
	if q.AgentID != "" {
		return d.Q.CountAgent, []any{q.UserID, q.AgentID}
	}
	return d.Q.CountUser, []any{q.UserID}
}
