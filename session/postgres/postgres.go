package postgres

import (
	"cmp"
	"context"
	"embed"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/internal/check"
	"github.com/agentscope-go/agentscope/session/internal/migrate"
	"github.com/agentscope-go/agentscope/session/internal/sqlstore"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Config sets up a Store. Either URL or Pool is required.
type Config struct {
	// URL is a PostgreSQL connection string (postgres://… or key=value),
	// with any pgxpool parameter (pool_max_conns, search_path, …).
	URL string
	// Pool is an existing pool to use instead of URL, shared with the
	// caller (a job engine's transactions, say); Close leaves it open.
	Pool *pgxpool.Pool
	// Now is the clock for timestamps and lease expiry; nil is time.Now.
	// Every replica's clock must agree with the others' to well within a
	// lease TTL.
	Now func() time.Time
	// IDs makes session ids; nil is stamp.Default.
	IDs stamp.Source
}

// Store is the PostgreSQL session.Store. It is safe for concurrent use, by
// any number of processes on one database.
type Store struct {
	pool    *pgxpool.Pool
	ownPool bool
	now     func() time.Time
	ids     stamp.Source
	// secrets are the passwords the listener's errors must not show.
	secrets []string
}

var _ session.Store = (*Store)(nil)

// Open connects and brings the schema to the latest version. Its errors
// never hold Config.URL's passwords (see Redact), whatever the driver's
// errors hold.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	return open(ctx, cfg, math.MaxInt)
}

func open(ctx context.Context, cfg Config, version int) (*Store, error) {
	pws := secrets(cfg.URL)
	s, err := openWith(ctx, cfg, version, &pws)
	if s != nil {
		s.secrets = pws
	}
	return s, redactError(err, pws)
}

// openWith is open; it adds to pws the password the parsed URL gives
// (its own, $PGPASSWORD's or a .pgpass file's).
func openWith(ctx context.Context, cfg Config, version int, pws *[]string) (*Store, error) {
	s := &Store{pool: cfg.Pool, now: check.Clock(cfg.Now), ids: cfg.IDs}
	if s.ids == nil {
		s.ids = stamp.Default
	}
	if s.pool == nil {
		if cfg.URL == "" {
			return nil, fmt.Errorf("%w: postgres: neither URL nor Pool is set", session.ErrInvalid)
		}
		pc, err := pgxpool.ParseConfig(cfg.URL)
		if err != nil {
			return nil, fmt.Errorf("%w: postgres: %v", session.ErrInvalid, err)
		}
		*pws = append(*pws, pc.ConnConfig.Password)
		s.pool, err = pgxpool.NewWithConfig(ctx, pc)
		if err != nil {
			return nil, fmt.Errorf("postgres: connect: %w", err)
		}
		s.ownPool = true
	}
	if err := s.migrateTo(ctx, version); err != nil {
		s.Close()
		return nil, fmt.Errorf("postgres: migrate: %w", err)
	}
	return s, nil
}

// migrationLock is the advisory lock key replicas opening at once take, so
// one of them migrates and the others find the work done.
const migrationLock = 0x6167656e7473636f // "agentsco"

func (s *Store) migrateTo(ctx context.Context, version int) error {
	ms, err := migrate.Load(migrationFiles, "migrations")
	if err != nil {
		return err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrationLock)); err != nil {
		return err
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(migrationLock))
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return err
	}
	var have int
	if err := conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return err
	}
	if have > len(ms) {
		return fmt.Errorf("database schema is at version %d, newer than this build's %d", have, len(ms))
	}
	for _, m := range ms {
		if m.Version <= have || m.Version > version {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Close closes the pool Open made (not one given in Config.Pool).
func (s *Store) Close() error {
	if s.ownPool {
		s.pool.Close()
	}
	return nil
}

// fail makes an error of a cancelled context match the context's error.
func fail(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}

// d is the shared SQL, in PostgreSQL's words.
var d = sqlstore.Postgres

func ts(t time.Time) time.Time { return check.Time(t) }

// querier is the pool or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// orNotFound turns "no row matched" into ErrNotFound when the session is
// missing, and into other otherwise.
func orNotFound(ctx context.Context, q querier, k session.Key, other error) error {
	var n int64
	err := q.QueryRow(ctx, d.Q.SessionN, k.SessionID, k.UserID).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return sqlstore.NotFound(k)
	}
	if err != nil {
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
	now := ts(s.now())
	id := cmp.Or(ns.ID, s.ids.NewID())
	rec, err := sqlstore.ScanRecord(s.pool.QueryRow(ctx, `INSERT INTO sessions (id, user_id, agent_id, name, config, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (id) DO NOTHING RETURNING `+sqlstore.RecordCols,
		id, ns.UserID, ns.AgentID, ns.Name, []byte(cfg), now))
	if errors.Is(err, pgx.ErrNoRows) {
		return session.Record{}, fmt.Errorf("session %s: %w", id, session.ErrExists)
	}
	if err != nil {
		return session.Record{}, fail(ctx, fmt.Errorf("postgres: create session: %w", err))
	}
	return rec, nil
}

func (s *Store) GetSession(ctx context.Context, k session.Key) (session.Record, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Record{}, err
	}
	rec, err := sqlstore.ScanRecord(s.pool.QueryRow(ctx, d.Q.GetSession, k.SessionID, k.UserID))
	if errors.Is(err, pgx.ErrNoRows) {
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
	rows, err := s.pool.Query(ctx, stmt, args...)
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
		if err := s.pool.QueryRow(ctx, stmt, args...).Scan(&total); err != nil {
			return nil, 0, fail(ctx, err)
		}
	}
	return out, total, nil
}

func (s *Store) UpdateSession(ctx context.Context, k session.Key, p session.Patch) (session.Record, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Record{}, err
	}
	if err := check.Patch(p); err != nil {
		return session.Record{}, err
	}
	var cfg []byte
	if p.Config != nil {
		cfg = p.Config
	}
	rec, err := sqlstore.ScanRecord(s.pool.QueryRow(ctx, d.Q.UpdateSession, p.Name, cfg, ts(s.now()), k.SessionID, k.UserID))
	if errors.Is(err, pgx.ErrNoRows) {
		return session.Record{}, sqlstore.NotFound(k)
	}
	return rec, fail(ctx, err)
}

