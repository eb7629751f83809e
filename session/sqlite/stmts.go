package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentscope-go/agentscope/session/internal/sqlstore"
)

// The statements only SQLite runs (the shared ones are sqlstore's). Each
// hot statement is prepared once per connection (the readers' at Open,
// the writer's before the first write): this driver
// compiles a statement at every call otherwise, and for the short
// statements of a run that took longer than running them.
const (
	qCreate = `INSERT INTO sessions (id, user_id, agent_id, name, config, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ` + sqlstore.RecordCols
	qSessionExists = `SELECT 1 FROM sessions WHERE id = ?`
	// qFence is the row of a session whose lease is still the one named:
	// id, user, owner, epoch. (PostgreSQL fences inside its statements.)
	qFence     = `SELECT n FROM sessions WHERE id = ? AND user_id = ? AND lease_owner = ? AND lease_epoch = ?`
	qBumpPos   = `UPDATE sessions SET last_pos = last_pos + ? WHERE n = ? RETURNING last_pos`
	qUpsertMsg = `INSERT INTO messages (session_n, msg_id, pos, data) VALUES (?, ?, ?, ?)
		ON CONFLICT (session_n, msg_id) DO UPDATE SET data = excluded.data`
	qBumpSeq = `UPDATE sessions SET last_seq = last_seq + ? WHERE n = ? RETURNING last_seq`
	// qBumpBoth is qBumpPos and qBumpSeq at once: messages, events, n.
	qBumpBoth = `UPDATE sessions SET last_pos = last_pos + ?, last_seq = last_seq + ? WHERE n = ? RETURNING last_pos, last_seq`
	// qClaimRun is sqlstore's ClaimLease returning the session's agent and
	// config as well (session.Run's AgentID and Config), and what StateOf
	// reads (?6: the version the caller knows) and whether any input is
	// pending: one statement, not three, where the run's start holds the
	// writer. n, created_at, agent_id, config, LeaseCols, the state's
	// version and data (NULL without a state), pending.
	qClaimRun = `UPDATE sessions SET lease_epoch = lease_epoch + 1, lease_owner = ?1, lease_expires = ?2, status = 'running', run_seq = last_seq
		WHERE id = ?3 AND user_id = ?4 AND (lease_owner = ?1 OR lease_owner = '' OR lease_expires <= ?5)
		RETURNING n, created_at, agent_id, config, ` + sqlstore.LeaseCols + `,
			(SELECT version FROM states WHERE session_n = sessions.n),
			(SELECT CASE WHEN version = ?6 THEN NULL ELSE data END FROM states WHERE session_n = sessions.n),
			EXISTS (SELECT 1 FROM inputs WHERE session_n = sessions.n AND done = 0)`
)

var (
	writeStmts = []string{qCreate, qSessionExists, qFence, qBumpPos, qUpsertMsg, qBumpSeq, qBumpBoth, qClaimRun, d.Q.SessionN, d.Q.LeaseOf,
		d.Q.ClaimLeftovers, d.Q.EnqueueClaimed, d.Q.Renew, d.Q.Finish, d.Q.InsertState, d.Q.UpdateState, d.Q.CompleteInput,
		d.Q.FillStatus, d.Q.UpdateSession}
	readStmts = []string{d.Q.SessionN, d.Q.GetSession, d.Q.ListUser, d.Q.ListUserAfter, d.Q.ListAgent, d.Q.ListAgentAfter, d.Q.CountUser, d.Q.CountAgent, d.Q.LastSeq, d.Q.LoadState, d.Q.ReadEvents,
		d.Q.PendingInputs, d.Q.Recoverable, d.Q.HeldBy, d.Q.GetAgent, d.Q.ListAgents}
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

// prepare compiles the hot read statements on the readers; the writer's
// are compiled on the first write (writeStmts.get).
func (s *Store) prepare(ctx context.Context) error {
	s.rstmts = map[string]*sql.Stmt{}
	for _, q := range readStmts {
		st, err := s.r.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", q, err)
		}
		s.rstmts[q] = st
	}
	return nil
}

// lazyStmts is the writer's hot statements, prepared together before the
// first write transaction and kept: prepared at Open, their compiled
// programs (most of it the multi-row event INSERTs, up to 768
// parameters) were a third of a megabyte held by a server that had not
// written yet (BENCHMARKS.md, memory at start). They are prepared outside
// the transaction, on the one writer connection while it is free; a
// failure leaves them unprepared (the transaction compiles its
// statements, as an older schema's does) and the next write tries again.
type lazyStmts struct {
	c     *sql.Conn // the writer connection
	qs    []string  // nil: never prepared (a store held at an older schema)
	mu    sync.Mutex
	ready atomic.Pointer[map[string]*sql.Stmt]
}

func (l *lazyStmts) get(ctx context.Context) map[string]*sql.Stmt {
	if m := l.ready.Load(); m != nil || l.qs == nil {
		if m == nil {
			return nil
		}
		return *m
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if m := l.ready.Load(); m != nil {
		return *m
	}
	m := make(map[string]*sql.Stmt, len(l.qs))
	for _, q := range l.qs {
		st, err := l.c.PrepareContext(ctx, q)
		if err != nil {
			for _, st := range m {
				st.Close()
			}
			return nil
		}
		m[q] = st
	}
	l.ready.Store(&m)
	return m
}

// close closes the prepared statements (a statement prepared on a
// sql.Conn is closed by nothing else, and SQLite keeps a connection with
// an unfinalized statement open, its files and locks with it, after
// sqlite3_close_v2); a later get has none and runs its statements
// unprepared.
func (l *lazyStmts) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	if m := l.ready.Load(); m != nil {
		for _, st := range *m {
			errs = append(errs, st.Close())
		}
	}
	none := map[string]*sql.Stmt{}
	l.ready.Store(&none)
	return errors.Join(errs...)
}

