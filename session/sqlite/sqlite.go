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
	"github.com/agentscope-go/agentscope/session/internal/sqlstore"
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
	w *sql.DB // one connection: SQLite has one writer at a time
	// wc is that connection, taken from w at Open and held until Close:
	// the write transactions run on it with BEGIN IMMEDIATE, COMMIT and
	// ROLLBACK prepared once (wtxStmts), where database/sql's BeginTx
	// and Commit had the driver compile them again at every transaction,
	// and watched each transaction's context from a goroutine of its
	// own. wsem is its one slot: a writer waits there, as long as its
	// context lets it, as it waited for the pool's one connection.
	wc   *sql.Conn
	wsem chan struct{}
	wtxs wtxStmts
	r    *sql.DB // readers, query_only
	now  func() time.Time
	ids  stamp.Source
	// wstmts and rstmts are the hot statements: the writer's prepared
	// before its first write, the readers' at Open (read-only after).
	wstmts lazyStmts
	rstmts map[string]*sql.Stmt

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
	// The migrations leave the writer's page cache holding the pages they
	// wrote (a new database's every page): SQLite frees them on
	// shrink_memory, and the first writes read back the few they need
	// (0.1-0.2 MB at start, BENCHMARKS.md, memory at start, stop 30). A
	// failure only keeps the cache. It runs before holdWriter takes w's
	// one connection for the store's life.
	_, _ = w.ExecContext(ctx, "PRAGMA shrink_memory")
	if err := s.holdWriter(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", cfg.Path, err)
	}
	r, err := sql.Open("sqlite", dsn("_pragma", "query_only(1)"))
	if err != nil {
		s.wtxs.close()
		s.wc.Close() // back to w, which then closes it
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", cfg.Path, err)
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	s.r = r
	ck, err := sql.Open("sqlite", dsn())
	if err != nil {
		s.wtxs.close()
		s.wc.Close()
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
	// Likewise the reader's cache after compiling the read statements
	// (the schema's pages); the compiled statements stay.
	_, _ = r.ExecContext(ctx, "PRAGMA shrink_memory")
	s.wstmts.c = s.wc
	if version == math.MaxInt {
		s.wstmts.qs = writerStmts()
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
// to close checkpoints the WAL into the file). It waits for a write
// transaction in progress, a run's start still open (RunOpener) included,
// to commit or roll back; the writes that begin after it fail.
func (s *Store) Close() error {
	s.closed.Do(func() { close(s.ckStop) })
	<-s.ckDone
	// The writer's statements first: prepared on the held connection,
	// they would keep it open past w.Close (with its write lock, when a
	// transaction is open). They are closed between transactions, holding
	// the writer's slot: a statement closed while a transaction reads its
	// rows is freed under them (a crash in the driver). A transaction in
	// progress is waited for: a run's start held open ends within the
	// engine's hold (openHold), the others within their statements.
	s.wsem <- struct{}{}
	stErr := errors.Join(s.wstmts.close(), s.wtxs.close())
	wcErr := s.wc.Close()
	<-s.wsem
	if errors.Is(wcErr, sql.ErrConnDone) {
		wcErr = nil // a second Close: given back already
	}
	return errors.Join(s.ck.Close(), s.r.Close(), stErr, wcErr, s.w.Close())
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
	tx, err := s.begin(ctx)
	if err != nil {
		return fail(ctx, err)
	}
	// A panic in fn (a caller's Config.Now or IDs, say) still frees the
	// writer: no later write would ever get it otherwise.
	defer tx.rollback()
	if err := fn(tx); err != nil {
		tx.rollback()
		return fail(ctx, err)
	}
	if err := tx.commit(ctx); err != nil {
		return fail(ctx, err)
	}
	s.committed()
	return nil
}

// committed counts a commit, for the checkpoints.
func (s *Store) committed() {
	if s.commits.Add(1) == checkpointCommits {
		select {
		case s.ckKick <- struct{}{}:
		default:
		}
	}
}

// fail makes an error of a cancelled context match the context's error.
func fail(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}

// d is the shared SQL, in SQLite's words.
var d = sqlstore.SQLite

func us(t time.Time) int64 { return check.Time(t).UnixMicro() }

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// sessionN is k's row number, or ErrNotFound.
func sessionN(ctx context.Context, q querier, k session.Key) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, d.Q.SessionN, k.SessionID, k.UserID).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, sqlstore.NotFound(k)
	}
	return n, err
}

