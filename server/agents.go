package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/state"
)

// Overrides are the settings of an agent a user created over POST /agent/,
// applied to the configured agent it is based on. A zero field keeps the
// base agent's setting.
type Overrides struct {
	// Name authors the agent's replies (never empty).
	Name string
	// SystemPrompt replaces the base agent's system prompt.
	SystemPrompt string
	// MaxIters replaces the base agent's reasoning-acting rounds per reply.
	MaxIters int
}

// userAgent is the stored config of an agent a user created: the
// reference's AgentData fields this server uses, and the configured agent
// it is built on. What a user may set stops there on purpose: the model,
// the tools, MCP servers and the permission mode are the operator's (a
// user choosing them could run commands or spend keys on the server's
// host), so they come from the base.
type userAgent struct {
	Name         string      `json:"name"`
	SystemPrompt string      `json:"system_prompt,omitempty"`
	ReactConfig  reactConfig `json:"react_config"`
	BaseAgentID  string      `json:"base_agent_id"`
}

type reactConfig struct {
	// MaxIters 0: the base agent's.
	MaxIters int `json:"max_iters,omitempty"`
}

// agentView is an agent on the wire (the reference's AgentView, with this
// server's own fields beside it).
type agentView struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Source is "server" for a configured agent, "user" for one created
	// over POST /agent/.
	Source string `json:"source"`
	// Editable tells whether PATCH and DELETE may change it.
	Editable  bool       `json:"editable"`
	UserID    string     `json:"user_id,omitempty"`
	Data      *userAgent `json:"data,omitempty"`
	CreatedAt string     `json:"created_at,omitempty"`
	UpdatedAt string     `json:"updated_at,omitempty"`
}

func userAgentView(rec session.AgentRecord, ua *userAgent) agentView {
	const layout = "2006-01-02T15:04:05.000000"
	return agentView{ID: rec.ID, Name: ua.Name, Description: "based on " + ua.BaseAgentID, Source: "user", Editable: true,
		UserID: rec.UserID, Data: ua, CreatedAt: rec.CreatedAt.UTC().Format(layout), UpdatedAt: rec.UpdatedAt.UTC().Format(layout)}
}

// agentFor returns the agent id names for user: a configured one, or one
// the user created, built on its base. ok is false, with the answer
// written, when there is none (404) or the store failed.
func (s *Server) agentFor(ctx context.Context, w http.ResponseWriter, user, id string) (*Agent, bool) {
	a, err := s.lookupAgent(ctx, user, id)
	if err != nil {
		s.agentError(w, err)
		return nil, false
	}
	return a, true
}

// errNoAgent is an agent id that names no agent of the user.
var errNoAgent = errors.New("server: agent not found")

// lookupAgent is agentFor without the answer: errNoAgent when the agent
// does not exist, or its base is no longer served.
func (s *Server) lookupAgent(ctx context.Context, user, id string) (*Agent, error) {
	if a := s.agents[id]; a != nil {
		return a, nil
	}
	if id == "" {
		return nil, errNoAgent
	}
	rec, err := s.store.GetAgent(ctx, session.AgentKey{UserID: user, AgentID: id})
	if errors.Is(err, session.ErrNotFound) {
		return nil, errNoAgent
	}
	if err != nil {
		return nil, err
	}
	var ua userAgent
	if err := json.Unmarshal(rec.Config, &ua); err != nil {
		return nil, fmt.Errorf("server: stored agent %s: %w", id, err)
	}
	base := s.agents[ua.BaseAgentID]
	if base == nil || base.Derive == nil {
		s.log.Warn("server: an agent's base is not served", "agent", id, "base", ua.BaseAgentID)
		return nil, errNoAgent
	}
	o := Overrides{Name: ua.Name, SystemPrompt: ua.SystemPrompt, MaxIters: ua.ReactConfig.MaxIters}
	return &Agent{ID: id, Name: ua.Name, Description: "based on " + base.ID,
		New: func(st *state.AgentState) (*agent.Agent, error) { return base.Derive(st, o) }}, nil
}

// agentError answers the error of an agent's lookup or update: an agent
// that is not the user's (or was deleted meanwhile) is 404.
func (s *Server) agentError(w http.ResponseWriter, err error) {
	if errors.Is(err, errNoAgent) || errors.Is(err, session.ErrNotFound) {
		writeDetail(w, http.StatusNotFound, "Agent not found")
		return
	}
	s.storeError(w, err)
}

