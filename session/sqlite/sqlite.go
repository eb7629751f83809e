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
	w, err := sql.Open("sqlite", dsn("_pragma", "journal_mode(WAL)", "_txlock", "immediate"))
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

// Close closes both pools.
func (s *Store) Close() error { return errors.Join(s.r.Close(), s.w.Close()) }

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
func (s *Store) write(ctx context.Context, fn func(*sql.Tx) error) error {
	return fail(ctx, inTx(ctx, s.w, fn))
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
	err := q.QueryRowContext(ctx, `SELECT n FROM sessions WHERE id = ? AND user_id = ?`, k.SessionID, k.UserID).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func sessionN(ctx context.Context, q querier, k session.Key) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, `SELECT n FROM sessions WHERE id = ? AND user_id = ?`, k.SessionID, k.UserID).Scan(&n)
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
	err = s.write(ctx, func(tx *sql.Tx) error {
		var err error
		rec, err = scanRecord(tx.QueryRowContext(ctx, `INSERT INTO sessions (id, user_id, agent_id, name, config, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING `+recordCols,
			s.ids.NewID(), ns.UserID, ns.AgentID, ns.Name, []byte(cfg), now, now))
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
	rec, err := scanRecord(s.r.QueryRowContext(ctx, `SELECT `+recordCols+` FROM sessions WHERE id = ? AND user_id = ?`, k.SessionID, k.UserID))
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
	err := s.write(ctx, func(tx *sql.Tx) error {
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
	return s.write(ctx, func(tx *sql.Tx) error {
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
	err := s.r.QueryRowContext(ctx, `SELECT st.version, st.data FROM sessions s LEFT JOIN states st ON st.session_n = s.n
		WHERE s.id = ? AND s.user_id = ?`, k.SessionID, k.UserID).Scan(&version, &data)
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
	conflict := func() error {
		return fmt.Errorf("session %s: state is no longer at version %d: %w", k.SessionID, expected, session.ErrConflict)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var n int64
		err := tx.QueryRowContext(ctx, `UPDATE sessions SET updated_at = ? WHERE id = ? AND user_id = ? RETURNING n`,
			us(s.now()), k.SessionID, k.UserID).Scan(&n)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(k)
		}
		if err != nil {
			return err
		}
		var res sql.Result
		if expected == 0 {
			res, err = tx.ExecContext(ctx, `INSERT INTO states (session_n, version, data) VALUES (?, 1, ?) ON CONFLICT DO NOTHING`, n, []byte(st))
		} else {
			res, err = tx.ExecContext(ctx, `UPDATE states SET version = version + 1, data = ? WHERE session_n = ? AND version = ?`, []byte(st), n, expected)
		}
		if err != nil {
			return err
		}
		if c, _ := res.RowsAffected(); c == 0 {
			return conflict()
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return expected + 1, nil
}

func (s *Store) UpsertMessages(ctx context.Context, k session.Key, msgs []session.Message) error {
	if err := check.Begin(ctx, k); err != nil {
		return err
	}
	if err := check.Messages(msgs); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		var n, last int64
		err := tx.QueryRowContext(ctx, `UPDATE sessions SET last_pos = last_pos + ? WHERE id = ? AND user_id = ? RETURNING n, last_pos`,
			len(msgs), k.SessionID, k.UserID).Scan(&n, &last)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(k)
		}
		if err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO messages (session_n, msg_id, pos, data) VALUES (?, ?, ?, ?)
			ON CONFLICT (session_n, msg_id) DO UPDATE SET data = excluded.data`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		base := last - int64(len(msgs)) + 1
		for i, m := range msgs {
			if _, err := stmt.ExecContext(ctx, n, m.ID, base+int64(i), []byte(m.JSON)); err != nil {
				return err
			}
		}
		return nil
	})
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

// insertChunk is the most events one INSERT carries (3 parameters each,
// well under SQLite's limit of 32766).
const insertChunk = 256

var insertSQL sync.Map // int -> string: the INSERT for that many events

func insertEventsSQL(n int) string {
	if q, ok := insertSQL.Load(n); ok {
		return q.(string)
	}
	var b strings.Builder
	b.WriteString(`INSERT INTO events (session_n, seq, data) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?,?)")
	}
	q, _ := insertSQL.LoadOrStore(n, b.String())
	return q.(string)
}

func (s *Store) AppendEvents(ctx context.Context, k session.Key, events []json.RawMessage) (int64, error) {
	if err := check.Begin(ctx, k); err != nil {
		return 0, err
	}
	if err := check.Events(events); err != nil {
		return 0, err
	}
	var first int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		var n, last int64
		err := tx.QueryRowContext(ctx, `UPDATE sessions SET last_seq = last_seq + ? WHERE id = ? AND user_id = ? RETURNING n, last_seq`,
			len(events), k.SessionID, k.UserID).Scan(&n, &last)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(k)
		}
		if err != nil {
			return err
		}
		first = last - int64(len(events)) + 1
		args := make([]any, 0, 3*min(len(events), insertChunk))
		for start := 0; start < len(events); start += insertChunk {
			chunk := events[start:min(start+insertChunk, len(events))]
			args = args[:0]
			for i, e := range chunk {
				args = append(args, n, first+int64(start+i), []byte(e))
			}
			if _, err := tx.ExecContext(ctx, insertEventsSQL(len(chunk)), args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
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
	rows, err := s.r.QueryContext(ctx, `SELECT seq, data FROM events
		WHERE session_n = (SELECT n FROM sessions WHERE id = ? AND user_id = ?) AND seq > ? ORDER BY seq LIMIT ?`,
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
		ok, err := exists(ctx, s.r, k)
		if err != nil {
			return nil, fail(ctx, err)
		}
		if !ok {
			return nil, notFound(k)
		}
	}
	return out, nil
}

func (s *Store) LastSeq(ctx context.Context, k session.Key) (int64, error) {
	if err := check.Begin(ctx, k); err != nil {
		return 0, err
	}
	var last int64
	err := s.r.QueryRowContext(ctx, `SELECT last_seq FROM sessions WHERE id = ? AND user_id = ?`, k.SessionID, k.UserID).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, notFound(k)
	}
	return last, fail(ctx, err)
}

func scanLease(row scanner) (session.Lease, error) {
	var l session.Lease
	var exp int64
	if err := row.Scan(&l.Owner, &exp, &l.Epoch); err != nil {
		return session.Lease{}, err
	}
	l.Expires = fromUS(exp)
	return l, nil
}

func (s *Store) AcquireLease(ctx context.Context, k session.Key, owner string, ttl time.Duration) (session.Lease, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Lease{}, err
	}
	if err := check.Owner(owner); err != nil {
		return session.Lease{}, err
	}
	if err := check.TTL(ttl); err != nil {
		return session.Lease{}, err
	}
	now := s.now()
	var l session.Lease
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		// The claim is one UPDATE: it matches only a lease that is free,
		// expired or the caller's, so no reader can interleave.
		l, err = scanLease(tx.QueryRowContext(ctx, `UPDATE sessions SET
				lease_epoch = lease_epoch + (lease_owner <> ?1), lease_owner = ?1, lease_expires = ?2
			WHERE id = ?3 AND user_id = ?4 AND (lease_owner = ?1 OR lease_owner = '' OR lease_expires <= ?5)
			RETURNING lease_owner, lease_expires, lease_epoch`,
			owner, us(now.Add(ttl)), k.SessionID, k.UserID, us(now)))
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		cur, err := scanLease(tx.QueryRowContext(ctx, `SELECT lease_owner, lease_expires, lease_epoch FROM sessions WHERE id = ? AND user_id = ?`, k.SessionID, k.UserID))
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(k)
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("session %s: %w (by %s until %s)", k.SessionID, session.ErrLeased, cur.Owner, cur.Expires)
	})
	return l, err
}

