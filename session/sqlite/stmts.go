package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// The statements of the hot paths. Each is prepared once per connection
// (at Open): this driver compiles a statement at every call otherwise, and
// for the short statements of a run that took longer than running them.
const (
	qCreate = `INSERT INTO sessions (id, user_id, agent_id, name, config, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ` + recordCols
	qSessionN      = `SELECT n FROM sessions WHERE id = ? AND user_id = ?`
	qSessionExists = `SELECT 1 FROM sessions WHERE id = ?`
	qGetSession    = `SELECT ` + recordCols + ` FROM sessions WHERE id = ? AND user_id = ?`
	qLeaseOf       = `SELECT lease_owner, lease_expires, lease_epoch FROM sessions WHERE id = ? AND user_id = ?`
	qLeaseAndN     = `SELECT lease_owner, lease_expires, lease_epoch, n FROM sessions WHERE id = ? AND user_id = ?`
	qLastSeq       = `SELECT last_seq FROM sessions WHERE id = ? AND user_id = ?`
	qLoadState     = `SELECT st.version, st.data FROM sessions s LEFT JOIN states st ON st.session_n = s.n WHERE s.id = ? AND s.user_id = ?`
	qStateOf       = `SELECT version, data FROM states WHERE session_n = ?`
	qTouch         = `UPDATE sessions SET updated_at = ? WHERE id = ? AND user_id = ? RETURNING n`
	qInsertState   = `INSERT INTO states (session_n, version, data) VALUES (?, 1, ?) ON CONFLICT DO NOTHING`
	qUpdateState   = `UPDATE states SET version = version + 1, data = ? WHERE session_n = ? AND version = ?`
	qBumpPos       = `UPDATE sessions SET last_pos = last_pos + ? WHERE id = ? AND user_id = ? RETURNING n, last_pos`
	qUpsertMsg     = `INSERT INTO messages (session_n, msg_id, pos, data) VALUES (?, ?, ?, ?)
		ON CONFLICT (session_n, msg_id) DO UPDATE SET data = excluded.data`
	qBumpSeq    = `UPDATE sessions SET last_seq = last_seq + ? WHERE id = ? AND user_id = ? RETURNING n, last_seq`
	qReadEvents = `SELECT seq, data FROM events
		WHERE session_n = (SELECT n FROM sessions WHERE id = ? AND user_id = ?) AND seq > ? ORDER BY seq LIMIT ?`
	// The claim is one UPDATE: it matches only a lease that is free,
	// expired or the caller's, so no reader can interleave.
	qAcquire = `UPDATE sessions SET
			lease_epoch = lease_epoch + (lease_owner <> ?1), lease_owner = ?1, lease_expires = ?2
		WHERE id = ?3 AND user_id = ?4 AND (lease_owner = ?1 OR lease_owner = '' OR lease_expires <= ?5)
		RETURNING lease_owner, lease_expires, lease_epoch, n`
	qRenew = `UPDATE sessions SET lease_expires = ? WHERE id = ? AND user_id = ? AND lease_owner = ?
		RETURNING lease_owner, lease_expires, lease_epoch`
	qRelease      = `UPDATE sessions SET lease_owner = '', lease_expires = 0 WHERE id = ? AND user_id = ? AND lease_owner = ?`
	qEnqueue      = `INSERT INTO inputs (session_n, data, created_at) VALUES (?, ?, ?) RETURNING id, data, created_at, attempts`
	qEnqueueClaim = `INSERT INTO inputs (session_n, data, created_at, attempts, claim_owner, claim_epoch) VALUES (?, ?, ?, 1, ?, ?)
		RETURNING id, data, created_at, attempts`
	qClaim = `UPDATE inputs SET attempts = attempts + 1, claim_owner = ?1, claim_epoch = ?2
		WHERE id = (SELECT id FROM inputs WHERE session_n = ?3 AND done = 0 AND NOT (claim_owner = ?1 AND claim_epoch = ?2) ORDER BY id LIMIT 1)
		RETURNING id, data, created_at, attempts`
	qComplete   = `UPDATE inputs SET done = 1 WHERE id = ? AND session_n = ? AND done = 0 AND attempts > 0`
	qPendingOfN = `SELECT count(*) FROM inputs WHERE session_n = ? AND done = 0`
	qPending    = `SELECT (SELECT count(*) FROM inputs i WHERE i.session_n = s.n AND i.done = 0)
		FROM sessions s WHERE s.id = ? AND s.user_id = ?`
)

var (
	writeStmts = []string{qCreate, qSessionN, qLeaseOf, qLeaseAndN, qStateOf, qTouch, qInsertState, qUpdateState, qBumpPos, qUpsertMsg,
		qBumpSeq, qAcquire, qRenew, qRelease, qEnqueue, qEnqueueClaim, qClaim, qComplete, qPendingOfN}
	readStmts = []string{qSessionN, qGetSession, qLeaseOf, qLastSeq, qLoadState, qReadEvents, qPending}
)

// insertChunks are the sizes of the prepared multi-row event INSERTs: a
// batch is cut into them, largest first (a batch of 100 is 64+32+4), so
// any batch is a few prepared statements and no compile. The largest
// carries 768 parameters, well under SQLite's limit of 32766.
var insertChunks = []int{256, 128, 64, 32, 16, 8, 4, 2, 1}

func insertEventsSQL(n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO events (session_n, seq, data) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?,?)")
	}
	return b.String()
}

// prepare compiles the hot statements on the writer and the readers.
func (s *Store) prepare(ctx context.Context) error {
	s.wstmts, s.rstmts = map[string]*sql.Stmt{}, map[string]*sql.Stmt{}
	w := writeStmts
	for _, n := range insertChunks {
		w = append(w, insertEventsSQL(n))
	}
	for _, set := range []struct {
		db *sql.DB
		qs []string
		m  map[string]*sql.Stmt
	}{{s.w, w, s.wstmts}, {s.r, readStmts, s.rstmts}} {
		for _, q := range set.qs {
			st, err := set.db.PrepareContext(ctx, q)
			if err != nil {
				return fmt.Errorf("prepare %q: %w", q, err)
			}
			set.m[q] = st
		}
	}
	return nil
}

// wtx is a write transaction that runs the prepared statements where it
// has them (a statement prepared on the one writer connection is reused
// by every transaction on it).
type wtx struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

func (t *wtx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if st := t.stmts[q]; st != nil {
		return t.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, q, args...)
}

func (t *wtx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := t.stmts[q]; st != nil {
		return t.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, q, args...)
}

// row runs a read on the reader pool, prepared when it is one of
// readStmts.
func (s *Store) row(ctx context.Context, q string, args ...any) *sql.Row {
	if st := s.rstmts[q]; st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return s.r.QueryRowContext(ctx, q, args...)
}

func (s *Store) rows(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := s.rstmts[q]; st != nil {
		return st.QueryContext(ctx, args...)
	}
	return s.r.QueryContext(ctx, q, args...)
}
