package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/internal/check"
	"github.com/agentscope-go/agentscope/session/internal/sqlstore"
)

var scanAgent = sqlstore.ScanAgent

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
		rec, err = scanAgent(tx.QueryRowContext(ctx, d.Q.CreateAgent, s.ids.NewID(), userID, []byte(cfg), now))
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
	rec, err := scanAgent(s.row(ctx, d.Q.GetAgent, k.AgentID, k.UserID))
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
	rows, err := s.rows(ctx, d.Q.ListAgents, userID)
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
		rec, err = scanAgent(tx.QueryRowContext(ctx, d.Q.UpdateAgent,
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
		res, err := tx.ExecContext(ctx, d.Q.DeleteAgent, k.AgentID, k.UserID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return agentNotFound(k)
		}
		// The sessions' rows cascade to their state, transcript, events
		// and inputs.
		_, err = tx.ExecContext(ctx, d.Q.DeleteAgentSessions, k.UserID, k.AgentID)
		return err
	})
}

func (s *Store) CountStatuses(ctx context.Context) (map[session.Status]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := s.rows(ctx, d.Q.CountStatuses)
	if err != nil {
		return nil, fail(ctx, err)
	}
	defer rows.Close()
	out, err := sqlstore.ScanStatuses(rows)
	return out, fail(ctx, err)
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
	rows, err := s.rows(ctx, d.Q.HeldBy, owner, limit)
	return keys(ctx, rows, err)
}