func (w wtxStmts) close() error {
	var errs []error
	for _, st := range []*sql.Stmt{w.begin, w.commit, w.rollback} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(errs...)
}

func writerStmts() []string {
	w := slices.Clone(writeStmts)
	for _, n := range insertChunks {
		w = append(w, insertEventsSQL(n))
	}
	return w
}

// wtxStmts are a write transaction's own statements, prepared on the
// writer connection when the store takes it (holdWriter). BEGIN
// IMMEDIATE takes the write lock at once, as _txlock=immediate made
// BeginTx do: a transaction never fails midway upgrading a read.
type wtxStmts struct {
	begin, commit, rollback *sql.Stmt
}

// holdWriter takes the writer connection out of w's pool for the store's
// life and prepares the transactions' statements on it.
func (s *Store) holdWriter(ctx context.Context) error {
	c, err := s.w.Conn(ctx)
	if err != nil {
		return err
	}
	var sts [3]*sql.Stmt
	for i, q := range []string{`BEGIN IMMEDIATE`, `COMMIT`, `ROLLBACK`} {
		if sts[i], err = c.PrepareContext(ctx, q); err != nil {
			wtxStmts{begin: sts[0], commit: sts[1], rollback: sts[2]}.close()
			c.Close()
			return fmt.Errorf("prepare %q: %w", q, err)
		}
	}
	s.wc, s.wsem = c, make(chan struct{}, 1)
	s.wtxs = wtxStmts{begin: sts[0], commit: sts[1], rollback: sts[2]}
	return nil
}

// wtx is a write transaction on the writer connection, which it holds
// until commit or rollback. It runs the prepared statements where it has
// them (a statement prepared on the one writer connection is reused by
// every transaction on it).
type wtx struct {
	s     *Store
	stmts map[string]*sql.Stmt
	done  bool
}

// begin waits for the writer connection (as long as ctx lets it) and
// starts a transaction on it.
func (s *Store) begin(ctx context.Context) (*wtx, error) {
	select {
	case s.wsem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		// Both were ready and the slot won: a done context still begins
		// nothing.
		<-s.wsem
		return nil, err
	}
	// Prepared before the transaction begins (once, on the first write).
	stmts := s.wstmts.get(ctx)
	if _, err := s.wtxs.begin.ExecContext(ctx); err != nil {
		// A context done while BEGIN ran fails the call even when BEGIN
		// took effect (the driver reports the context's error after the
		// statement): roll back whatever it began, or the connection stays
		// in that transaction and every later BEGIN fails. ROLLBACK's error
		// ("no transaction is active") is the usual case, not news.
		_, _ = s.wtxs.rollback.ExecContext(context.Background())
		<-s.wsem
		return nil, err
	}
	return &wtx{s: s, stmts: stmts}, nil
}

// commit commits the transaction and frees the writer. A failed COMMIT
// is rolled back (ROLLBACK's own failure, when SQLite rolled the
// transaction back already, is not the error to report), so the next
// transaction finds the connection out of any.
func (t *wtx) commit(ctx context.Context) error {
	if t.done {
		return sql.ErrTxDone
	}
	t.done = true
	defer func() { <-t.s.wsem }()
	if _, err := t.s.wtxs.commit.ExecContext(stmtCtx(ctx)); err != nil {
		_, _ = t.s.wtxs.rollback.ExecContext(context.Background())
		return err
	}
	return nil
}

// rollback rolls the transaction back and frees the writer; after commit
// it does nothing.
func (t *wtx) rollback() error {
	if t.done {
		return nil
	}
	t.done = true
	defer func() { <-t.s.wsem }()
	_, err := t.s.wtxs.rollback.ExecContext(context.Background())
	return err
}

// The statements inside a transaction run with their context's values
// but not its cancellation (stmtCtx): the driver watches a cancellable
// context from a goroutine of its own for every statement, a goroutine
// started and woken per statement of each run's start. What can wait on
// a lock there is BEGIN IMMEDIATE (under busy_timeout, for another
// process's writer), which keeps its context; once it holds the write
// lock a statement waits for nothing, and a context done meanwhile is
// seen before the next statement runs (database/sql returns its error
// without running it), which rolls the transaction back.
func stmtCtx(ctx context.Context) context.Context {
	if ctx.Err() != nil {
		return ctx
	}
	return context.WithoutCancel(ctx)
}

func (t *wtx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	ctx = stmtCtx(ctx)
	if st := t.stmts[q]; st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.s.wc.QueryRowContext(ctx, q, args...)
}

func (t *wtx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	ctx = stmtCtx(ctx)
	if st := t.stmts[q]; st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.s.wc.QueryContext(ctx, q, args...)
}

func (t *wtx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	ctx = stmtCtx(ctx)
	if st := t.stmts[q]; st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.s.wc.ExecContext(ctx, q, args...)
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
