package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/state"
)

// UserAgent is an agent a user created, as stored: the reference's
// AgentData fields this engine uses, and the configured agent it is built
// on. What a user may set stops there on purpose: the model, the tools,
// MCP servers and the permission mode are the operator's (a user choosing
// them could run commands or spend keys on the server's host), so they
// come from the base.
type UserAgent struct {
	Name         string      `json:"name"`
	SystemPrompt string      `json:"system_prompt,omitempty"`
	ReactConfig  ReactConfig `json:"react_config"`
	BaseAgentID  string      `json:"base_agent_id"`
}

// ReactConfig is a user's agent's loop settings.
type ReactConfig struct {
	// MaxIters 0: the base agent's.
	MaxIters int `json:"max_iters,omitempty"`
}

// AgentEntry is one agent a user may talk to: a configured one (Record
// nil) or one of the user's own.
type AgentEntry struct {
	ID, Name, Description string
	// Record and User are set for an agent the user created.
	Record *session.AgentRecord
	User   *UserAgent
}

// Agents lists the configured agents, then the user's own.
func (e *Engine) Agents(ctx context.Context, user string) ([]AgentEntry, error) {
	out := e.ConfiguredAgents()
	recs, err := e.store.ListAgents(ctx, user)
	if err != nil {
		return nil, err
	}
	for i := range recs {
		rec := recs[i]
		var ua UserAgent
		if err := json.Unmarshal(rec.Config, &ua); err != nil {
			e.log.Error("engine: stored agent", "agent", rec.ID, "err", err)
			continue
		}
		out = append(out, AgentEntry{ID: rec.ID, Name: ua.Name, Description: "based on " + ua.BaseAgentID, Record: &rec, User: &ua})
	}
	return out, nil
}

// ConfiguredAgents lists the configured agents in their order, which
// needs no user: a transport that names a default agent before it knows
// who is asking (an A2A agent card) takes the first.
func (e *Engine) ConfiguredAgents() []AgentEntry {
	out := make([]AgentEntry, 0, len(e.order))
	for _, a := range e.order {
		out = append(out, AgentEntry{ID: a.ID, Name: a.Name, Description: a.Description})
	}
	return out
}

// Configured reports whether id is a configured agent (which users cannot
// change).
func (e *Engine) Configured(id string) bool { return e.agents[id] != nil }

// lookupAgent is the agent id names for user: a configured one, or one
// the user created, built on its base; ErrNotFound when there is none or
// its base is no longer served.
func (e *Engine) lookupAgent(ctx context.Context, user, id string) (*Agent, error) {
	if a := e.agents[id]; a != nil {
		return a, nil
	}
	if id == "" {
		return nil, errAgentNotFound
	}
	rec, err := e.store.GetAgent(ctx, session.AgentKey{UserID: user, AgentID: id})
	if errors.Is(err, session.ErrNotFound) {
		return nil, errAgentNotFound
	}
	if err != nil {
		return nil, err
	}
	var ua UserAgent
	if err := json.Unmarshal(rec.Config, &ua); err != nil {
		return nil, fmt.Errorf("engine: stored agent %s: %w", id, err)
	}
	base := e.agents[ua.BaseAgentID]
	if base == nil || base.Derive == nil {
		e.log.Warn("engine: an agent's base is not served", "agent", id, "base", ua.BaseAgentID)
		return nil, errAgentNotFound
	}
	o := Overrides{Name: ua.Name, SystemPrompt: ua.SystemPrompt, MaxIters: ua.ReactConfig.MaxIters}
	return &Agent{ID: id, Name: ua.Name, Description: "based on " + base.ID,
		New: func(st *state.AgentState) (*agent.Agent, error) { return base.Derive(st, o) }}, nil
}

// AgentTools is what the tools of agent id offer a run of the user's: the
// schemas its model is sent, in the toolkit's order, every group's tools
// included. A client checks a call it edits against them before it sends
// the edit. ErrNotFound for an agent the user does not have.
func (e *Engine) AgentTools(ctx context.Context, user, id string) ([]model.ToolSchema, error) {
	a, err := e.lookupAgent(ctx, user, id)
	if err != nil {
		return nil, err
	}
	st := state.New(nil)
	ag, err := a.New(st)
	if err != nil {
		return nil, fmt.Errorf("engine: build agent %s: %w", id, err)
	}
	tk := ag.Toolkit()
	return tk.Schemas(tk.GroupNames()), nil
}

