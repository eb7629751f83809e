package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/internal/bearer"
	"github.com/agentscope-go/agentscope/session"
)

// routes registers every route under both spellings, /x and /x/.
func (s *Server) routes() {
	s.mux = http.NewServeMux()
	both := func(method, path string, h func(http.ResponseWriter, *http.Request, string)) {
		wrapped := s.authed(h)
		s.mux.HandleFunc(method+" "+path, wrapped)
		s.mux.HandleFunc(method+" "+path+"/{$}", wrapped)
	}
	s.mux.HandleFunc("GET /health", s.health)
	s.mux.HandleFunc("GET /health/{$}", s.health)
	s.mux.HandleFunc("GET /ready", s.ready)
	s.mux.HandleFunc("GET /ready/{$}", s.ready)
	s.mux.HandleFunc("GET /metrics", s.metricsHandler)
	both("GET", "/agent", s.listAgents)
	both("POST", "/agent", s.createAgent)
	both("PATCH", "/agent/{aid}", s.patchAgent)
	both("GET", "/agent/{aid}/tools", s.agentTools)
	both("DELETE", "/agent/{aid}", s.deleteAgent)
	both("POST", "/sessions", s.createSession)
	both("GET", "/sessions", s.listSessions)
	both("PATCH", "/sessions/{sid}", s.patchSession)
	both("DELETE", "/sessions/{sid}", s.deleteSession)
	both("POST", "/chat", s.chat)
	both("GET", "/sessions/{sid}/stream", s.stream)
	both("GET", "/sessions/{sid}/ws", s.ws)
	both("POST", "/sessions/{sid}/interrupt", s.interrupt)
	both("GET", "/sessions/{sid}/messages", s.messages)
	both("GET", "/sessions/{sid}/status", s.status)
	both("POST", "/agui/{aid}", s.aguiRun)
	s.mux.HandleFunc("/", s.notFound)
}

// notFound answers what no route matched: 405 (with Allow) when the path
// exists under another method, else 404, both as {"detail"}.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{"GET", "POST", "PATCH", "DELETE"} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeDetail(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	writeDetail(w, http.StatusNotFound, "Not Found")
}

