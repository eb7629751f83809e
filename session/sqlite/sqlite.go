package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/internal/check"
	"github.com/agentscope-go/agentscope/session/internal/migrate"
	"github.com/agentscope-go/agentscope/stamp"

	_ "modernc.org/sqlite" // the pure-Go driver, registered as "sqlite"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Config sets up a Store.
type Config struct {
	// Path is the database file, created when missing. Required.
	Path string
	// Readers is the size of the reader pool; zero means 4.
	Readers int
	// BusyTimeout is how long a statement waits for a lock another
	// process holds; zero means 5 s.
	BusyTimeout time.Duration
	// Now is the clock for timestamps and lease expiry; nil is time.Now.
	Now func() time.Time
	// IDs makes session ids; nil is stamp.Default.
	IDs stamp.Source
}

// Store is the SQLite session.Store. It is safe for concurrent use.
type Store struct {
	w   *sql.DB // one connection: SQLite has one writer at a time
	r   *sql.DB // readers, query_only
	now func() time.Time
	ids stamp.Source
	// wstmts and rstmts are the hot statements, prepared at Open on the
	// writer and on the readers (read-only after Open).
	wstmts, rstmts map[string]*sql.Stmt

	// The WAL is checkpointed by a goroutine of the store's on its own
	// connection, never by a commit (see checkpoints).
	ck      *sql.DB
	commits atomic.Int64  // commits since the last checkpoint
	ckKick  chan struct{} // a checkpoint is due
	ckStop  chan struct{}
	ckDone  chan struct{}
	closed  sync.Once
}

var _ session.Store = (*Store)(nil)

// Open opens (creating when needed) the database at cfg.Path and brings its
// schema to the latest version.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	return open(ctx, cfg, math.MaxInt)
}

func open(ctx context.Context, cfg Config, version int) (*Store, error) {
	if cfg.Path == "" || cfg.Path == ":memory:" || strings.HasPrefix(cfg.Path, "file:") {
		return nil, fmt.Errorf("%w: sqlite: Path must name a file, not %q", session.ErrInvalid, cfg.Path)
	}
	readers := cfg.Readers
	if readers <= 0 {
		readers = 4
	}
	busy := cfg.BusyTimeout
	if busy <= 0 {
		busy = 5 * time.Second
	}
	ids := cfg.IDs
	if ids == nil {
		ids = stamp.Default
	}
	dsn := func(extra ...string) string {
		q := url.Values{}
		q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
		q.Add("_pragma", "foreign_keys(1)")
		q.Add("_pragma", "synchronous(NORMAL)")
		for i := 0; i+1 < len(extra); i += 2 {
			q.Add(extra[i], extra[i+1])
		}
		return "file:" + (&url.URL{Path: cfg.Path}).EscapedPath() + "?" + q.Encode()
	}
	w, err := sql.Open("sqlite", dsn("_pragma", "journal_mode(WAL)", "_pragma", "wal_autocheckpoint(0)", "_txlock", "immediate"))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", cfg.Path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	s := &Store{w: w, now: check.Clock(cfg.Now), ids: ids}
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", cfg.Path, err)
	}
	if err := migrateTo(ctx, w, version); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: migrate %s: %w", cfg.Path, err)
	}
	r, err := sql.Open("sqlite", dsn("_pragma", "query_only(1)"))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", cfg.Path, err)
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	s.r = r
	ck, err := sql.Open("sqlite", dsn())
	if err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", cfg.Path, err)
	}
	ck.SetMaxOpenConns(1)
	s.ck, s.ckKick, s.ckStop, s.ckDone = ck, make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
	go s.checkpoints()
	// A store held at an older schema (the migration tests) runs its
	// statements unprepared: some do not compile there.
	if err := s.prepare(ctx); version == math.MaxInt && err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", cfg.Path, err)
	}
	return s, nil
}

