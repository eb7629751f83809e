package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/internal/check"
	"github.com/agentscope-go/agentscope/session/internal/sqlstore"
	"github.com/jackc/pgx/v5"
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
	rec, err := scanAgent(s.pool.QueryRow(ctx, d.Q.CreateAgent, s.ids.NewID(), userID, []byte(cfg), ts(s.now())))
	if err != nil {
		return session.AgentRecord{}, fail(ctx, fmt.Errorf("postgres: create agent: %w", err))
	}
	return rec, nil
}

func (s *Store) GetAgent(ctx context.Context, k session.AgentKey) (session.AgentRecord, error) {
	if err := check.AgentBegin(ctx, k); err != nil {
		return session.AgentRecord{}, err
	}
	rec, err := scanAgent(s.pool.QueryRow(ctx, d.Q.GetAgent, k.AgentID, k.UserID))
	if errors.Is(err, pgx.ErrNoRows) {
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
	rows, err := s.pool.Query(ctx, d.Q.ListAgents, userID)
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
	rec, err := scanAgent(s.pool.QueryRow(ctx, d.Q.UpdateAgent,
		[]byte(config), ts(s.now()), k.AgentID, k.UserID))
	if errors.Is(err, pgx.ErrNoRows) {
		return session.AgentRecord{}, agentNotFound(k)
	}
	return rec, fail(ctx, err)
}

func (s *Store) DeleteAgent(ctx context.Context, k session.AgentKey) error {
	if err := check.AgentBegin(ctx, k); err != nil {
		return err
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, d.Q.DeleteAgent, k.AgentID, k.UserID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return agentNotFound(k)
		}
		// As in DeleteSession: the session rows first (their locks wait
		// out appenders in flight), then, in a later statement that sees
		// what those appenders committed, their events, which have no
		// foreign key to cascade.
		rows, err := tx.Query(ctx, `DELETE FROM sessions WHERE user_id = $1 AND agent_id = $2 RETURNING n, id`, k.UserID, k.AgentID)
		if err != nil {
			return err
		}
		var (
			ns  []int64
			ids []string
		)
		var n int64
		var id string
		_, err = pgx.ForEachRow(rows, []any{&n, &id}, func() error {
			ns, ids = append(ns, n), append(ids, id)
			return nil
		})
		if err != nil || len(ns) == 0 {
			return err
		}
		if _, err = tx.Exec(ctx, `DELETE FROM events WHERE session_n = ANY($1)`, ns); err != nil {
			return err
		}
		// The other replicas end the sessions' followers.
		for _, id := range ids {
			if err := notifyDeleted(ctx, tx, id); err != nil {
				return err
			}
		}
		return nil
	})
	return fail(ctx, err)
}

func (s *Store) CountStatuses(ctx context.Context) (map[session.Status]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, d.Q.CountStatuses)
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
	rows, err := s.pool.Query(ctx, d.Q.HeldBy, owner, limit)
	return keys(ctx, rows, err)
}