// authed checks the bearer token and the user header, then calls h with
// the user id.
func (s *Server) authed(h func(http.ResponseWriter, *http.Request, string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.tokenOK(w, r) {
			return
		}
		vals, present := r.Header["X-User-Id"]
		if !present {
			writeInvalid(w, []any{"header", "x-user-id"}, "missing", "Field required")
			return
		}
		user := strings.TrimSpace(vals[0])
		if user == "" {
			writeDetail(w, http.StatusUnauthorized, "X-User-ID header is required.")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
		h(w, r, user)
	}
}

// tokenOK checks the bearer token, if the server has one; a request
// without it is answered 401.
func (s *Server) tokenOK(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.Token == "" {
		return true
	}
	if !bearer.Match(r.Header.Get("Authorization"), s.cfg.Token) {
		w.Header().Set("WWW-Authenticate", "Bearer")
		writeDetail(w, http.StatusUnauthorized, "Not authenticated")
		return false
	}
	return true
}

// writeJSON writes v as compact JSON without HTML escaping.
func writeJSON(w http.ResponseWriter, code int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, `{"detail":"internal error"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(bytes.TrimRight(buf.Bytes(), "\n"))
}

// writeDetail writes the reference's error shape {"detail": msg}.
func writeDetail(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"detail": msg})
}

// validationItem is one entry of a 422 detail list, in FastAPI's shape.
type validationItem struct {
	Type string `json:"type"`
	Loc  []any  `json:"loc"`
	Msg  string `json:"msg"`
}

// writeInvalid writes a 422 with FastAPI's detail list.
func writeInvalid(w http.ResponseWriter, loc []any, typ, msg string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string][]validationItem{"detail": {{Type: typ, Loc: loc, Msg: msg}}})
}

// readJSON reads the body of a JSON request into raw fields. A wrong
// content type, malformed JSON or a non-object is a 422; an oversize body
// a 413, one cut by the listener's read deadline a 408. It reports
// whether the handler may go on.
func readJSON(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, bool) {
	body, ok := readBody(w, r)
	if !ok {
		return nil, false
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		writeInvalid(w, []any{"body"}, "json_invalid", "the body must be a JSON object")
		return nil, false
	}
	return fields, true
}

// readBody reads the body of a JSON request, as readJSON does, up to the
// parse: a wrong content type and invalid UTF-8 are a 422, an oversize
// body a 413, one cut by the listener's read deadline a 408.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		writeInvalid(w, []any{"header", "content-type"}, "content_type", "Content-Type must be application/json")
		return nil, false
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeDetail(w, http.StatusRequestEntityTooLarge, "Request body too large")
			return nil, false
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// The listener's read deadline (http.Server.ReadTimeout) ran
			// out: a client trickling its body.
			writeDetail(w, http.StatusRequestTimeout, "the request body did not arrive in time")
			return nil, false
		}
		writeDetail(w, http.StatusBadRequest, "could not read the request body")
		return nil, false
	}
	if !utf8.Valid(body) {
		// encoding/json would replace the bytes silently and store what
		// the client did not send.
		writeInvalid(w, []any{"body"}, "json_invalid", "the body is not valid UTF-8")
		return nil, false
	}
	return body, true
}

// stringField reads an optional string field; present reports whether it
// was there and not null. A wrong type is a 422.
func stringField(w http.ResponseWriter, fields map[string]json.RawMessage, name string, required bool) (v string, ok bool) {
	raw, present := fields[name]
	if !present || isNull(raw) {
		if required {
			writeInvalid(w, []any{"body", name}, "missing", "Field required")
			return "", false
		}
		return "", true
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		writeInvalid(w, []any{"body", name}, "string_type", "Input should be a valid string")
		return "", false
	}
	return v, true
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// fail answers an error of the engine with its code: the engine's kinds
// (engine.ErrNotFound 404, ErrBusy 409, ErrForbidden 403, ErrTooMany 429,
// ErrUnavailable 503, ErrInterrupted and ErrExists 409), an *engine.InputError 422
// (with FastAPI's detail list when it names a field), the store's
// invalid input 422, and anything else 500.
func (s *Server) fail(w http.ResponseWriter, err error) {
	var ee *engine.Error
	var ie *engine.InputError
	switch {
	case errors.As(err, &ie):
		if ie.Field != "" {
			loc := append([]any{"body"}, anySlice(strings.Split(ie.Field, "."))...)
			writeInvalid(w, loc, "value_error", ie.Reason)
			return
		}
		writeDetail(w, http.StatusUnprocessableEntity, ie.Reason)
	case errors.As(err, &ee):
		code := http.StatusInternalServerError
		switch ee.Kind {
		case engine.ErrNotFound:
			code = http.StatusNotFound
		case engine.ErrBusy, engine.ErrInterrupted, engine.ErrExists:
			code = http.StatusConflict
		case engine.ErrForbidden:
			code = http.StatusForbidden
		case engine.ErrTooMany:
			code = http.StatusTooManyRequests
		case engine.ErrUnavailable:
			code = http.StatusServiceUnavailable
			if ee.RetryAfter > 0 {
				w.Header().Set("Retry-After", strconv.Itoa(ee.RetryAfter))
			}
		}
		writeDetail(w, code, ee.Detail)
	case errors.Is(err, session.ErrInvalid):
		writeDetail(w, http.StatusUnprocessableEntity, err.Error())
	case errors.Is(err, context.Canceled):
		writeDetail(w, http.StatusServiceUnavailable, "request cancelled")
	default:
		s.log.Error("server: engine", "err", err)
		writeDetail(w, http.StatusInternalServerError, "internal error")
	}
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, v := range ss {
		out[i] = v
	}
	return out
}