// migrateTo applies the embedded migrations up to version, each in its own
// transaction.
func migrateTo(ctx context.Context, db *sql.DB, version int) error {
	ms, err := migrate.Load(migrationFiles, "migrations")
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		return err
	}
	var have int
	if err := db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return err
	}
	if have > len(ms) {
		return fmt.Errorf("database schema is at version %d, newer than this build's %d", have, len(ms))
	}
	for _, m := range ms {
		if m.Version > version {
			break
		}
		err := inTx(ctx, db, func(tx *sql.Tx) error {
			var done int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&done); err != nil || done > 0 {
				return err
			}
			if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				m.Version, m.Name, time.Now().UnixMicro())
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Close stops the checkpoints and closes the connections (the last one
// to close checkpoints the WAL into the file).
func (s *Store) Close() error {
	s.closed.Do(func() { close(s.ckStop) })
	<-s.ckDone
	return errors.Join(s.ck.Close(), s.r.Close(), s.w.Close())
}

// checkpointEvery and checkpointCommits say when the WAL is copied into
// the database file: every so often, or sooner after that many commits.
const (
	checkpointEvery   = time.Second
	checkpointCommits = 256
)

// checkpoints copies the WAL into the database file (a PASSIVE
// checkpoint, which never blocks the writer or the readers) from its own
// connection. With synchronous=NORMAL a checkpoint syncs the WAL and the
// file to disk, milliseconds on a busy disk; SQLite's automatic
// checkpoint (off on the writer) would do that inside whichever commit
// crossed its threshold.
func (s *Store) checkpoints() {
	defer close(s.ckDone)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-s.ckStop:
			return
		case <-t.C:
		case <-s.ckKick:
		}
		if s.commits.Swap(0) == 0 {
			continue
		}
		// A failed checkpoint leaves the WAL longer, nothing else: the
		// next one copies what this one did not.
		_, _ = s.ck.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
	}
}

func inTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// write runs fn in a transaction on the writer connection.
func (s *Store) write(ctx context.Context, fn func(*wtx) error) error {
	err := inTx(ctx, s.w, func(tx *sql.Tx) error { return fn(&wtx{tx: tx, stmts: s.wstmts}) })
	if err == nil && s.commits.Add(1) == checkpointCommits {
		select {
		case s.ckKick <- struct{}{}:
		default:
		}
	}
	return fail(ctx, err)
}

// fail makes an error of a cancelled context match the context's error.
func fail(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}

func us(t time.Time) int64 { return check.Time(t).UnixMicro() }

func fromUS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMicro(v).UTC()
}

func notFound(k session.Key) error {
	return fmt.Errorf("session %s: %w", k.SessionID, session.ErrNotFound)
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// exists tells ErrNotFound from the other reasons an update matched no row.
func exists(ctx context.Context, q querier, k session.Key) (bool, error) {
	var n int64
	err := q.QueryRowContext(ctx, qSessionN, k.SessionID, k.UserID).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func sessionN(ctx context.Context, q querier, k session.Key) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, qSessionN, k.SessionID, k.UserID).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, notFound(k)
	}
	return n, err
}

const recordCols = `id, user_id, agent_id, name, config, created_at, updated_at`

type scanner interface{ Scan(dest ...any) error }

func scanRecord(row scanner) (session.Record, error) {
	var r session.Record
	var created, updated int64
	var cfg []byte
	if err := row.Scan(&r.ID, &r.UserID, &r.AgentID, &r.Name, &cfg, &created, &updated); err != nil {
		return session.Record{}, err
	}
	r.Config, r.CreatedAt, r.UpdatedAt = cfg, fromUS(created), fromUS(updated)
	return r, nil
}

