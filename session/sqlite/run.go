package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/internal/check"
	"github.com/agentscope-go/agentscope/session/internal/sqlstore"
)

// A run's transactions run on the one writer connection, so each of them
// sees nothing change under it between its statements: no row locks are
// needed, only the fence (the lease named still the session's) checked
// first.

func (s *Store) BeginRun(ctx context.Context, k session.Key, b session.RunBegin) (session.Run, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Run{}, err
	}
	if err := check.RunBegin(b); err != nil {
		return session.Run{}, err
	}
	var run session.Run
	err := s.write(ctx, func(tx *wtx) error {
		var err error
		run, _, err = s.beginTx(ctx, tx, k, b)
		return err
	})
	if err != nil {
		return session.Run{}, err
	}
	return run, nil
}

// OpenRun is BeginRun with its transaction left open on the writer
// connection (session.RunOpener): the opening's Commit writes the run's
// first batch in it, so a run's start and first events are one commit.
// Every other write waits on the one writer meanwhile.
func (s *Store) OpenRun(ctx context.Context, k session.Key, b session.RunBegin) (session.Run, session.Opening, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.Run{}, nil, err
	}
	if err := check.RunBegin(b); err != nil {
		return session.Run{}, nil, err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return session.Run{}, nil, fail(ctx, err)
	}
	run, n, err := s.beginTx(ctx, tx, k, b)
	if err != nil {
		tx.rollback()
		return session.Run{}, nil, fail(ctx, err)
	}
	return run, &opening{s: s, tx: tx, n: n}, nil
}

// beginTx is BeginRun's transaction; it returns the run and the session's
// row number.
func (s *Store) beginTx(ctx context.Context, tx *wtx, k session.Key, b session.RunBegin) (session.Run, int64, error) {
	var run session.Run
	now := s.now()
	var n int64
	var exp, created sqlstore.TimeCol
	var cfg, data []byte
	var version sql.NullInt64
	var pending bool
	err := tx.QueryRowContext(ctx, qClaimRun, b.Owner, us(now.Add(b.TTL)), k.SessionID, k.UserID, us(now), b.Known).
		Scan(&n, &created, &run.AgentID, &cfg, &run.Lease.Owner, &exp, &run.Lease.Epoch, &version, &data, &pending)
	if errors.Is(err, sql.ErrNoRows) {
		cur, err := sqlstore.ScanLease(tx.QueryRowContext(ctx, d.Q.LeaseOf, k.SessionID, k.UserID))
		if errors.Is(err, sql.ErrNoRows) {
			return run, 0, sqlstore.NotFound(k)
		}
		if err != nil {
			return run, 0, err
		}
		return run, 0, check.Leased(k, cur)
	}
	if err != nil {
		return run, 0, err
	}
	run.Config = cfg
	run.Lease.Expires, run.Created = exp.T, created.T
	run.State = session.State{JSON: data, Version: version.Int64}
	if pending {
		if run.Leftovers, err = claimLeftovers(ctx, tx, n); err != nil || len(run.Leftovers) > 0 {
			return run, n, err
		}
	}
	if b.Input == nil {
		return run, n, nil
	}
	run.Input, err = sqlstore.ScanInput(tx.QueryRowContext(ctx, d.Q.EnqueueClaimed, n, []byte(b.Input), us(now)))
	return run, n, err
}

// opening is OpenRun's transaction, still open.
type opening struct {
	s    *Store
	tx   *wtx
	n    int64
	done bool
}

func (o *opening) Commit(ctx context.Context, a session.RunAppend) (int64, error) {
	if o.done {
		return 0, errors.New("sqlite: the opening is committed or rolled back already")
	}
	o.done = true
	err := ctx.Err()
	if err == nil {
		err = check.Parts(a.Messages, a.Events)
	}
	var first int64
	if err == nil {
		first, err = partsTx(ctx, o.tx, o.n, a.Messages, a.Events)
	}
	if err != nil {
		o.tx.rollback()
		return 0, fail(ctx, err)
	}
	if err := o.tx.commit(ctx); err != nil {
		return 0, fail(ctx, err)
	}
	o.s.committed()
	return first, nil
}

func (o *opening) Rollback() error {
	if o.done {
		return nil
	}
	o.done = true
	return o.tx.rollback()
}

