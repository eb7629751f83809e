package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/internal/check"
	"github.com/agentscope-go/agentscope/session/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

// qBegin is BeginRun in one statement, one round trip and one commit:
// the lease claimed (sqlstore's ClaimLease: a new epoch, the session
// running), the pending inputs claimed again, and, with none pending and
// an input given, the input queued already claimed. Every part reads the
// snapshot before the statement, so the NOT EXISTS does not see the
// claims (and the state is the one before). One row per input returned
// (a leftover or the new one), or one with NULL inputs.
// Parameters: owner, expiry, id, user, now, input (NULL: none), the
// state version the caller knows (its data then left out).
var qBegin = `WITH l AS (` + d.Q.ClaimLease + `),
	left_ AS (
		UPDATE inputs i SET attempts = i.attempts + 1 FROM l WHERE i.session_n = l.n AND NOT i.done
		RETURNING i.id, i.data, i.created_at, i.attempts),
	ins AS (
		INSERT INTO inputs (session_n, data, created_at, attempts)
		SELECT l.n, $6, $5, 1 FROM l
		WHERE $6::bytea IS NOT NULL AND NOT EXISTS (SELECT 1 FROM inputs i WHERE i.session_n = l.n AND NOT i.done)
		RETURNING ` + sqlstore.InputCols + `),
	got AS (SELECT false AS leftover, * FROM ins UNION ALL SELECT true, * FROM left_)
	SELECT l.created_at, l.lease_owner, l.lease_expires, l.lease_epoch, st.version,
		CASE WHEN st.version = $7 THEN NULL ELSE st.data END,
		got.leftover, got.id, got.data, got.created_at, got.attempts
	FROM l LEFT JOIN states st ON st.session_n = l.n LEFT JOIN got ON true`

func (s *Store) BeginRun(ctx context.Context, k session.Key, b session.RunBegin) (session.Run, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Run{}, err
	}
	if err := check.RunBegin(b); err != nil {
		return session.Run{}, err
	}
	var input []byte
	if b.Input != nil {
		input = b.Input
	}
	now := s.now()
	rows, err := s.pool.Query(ctx, qBegin, b.Owner, ts(now.Add(b.TTL)), k.SessionID, k.UserID, ts(now), input, b.Known)
	if err != nil {
		return session.Run{}, fail(ctx, err)
	}
	defer rows.Close()
	var (
		run   session.Run
		found bool
	)
	for rows.Next() {
		var (
			exp      sqlstore.TimeCol
			created  sqlstore.TimeCol
			version  *int64
			state    []byte
			leftover *bool
			inID     *int64
			inData   []byte
			inAt     sqlstore.TimeCol
			inTries  *int
		)
		if err := rows.Scan(&created, &run.Lease.Owner, &exp, &run.Lease.Epoch, &version, &state, &leftover, &inID, &inData, &inAt, &inTries); err != nil {
			return session.Run{}, fail(ctx, err)
		}
		found = true
		run.Lease.Expires, run.Created = exp.T, created.T
		run.State = session.State{JSON: state}
		if version != nil {
			run.State.Version = *version
		}
		if inID == nil {
			continue
		}
		in := session.Input{ID: *inID, JSON: inData, CreatedAt: inAt.T, Attempts: *inTries}
		if *leftover {
			run.Leftovers = append(run.Leftovers, in)
		} else {
			run.Input = in
		}
	}
	if err := rows.Err(); err != nil {
		return session.Run{}, fail(ctx, err)
	}
	if !found {
		return session.Run{}, fail(ctx, s.leased(ctx, k))
	}
	slices.SortFunc(run.Leftovers, func(a, b session.Input) int { return int(a.ID - b.ID) })
	return run, nil
}

// leased is the error of a claim that took no row: ErrLeased naming the
// holder, or ErrNotFound.
func (s *Store) leased(ctx context.Context, k session.Key) error {
	cur, err := sqlstore.ScanLease(s.pool.QueryRow(ctx, d.Q.LeaseOf, k.SessionID, k.UserID))
	if errors.Is(err, pgx.ErrNoRows) {
		return sqlstore.NotFound(k)
	}
	if err != nil {
		return err
	}
	return check.Leased(k, cur)
}

// fenced is the condition of a run's writes: the session's lease is still
// the one named ($1 id, $2 user, $3 owner, $4 epoch).
const fenced = `id = $1 AND user_id = $2 AND lease_owner = $3 AND lease_epoch = $4`

// qAppend is AppendRun in one statement: the UPDATE fences the run and
// takes the row's lock, moving both counters; the INSERTs write the
// messages and events at the positions and sequences it reserved; the
// notice of the events (session.NoticeAppended) leaves at commit. $5 are
// the message ids, $6 their JSON (repeated ids folded), $7 the events.
var qAppend = `WITH s AS (
		UPDATE sessions SET last_pos = last_pos + cardinality($5::text[]), last_seq = last_seq + cardinality($7::bytea[])
		WHERE ` + fenced + ` RETURNING n, last_pos, last_seq),
	m AS (
		INSERT INTO messages (session_n, msg_id, pos, data)
		SELECT s.n, m.id, s.last_pos - cardinality($5::text[]) + m.ord, m.data
		FROM s, unnest($5::text[], $6::bytea[]) WITH ORDINALITY AS m (id, data, ord)
		ON CONFLICT (session_n, msg_id) DO UPDATE SET data = excluded.data),
	e AS (
		INSERT INTO events (session_n, seq, data)
		SELECT s.n, s.last_seq - cardinality($7::bytea[]) + e.ord, e.data
		FROM s, unnest($7::bytea[]) WITH ORDINALITY AS e (data, ord))
	SELECT last_seq - cardinality($7::bytea[]) + 1, ` + notifyAppendedIfEvents + ` FROM s`