// orNotFound is other when k exists, else ErrNotFound.
func orNotFound(ctx context.Context, q querier, k session.Key, other error) error {
	if _, err := sessionN(ctx, q, k); err != nil {
		return err
	}
	return other
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
		rec, err = sqlstore.ScanRecord(tx.QueryRowContext(ctx, qCreate,
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
	rec, err := sqlstore.ScanRecord(s.row(ctx, d.Q.GetSession, k.SessionID, k.UserID))
	if errors.Is(err, sql.ErrNoRows) {
		return session.Record{}, sqlstore.NotFound(k)
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
	limit := d.NoLimit()
	if q.Limit > 0 {
		limit = q.Limit
	}
	stmt, args := d.List(q, limit)
	rows, err := s.rows(ctx, stmt, args...)
	if err != nil {
		return nil, 0, fail(ctx, err)
	}
	defer rows.Close()
	var out []session.Record
	total := -1
	for rows.Next() {
		r, err := sqlstore.ScanRecord(rows, &total)
		if err != nil {
			return nil, 0, fail(ctx, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fail(ctx, err)
	}
	if total < 0 { // an empty page (or an offset past the end) carries no count
		stmt, args := d.Count(q)
		if err := s.row(ctx, stmt, args...).Scan(&total); err != nil {
			return nil, 0, fail(ctx, err)
		}
	}
	return out, total, nil
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
		rec, err = sqlstore.ScanRecord(tx.QueryRowContext(ctx, d.Q.UpdateSession, name, nullable(p.Config), us(s.now()), k.SessionID, k.UserID))
		if errors.Is(err, sql.ErrNoRows) {
			return sqlstore.NotFound(k)
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
		var n int64
		err := tx.QueryRowContext(ctx, d.Q.DeleteSession, k.SessionID, k.UserID).Scan(&n)
		if errors.Is(err, sql.ErrNoRows) {
			return sqlstore.NotFound(k)
		}
		return err
	})
}

func (s *Store) FillStatus(ctx context.Context, k session.Key, st session.Status) error {
	if err := check.Begin(ctx, k); err != nil {
		return err
	}
	if err := check.Status(st); err != nil {
		return err
	}
	return s.write(ctx, func(tx *wtx) error {
		res, err := tx.ExecContext(ctx, d.Q.FillStatus, k.SessionID, k.UserID, string(st))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return orNotFound(ctx, tx, k, nil)
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
	err := s.row(ctx, d.Q.LoadState, k.SessionID, k.UserID).Scan(&version, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return session.State{}, sqlstore.NotFound(k)
	}
	if err != nil {
		return session.State{}, fail(ctx, err)
	}
	return session.State{JSON: data, Version: version.Int64}, nil
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
	var n int64
	var pos sql.NullInt64
	err = tx.QueryRowContext(ctx, d.Q.MessagePos, k.SessionID, k.UserID, q.Before).Scan(&n, &pos)
	if errors.Is(err, sql.ErrNoRows) {
		return session.MessagePage{}, sqlstore.NotFound(k)
	}
	if err != nil {
		return session.MessagePage{}, fail(ctx, err)
	}
	before := int64(math.MaxInt64)
	if q.Before != "" {
		if !pos.Valid {
			return session.MessagePage{}, fmt.Errorf("message %s: %w", q.Before, session.ErrNotFound)
		}
		before = pos.Int64
	}
	rows, err := tx.QueryContext(ctx, d.Q.ListMessages, n, before, q.Limit+1)
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

// keys reads (user, id) rows.
func keys(ctx context.Context, rows *sql.Rows, err error) ([]session.Key, error) {
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

func (s *Store) Recoverable(ctx context.Context, limit int) ([]session.Key, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := check.Limit(limit); err != nil {
		return nil, err
	}
	rows, err := s.rows(ctx, d.Q.Recoverable, us(s.now()), limit)
	return keys(ctx, rows, err)
}

func (s *Store) ReadEvents(ctx context.Context, k session.Key, after int64, limit int) ([]session.Event, error) {
	if err := check.Begin(ctx, k); err != nil {
		return nil, err
	}
	if err := check.Limit(limit); err != nil {
		return nil, err
	}
	rows, err := s.rows(ctx, d.Q.ReadEvents, k.SessionID, k.UserID, after, limit)
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
		if err := orNotFound(ctx, readRows{s}, k, nil); err != nil {
			return nil, fail(ctx, err)
		}
	}
	return out, nil
}

// readRows runs sessionN on the readers, prepared.
type readRows struct{ s *Store }

func (r readRows) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return r.s.row(ctx, q, args...)
}

func (s *Store) LastSeq(ctx context.Context, k session.Key) (int64, error) {
	if err := check.Begin(ctx, k); err != nil {
		return 0, err
	}
	var last int64
	err := s.row(ctx, d.Q.LastSeq, k.SessionID, k.UserID).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, sqlstore.NotFound(k)
	}
	return last, fail(ctx, err)
}

func (s *Store) PendingInputs(ctx context.Context, k session.Key) (int, error) {
	if err := check.Begin(ctx, k); err != nil {
		return 0, err
	}
	var c int
	err := s.row(ctx, d.Q.PendingInputs, k.SessionID, k.UserID).Scan(&c)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, sqlstore.NotFound(k)
	}
	return c, fail(ctx, err)
}
