package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/internal/check"
	"github.com/jackc/pgx/v5"
)

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
	now := s.now()
	// One statement, one round trip and one commit: the lease taken as
	// AcquireLease takes it, the inputs still pending counted, and, when
	// there are none, the input queued already claimed under the new
	// lease (the claim ClaimInput would make). Every part reads the
	// snapshot before the statement, so the count does not see the
	// insert.
	var (
		rs      session.RunStart
		exp     *time.Time
		version *int64
		state   []byte
		inID    *int64
		inData  []byte
		inAt    *time.Time
		inTries *int
	)
	err := s.pool.QueryRow(ctx, `WITH l AS (`+qClaimLease+` RETURNING n, `+leaseCols+`),
		p AS (SELECT count(*) AS c FROM inputs i, l WHERE i.session_n = l.n AND NOT i.done),
		ins AS (
			INSERT INTO inputs (session_n, data, created_at, attempts, claim_owner, claim_epoch)
			SELECT l.n, $6, $5, 1, $1, l.lease_epoch FROM l, p WHERE p.c = 0
			RETURNING `+inputCols+`)
		SELECT l.lease_owner, l.lease_expires, l.lease_epoch, p.c, st.version, st.data,
			ins.id, ins.data, ins.created_at, ins.attempts
		FROM l CROSS JOIN p LEFT JOIN states st ON st.session_n = l.n LEFT JOIN ins ON true`,
		owner, ts(now.Add(ttl)), k.SessionID, k.UserID, ts(now), []byte(raw)).Scan(
		&rs.Lease.Owner, &exp, &rs.Lease.Epoch, &rs.Pending, &version, &state, &inID, &inData, &inAt, &inTries)
	if errors.Is(err, pgx.ErrNoRows) {
		return session.RunStart{}, s.leased(ctx, k)
	}
	if err != nil {
		return session.RunStart{}, fail(ctx, err)
	}
	if exp != nil {
		rs.Lease.Expires = exp.UTC()
	}
	rs.State.JSON = state
	if version != nil {
		rs.State.Version = *version
	}
	if inID != nil {
		rs.Input = session.Input{ID: *inID, JSON: inData, CreatedAt: inAt.UTC(), Attempts: *inTries}
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
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if w.State != nil {
			if err := s.saveStateTx(ctx, tx, k, w.StateVersion, w.State); err != nil {
				return err
			}
			out.Version = w.StateVersion + 1
		}
		if len(w.Messages) > 0 {
			if err := upsertQ(ctx, tx, k, w.Messages); err != nil {
				return err
			}
		}
		if len(w.Events) > 0 {
			var err error
			if out.First, err = appendQ(ctx, tx, k, w.Events); err != nil {
				return err
			}
		}
		if w.Done != 0 {
			if err := completeQ(ctx, tx, k, w.Done); err != nil {
				return err
			}
		}
		if w.Release != "" {
			return releaseQ(ctx, tx, k, w.Release)
		}
		return nil
	})
	if err != nil {
		return session.RunWritten{}, fail(ctx, err)
	}
	return out, nil
}
