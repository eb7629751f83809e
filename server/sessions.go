package server

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/server/api"
	"github.com/agentscope-go/agentscope/session"
)

// Session statuses (the reference's SessionStatus), as the engine says
// them.
const (
	StatusRunning                = string(session.StatusRunning)
	StatusIdle                   = string(session.StatusIdle)
	StatusAwaitingPermission     = string(session.StatusAwaitingPermission)
	StatusAwaitingExternalResult = string(session.StatusAwaitingExternalResult)
)

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	status, code := "ok", http.StatusOK
	if s.eng.Closed() {
		status, code = "not_ready", http.StatusServiceUnavailable
	}
	writeJSON(w, code, api.Health{Status: status, Version: s.cfg.Version,
		Components: map[string]string{"storage": status, "message_bus": status}})
}

// ready is GET /ready, for a load balancer: 200 while the server takes
// new runs, 503 (with Retry-After) once it drains or shuts down, when
// new work is to go to another replica. Like /health it needs neither
// the token nor X-User-ID (a probe is not a user), and it says nothing
// but that.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	if s.eng.Draining() {
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// recordOf is a stored session as the reference's SessionRecord; state
// is the stored AgentState, or nil (null).
func recordOf(rec session.Record, state json.RawMessage) api.SessionRecord {
	return api.SessionRecord{ID: rec.ID, UpdatedAt: rec.UpdatedAt.UTC().Format(api.Time), CreatedAt: rec.CreatedAt.UTC().Format(api.Time),
		UserID: rec.UserID, AgentID: rec.AgentID, Config: api.NewSessionConfig(rec.Name, rec.Config), State: state}
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
	writeJSON(w, http.StatusCreated, api.Created{SessionID: rec.ID})
}

// key is the session of the request's path, for user.
func key(r *http.Request, user string) session.Key {
	return session.Key{UserID: user, SessionID: r.PathValue("sid")}
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request, user string) {
	// limit, offset and cursor page the list, newest first (not in the
	// reference, which lists every session): a client with thousands of
	// sessions reads one page at a time. cursor (the next_cursor of the
	// page before) costs a page however deep it is, and sessions made or
	// deleted meanwhile shift no page; offset costs the rows it skips,
	// and is kept for the clients that count pages.
	q := r.URL.Query()
	lq := session.ListQuery{UserID: user, AgentID: q.Get("agent_id")}
	for _, p := range []struct {
		name     string
		min, max int
		v        *int
	}{{"limit", 1, 1000, &lq.Limit}, {"offset", 0, math.MaxInt32, &lq.Offset}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < p.min || n > p.max {
				writeInvalid(w, []any{"query", p.name}, "int_range", fmt.Sprintf("%s must be an integer from %d to %d", p.name, p.min, p.max))
				return
			}
			*p.v = n
		}
	}
	if v, ok := q["cursor"]; ok {
		c, err := session.ParseListCursor(v[0])
		if err != nil {
			writeInvalid(w, []any{"query", "cursor"}, "value_error", "cursor must be the next_cursor of a listing")
			return
		}
		lq.After = &c
	}
	// One more than the page tells whether a next page exists.
	limit := lq.Limit
	if limit > 0 {
		lq.Limit++
	}
	infos, total, err := s.eng.Sessions(r.Context(), lq)
	if err != nil {
		s.fail(w, err)
		return
	}
	out := api.SessionList{Total: total}
	if limit > 0 && len(infos) > limit {
		infos = infos[:limit]
		out.NextCursor = infos[limit-1].Record.Cursor().String()
	}
	out.Sessions = make([]api.SessionEntry, 0, len(infos))
	for _, in := range infos {
		out.Sessions = append(out.Sessions, api.SessionEntry{Session: recordOf(in.Record, nil), IsRunning: in.Status == session.StatusRunning, Status: string(in.Status)})
	}
	writeJSON(w, http.StatusOK, out)
}

// status is GET /sessions/{id}/status?agent_id=: the agent_id is
// required, as the reference requires it, and must be the session's.
func (s *Server) status(w http.ResponseWriter, r *http.Request, user string) {
	agentID, present := r.URL.Query()["agent_id"]
	if !present {
		writeInvalid(w, []any{"query", "agent_id"}, "missing", "Field required")
		return
	}
	k := key(r, user)
	rec, err := s.eng.Session(r.Context(), k)
	if err != nil {
		s.fail(w, err)
		return
	}
	if rec.AgentID != agentID[0] {
		writeDetail(w, http.StatusNotFound, "Session not found")
		return
	}
	st, err := s.eng.Status(r.Context(), k)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, api.Status{SessionID: k.SessionID, Status: string(st)})
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
	// A session's permission_mode (kept in its config, as the reference
	// keeps it) only tightens the agent's own: see engine.Engine.Start.
	if raw, present := fields["permission_mode"]; present && !isNull(raw) {
		var m string
		mode, err := permission.Mode(""), json.Unmarshal(raw, &m)
		if err == nil {
			mode, err = permission.ParseMode(m)
		}
		if err != nil || mode == "" {
			writeInvalid(w, []any{"body", "permission_mode"}, "enum", "Input should be 'default', 'accept_edits', 'explore', 'bypass' or 'dont_ask'")
			return
		}
	}
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
	st, err := s.eng.Store().LoadState(r.Context(), k)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, recordOf(rec, st.JSON))
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
	var at int64 = -1
	if v := q.Get("at"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			writeInvalid(w, []any{"query", "at"}, "int_parsing", "at must be a non-negative integer (a sequence of the session's log)")
			return
		}
		at = n
	}
	var page session.MessagePage
	var running bool
	var err error
	if at >= 0 {
		// As the messages stood once the stream had sent event at
		// (engine.Engine.MessagesAt).
		page, running, err = s.eng.MessagesAt(r.Context(), key(r, user), at, q.Get("before"), limit)
	} else {
		page, running, err = s.eng.Messages(r.Context(), key(r, user), session.MessageQuery{Before: q.Get("before"), Limit: limit})
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	out := api.Messages{Messages: make([]json.RawMessage, len(page.Messages)), IsRunning: running, HasMore: page.HasMore}
	for i, m := range page.Messages {
		out.Messages[i] = m.JSON
	}
	writeJSON(w, http.StatusOK, out)
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
	if _, err := s.eng.Start(r.Context(), session.Key{UserID: user, SessionID: sid}, agentID, in); err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, api.ChatStarted{Status: "started", SessionID: sid})
}

func (s *Server) interrupt(w http.ResponseWriter, r *http.Request, user string) {
	k := key(r, user)
	if err := s.eng.Interrupt(r.Context(), k); err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, api.Accepted{SessionID: k.SessionID})
}