func (s *Store) RenewLease(ctx context.Context, k session.Key, owner string, ttl time.Duration) (session.Lease, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Lease{}, err
	}
	if err := check.Owner(owner); err != nil {
		return session.Lease{}, err
	}
	if err := check.TTL(ttl); err != nil {
		return session.Lease{}, err
	}
	var l session.Lease
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		l, err = scanLease(tx.QueryRowContext(ctx, `UPDATE sessions SET lease_expires = ? WHERE id = ? AND user_id = ? AND lease_owner = ?
			RETURNING lease_owner, lease_expires, lease_epoch`, us(s.now().Add(ttl)), k.SessionID, k.UserID, owner))
		if errors.Is(err, sql.ErrNoRows) {
			return s.notHeld(ctx, tx, k)
		}
		return err
	})
	return l, err
}

func (s *Store) notHeld(ctx context.Context, tx *sql.Tx, k session.Key) error {
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
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET lease_owner = '', lease_expires = 0 WHERE id = ? AND user_id = ? AND lease_owner = ?`,
			k.SessionID, k.UserID, owner)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return s.notHeld(ctx, tx, k)
		}
		return nil
	})
}

func (s *Store) GetLease(ctx context.Context, k session.Key) (session.Lease, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Lease{}, err
	}
	l, err := scanLease(s.r.QueryRowContext(ctx, `SELECT lease_owner, lease_expires, lease_epoch FROM sessions WHERE id = ? AND user_id = ?`, k.SessionID, k.UserID))
	if errors.Is(err, sql.ErrNoRows) {
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
	err := s.write(ctx, func(tx *sql.Tx) error {
		n, err := sessionN(ctx, tx, k)
		if err != nil {
			return err
		}
		in, err = scanInput(tx.QueryRowContext(ctx, `INSERT INTO inputs (session_n, data, created_at) VALUES (?, ?, ?)
			RETURNING id, data, created_at, attempts`, n, []byte(raw), us(s.now())))
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
	err := s.write(ctx, func(tx *sql.Tx) error {
		var n int64
		l, err := scanLease(rowFunc(func(dest ...any) error {
			return tx.QueryRowContext(ctx, `SELECT lease_owner, lease_expires, lease_epoch, n FROM sessions WHERE id = ? AND user_id = ?`,
				k.SessionID, k.UserID).Scan(append(dest, &n)...)
		}))
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(k)
		}
		if err != nil {
			return err
		}
		if l.Owner != owner || !l.Held(check.Time(s.now())) {
			return fmt.Errorf("session %s: %w", k.SessionID, session.ErrNotHeld)
		}
		in, err = scanInput(tx.QueryRowContext(ctx, `UPDATE inputs SET attempts = attempts + 1, claim_owner = ?1, claim_epoch = ?2
			WHERE id = (SELECT id FROM inputs WHERE session_n = ?3 AND done = 0 AND NOT (claim_owner = ?1 AND claim_epoch = ?2) ORDER BY id LIMIT 1)
			RETURNING id, data, created_at, attempts`, owner, l.Epoch, n))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("session %s: %w", k.SessionID, session.ErrNoInput)
		}
		return err
	})
	return in, err
}

// rowFunc adapts a Scan with extra destinations to a scanner.
type rowFunc func(dest ...any) error

func (f rowFunc) Scan(dest ...any) error { return f(dest...) }

func (s *Store) CompleteInput(ctx context.Context, k session.Key, id int64) error {
	if err := check.Begin(ctx, k); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		n, err := sessionN(ctx, tx, k)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE inputs SET done = 1 WHERE id = ? AND session_n = ? AND done = 0 AND attempts > 0`, id, n)
		if err != nil {
			return err
		}
		if c, _ := res.RowsAffected(); c == 0 {
			return fmt.Errorf("input %d: %w", id, session.ErrNotFound)
		}
		return nil
	})
}

func (s *Store) PendingInputs(ctx context.Context, k session.Key) (int, error) {
	if err := check.Begin(ctx, k); err != nil {
		return 0, err
	}
	var c int
	err := s.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM inputs i WHERE i.session_n = s.n AND i.done = 0)
		FROM sessions s WHERE s.id = ? AND s.user_id = ?`, k.SessionID, k.UserID).Scan(&c)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, notFound(k)
	}
	return c, fail(ctx, err)
}