func (s *Store) DeleteSession(ctx context.Context, k session.Key) error {
	if err := check.Begin(ctx, k); err != nil {
		return err
	}
	// The session row goes first: its lock waits out appenders in flight,
	// and once it is gone no append matches, so the events deleted next
	// are all there will be (events have no foreign key to cascade).
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var n int64
		err := tx.QueryRow(ctx, d.Q.DeleteSession, k.SessionID, k.UserID).Scan(&n)
		if errors.Is(err, pgx.ErrNoRows) {
			return sqlstore.NotFound(k)
		}
		if err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `DELETE FROM events WHERE session_n = $1`, n); err != nil {
			return err
		}
		// The other replicas end the session's followers.
		return notifyDeleted(ctx, tx, k.SessionID)
	})
	return fail(ctx, err)
}

func (s *Store) FillStatus(ctx context.Context, k session.Key, st session.Status) error {
	if err := check.Begin(ctx, k); err != nil {
		return err
	}
	if err := check.Status(st); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, d.Q.FillStatus, k.SessionID, k.UserID, string(st))
	if err != nil {
		return fail(ctx, err)
	}
	if tag.RowsAffected() == 0 {
		return fail(ctx, orNotFound(ctx, s.pool, k, nil))
	}
	return nil
}

func (s *Store) LoadState(ctx context.Context, k session.Key) (session.State, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.State{}, err
	}
	var version *int64
	var data []byte
	err := s.pool.QueryRow(ctx, d.Q.LoadState, k.SessionID, k.UserID).Scan(&version, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return session.State{}, sqlstore.NotFound(k)
	}
	if err != nil {
		return session.State{}, fail(ctx, err)
	}
	st := session.State{JSON: data}
	if version != nil {
		st.Version = *version
	}
	return st, nil
}

func (s *Store) ListMessages(ctx context.Context, k session.Key, q session.MessageQuery) (session.MessagePage, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.MessagePage{}, err
	}
	if err := check.Limit(q.Limit); err != nil {
		return session.MessagePage{}, err
	}
	var n int64
	var before *int64
	err := s.pool.QueryRow(ctx, d.Q.MessagePos, k.SessionID, k.UserID, q.Before).Scan(&n, &before)
	if errors.Is(err, pgx.ErrNoRows) {
		return session.MessagePage{}, sqlstore.NotFound(k)
	}
	if err != nil {
		return session.MessagePage{}, fail(ctx, err)
	}
	bound := int64(math.MaxInt64)
	if q.Before != "" {
		if before == nil {
			return session.MessagePage{}, fmt.Errorf("message %s: %w", q.Before, session.ErrNotFound)
		}
		bound = *before
	}
	rows, err := s.pool.Query(ctx, d.Q.ListMessages, n, bound, q.Limit+1)
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

func (s *Store) ReadEvents(ctx context.Context, k session.Key, after int64, limit int) ([]session.Event, error) {
	if err := check.Begin(ctx, k); err != nil {
		return nil, err
	}
	if err := check.Limit(limit); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, d.Q.ReadEvents, k.SessionID, k.UserID, after, limit)
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
		if err := orNotFound(ctx, s.pool, k, nil); err != nil {
			return nil, fail(ctx, err)
		}
	}
	return out, nil
}

func (s *Store) LastSeq(ctx context.Context, k session.Key) (int64, error) {
	if err := check.Begin(ctx, k); err != nil {
		return 0, err
	}
	var last int64
	err := s.pool.QueryRow(ctx, d.Q.LastSeq, k.SessionID, k.UserID).Scan(&last)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, sqlstore.NotFound(k)
	}
	return last, fail(ctx, err)
}

func (s *Store) PendingInputs(ctx context.Context, k session.Key) (int, error) {
	if err := check.Begin(ctx, k); err != nil {
		return 0, err
	}
	var c int
	err := s.pool.QueryRow(ctx, d.Q.PendingInputs, k.SessionID, k.UserID).Scan(&c)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, sqlstore.NotFound(k)
	}
	return c, fail(ctx, err)
}

// keys reads (user, id) rows.
func keys(ctx context.Context, rows pgx.Rows, err error) ([]session.Key, error) {
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
	rows, err := s.pool.Query(ctx, d.Q.Recoverable, ts(s.now()), limit)
	return keys(ctx, rows, err)
}
