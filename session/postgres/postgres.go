package postgres

import (
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/internal/check"
	"github.com/agentscope-go/agentscope/session/internal/migrate"
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

func notFound(k session.Key) error {
	return fmt.Errorf("session %s: %w", k.SessionID, session.ErrNotFound)
}

func ts(t time.Time) time.Time { return check.Time(t) }

// querier is the pool or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func exists(ctx context.Context, q querier, k session.Key) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sessions WHERE id = $1 AND user_id = $2)`, k.SessionID, k.UserID).Scan(&ok)
	return ok, err
}

// orNotFound turns "no row matched" into ErrNotFound when the session is
// missing, and into other otherwise.
func orNotFound(ctx context.Context, q querier, k session.Key, other error) error {
	ok, err := exists(ctx, q, k)
	if err != nil {
		return err
	}
	if !ok {
		return notFound(k)
	}
	return other
}

const recordCols = `id, user_id, agent_id, name, config, created_at, updated_at`

func scanRecord(row pgx.Row) (session.Record, error) {
	var r session.Record
	var cfg []byte
	if err := row.Scan(&r.ID, &r.UserID, &r.AgentID, &r.Name, &cfg, &r.CreatedAt, &r.UpdatedAt); err != nil {
		return session.Record{}, err
	}
	r.Config, r.CreatedAt, r.UpdatedAt = cfg, r.CreatedAt.UTC(), r.UpdatedAt.UTC()
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
	now := ts(s.now())
	id := cmp.Or(ns.ID, s.ids.NewID())
	rec, err := scanRecord(s.pool.QueryRow(ctx, `INSERT INTO sessions (id, user_id, agent_id, name, config, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (id) DO NOTHING RETURNING `+recordCols,
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
	rec, err := scanRecord(s.pool.QueryRow(ctx, `SELECT `+recordCols+` FROM sessions WHERE id = $1 AND user_id = $2`, k.SessionID, k.UserID))
	if errors.Is(err, pgx.ErrNoRows) {
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
	var limit *int
	if q.Limit > 0 {
		limit = &q.Limit
	}
	// One statement, so the page and the total agree.
	rows, err := s.pool.Query(ctx, `SELECT `+recordCols+`, count(*) OVER () FROM sessions
		WHERE user_id = $1 AND ($2 = '' OR agent_id = $2)
		ORDER BY created_at DESC, n DESC LIMIT $3 OFFSET $4`, q.UserID, q.AgentID, limit, q.Offset)
	if err != nil {
		return nil, 0, fail(ctx, err)
	}
	defer rows.Close()
	var out []session.Record
	total := -1
	for rows.Next() {
		var r session.Record
		var cfg []byte
		if err := rows.Scan(&r.ID, &r.UserID, &r.AgentID, &r.Name, &cfg, &r.CreatedAt, &r.UpdatedAt, &total); err != nil {
			return nil, 0, fail(ctx, err)
		}
		r.Config, r.CreatedAt, r.UpdatedAt = cfg, r.CreatedAt.UTC(), r.UpdatedAt.UTC()
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fail(ctx, err)
	}
	if total < 0 { // an empty page (or an offset past the end) carries no count
		err := s.pool.QueryRow(ctx, `SELECT count(*) FROM sessions WHERE user_id = $1 AND ($2 = '' OR agent_id = $2)`,
			q.UserID, q.AgentID).Scan(&total)
		if err != nil {
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
	rec, err := scanRecord(s.pool.QueryRow(ctx, `UPDATE sessions SET name = coalesce($1, name), config = coalesce($2, config), updated_at = $3
		WHERE id = $4 AND user_id = $5 RETURNING `+recordCols, p.Name, cfg, ts(s.now()), k.SessionID, k.UserID))
	if errors.Is(err, pgx.ErrNoRows) {
		return session.Record{}, notFound(k)
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
		err := tx.QueryRow(ctx, `DELETE FROM sessions WHERE id = $1 AND user_id = $2 RETURNING n`, k.SessionID, k.UserID).Scan(&n)
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound(k)
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM events WHERE session_n = $1`, n)
		return err
	})
	return fail(ctx, err)
}

func (s *Store) LoadState(ctx context.Context, k session.Key) (session.State, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.State{}, err
	}
	var version *int64
	var data []byte
	err := s.pool.QueryRow(ctx, `SELECT st.version, st.data FROM sessions s LEFT JOIN states st ON st.session_n = s.n
		WHERE s.id = $1 AND s.user_id = $2`, k.SessionID, k.UserID).Scan(&version, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return session.State{}, notFound(k)
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

func (s *Store) SaveState(ctx context.Context, k session.Key, expected int64, st json.RawMessage) (int64, error) {
	if err := check.Begin(ctx, k); err != nil {
		return 0, err
	}
	if err := check.JSON("state", st); err != nil {
		return 0, err
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return s.saveStateTx(ctx, tx, k, expected, st) })
	if err != nil {
		return 0, fail(ctx, err)
	}
	return expected + 1, nil
}

func (s *Store) saveStateTx(ctx context.Context, tx querier, k session.Key, expected int64, st json.RawMessage) error {
	// Updating the session row first also locks it: concurrent saves
	// of one session queue here.
	var n int64
	err := tx.QueryRow(ctx, `UPDATE sessions SET updated_at = $1 WHERE id = $2 AND user_id = $3 RETURNING n`,
		ts(s.now()), k.SessionID, k.UserID).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return notFound(k)
	}
	if err != nil {
		return err
	}
	var sql string
	if expected == 0 {
		sql = `INSERT INTO states (session_n, version, data) VALUES ($1, 1, $2) ON CONFLICT DO NOTHING`
	} else {
		sql = `UPDATE states SET version = version + 1, data = $2 WHERE session_n = $1 AND version = $3`
	}
	args := []any{n, []byte(st)}
	if expected != 0 {
		args = append(args, expected)
	}
	tag, err := tx.Exec(ctx, sql, args...)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
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
	return fail(ctx, upsertQ(ctx, s.pool, k, msgs))
}

func upsertQ(ctx context.Context, q querier, k session.Key, msgs []session.Message) error {
	// One INSERT … ON CONFLICT may not touch a row twice: fold repeated
	// ids first (the last JSON wins, at the first one's place), as a
	// sequence of single upserts would.
	ids := make([]string, 0, len(msgs))
	data := make([][]byte, 0, len(msgs))
	at := make(map[string]int, len(msgs))
	for _, m := range msgs {
		if i, ok := at[m.ID]; ok {
			data[i] = m.JSON
			continue
		}
		at[m.ID] = len(ids)
		ids, data = append(ids, m.ID), append(data, m.JSON)
	}
	tag, err := q.Exec(ctx, `WITH s AS (
			UPDATE sessions SET last_pos = last_pos + cardinality($3::text[]) WHERE id = $1 AND user_id = $2 RETURNING n, last_pos)
		INSERT INTO messages (session_n, msg_id, pos, data)
		SELECT s.n, m.id, s.last_pos - cardinality($3::text[]) + m.ord, m.data
		FROM s, unnest($3::text[], $4::bytea[]) WITH ORDINALITY AS m (id, data, ord)
		ON CONFLICT (session_n, msg_id) DO UPDATE SET data = excluded.data`,
		k.SessionID, k.UserID, ids, data)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return notFound(k)
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
	var n int64
	var before *int64
	err := s.pool.QueryRow(ctx, `SELECT s.n, (SELECT pos FROM messages m WHERE m.session_n = s.n AND m.msg_id = $3)
		FROM sessions s WHERE s.id = $1 AND s.user_id = $2`, k.SessionID, k.UserID, q.Before).Scan(&n, &before)
	if errors.Is(err, pgx.ErrNoRows) {
		return session.MessagePage{}, notFound(k)
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
	rows, err := s.pool.Query(ctx, `SELECT msg_id, data FROM messages WHERE session_n = $1 AND pos < $2 ORDER BY pos DESC LIMIT $3`,
		n, bound, q.Limit+1)
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

func (s *Store) AppendEvents(ctx context.Context, k session.Key, events []json.RawMessage) (int64, error) {
	if err := check.Begin(ctx, k); err != nil {
		return 0, err
	}
	if err := check.Events(events); err != nil {
		return 0, err
	}
	first, err := appendQ(ctx, s.pool, k, events)
	if err != nil {
		return 0, fail(ctx, err)
	}
	return first, nil
}

func appendQ(ctx context.Context, q querier, k session.Key, events []json.RawMessage) (int64, error) {
	data := make([][]byte, len(events))
	for i, e := range events {
		data[i] = e
	}
	// One statement, one round trip: the UPDATE takes the session row's
	// lock and moves its counter, the INSERT writes the batch at the
	// sequences it reserved, and both commit or neither. Concurrent
	// appenders queue on the row lock, so sequences have no gap.
	var first int64
	err := q.QueryRow(ctx, `WITH s AS (
			UPDATE sessions SET last_seq = last_seq + cardinality($3::bytea[]) WHERE id = $1 AND user_id = $2 RETURNING n, last_seq),
		ins AS (
			INSERT INTO events (session_n, seq, data)
			SELECT s.n, s.last_seq - cardinality($3::bytea[]) + e.ord, e.data
			FROM s, unnest($3::bytea[]) WITH ORDINALITY AS e (data, ord))
		SELECT last_seq - cardinality($3::bytea[]) + 1 FROM s`, k.SessionID, k.UserID, data).Scan(&first)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, notFound(k)
	}
	return first, err
}

func (s *Store) ReadEvents(ctx context.Context, k session.Key, after int64, limit int) ([]session.Event, error) {
	if err := check.Begin(ctx, k); err != nil {
		return nil, err
	}
	if err := check.Limit(limit); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT seq, data FROM events
		WHERE session_n = (SELECT n FROM sessions WHERE id = $1 AND user_id = $2) AND seq > $3 ORDER BY seq LIMIT $4`,
		k.SessionID, k.UserID, after, limit)
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
	err := s.pool.QueryRow(ctx, `SELECT last_seq FROM sessions WHERE id = $1 AND user_id = $2`, k.SessionID, k.UserID).Scan(&last)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, notFound(k)
	}
	return last, fail(ctx, err)
}

const leaseCols = `lease_owner, lease_expires, lease_epoch`

func scanLease(row pgx.Row) (session.Lease, error) {
	var l session.Lease
	var exp *time.Time
	if err := row.Scan(&l.Owner, &exp, &l.Epoch); err != nil {
		return session.Lease{}, err
	}
	if exp != nil {
		l.Expires = exp.UTC()
	}
	return l, nil
}

func (s *Store) AcquireLease(ctx context.Context, k session.Key, owner string, ttl time.Duration) (session.Lease, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Lease{}, err
	}
	if err := check.Lease(owner, ttl); err != nil {
		return session.Lease{}, err
	}
	now := s.now()
	// The claim is this one UPDATE: it matches only a lease that is free,
	// expired or the caller's, and the row lock makes concurrent claims
	// take turns, each seeing the one before.
	l, err := scanLease(s.pool.QueryRow(ctx, qClaimLease+` RETURNING `+leaseCols, owner, ts(now.Add(ttl)), k.SessionID, k.UserID, ts(now)))
	if errors.Is(err, pgx.ErrNoRows) {
		return session.Lease{}, s.leased(ctx, k)
	}
	return l, fail(ctx, err)
}

// qClaimLease takes session $3 of user $4 for owner $1 until $2 when its
// lease is free, expired at $5 or already $1's; a new owner starts a new
// epoch. No row: another owner holds it (or no such session).
const qClaimLease = `UPDATE sessions SET
		lease_epoch = lease_epoch + (lease_owner <> $1)::int, lease_owner = $1, lease_expires = $2
	WHERE id = $3 AND user_id = $4 AND (lease_owner = $1 OR lease_owner = '' OR lease_expires <= $5)`

// leased is the error of a claim that took no row: ErrLeased naming the
// holder, or the session's lookup error.
func (s *Store) leased(ctx context.Context, k session.Key) error {
	cur, err := s.GetLease(ctx, k)
	if err != nil {
		return err
	}
	return check.Leased(k, cur)
}

func (s *Store) RenewLease(ctx context.Context, k session.Key, owner string, ttl time.Duration) (session.Lease, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Lease{}, err
	}
	if err := check.Lease(owner, ttl); err != nil {
		return session.Lease{}, err
	}
	l, err := scanLease(s.pool.QueryRow(ctx, `UPDATE sessions SET lease_expires = $1 WHERE id = $2 AND user_id = $3 AND lease_owner = $4
		RETURNING `+leaseCols, ts(s.now().Add(ttl)), k.SessionID, k.UserID, owner))
	if errors.Is(err, pgx.ErrNoRows) {
		return session.Lease{}, fail(ctx, orNotFound(ctx, s.pool, k, fmt.Errorf("session %s: %w", k.SessionID, session.ErrNotHeld)))
	}
	return l, fail(ctx, err)
}

func (s *Store) ReleaseLease(ctx context.Context, k session.Key, owner string) error {
	if err := check.Begin(ctx, k); err != nil {
		return err
	}
	if err := check.Owner(owner); err != nil {
		return err
	}
	return fail(ctx, releaseQ(ctx, s.pool, k, owner))
}

func releaseQ(ctx context.Context, q querier, k session.Key, owner string) error {
	tag, err := q.Exec(ctx, `UPDATE sessions SET lease_owner = '', lease_expires = NULL WHERE id = $1 AND user_id = $2 AND lease_owner = $3`,
		k.SessionID, k.UserID, owner)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return orNotFound(ctx, q, k, fmt.Errorf("session %s: %w", k.SessionID, session.ErrNotHeld))
	}
	return nil
}

func (s *Store) GetLease(ctx context.Context, k session.Key) (session.Lease, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Lease{}, err
	}
	l, err := scanLease(s.pool.QueryRow(ctx, `SELECT `+leaseCols+` FROM sessions WHERE id = $1 AND user_id = $2`, k.SessionID, k.UserID))
	if errors.Is(err, pgx.ErrNoRows) {
		return session.Lease{}, notFound(k)
	}
	return l, fail(ctx, err)
}