// claimLeftovers claims the session's pending inputs again, oldest first.
func claimLeftovers(ctx context.Context, tx *wtx, n int64) ([]session.Input, error) {
	rows, err := tx.QueryContext(ctx, d.Q.ClaimLeftovers, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []session.Input
	for rows.Next() {
		in, err := sqlstore.ScanInput(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	slices.SortFunc(out, func(a, b session.Input) int { return int(a.ID - b.ID) })
	return out, rows.Err()
}

// fence is the session's row number when l is still its lease: else
// ErrNotHeld, or ErrNotFound for no such session.
func fence(ctx context.Context, tx *wtx, k session.Key, l session.Lease) (int64, error) {
	var n int64
	err := tx.QueryRowContext(ctx, qFence, k.SessionID, k.UserID, l.Owner, l.Epoch).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, orNotFound(ctx, tx, k, sqlstore.NotHeld(k, l))
	}
	return n, err
}

func (s *Store) AppendRun(ctx context.Context, k session.Key, l session.Lease, a session.RunAppend) (int64, error) {
	if err := check.Begin(ctx, k); err != nil {
		return 0, err
	}
	if err := check.RunAppend(l, a); err != nil {
		return 0, err
	}
	var first int64
	err := s.write(ctx, func(tx *wtx) error {
		n, err := fence(ctx, tx, k, l)
		if err != nil {
			return err
		}
		first, err = partsTx(ctx, tx, n, a.Messages, a.Events)
		return err
	})
	if err != nil {
		return 0, err
	}
	return first, nil
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
	var out session.Lease
	err := s.write(ctx, func(tx *wtx) error {
		var err error
		var stop int
		out, err = sqlstore.ScanLease(tx.QueryRowContext(ctx, d.Q.Renew, k.SessionID, k.UserID, l.Owner, l.Epoch, us(s.now().Add(ttl))), &stop)
		if errors.Is(err, sql.ErrNoRows) {
			return orNotFound(ctx, tx, k, sqlstore.NotHeld(k, l))
		}
		out.StopAsked = stop == 1
		return err
	})
	return out, err
}

func (s *Store) AskStop(ctx context.Context, k session.Key, l session.Lease) error {
	if err := check.Begin(ctx, k); err != nil {
		return err
	}
	if err := check.RunLease(l); err != nil {
		return err
	}
	return s.write(ctx, func(tx *wtx) error {
		res, err := tx.ExecContext(ctx, d.Q.AskStop, k.SessionID, k.UserID, l.Owner, l.Epoch)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n > 0 {
			return err
		}
		return orNotFound(ctx, tx, k, sqlstore.NotHeld(k, l))
	})
}

func (s *Store) FinishRun(ctx context.Context, k session.Key, l session.Lease, e session.RunEnd) (session.RunWritten, error) {
	if err := check.Begin(ctx, k); err != nil {
		return session.RunWritten{}, err
	}
	if err := check.RunEnd(l, e); err != nil {
		return session.RunWritten{}, err
	}
	var out session.RunWritten
	err := s.write(ctx, func(tx *wtx) error {
		var touched any
		if e.State != nil {
			touched = us(s.now())
		}
		var n int64
		err := tx.QueryRowContext(ctx, d.Q.Finish, k.SessionID, k.UserID, l.Owner, l.Epoch, string(e.Status), touched).Scan(&n)
		if errors.Is(err, sql.ErrNoRows) {
			return orNotFound(ctx, tx, k, sqlstore.NotHeld(k, l))
		}
		if err != nil {
			return err
		}
		if e.State != nil {
			if err := saveStateTx(ctx, tx, k, n, e.StateVersion, e.State); err != nil {
				return err
			}
			out.Version = e.StateVersion + 1
		}
		if out.First, err = partsTx(ctx, tx, n, e.Messages, e.Events); err != nil {
			return err
		}
		for _, id := range e.Done {
			res, err := tx.ExecContext(ctx, d.Q.CompleteInput, id, n)
			if err != nil {
				return err
			}
			if c, _ := res.RowsAffected(); c == 0 {
				return sqlstore.InputNotFound(id)
			}
		}
		return nil
	})
	if err != nil {
		return session.RunWritten{}, err
	}
	return out, nil
}

func saveStateTx(ctx context.Context, tx *wtx, k session.Key, n, expected int64, st json.RawMessage) error {
	var (
		res sql.Result
		err error
	)
	if expected == 0 {
		res, err = tx.ExecContext(ctx, d.Q.InsertState, n, []byte(st))
	} else {
		res, err = tx.ExecContext(ctx, d.Q.UpdateState, n, []byte(st), expected)
	}
	if err != nil {
		return err
	}
	if c, _ := res.RowsAffected(); c == 0 {
		return sqlstore.Conflict(k, expected)
	}
	return nil
}

// partsTx writes msgs into session n's transcript and appends events to
// its log, returning the first event's sequence (no events: 0). The
// session's counters for both move in one statement.
func partsTx(ctx context.Context, tx *wtx, n int64, msgs []session.Message, events []json.RawMessage) (int64, error) {
	var pos, seq int64
	var err error
	switch {
	case len(msgs) > 0 && len(events) > 0:
		err = tx.QueryRowContext(ctx, qBumpBoth, len(msgs), len(events), n).Scan(&pos, &seq)
	case len(msgs) > 0:
		err = tx.QueryRowContext(ctx, qBumpPos, len(msgs), n).Scan(&pos)
	case len(events) > 0:
		err = tx.QueryRowContext(ctx, qBumpSeq, len(events), n).Scan(&seq)
	default:
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	base := pos - int64(len(msgs)) + 1
	for i, m := range msgs {
		if _, err := tx.ExecContext(ctx, qUpsertMsg, n, m.ID, base+int64(i), []byte(m.JSON)); err != nil {
			return 0, err
		}
	}
	if len(events) == 0 {
		return 0, nil
	}
	first := seq - int64(len(events)) + 1
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
