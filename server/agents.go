package server

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/server/api"
	"github.com/agentscope-go/agentscope/session"
)

// userAgentRecord is an agent a user created as the reference's
// AgentRecord.
func userAgentRecord(rec session.AgentRecord, ua *engine.UserAgent) api.AgentRecord {
	updated, created, user := rec.UpdatedAt.UTC().Format(api.Time), rec.CreatedAt.UTC().Format(api.Time), rec.UserID
	d := api.AgentData{ID: rec.ID, Name: ua.Name, Description: "based on " + ua.BaseAgentID, BaseAgentID: ua.BaseAgentID}
	if ua.SystemPrompt != "" {
		d.SystemPrompt = &ua.SystemPrompt
	}
	if ua.ReactConfig.MaxIters > 0 {
		n := ua.ReactConfig.MaxIters
		d.ReactConfig = &api.ReactConfig{MaxIters: &n}
	}
	return api.AgentRecord{ID: rec.ID, UpdatedAt: &updated, CreatedAt: &created, UserID: &user, Source: "user", Data: d}
}

func (s *Server) listAgents(w http.ResponseWriter, r *http.Request, user string) {
	entries, err := s.eng.Agents(r.Context(), user)
	if err != nil {
		s.fail(w, err)
		return
	}
	out := api.AgentList{Agents: make([]api.AgentRecord, 0, len(entries)), Total: len(entries)}
	for _, a := range entries {
		if a.Record != nil {
			out.Agents = append(out.Agents, userAgentRecord(*a.Record, a.User))
		} else {
			// A configured agent has no record of its own: no owner, no
			// times.
			out.Agents = append(out.Agents, api.AgentRecord{ID: a.ID, Source: "server", Data: api.AgentData{ID: a.ID, Name: a.Name, Description: a.Description}})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// agentFields reads the settable fields of an agent from a request body
// into ua; a present null leaves a field as it is. It answers 422 naming
// the field and reports false on a bad one.
func agentFields(w http.ResponseWriter, fields map[string]json.RawMessage, ua *engine.UserAgent) bool {
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
	var ua engine.UserAgent
	if !agentFields(w, fields, &ua) {
		return
	}
	baseID, ok := stringField(w, fields, "base_agent_id", false)
	if !ok {
		return
	}
	ua.BaseAgentID = baseID
	rec, err := s.eng.CreateAgent(r.Context(), user, ua)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, api.AgentCreated{AgentID: rec.ID})
}

// agentTools is GET /agent/{aid}/tools: the agent's tools as its model
// sees them (api.AgentTools), so a client can check an edited call
// before sending it. Not a route of the reference's: an addition.
func (s *Server) agentTools(w http.ResponseWriter, r *http.Request, user string) {
	schemas, err := s.eng.AgentTools(r.Context(), user, r.PathValue("aid"))
	if err != nil {
		s.fail(w, err)
		return
	}
	out := api.AgentTools{Tools: make([]api.ToolSchema, len(schemas))}
	for i, sc := range schemas {
		out.Tools[i] = api.ToolSchema{Name: sc.Name, Description: sc.Description, Parameters: sc.Parameters}
	}
	writeJSON(w, http.StatusOK, out)
}

// patchAgent changes an agent a user created (engine.UpdateAgent).
func (s *Server) patchAgent(w http.ResponseWriter, r *http.Request, user string) {
	id := r.PathValue("aid")
	_, ua, err := s.eng.UserAgent(r.Context(), user, id)
	if err != nil {
		s.fail(w, err)
		return
	}
	fields, ok := readJSON(w, r)
	if !ok {
		return
	}
	next := ua
	if raw, present := fields["base_agent_id"]; present && !isNull(raw) {
		baseID, ok := stringField(w, fields, "base_agent_id", false)
		if !ok {
			return
		}
		next.BaseAgentID = baseID
	}
	if !agentFields(w, fields, &next) {
		return
	}
	rec, err := s.eng.UpdateAgent(r.Context(), user, id, next)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, userAgentRecord(rec, &next))
}

// deleteAgent deletes an agent a user created with its sessions
// (engine.DeleteAgent).
func (s *Server) deleteAgent(w http.ResponseWriter, r *http.Request, user string) {
	if err := s.eng.DeleteAgent(r.Context(), user, r.PathValue("aid")); err != nil {
		s.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
