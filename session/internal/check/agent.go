package check

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentscope-go/agentscope/session"
)

// AgentBegin is the prologue of an operation on one agent.
func AgentBegin(ctx context.Context, k session.AgentKey) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return k.Validate()
}

// User reports ErrInvalid for an empty user id.
func User(userID string) error {
	if userID == "" {
		return fmt.Errorf("%w: empty user id", session.ErrInvalid)
	}
	return nil
}

// AgentConfig checks an agent's config and returns it ({} when nil).
func AgentConfig(cfg json.RawMessage) (json.RawMessage, error) {
	if cfg == nil {
		return json.RawMessage("{}"), nil
	}
	return cfg, JSON("agent config", cfg)
}