// defaultBase is the configured agent a new agent is built on when the
// request names none: the first that can be a base.
func (s *Server) defaultBase() *Agent {
	for _, a := range s.order {
		if a.Derive != nil {
			return a
		}
	}
	return nil
}

func (s *Server) listAgents(w http.ResponseWriter, r *http.Request, user string) {
	views := make([]agentView, 0, len(s.order))
	for _, a := range s.order {
		views = append(views, agentView{ID: a.ID, Name: a.Name, Description: a.Description, Source: "server"})
	}
	recs, err := s.store.ListAgents(r.Context(), user)
	if err != nil {
		s.storeError(w, err)
		return
	}
	for _, rec := range recs {
		var ua userAgent
		if err := json.Unmarshal(rec.Config, &ua); err != nil {
			s.log.Error("server: stored agent", "agent", rec.ID, "err", err)
			continue
		}
		views = append(views, userAgentView(rec, &ua))
	}
	writeJSON(w, http.StatusOK, map[string]any{"agents": views, "total": len(views)})
}

// agentFields reads the settable fields of an agent from a request body
// into ua; a present null leaves a field as it is. It answers 422 naming
// the field and reports false on a bad one.
func agentFields(w http.ResponseWriter, fields map[string]json.RawMessage, ua *userAgent) bool {
	if raw, ok := fields["name"]; ok && !isNull(raw) {
		name, ok := stringField(w, fields, "name", false)
		if !ok {
			return false
		}
		if strings.TrimSpace(name) == "" {
			writeInvalid(w, []any{"body", "name"}, "string_too_short", "name must not be empty")
			return false
		}
		ua.Name = name
	}
	if raw, ok := fields["system_prompt"]; ok && !isNull(raw) {
		p, ok := stringField(w, fields, "system_prompt", false)
		if !ok {
			return false
		}
		ua.SystemPrompt = p
	}
	if raw, ok := fields["react_config"]; ok && !isNull(raw) {
		var rc map[string]json.RawMessage
		if err := json.Unmarshal(raw, &rc); err != nil || rc == nil {
			writeInvalid(w, []any{"body", "react_config"}, "model_type", "react_config must be an object")
			return false
		}
		if mi, ok := rc["max_iters"]; ok && !isNull(mi) {
			var n int
			if err := json.Unmarshal(mi, &n); err != nil || n < 1 {
				writeInvalid(w, []any{"body", "react_config", "max_iters"}, "greater_than_equal", "max_iters must be an integer of at least 1")
				return false
			}
			ua.ReactConfig.MaxIters = n
		}
	}
	return true
}

func (s *Server) createAgent(w http.ResponseWriter, r *http.Request, user string) {
	fields, ok := readJSON(w, r)
	if !ok {
		return
	}
	if raw, ok := fields["name"]; !ok || isNull(raw) {
		writeInvalid(w, []any{"body", "name"}, "missing", "Field required")
		return
	}
	var ua userAgent
	if !agentFields(w, fields, &ua) {
		return
	}
	baseID, ok := stringField(w, fields, "base_agent_id", false)
	if !ok {
		return
	}
	base := s.defaultBase()
	if baseID != "" {
		base = s.agents[baseID]
	}
	switch {
	case base == nil && baseID == "":
		writeInvalid(w, []any{"body", "base_agent_id"}, "value_error", "no agent of this server can be the base of a new agent")
		return
	case base == nil || base.Derive == nil:
		writeInvalid(w, []any{"body", "base_agent_id"}, "value_error", fmt.Sprintf("%q is not an agent of this server that can be a base", baseID))
		return
	}
	ua.BaseAgentID = base.ID
	cfg, _ := json.Marshal(&ua)
	rec, err := s.store.CreateAgent(r.Context(), user, cfg)
	if err != nil {
		s.storeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"agent_id": rec.ID})
}

