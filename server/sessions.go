package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/state"
)

// Session statuses (the reference's SessionStatus).
const (
	StatusRunning                = "running"
	StatusIdle                   = "idle"
	StatusAwaitingPermission     = "awaiting_permission"
	StatusAwaitingExternalResult = "awaiting_external_result"
)

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	status, code := "ok", http.StatusOK
	if s.isClosed() {
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
	if _, ok := s.agentFor(r.Context(), w, user, agentID); !ok {
		return
	}
	delete(fields, "agent_id")
	delete(fields, "name")
	cfg, _ := json.Marshal(fields)
	rec, err := s.store.CreateSession(r.Context(), session.NewSession{UserID: user, AgentID: agentID, Name: name, Config: cfg})
	if err != nil {
		s.storeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"session_id": rec.ID})
}

// session looks up the session of the path for user; it answers 404 and
// reports false when there is none.
func (s *Server) session(w http.ResponseWriter, r *http.Request, user string) (session.Record, session.Key, bool) {
	k := session.Key{UserID: user, SessionID: r.PathValue("sid")}
	rec, err := s.store.GetSession(r.Context(), k)
	if err != nil {
		s.storeError(w, err)
		return rec, k, false
	}
	return rec, k, true
}

type sessionEntry struct {
	Session   recordView `json:"session"`
	IsRunning bool       `json:"is_running"`
	Status    string     `json:"status"`
	Team      any        `json:"team"`
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request, user string) {
	// limit and offset page the list, newest first (not in the reference,
	// which lists every session): each entry costs a status lookup, so a
	// client with thousands of sessions reads one page at a time.
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
	recs, total, err := s.store.ListSessions(r.Context(), lq)
	if err != nil {
		s.storeError(w, err)
		return
	}
	out := make([]sessionEntry, 0, len(recs))
	for _, rec := range recs {
		st, err := s.statusOf(r.Context(), session.Key{UserID: user, SessionID: rec.ID}, rec)
		if err != nil {
			s.storeError(w, err)
			return
		}
		out = append(out, sessionEntry{viewOf(rec), st == StatusRunning, st, nil})
	}
	writeJSON(w, http.StatusOK, map[string]any{"sessions": out, "total": total})
}

// running reports whether a run holds the session, here or in another
// process sharing the store.
func (s *Server) running(ctx context.Context, k session.Key) (bool, error) {
	s.mu.Lock()
	r := s.runs[k]
	s.mu.Unlock()
	if r != nil && !r.closing.Load() {
		return true, nil
	}
	l, err := s.store.GetLease(ctx, k)
	if err != nil {
		return false, err
	}
	return l.Held(time.Now()), nil
}

// statusOf derives the status as the reference does: running while a run
// holds the session, else what the tail of the saved context waits for.
func (s *Server) statusOf(ctx context.Context, k session.Key, rec session.Record) (string, error) {
	return s.deriveStatus(ctx, k, "", rec.AgentID)
}

// statusWith is statusOf for a session of the agent named name.
func (s *Server) statusWith(ctx context.Context, k session.Key, name string) (string, error) {
	return s.deriveStatus(ctx, k, name, "")
}

// deriveStatus derives the status; the agent's name (which authors the reply a
// parked session waits on) is name, or looked up from agentID only when
// the saved context is needed.
func (s *Server) deriveStatus(ctx context.Context, k session.Key, name, agentID string) (string, error) {
	run, err := s.running(ctx, k)
	if err != nil || run {
		return StatusRunning, err
	}
	saved, err := s.store.LoadState(ctx, k)
	if err != nil || saved.JSON == nil {
		return StatusIdle, err
	}
	st, err := state.Decode(saved.JSON, nil)
	if err != nil {
		return "", err
	}
	if name == "" {
		name = agentID
		a, err := s.lookupAgent(ctx, k.UserID, agentID)
		switch {
		case err == nil:
			name = a.Name
		case !errors.Is(err, errNoAgent):
			return "", err
		}
	}
	status := StatusIdle
	for _, c := range st.AwaitingToolCalls(name) {
		if c.State == block.CallAsking {
			return StatusAwaitingPermission, nil
		}
		status = StatusAwaitingExternalResult
	}
	return status, nil
}

func (s *Server) status(w http.ResponseWriter, r *http.Request, user string) {
	rec, k, ok := s.session(w, r, user)
	if !ok {
		return
	}
	st, err := s.statusOf(r.Context(), k, rec)
	if err != nil {
		s.storeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"session_id": k.SessionID, "status": st})
}

