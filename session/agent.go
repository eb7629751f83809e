package session

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// AgentKey names one agent a user created: agents, like sessions, are
// scoped by their user, and another user's agent is ErrNotFound.
type AgentKey struct {
	UserID  string
	AgentID string
}

// Validate reports ErrInvalid for an empty field.
func (k AgentKey) Validate() error {
	if k.UserID == "" {
		return fmt.Errorf("%w: empty user id", ErrInvalid)
	}
	if k.AgentID == "" {
		return fmt.Errorf("%w: empty agent id", ErrInvalid)
	}
	return nil
}

// AgentRecord is an agent a user created at run time (the reference's
// POST /agent/): its id, its owner and the server's JSON for it (name,
// system prompt, …), stored as given. Times are UTC with microsecond
// precision.
type AgentRecord struct {
	ID     string
	UserID string
	Config json.RawMessage
	// CreatedAt and UpdatedAt: UpdatedAt moves on UpdateAgent.
	CreatedAt, UpdatedAt time.Time
}

// Agents holds the agents users create over the API, so that they outlive
// the process that created them.
type Agents interface {
	// CreateAgent stores a new agent of userID with a fresh uuid4-hex id.
	CreateAgent(ctx context.Context, userID string, config json.RawMessage) (AgentRecord, error)
	GetAgent(ctx context.Context, k AgentKey) (AgentRecord, error)
	// ListAgents returns every agent of the user, oldest first.
	ListAgents(ctx context.Context, userID string) ([]AgentRecord, error)
	// UpdateAgent replaces the agent's config.
	UpdateAgent(ctx context.Context, k AgentKey, config json.RawMessage) (AgentRecord, error)
	// DeleteAgent removes the agent and, in the same transaction, every
	// session of its user that talks to it (each with its state,
	// transcript, events, lease and inputs).
	DeleteAgent(ctx context.Context, k AgentKey) error
}
