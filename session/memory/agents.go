package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/internal/check"
)

type agentEntry struct {
	rec   session.AgentRecord
	order int64
}

func copyAgent(r session.AgentRecord) session.AgentRecord {
	r.Config = clone(r.Config)
	return r
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
	now := check.Time(s.now())
	rec := session.AgentRecord{ID: s.ids.NewID(), UserID: userID, Config: clone(cfg), CreatedAt: now, UpdatedAt: now}
	k := session.AgentKey{UserID: userID, AgentID: rec.ID}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.agents[k] != nil {
		return session.AgentRecord{}, fmt.Errorf("agent %s: id already used: %w", rec.ID, session.ErrConflict)
	}
	s.agentCreated++
	s.agents[k] = &agentEntry{rec: rec, order: s.agentCreated}
	return copyAgent(rec), nil
}

func (s *Store) GetAgent(ctx context.Context, k session.AgentKey) (session.AgentRecord, error) {
	if err := check.AgentBegin(ctx, k); err != nil {
		return session.AgentRecord{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	a := s.agents[k]
	if a == nil {
		return session.AgentRecord{}, agentNotFound(k)
	}
	return copyAgent(a.rec), nil
}

func (s *Store) ListAgents(ctx context.Context, userID string) ([]session.AgentRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := check.User(userID); err != nil {
		return nil, err
	}
	s.mu.RLock()
	var rows []*agentEntry
	for k, a := range s.agents {
		if k.UserID == userID {
			rows = append(rows, a)
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(rows, func(a, b *agentEntry) int { return int(a.order - b.order) })
	out := make([]session.AgentRecord, len(rows))
	for i, a := range rows {
		out[i] = copyAgent(a.rec)
	}
	return out, nil
}

func (s *Store) UpdateAgent(ctx context.Context, k session.AgentKey, config json.RawMessage) (session.AgentRecord, error) {
	if err := check.AgentBegin(ctx, k); err != nil {
		return session.AgentRecord{}, err
	}
	if err := check.JSON("agent config", config); err != nil {
		return session.AgentRecord{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.agents[k]
	if a == nil {
		return session.AgentRecord{}, agentNotFound(k)
	}
	a.rec.Config = clone(config)
	a.rec.UpdatedAt = check.Time(s.now())
	return copyAgent(a.rec), nil
}

func (s *Store) DeleteAgent(ctx context.Context, k session.AgentKey) error {
	if err := check.AgentBegin(ctx, k); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.agents[k] == nil {
		return agentNotFound(k)
	}
	delete(s.agents, k)
	for id, e := range s.sessions {
		e.mu.Lock()
		if e.rec.UserID == k.UserID && e.rec.AgentID == k.AgentID {
			e.deleted = true
			delete(s.sessions, id)
		}
		e.mu.Unlock()
	}
	return nil
}

func (s *Store) CountStatuses(ctx context.Context) (map[session.Status]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := map[session.Status]int64{}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, e := range s.sessions {
		e.mu.Lock()
		if !e.deleted {
			out[e.status]++
		}
		e.mu.Unlock()
	}
	return out, nil
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
	type row struct {
		k     session.Key
		order int64
	}
	var rows []row
	s.mu.RLock()
	for _, e := range s.sessions {
		e.mu.Lock()
		if !e.deleted && e.lease.Owner == owner {
			rows = append(rows, row{session.Key{UserID: e.rec.UserID, SessionID: e.rec.ID}, e.order})
		}
		e.mu.Unlock()
	}
	s.mu.RUnlock()
	slices.SortFunc(rows, func(a, b row) int { return int(a.order - b.order) })
	out := make([]session.Key, 0, min(limit, len(rows)))
	for _, r := range rows[:min(limit, len(rows))] {
		out = append(out, r.k)
	}
	return out, nil
}