// CreateAgent creates an agent of the user's on a configured agent that
// can be a base (ua.BaseAgentID; "": the first that can). Its name must
// not be empty.
func (e *Engine) CreateAgent(ctx context.Context, user string, ua UserAgent) (session.AgentRecord, error) {
	if strings.TrimSpace(ua.Name) == "" {
		return session.AgentRecord{}, &InputError{Field: "name", Reason: "name must not be empty"}
	}
	if ua.ReactConfig.MaxIters < 0 {
		return session.AgentRecord{}, &InputError{Field: "react_config.max_iters", Reason: "max_iters must be an integer of at least 1"}
	}
	var base *Agent
	if ua.BaseAgentID == "" {
		for _, a := range e.order {
			if a.Derive != nil {
				base = a
				break
			}
		}
		if base == nil {
			return session.AgentRecord{}, &InputError{Field: "base_agent_id", Reason: "no agent of this server can be the base of a new agent"}
		}
	} else if base = e.agents[ua.BaseAgentID]; base == nil || base.Derive == nil {
		return session.AgentRecord{}, &InputError{Field: "base_agent_id", Reason: fmt.Sprintf("%q is not an agent of this server that can be a base", ua.BaseAgentID)}
	}
	ua.BaseAgentID = base.ID
	cfg, _ := json.Marshal(&ua)
	return e.store.CreateAgent(ctx, user, cfg)
}

// UserAgent is the user's agent id, to change: ErrForbidden for a
// configured agent, ErrNotFound for none of the user's.
func (e *Engine) UserAgent(ctx context.Context, user, id string) (session.AgentRecord, UserAgent, error) {
	if e.agents[id] != nil {
		return session.AgentRecord{}, UserAgent{}, newError(ErrForbidden, "Agent %q is configured by the server and cannot be changed over the API.", id)
	}
	rec, err := e.store.GetAgent(ctx, session.AgentKey{UserID: user, AgentID: id})
	if err != nil {
		if errors.Is(err, session.ErrNotFound) {
			return rec, UserAgent{}, errAgentNotFound
		}
		return rec, UserAgent{}, err
	}
	var ua UserAgent
	if err := json.Unmarshal(rec.Config, &ua); err != nil {
		return rec, UserAgent{}, fmt.Errorf("engine: stored agent %s: %w", id, err)
	}
	return rec, ua, nil
}

// UpdateAgent replaces the settings of the user's agent id with next. The
// base is fixed at creation (the tools a parked reply waits on come from
// it). A new name is refused (ErrBusy) while a session of the agent runs
// or is parked: the name authors the replies, and a parked reply is found
// by it.
func (e *Engine) UpdateAgent(ctx context.Context, user, id string, next UserAgent) (session.AgentRecord, error) {
	_, cur, err := e.UserAgent(ctx, user, id)
	if err != nil {
		return session.AgentRecord{}, err
	}
	if next.BaseAgentID != cur.BaseAgentID {
		return session.AgentRecord{}, &InputError{Field: "base_agent_id", Reason: "the base of an agent cannot change"}
	}
	if strings.TrimSpace(next.Name) == "" {
		return session.AgentRecord{}, &InputError{Field: "name", Reason: "name must not be empty"}
	}
	if next.Name != cur.Name {
		running, parked, err := e.busySessions(ctx, user, id)
		if err != nil {
			return session.AgentRecord{}, err
		}
		if len(running)+len(parked) > 0 {
			return session.AgentRecord{}, newError(ErrBusy, "the agent has a session running or waiting on a reply: its name cannot change now")
		}
	}
	cfg, _ := json.Marshal(&next)
	rec, err := e.store.UpdateAgent(ctx, session.AgentKey{UserID: user, AgentID: id}, cfg)
	if errors.Is(err, session.ErrNotFound) {
		return rec, errAgentNotFound
	}
	return rec, err
}

// DeleteAgent deletes the user's agent id with its sessions; ErrBusy while
// one of them runs (interrupt it first). Parked sessions hold nothing and
// go with it.
func (e *Engine) DeleteAgent(ctx context.Context, user, id string) error {
	_, _, err := e.UserAgent(ctx, user, id)
	if err != nil {
		return err
	}
	running, _, err := e.busySessions(ctx, user, id)
	if err != nil {
		return err
	}
	if len(running) > 0 {
		return newError(ErrBusy, "a session of the agent is running")
	}
	recs, _, err := e.store.ListSessions(ctx, session.ListQuery{UserID: user, AgentID: id})
	if err != nil {
		return err
	}
	if err := e.store.DeleteAgent(ctx, session.AgentKey{UserID: user, AgentID: id}); err != nil {
		if errors.Is(err, session.ErrNotFound) {
			return errAgentNotFound
		}
		return err
	}
	for _, sr := range recs {
		e.hub.closeTopic(session.Key{UserID: user, SessionID: sr.ID})
	}
	return nil
}

// busySessions lists the user's sessions of an agent that are not idle:
// running here or elsewhere, or parked on a reply by the agent, as their
// rows say.
func (e *Engine) busySessions(ctx context.Context, user, agentID string) (running, parked []session.Key, err error) {
	recs, _, err := e.store.ListSessions(ctx, session.ListQuery{UserID: user, AgentID: agentID})
	if err != nil {
		return nil, nil, err
	}
	for _, rec := range recs {
		k := session.Key{UserID: user, SessionID: rec.ID}
		st, err := e.statusOf(ctx, k, rec)
		if err != nil {
			return nil, nil, err
		}
		switch st {
		case session.StatusRunning:
			running = append(running, k)
		case session.StatusAwaitingPermission, session.StatusAwaitingExternalResult:
			parked = append(parked, k)
		}
	}
	return running, parked, nil
}