func (s *Store) CreateSession(ctx context.Context, ns session.NewSession) (session.Record, error) {
	if err := ctx.Err(); err != nil {
		return session.Record{}, err
	}
	cfg, err := check.New(ns)
	if err != nil {
		return session.Record{}, err
	}
	now := us(s.now())
	var rec session.Record
	err = s.write(ctx, func(tx *wtx) error {
		id := ns.ID
		if id == "" {
			id = s.ids.NewID()
		} else {
			// The one writer holds the database: nothing can take the id
			// between this check and the insert.
			var one int
			switch err := tx.QueryRowContext(ctx, qSessionExists, id).Scan(&one); {
			case err == nil:
				return fmt.Errorf("session %s: %w", id, session.ErrExists)
			case !errors.Is(err, sql.ErrNoRows):
				return err
			}
		}
		var err error
		rec, err = scanRecord(tx.QueryRowContext(ctx, qCreate,
			id, ns.UserID, ns.AgentID, ns.Name, []byte(cfg), now, now))
		return err
	})
	if err != nil {
		return session.Record{}, fmt.Errorf("sqlite: create session: %w", err)
	}
	return rec, nil
}

func (s *Store) GetSession(ctx context.Context, k session.Key) (session.Record, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Record{}, err
	}
	rec, err := scanRecord(s.row(ctx, qGetSession, k.SessionID, k.UserID))
	if errors.Is(err, sql.ErrNoRows) {
		return session.Record{}, notFound(k)
	}
	return rec, fail(ctx, err)
}

func (s *Store) ListSessions(ctx context.Context, q session.ListQuery) ([]session.Record, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if err := check.List(q); err != nil {
		return nil, 0, err
	}
	limit := int64(q.Limit)
	if limit == 0 {
		limit = -1 // SQLite: no limit
	}
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, fail(ctx, err)
	}
	defer tx.Rollback()
	var total int
	const where = ` FROM sessions WHERE user_id = ?1 AND (?2 = '' OR agent_id = ?2)`
	if err := tx.QueryRowContext(ctx, `SELECT count(*)`+where, q.UserID, q.AgentID).Scan(&total); err != nil {
		return nil, 0, fail(ctx, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+recordCols+where+` ORDER BY created_at DESC, n DESC LIMIT ?3 OFFSET ?4`,
		q.UserID, q.AgentID, limit, q.Offset)
	if err != nil {
		return nil, 0, fail(ctx, err)
	}
	defer rows.Close()
	var out []session.Record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, 0, fail(ctx, err)
		}
		out = append(out, r)
	}
	return out, total, fail(ctx, rows.Err())
}

// nullable passes nil JSON as SQL NULL.
func nullable(b json.RawMessage) any {
	if b == nil {
		return nil
	}
	return []byte(b)
}

func (s *Store) UpdateSession(ctx context.Context, k session.Key, p session.Patch) (session.Record, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Record{}, err
	}
	if err := check.Patch(p); err != nil {
		return session.Record{}, err
	}
	var name any
	if p.Name != nil {
		name = *p.Name
	}
	var rec session.Record
	err := s.write(ctx, func(tx *wtx) error {
		var err error
		rec, err = scanRecord(tx.QueryRowContext(ctx, `UPDATE sessions SET name = coalesce(?, name), config = coalesce(?, config), updated_at = ?
			WHERE id = ? AND user_id = ? RETURNING `+recordCols, name, nullable(p.Config), us(s.now()), k.SessionID, k.UserID))
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(k)
		}
		return err
	})
	return rec, err
}