// ownAgent looks up the path's agent for an edit: 403 for a configured
// agent, 404 for none of the user's.
func (s *Server) ownAgent(w http.ResponseWriter, r *http.Request, user string) (session.AgentRecord, *userAgent, bool) {
	id := r.PathValue("aid")
	if s.agents[id] != nil {
		writeDetail(w, http.StatusForbidden, fmt.Sprintf("Agent %q is configured by the server and cannot be changed over the API.", id))
		return session.AgentRecord{}, nil, false
	}
	rec, err := s.store.GetAgent(r.Context(), session.AgentKey{UserID: user, AgentID: id})
	if err != nil {
		if errors.Is(err, session.ErrNotFound) {
			writeDetail(w, http.StatusNotFound, "Agent not found")
		} else {
			s.storeError(w, err)
		}
		return rec, nil, false
	}
	var ua userAgent
	if err := json.Unmarshal(rec.Config, &ua); err != nil {
		s.storeError(w, fmt.Errorf("server: stored agent %s: %w", id, err))
		return rec, nil, false
	}
	return rec, &ua, true
}

// busySessions lists the user's sessions of an agent that are not idle:
// running here or elsewhere, or parked on a reply. parked counts the
// latter.
func (s *Server) busySessions(ctx context.Context, user, agentID string, a *Agent) (running, parked []session.Key, err error) {
	recs, _, err := s.store.ListSessions(ctx, session.ListQuery{UserID: user, AgentID: agentID})
	if err != nil {
		return nil, nil, err
	}
	for _, rec := range recs {
		k := session.Key{UserID: user, SessionID: rec.ID}
		st, err := s.statusWith(ctx, k, a.Name)
		if err != nil {
			return nil, nil, err
		}
		switch st {
		case StatusRunning:
			running = append(running, k)
		case StatusAwaitingPermission, StatusAwaitingExternalResult:
			parked = append(parked, k)
		}
	}
	return running, parked, nil
}

// patchAgent changes an agent a user created. The base is fixed at
// creation (the tools a parked reply waits on come from it). A new name
// is refused (409) while a session of the agent runs or is parked: the
// name authors the replies, and a parked reply is found by it.
func (s *Server) patchAgent(w http.ResponseWriter, r *http.Request, user string) {
	rec, ua, ok := s.ownAgent(w, r, user)
	if !ok {
		return
	}
	fields, ok := readJSON(w, r)
	if !ok {
		return
	}
	if raw, present := fields["base_agent_id"]; present && !isNull(raw) {
		baseID, ok := stringField(w, fields, "base_agent_id", false)
		if !ok {
			return
		}
		if baseID != ua.BaseAgentID {
			writeInvalid(w, []any{"body", "base_agent_id"}, "value_error", "the base of an agent cannot change")
			return
		}
	}
	next := *ua
	if !agentFields(w, fields, &next) {
		return
	}
	if next.Name != ua.Name {
		running, parked, err := s.busySessions(r.Context(), user, rec.ID, &Agent{Name: ua.Name})
		if err != nil {
			s.storeError(w, err)
			return
		}
		if len(running)+len(parked) > 0 {
			writeDetail(w, http.StatusConflict, "the agent has a session running or waiting on a reply: its name cannot change now")
			return
		}
	}
	cfg, _ := json.Marshal(&next)
	rec, err := s.store.UpdateAgent(r.Context(), session.AgentKey{UserID: user, AgentID: rec.ID}, cfg)
	if err != nil {
		s.agentError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, userAgentView(rec, &next))
}

// deleteAgent deletes an agent a user created with its sessions; 409 while
// one of them runs (interrupt it first). Parked sessions hold nothing and
// go with it.
func (s *Server) deleteAgent(w http.ResponseWriter, r *http.Request, user string) {
	rec, ua, ok := s.ownAgent(w, r, user)
	if !ok {
		return
	}
	running, _, err := s.busySessions(r.Context(), user, rec.ID, &Agent{Name: ua.Name})
	if err != nil {
		s.storeError(w, err)
		return
	}
	if len(running) > 0 {
		writeDetail(w, http.StatusConflict, "a session of the agent is running")
		return
	}
	recs, _, err := s.store.ListSessions(r.Context(), session.ListQuery{UserID: user, AgentID: rec.ID})
	if err != nil {
		s.storeError(w, err)
		return
	}
	if err := s.store.DeleteAgent(r.Context(), session.AgentKey{UserID: user, AgentID: rec.ID}); err != nil {
		s.agentError(w, err)
		return
	}
	for _, sr := range recs {
		s.hub.closeTopic(session.Key{UserID: user, SessionID: sr.ID})
	}
	w.WriteHeader(http.StatusNoContent)
}
