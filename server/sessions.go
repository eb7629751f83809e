package server

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/session"
)

// Session statuses (the reference's SessionStatus), as the engine says
// them.
const (
	StatusRunning                = string(engine.StatusRunning)
	StatusIdle                   = string(engine.StatusIdle)
	StatusAwaitingPermission     = string(engine.StatusAwaitingPermission)
	StatusAwaitingExternalResult = string(engine.StatusAwaitingExternalResult)
)

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	status, code := "ok", http.StatusOK
	if s.eng.Closed() {
		status, code = "not_ready", http.StatusServiceUnavailable
	}
	writeJSON(w, code, map[string]any{"status": status, "version": s.cfg.Version,
		"components": map[string]string{"storage": status, "message_bus": status}})
}

// recordView is a SessionRecord on the wire (its state is not shown).
type recordView struct {
	ID        string          `json:"id"`
	UserID    string          `json:"user_id"`
	AgentID   string          `json:"agent_id"`
	Name      string          `json:"name"`
	Config    json.RawMessage `json:"config"`
	CreatedAt string          `json:"created_at"`
	UpdatedAt string          `json:"updated_at"`
}

func viewOf(rec session.Record) recordView {
	const layout = "2006-01-02T15:04:05.000000"
	cfg := rec.Config
	if len(cfg) == 0 {
		cfg = json.RawMessage("{}")
	}
	return recordView{rec.ID, rec.UserID, rec.AgentID, rec.Name, cfg, rec.CreatedAt.UTC().Format(layout), rec.UpdatedAt.UTC().Format(layout)}
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request, user string) {
	fields, ok := readJSON(w, r)
	if !ok {
		return
	}
	agentID, ok := stringField(w, fields, "agent_id", true)
	if !ok {
		return
	}
	name, ok := stringField(w, fields, "name", false)
	if !ok {
		return
	}
	delete(fields, "agent_id")
	delete(fields, "name")
	cfg, _ := json.Marshal(fields)
	rec, err := s.eng.CreateSession(r.Context(), engine.NewSession{UserID: user, AgentID: agentID, Name: name, Config: cfg})
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"session_id": rec.ID})
}

// key is the session of the request's path, for user.
func key(r *http.Request, user string) session.Key {
	return session.Key{UserID: user, SessionID: r.PathValue("sid")}
}

type sessionEntry struct {
	Session   recordView `json:"session"`
	IsRunning bool       `json:"is_running"`
	Status    string     `json:"status"`
	Team      any        `json:"team"`
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request, user string) {
	infos, total, err := s.eng.Sessions(r.Context(), user, r.URL.Query().Get("agent_id"))
	if err != nil {
		s.fail(w, err)
		return
	}
	out := make([]sessionEntry, 0, len(infos))
	for _, in := range infos {
		out = append(out, sessionEntry{viewOf(in.Record), in.Status == engine.StatusRunning, string(in.Status), nil})
	}
	writeJSON(w, http.StatusOK, map[string]any{"sessions": out, "total": total})
}

func (s *Server) status(w http.ResponseWriter, r *http.Request, user string) {
	k := key(r, user)
	st, err := s.eng.Status(r.Context(), k)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"session_id": k.SessionID, "status": string(st)})
}

func (s *Server) patchSession(w http.ResponseWriter, r *http.Request, user string) {
	k := key(r, user)
	rec, err := s.eng.Session(r.Context(), k)
	if err != nil {
		s.fail(w, err)
		return
	}
	fields, ok := readJSON(w, r)
	if !ok {
		return
	}
	var p session.Patch
	if _, present := fields["name"]; present {
		name, ok := stringField(w, fields, "name", false)
		if !ok {
			return
		}
		p.Name = &name
		delete(fields, "name")
	}
	if len(fields) > 0 {
		cfg := map[string]json.RawMessage{}
		if len(rec.Config) > 0 {
			if err := json.Unmarshal(rec.Config, &cfg); err != nil {
				cfg = map[string]json.RawMessage{}
			}
		}
		for name, v := range fields {
			if isNull(v) {
				delete(cfg, name)
			} else {
				cfg[name] = v
			}
		}
		p.Config, _ = json.Marshal(cfg)
	}
	rec, err = s.eng.UpdateSession(r.Context(), k, p)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, viewOf(rec))
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request, user string) {
	if err := s.eng.DeleteSession(r.Context(), key(r, user)); err != nil {
		s.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request, user string) {
	q := r.URL.Query()
	limit := 50
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 200 {
			writeInvalid(w, []any{"query", "limit"}, "int_range", "limit must be an integer from 1 to 200")
			return
		}
		limit = n
	}
	page, running, err := s.eng.Messages(r.Context(), key(r, user), session.MessageQuery{Before: q.Get("before"), Limit: limit})
	if err != nil {
		s.fail(w, err)
		return
	}
	msgs := make([]json.RawMessage, len(page.Messages))
	for i, m := range page.Messages {
		msgs[i] = m.JSON
	}
	writeJSON(w, http.StatusOK, map[string]any{"messages": msgs, "is_running": running, "has_more": page.HasMore})
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, user string) {
	fields, ok := readJSON(w, r)
	if !ok {
		return
	}
	agentID, ok := stringField(w, fields, "agent_id", true)
	if !ok {
		return
	}
	sid, ok := stringField(w, fields, "session_id", true)
	if !ok {
		return
	}
	raw, present := fields["input"]
	if !present {
		writeInvalid(w, []any{"body", "input"}, "missing", "Field required")
		return
	}
	in, err := engine.ParseInput(raw)
	if err != nil {
		s.fail(w, err)
		return
	}
	if err := s.eng.Start(r.Context(), session.Key{UserID: user, SessionID: sid}, agentID, in); err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "started", "session_id": sid})
}

func (s *Server) interrupt(w http.ResponseWriter, r *http.Request, user string) {
	k := key(r, user)
	if err := s.eng.Interrupt(r.Context(), k); err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"session_id": k.SessionID})
}