func (s *Store) Recoverable(ctx context.Context, limit int) ([]session.Key, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := check.Limit(limit); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT user_id, id FROM sessions s
		WHERE NOT (lease_owner <> '' AND lease_expires > $1)
		  AND (lease_owner <> '' OR EXISTS (SELECT 1 FROM inputs i WHERE i.session_n = s.n AND NOT i.done))
		ORDER BY created_at, n LIMIT $2`, ts(s.now()), limit)
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

const inputCols = `id, data, created_at, attempts`

func scanInput(row pgx.Row) (session.Input, error) {
	var in session.Input
	var data []byte
	if err := row.Scan(&in.ID, &data, &in.CreatedAt, &in.Attempts); err != nil {
		return session.Input{}, err
	}
	in.JSON, in.CreatedAt = data, in.CreatedAt.UTC()
	return in, nil
}

func (s *Store) EnqueueInput(ctx context.Context, k session.Key, raw json.RawMessage) (session.Input, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Input{}, err
	}
	if err := check.JSON("input", raw); err != nil {
		return session.Input{}, err
	}
	in, err := scanInput(s.pool.QueryRow(ctx, `INSERT INTO inputs (session_n, data, created_at)
		SELECT n, $3, $4 FROM sessions WHERE id = $1 AND user_id = $2 RETURNING `+inputCols,
		k.SessionID, k.UserID, []byte(raw), ts(s.now())))
	if errors.Is(err, pgx.ErrNoRows) {
		return session.Input{}, notFound(k)
	}
	return in, fail(ctx, err)
}

func (s *Store) ClaimInput(ctx context.Context, k session.Key, owner string) (session.Input, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Input{}, err
	}
	if err := check.Owner(owner); err != nil {
		return session.Input{}, err
	}
	var in session.Input
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// FOR UPDATE holds the lease still (a takeover updates this row)
		// and makes claims of one session take turns.
		var n int64
		var l session.Lease
		var exp *time.Time
		err := tx.QueryRow(ctx, `SELECT n, `+leaseCols+` FROM sessions WHERE id = $1 AND user_id = $2 FOR UPDATE`,
			k.SessionID, k.UserID).Scan(&n, &l.Owner, &exp, &l.Epoch)
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound(k)
		}
		if err != nil {
			return err
		}
		if exp != nil {
			l.Expires = *exp
		}
		if l.Owner != owner || !l.Held(ts(s.now())) {
			return fmt.Errorf("session %s: %w", k.SessionID, session.ErrNotHeld)
		}
		in, err = scanInput(tx.QueryRow(ctx, `UPDATE inputs SET attempts = attempts + 1, claim_owner = $1, claim_epoch = $2
			WHERE id = (SELECT id FROM inputs WHERE session_n = $3 AND NOT done AND NOT (claim_owner = $1 AND claim_epoch = $2)
				ORDER BY id LIMIT 1)
			RETURNING `+inputCols, owner, l.Epoch, n))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("session %s: %w", k.SessionID, session.ErrNoInput)
		}
		return err
	})
	if err != nil {
		return session.Input{}, fail(ctx, err)
	}
	return in, nil
}

func (s *Store) CompleteInput(ctx context.Context, k session.Key, id int64) error {
	if err := check.Begin(ctx, k); err != nil {
		return err
	}
	return fail(ctx, completeQ(ctx, s.pool, k, id))
}

func completeQ(ctx context.Context, q querier, k session.Key, id int64) error {
	tag, err := q.Exec(ctx, `UPDATE inputs SET done = true
		WHERE id = $3 AND session_n = (SELECT n FROM sessions WHERE id = $1 AND user_id = $2) AND NOT done AND attempts > 0`,
		k.SessionID, k.UserID, id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return orNotFound(ctx, q, k, fmt.Errorf("input %d: %w", id, session.ErrNotFound))
	}
	return nil
}

func (s *Store) PendingInputs(ctx context.Context, k session.Key) (int, error) {
	if err := check.Begin(ctx, k); err != nil {
		return 0, err
	}
	var c int
	err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM inputs i WHERE i.session_n = s.n AND NOT i.done)
		FROM sessions s WHERE s.id = $1 AND s.user_id = $2`, k.SessionID, k.UserID).Scan(&c)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, notFound(k)
	}
	return c, fail(ctx, err)
}
