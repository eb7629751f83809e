package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/internal/check"
)

const agentCols = `id, user_id, config, created_at, updated_at`

func scanAgent(row scanner) (session.AgentRecord, error) {
	var r session.AgentRecord
	var created, updated int64
	var cfg []byte
	if err := row.Scan(&r.ID, &r.UserID, &cfg, &created, &updated); err != nil {
		return session.AgentRecord{}, err
	}
	r.Config, r.CreatedAt, r.UpdatedAt = cfg, fromUS(created), fromUS(updated)
	return r, nil
}

func agentNotFound(k session.AgentKey) error {
	return fmt.Errorf("agent %s: %w", k.AgentID, session.ErrNotFound)
}

func (s *Store) CreateAgent(ctx context.Context, userID string, config json.RawMessage) (session.AgentRecord, error) {
	if err := ctx.Err(); err != nil {
		return session.AgentRecord{}, err
	}
	if err := check.User(userID); err != nil {
		return session.AgentRecord{}, err
	}
	cfg, err := check.AgentConfig(config)
	if err != nil {
		return session.AgentRecord{}, err
	}
	now := us(s.now())
	var rec session.AgentRecord
	err = s.write(ctx, func(tx *wtx) error {
		var err error
		rec, err = scanAgent(tx.QueryRowContext(ctx, `INSERT INTO agents (id, user_id, config, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?) RETURNING `+agentCols, s.ids.NewID(), userID, []byte(cfg), now, now))
		return err
	})
	if err != nil {
		return session.AgentRecord{}, fmt.Errorf("sqlite: create agent: %w", err)
	}
	return rec, nil
}

func (s *Store) GetAgent(ctx context.Context, k session.AgentKey) (session.AgentRecord, error) {
	if err := check.AgentBegin(ctx, k); err != nil {
		return session.AgentRecord{}, err
	}
	rec, err := scanAgent(s.r.QueryRowContext(ctx, `SELECT `+agentCols+` FROM agents WHERE id = ? AND user_id = ?`, k.AgentID, k.UserID))
	if errors.Is(err, sql.ErrNoRows) {
		return session.AgentRecord{}, agentNotFound(k)
	}
	return rec, fail(ctx, err)
}

func (s *Store) ListAgents(ctx context.Context, userID string) ([]session.AgentRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := check.User(userID); err != nil {
		return nil, err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+agentCols+` FROM agents WHERE user_id = ? ORDER BY n`, userID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	defer rows.Close()
	var out []session.AgentRecord
	for rows.Next() {
		r, err := scanAgent(rows)
		if err != nil {
			return nil, fail(ctx, err)
		}
		out = append(out, r)
	}
	return out, fail(ctx, rows.Err())
}

func (s *Store) UpdateAgent(ctx context.Context, k session.AgentKey, config json.RawMessage) (session.AgentRecord, error) {
	if err := check.AgentBegin(ctx, k); err != nil {
		return session.AgentRecord{}, err
	}
	if err := check.JSON("agent config", config); err != nil {
		return session.AgentRecord{}, err
	}
	var rec session.AgentRecord
	err := s.write(ctx, func(tx *wtx) error {
		var err error
		rec, err = scanAgent(tx.QueryRowContext(ctx, `UPDATE agents SET config = ?, updated_at = ? WHERE id = ? AND user_id = ? RETURNING `+agentCols,
			[]byte(config), us(s.now()), k.AgentID, k.UserID))
		if errors.Is(err, sql.ErrNoRows) {
			return agentNotFound(k)
		}
		return err
	})
	return rec, err
}

func (s *Store) DeleteAgent(ctx context.Context, k session.AgentKey) error {
	if err := check.AgentBegin(ctx, k); err != nil {
		return err
	}
	return s.write(ctx, func(tx *wtx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM agents WHERE id = ? AND user_id = ?`, k.AgentID, k.UserID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return agentNotFound(k)
		}
		// The sessions' rows cascade to their state, transcript, events
		// and inputs.
		_, err = tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ? AND agent_id = ?`, k.UserID, k.AgentID)
		return err
	})
}

func (s *Store) HeldBy(ctx context.Context, owner string, limit int) ([]session.Key, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := check.Owner(owner); err != nil {
		return nil, err
	}
	if err := check.Limit(limit); err != nil {
		return nil, err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT user_id, id FROM sessions WHERE lease_owner = ? ORDER BY created_at, n LIMIT ?`, owner, limit)
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