func (s *Store) DeleteSession(ctx context.Context, k session.Key) error {
	if err := check.Begin(ctx, k); err != nil {
		return err
	}
	return s.write(ctx, func(tx *wtx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ? AND user_id = ?`, k.SessionID, k.UserID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound(k)
		}
		return nil
	})
}

func (s *Store) LoadState(ctx context.Context, k session.Key) (session.State, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.State{}, err
	}
	var version sql.NullInt64
	var data []byte
	err := s.row(ctx, qLoadState, k.SessionID, k.UserID).Scan(&version, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return session.State{}, notFound(k)
	}
	if err != nil {
		return session.State{}, fail(ctx, err)
	}
	return session.State{JSON: data, Version: version.Int64}, nil
}

func (s *Store) SaveState(ctx context.Context, k session.Key, expected int64, st json.RawMessage) (int64, error) {
	if err := check.Begin(ctx, k); err != nil {
		return 0, err
	}
	if err := check.JSON("state", st); err != nil {
		return 0, err
	}
	err := s.write(ctx, func(tx *wtx) error { return s.saveStateTx(ctx, tx, k, expected, st) })
	if err != nil {
		return 0, err
	}
	return expected + 1, nil
}

func (s *Store) saveStateTx(ctx context.Context, tx *wtx, k session.Key, expected int64, st json.RawMessage) error {
	var n int64
	err := tx.QueryRowContext(ctx, qTouch, us(s.now()), k.SessionID, k.UserID).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return notFound(k)
	}
	if err != nil {
		return err
	}
	var res sql.Result
	if expected == 0 {
		res, err = tx.ExecContext(ctx, qInsertState, n, []byte(st))
	} else {
		res, err = tx.ExecContext(ctx, qUpdateState, []byte(st), n, expected)
	}
	if err != nil {
		return err
	}
	if c, _ := res.RowsAffected(); c == 0 {
		return fmt.Errorf("session %s: state is no longer at version %d: %w", k.SessionID, expected, session.ErrConflict)
	}
	return nil
}

func (s *Store) UpsertMessages(ctx context.Context, k session.Key, msgs []session.Message) error {
	if err := check.Begin(ctx, k); err != nil {
		return err
	}
	if err := check.Messages(msgs); err != nil {
		return err
	}
	return s.write(ctx, func(tx *wtx) error { return upsertTx(ctx, tx, k, msgs) })
}

func upsertTx(ctx context.Context, tx *wtx, k session.Key, msgs []session.Message) error {
	var n, last int64
	err := tx.QueryRowContext(ctx, qBumpPos, len(msgs), k.SessionID, k.UserID).Scan(&n, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return notFound(k)
	}
	if err != nil {
		return err
	}
	base := last - int64(len(msgs)) + 1
	for i, m := range msgs {
		if _, err := tx.ExecContext(ctx, qUpsertMsg, n, m.ID, base+int64(i), []byte(m.JSON)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) ListMessages(ctx context.Context, k session.Key, q session.MessageQuery) (session.MessagePage, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.MessagePage{}, err
	}
	if err := check.Limit(q.Limit); err != nil {
		return session.MessagePage{}, err
	}
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return session.MessagePage{}, fail(ctx, err)
	}
	defer tx.Rollback()
	n, err := sessionN(ctx, tx, k)
	if err != nil {
		return session.MessagePage{}, fail(ctx, err)
	}
	before := int64(math.MaxInt64)
	if q.Before != "" {
		err := tx.QueryRowContext(ctx, `SELECT pos FROM messages WHERE session_n = ? AND msg_id = ?`, n, q.Before).Scan(&before)
		if errors.Is(err, sql.ErrNoRows) {
			return session.MessagePage{}, fmt.Errorf("message %s: %w", q.Before, session.ErrNotFound)
		}
		if err != nil {
			return session.MessagePage{}, fail(ctx, err)
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT msg_id, data FROM messages WHERE session_n = ? AND pos < ? ORDER BY pos DESC LIMIT ?`,
		n, before, q.Limit+1)
	if err != nil {
		return session.MessagePage{}, fail(ctx, err)
	}
	defer rows.Close()
	var page session.MessagePage
	for rows.Next() {
		var m session.Message
		var data []byte
		if err := rows.Scan(&m.ID, &data); err != nil {
			return session.MessagePage{}, fail(ctx, err)
		}
		m.JSON = data
		page.Messages = append(page.Messages, m)
	}
	if err := rows.Err(); err != nil {
		return session.MessagePage{}, fail(ctx, err)
	}
	return check.Page(page.Messages, q.Limit), nil
}

func (s *Store) Recoverable(ctx context.Context, limit int) ([]session.Key, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := check.Limit(limit); err != nil {
		return nil, err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT user_id, id FROM sessions s
		WHERE NOT (lease_owner <> '' AND lease_expires > ?1)
		  AND (lease_owner <> '' OR EXISTS (SELECT 1 FROM inputs i WHERE i.session_n = s.n AND i.done = 0))
		ORDER BY created_at, n LIMIT ?2`, us(s.now()), limit)
	if err != nil {
		return nil, fail(ctx, err)
	}
	defer rows.Close()
	var out []session.Key
	for rows.Next() {
		var k session.Key
		if err := rows.Scan(&k.UserID, &k.SessionID); err != nil {
			return nil, fail(ctx, err)
		}
		out = append(out, k)
	}
	return out, fail(ctx, rows.Err())
}

func (s *Store) AppendEvents(ctx context.Context, k session.Key, events []json.RawMessage) (int64, error) {
	if err := check.Begin(ctx, k); err != nil {
		return 0, err
	}
	if err := check.Events(events); err != nil {
		return 0, err
	}
	var first int64
	err := s.write(ctx, func(tx *wtx) error {
		var err error
		first, err = appendTx(ctx, tx, k, events)
		return err
	})
	if err != nil {
		return 0, err
	}
	return first, nil
}

func appendTx(ctx context.Context, tx *wtx, k session.Key, events []json.RawMessage) (int64, error) {
	var n, last int64
	err := tx.QueryRowContext(ctx, qBumpSeq, len(events), k.SessionID, k.UserID).Scan(&n, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, notFound(k)
	}
	if err != nil {
		return 0, err
	}
	first := last - int64(len(events)) + 1
	args := make([]any, 0, 3*min(len(events), insertChunks[0]))
	for start := 0; start < len(events); {
		size := insertChunks[len(insertChunks)-1]
		for _, c := range insertChunks {
			if c <= len(events)-start {
				size = c
				break
			}
		}
		args = args[:0]
		for i, e := range events[start : start+size] {
			args = append(args, n, first+int64(start+i), []byte(e))
		}
		if _, err := tx.ExecContext(ctx, insertEventsSQL(size), args...); err != nil {
			return 0, err
		}
		start += size
	}
	return first, nil
}

func (s *Store) ReadEvents(ctx context.Context, k session.Key, after int64, limit int) ([]session.Event, error) {
	if err := check.Begin(ctx, k); err != nil {
		return nil, err
	}
	if err := check.Limit(limit); err != nil {
		return nil, err
	}
	rows, err := s.rows(ctx, qReadEvents, k.SessionID, k.UserID, after, limit)
	if err != nil {
		return nil, fail(ctx, err)
	}
	defer rows.Close()
	var out []session.Event
	for rows.Next() {
		var e session.Event
		var data []byte
		if err := rows.Scan(&e.Seq, &data); err != nil {
			return nil, fail(ctx, err)
		}
		e.JSON = data
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, err)
	}
	if len(out) == 0 {
		ok, err := exists(ctx, readRows{s}, k)
		if err != nil {
			return nil, fail(ctx, err)
		}
		if !ok {
			return nil, notFound(k)
		}
	}
	return out, nil
}

// readRows runs exists and sessionN on the readers, prepared.
type readRows struct{ s *Store }

func (r readRows) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return r.s.row(ctx, q, args...)
}

func (s *Store) LastSeq(ctx context.Context, k session.Key) (int64, error) {
	if err := check.Begin(ctx, k); err != nil {
		return 0, err
	}
	var last int64
	err := s.row(ctx, qLastSeq, k.SessionID, k.UserID).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, notFound(k)
	}
	return last, fail(ctx, err)
}

func scanLease(row scanner, extra ...any) (session.Lease, error) {
	var l session.Lease
	var exp int64
	if err := row.Scan(append([]any{&l.Owner, &exp, &l.Epoch}, extra...)...); err != nil {
		return session.Lease{}, err
	}
	l.Expires = fromUS(exp)
	return l, nil
}

func (s *Store) AcquireLease(ctx context.Context, k session.Key, owner string, ttl time.Duration) (session.Lease, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Lease{}, err
	}
	if err := check.Lease(owner, ttl); err != nil {
		return session.Lease{}, err
	}
	var l session.Lease
	err := s.write(ctx, func(tx *wtx) error {
		var err error
		l, _, err = acquireTx(ctx, tx, k, owner, ttl, s.now())
		return err
	})
	return l, err
}

// acquireTx takes the lease and returns it with the session's row number.
func acquireTx(ctx context.Context, tx *wtx, k session.Key, owner string, ttl time.Duration, now time.Time) (session.Lease, int64, error) {
	var n int64
	l, err := scanLease(tx.QueryRowContext(ctx, qAcquire, owner, us(now.Add(ttl)), k.SessionID, k.UserID, us(now)), &n)
	if !errors.Is(err, sql.ErrNoRows) {
		return l, n, err
	}
	cur, err := scanLease(tx.QueryRowContext(ctx, qLeaseOf, k.SessionID, k.UserID))
	if errors.Is(err, sql.ErrNoRows) {
		return session.Lease{}, 0, notFound(k)
	}
	if err != nil {
		return session.Lease{}, 0, err
	}
	return session.Lease{}, 0, check.Leased(k, cur)
}

func (s *Store) RenewLease(ctx context.Context, k session.Key, owner string, ttl time.Duration) (session.Lease, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Lease{}, err
	}
	if err := check.Lease(owner, ttl); err != nil {
		return session.Lease{}, err
	}
	var l session.Lease
	err := s.write(ctx, func(tx *wtx) error {
		var err error
		l, err = scanLease(tx.QueryRowContext(ctx, qRenew, us(s.now().Add(ttl)), k.SessionID, k.UserID, owner))
		if errors.Is(err, sql.ErrNoRows) {
			return s.notHeld(ctx, tx, k)
		}
		return err
	})
	return l, err
}

func (s *Store) notHeld(ctx context.Context, tx *wtx, k session.Key) error {
	ok, err := exists(ctx, tx, k)
	if err != nil {
		return err
	}
	if !ok {
		return notFound(k)
	}
	return fmt.Errorf("session %s: %w", k.SessionID, session.ErrNotHeld)
}

func (s *Store) ReleaseLease(ctx context.Context, k session.Key, owner string) error {
	if err := check.Begin(ctx, k); err != nil {
		return err
	}
	if err := check.Owner(owner); err != nil {
		return err
	}
	return s.write(ctx, func(tx *wtx) error { return s.releaseTx(ctx, tx, k, owner) })
}

func (s *Store) releaseTx(ctx context.Context, tx *wtx, k session.Key, owner string) error {
	res, err := tx.ExecContext(ctx, qRelease, k.SessionID, k.UserID, owner)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return s.notHeld(ctx, tx, k)
	}
	return nil
}

func (s *Store) GetLease(ctx context.Context, k session.Key) (session.Lease, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Lease{}, err
	}
	l, err := scanLease(s.row(ctx, qLeaseOf, k.SessionID, k.UserID))
	if errors.Is(err, sql.ErrNoRows) {
		return session.Lease{}, notFound(k)
	}
	return l, fail(ctx, err)
}

func scanInput(row scanner) (session.Input, error) {
	var in session.Input
	var data []byte
	var created int64
	if err := row.Scan(&in.ID, &data, &created, &in.Attempts); err != nil {
		return session.Input{}, err
	}
	in.JSON, in.CreatedAt = data, fromUS(created)
	return in, nil
}

func (s *Store) EnqueueInput(ctx context.Context, k session.Key, raw json.RawMessage) (session.Input, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Input{}, err
	}
	if err := check.JSON("input", raw); err != nil {
		return session.Input{}, err
	}
	var in session.Input
	err := s.write(ctx, func(tx *wtx) error {
		n, err := sessionN(ctx, tx, k)
		if err != nil {
			return err
		}
		in, err = scanInput(tx.QueryRowContext(ctx, qEnqueue, n, []byte(raw), us(s.now())))
		return err
	})
	return in, err
}

func (s *Store) ClaimInput(ctx context.Context, k session.Key, owner string) (session.Input, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Input{}, err
	}
	if err := check.Owner(owner); err != nil {
		return session.Input{}, err
	}
	var in session.Input
	err := s.write(ctx, func(tx *wtx) error {
		var n int64
		l, err := scanLease(tx.QueryRowContext(ctx, qLeaseAndN, k.SessionID, k.UserID), &n)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(k)
		}
		if err != nil {
			return err
		}
		if l.Owner != owner || !l.Held(check.Time(s.now())) {
			return fmt.Errorf("session %s: %w", k.SessionID, session.ErrNotHeld)
		}
		in, err = scanInput(tx.QueryRowContext(ctx, qClaim, owner, l.Epoch, n))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("session %s: %w", k.SessionID, session.ErrNoInput)
		}
		return err
	})
	return in, err
}

func (s *Store) CompleteInput(ctx context.Context, k session.Key, id int64) error {
	if err := check.Begin(ctx, k); err != nil {
		return err
	}
	return s.write(ctx, func(tx *wtx) error { return completeTx(ctx, tx, k, id) })
}

func completeTx(ctx context.Context, tx *wtx, k session.Key, id int64) error {
	n, err := sessionN(ctx, tx, k)
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, qComplete, id, n)
	if err != nil {
		return err
	}
	if c, _ := res.RowsAffected(); c == 0 {
		return fmt.Errorf("input %d: %w", id, session.ErrNotFound)
	}
	return nil
}

func (s *Store) PendingInputs(ctx context.Context, k session.Key) (int, error) {
	if err := check.Begin(ctx, k); err != nil {
		return 0, err
	}
	var c int
	err := s.row(ctx, qPending, k.SessionID, k.UserID).Scan(&c)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, notFound(k)
	}
	return c, fail(ctx, err)
}

func (s *Store) StartRun(ctx context.Context, k session.Key, owner string, ttl time.Duration, raw json.RawMessage) (session.RunStart, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.RunStart{}, err
	}
	if err := check.Lease(owner, ttl); err != nil {
		return session.RunStart{}, err
	}
	if err := check.JSON("input", raw); err != nil {
		return session.RunStart{}, err
	}
	var rs session.RunStart
	err := s.write(ctx, func(tx *wtx) error {
		now := s.now()
		l, n, err := acquireTx(ctx, tx, k, owner, ttl, now)
		if err != nil {
			return err
		}
		rs = session.RunStart{Lease: l}
		var version sql.NullInt64
		var data []byte
		if err := tx.QueryRowContext(ctx, qStateOf, n).Scan(&version, &data); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		rs.State = session.State{JSON: data, Version: version.Int64}
		if err := tx.QueryRowContext(ctx, qPendingOfN, n).Scan(&rs.Pending); err != nil || rs.Pending > 0 {
			return err
		}
		// Queued already claimed: the claim ClaimInput would make, since
		// nothing older is pending.
		rs.Input, err = scanInput(tx.QueryRowContext(ctx, qEnqueueClaim, n, []byte(raw), us(now), owner, l.Epoch))
		return err
	})
	if err != nil {
		return session.RunStart{}, err
	}
	return rs, nil
}

func (s *Store) WriteRun(ctx context.Context, k session.Key, w session.RunWrite) (session.RunWritten, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.RunWritten{}, err
	}
	if err := check.RunWrite(w); err != nil {
		return session.RunWritten{}, err
	}
	var out session.RunWritten
	err := s.write(ctx, func(tx *wtx) error {
		if w.State != nil {
			if err := s.saveStateTx(ctx, tx, k, w.StateVersion, w.State); err != nil {
				return err
			}
			out.Version = w.StateVersion + 1
		}
		if len(w.Messages) > 0 {
			if err := upsertTx(ctx, tx, k, w.Messages); err != nil {
				return err
			}
		}
		if len(w.Events) > 0 {
			var err error
			if out.First, err = appendTx(ctx, tx, k, w.Events); err != nil {
				return err
			}
		}
		if w.Done != 0 {
			if err := completeTx(ctx, tx, k, w.Done); err != nil {
				return err
			}
		}
		if w.Release != "" {
			return s.releaseTx(ctx, tx, k, w.Release)
		}
		return nil
	})
	if err != nil {
		return session.RunWritten{}, err
	}
	return out, nil
}