func (s *Server) patchSession(w http.ResponseWriter, r *http.Request, user string) {
	rec, k, ok := s.session(w, r, user)
	if !ok {
		return
	}
	fields, ok := readJSON(w, r)
	if !ok {
		return
	}
	var p session.Patch
	if raw, present := fields["name"]; present {
		name, ok := stringField(w, fields, "name", false)
		if !ok {
			return
		}
		_ = raw
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
	if run, err := s.running(r.Context(), k); err != nil || run {
		if err != nil {
			s.storeError(w, err)
			return
		}
		writeDetail(w, http.StatusConflict, "Session is running")
		return
	}
	rec, err := s.store.UpdateSession(r.Context(), k, p)
	if err != nil {
		s.storeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, viewOf(rec))
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request, user string) {
	_, k, ok := s.session(w, r, user)
	if !ok {
		return
	}
	run, ok := s.cancellableRun(r.Context(), k)
	if !ok {
		return
	}
	if run != nil {
		if run.cancel != nil {
			run.cancel()
		}
		select {
		case <-run.done:
		case <-time.After(10 * time.Second):
			writeDetail(w, http.StatusConflict, "Session is still running")
			return
		}
	}
	if l, err := s.store.GetLease(r.Context(), k); err == nil && l.Held(time.Now()) {
		writeDetail(w, http.StatusConflict, "Session is running in another process")
		return
	}
	if err := s.store.DeleteSession(r.Context(), k); err != nil {
		s.storeError(w, err)
		return
	}
	s.hub.closeTopic(k)
	s.metrics.forget(k)
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
	_, k, ok := s.session(w, r, user)
	if !ok {
		return
	}
	if at >= 0 {
		s.messagesAt(w, r, k, at, q.Get("before"), limit)
		return
	}
	page, err := s.store.ListMessages(r.Context(), k, session.MessageQuery{Before: q.Get("before"), Limit: limit})
	if err != nil {
		if errors.Is(err, session.ErrNotFound) {
			writeDetail(w, http.StatusNotFound, "Message not found")
			return
		}
		s.storeError(w, err)
		return
	}
	run, err := s.running(r.Context(), k)
	if err != nil {
		s.storeError(w, err)
		return
	}
	msgs := make([]json.RawMessage, len(page.Messages))
	for i, m := range page.Messages {
		msgs[i] = m.JSON
	}
	writeJSON(w, http.StatusOK, map[string]any{"messages": msgs, "is_running": run, "has_more": page.HasMore})
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
	in, err := parseInput(raw, false)
	if err != nil {
		writeInvalid(w, []any{"body", "input"}, "value_error", err.Error())
		return
	}
	k := session.Key{UserID: user, SessionID: sid}
	rec, err := s.store.GetSession(r.Context(), k)
	if err != nil {
		s.storeError(w, err)
		return
	}
	if rec.AgentID != agentID {
		writeDetail(w, http.StatusNotFound, "Agent not found")
		return
	}
	spec, ok := s.agentFor(r.Context(), w, user, agentID)
	if !ok {
		return
	}
	if err := s.startRun(k, spec, in); err != nil {
		s.runError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "started", "session_id": sid})
}

// runError answers a run that did not start.
func (s *Server) runError(w http.ResponseWriter, err error) {
	var se *startError
	var ie *agent.InputError
	switch {
	case errors.As(err, &se):
		writeDetail(w, se.code, se.msg)
	case errors.As(err, &ie):
		writeDetail(w, http.StatusUnprocessableEntity, ie.Error())
	case errors.Is(err, context.Canceled) && s.isClosed():
		writeDetail(w, http.StatusServiceUnavailable, "server is shutting down")
	case errors.Is(err, context.Canceled):
		writeDetail(w, http.StatusConflict, "the run was interrupted before it started")
	default:
		s.storeError(w, err)
	}
}

func (s *Server) interrupt(w http.ResponseWriter, r *http.Request, user string) {
	rec, k, ok := s.session(w, r, user)
	if !ok {
		return
	}
	run, ok := s.cancellableRun(r.Context(), k)
	if !ok {
		return
	}
	if run != nil {
		if run.cancel != nil {
			run.cancel()
		}
	} else if st, err := s.statusOf(r.Context(), k, rec); err != nil {
		s.storeError(w, err)
		return
	} else if st == StatusAwaitingPermission || st == StatusAwaitingExternalResult {
		spec, ok := s.agentFor(r.Context(), w, user, rec.AgentID)
		if !ok {
			return
		}
		if err := s.startRun(k, spec, runInput{kind: inputInterrupt}); err != nil && !errors.Is(err, errRunning) {
			s.runError(w, err)
			return
		}
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"session_id": k.SessionID})
}

// cancellableRun returns the session's run if cancelling it can still
// interrupt something, else nil. A run that has stored everything (a parked
// reply's REQUIRE_USER_CONFIRM may already be out) and is only logging its
// last events would interrupt nothing: it is waited for, and then the
// stored state says what to interrupt. ok is false when ctx ended first.
func (s *Server) cancellableRun(ctx context.Context, k session.Key) (_ *run, ok bool) {
	s.mu.Lock()
	rn := s.runs[k]
	s.mu.Unlock()
	if rn != nil && rn.closing.Load() {
		select {
		case <-rn.done:
		case <-ctx.Done():
			return nil, false
		}
		return nil, true
	}
	return rn, true
}