// notifyAppendedIfEvents is qAppend's notice: only a write with events is
// news to a follower.
var notifyAppendedIfEvents = notifyAppended(`cardinality($7::bytea[]) > 0`)

// appendArgs are qAppend's $5, $6 and $7.
func appendArgs(msgs []session.Message, events []json.RawMessage) (ids []string, data, evs [][]byte) {
	// One INSERT … ON CONFLICT may not touch a row twice: repeated ids
	// are folded first, as a sequence of single upserts would leave them.
	folded := check.FoldMessages(msgs)
	ids, data = make([]string, len(folded)), make([][]byte, len(folded))
	for i, m := range folded {
		ids[i], data[i] = m.ID, m.JSON
	}
	evs = make([][]byte, len(events))
	for i, e := range events {
		evs[i] = e
	}
	return ids, data, evs
}

func (s *Store) AppendRun(ctx context.Context, k session.Key, l session.Lease, a session.RunAppend) (int64, error) {
	if err := check.Begin(ctx, k); err != nil {
		return 0, err
	}
	if err := check.RunAppend(l, a); err != nil {
		return 0, err
	}
	first, err := appendQ(ctx, s.pool, k, l, a.Messages, a.Events)
	return first, fail(ctx, err)
}

func appendQ(ctx context.Context, q querier, k session.Key, l session.Lease, msgs []session.Message, events []json.RawMessage) (int64, error) {
	ids, data, evs := appendArgs(msgs, events)
	var first int64
	err := q.QueryRow(ctx, qAppend, k.SessionID, k.UserID, l.Owner, l.Epoch, ids, data, evs).Scan(&first, nil)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, orNotFound(ctx, q, k, sqlstore.NotHeld(k, l))
	}
	if len(events) == 0 {
		first = 0
	}
	return first, err
}

func (s *Store) RenewRun(ctx context.Context, k session.Key, l session.Lease, ttl time.Duration) (session.Lease, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Lease{}, err
	}
	if err := check.RunLease(l); err != nil {
		return session.Lease{}, err
	}
	if err := check.TTL(ttl); err != nil {
		return session.Lease{}, err
	}
	var stop int
	out, err := sqlstore.ScanLease(s.pool.QueryRow(ctx, d.Q.Renew, k.SessionID, k.UserID, l.Owner, l.Epoch, ts(s.now().Add(ttl))), &stop)
	if errors.Is(err, pgx.ErrNoRows) {
		return session.Lease{}, fail(ctx, orNotFound(ctx, s.pool, k, sqlstore.NotHeld(k, l)))
	}
	out.StopAsked = stop == 1
	return out, fail(ctx, err)
}

func (s *Store) AskStop(ctx context.Context, k session.Key, l session.Lease) error {
	if err := check.Begin(ctx, k); err != nil {
		return err
	}
	if err := check.RunLease(l); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, d.Q.AskStop, k.SessionID, k.UserID, l.Owner, l.Epoch)
	if err == nil && tag.RowsAffected() == 0 {
		err = orNotFound(ctx, s.pool, k, sqlstore.NotHeld(k, l))
	}
	return fail(ctx, err)
}

func (s *Store) FinishRun(ctx context.Context, k session.Key, l session.Lease, e session.RunEnd) (session.RunWritten, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.RunWritten{}, err
	}
	if err := check.RunEnd(l, e); err != nil {
		return session.RunWritten{}, err
	}
	var out session.RunWritten
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The messages and events first, fenced, while the lease is still
		// the run's; then the end, which frees it (and is fenced too: it
		// holds the row's lock since the append).
		if len(e.Messages) > 0 || len(e.Events) > 0 {
			var err error
			if out.First, err = appendQ(ctx, tx, k, l, e.Messages, e.Events); err != nil {
				return err
			}
		}
		var touched *time.Time
		if e.State != nil {
			t := ts(s.now())
			touched = &t
		}
		var n int64
		err := tx.QueryRow(ctx, d.Q.Finish, k.SessionID, k.UserID, l.Owner, l.Epoch, string(e.Status), touched).Scan(&n)
		if errors.Is(err, pgx.ErrNoRows) {
			return orNotFound(ctx, tx, k, sqlstore.NotHeld(k, l))
		}
		if err != nil {
			return err
		}
		if e.State != nil {
			q, args := d.Q.InsertState, []any{n, []byte(e.State)}
			if e.StateVersion != 0 {
				q, args = d.Q.UpdateState, append(args, e.StateVersion)
			}
			tag, err := tx.Exec(ctx, q, args...)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return sqlstore.Conflict(k, e.StateVersion)
			}
			out.Version = e.StateVersion + 1
		}
		for _, id := range e.Done {
			tag, err := tx.Exec(ctx, d.Q.CompleteInput, id, n)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return sqlstore.InputNotFound(id)
			}
		}
		return nil
	})
	if err != nil {
		return session.RunWritten{}, fail(ctx, err)
	}
	return out, nil
}
