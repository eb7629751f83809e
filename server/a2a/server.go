package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/bearer"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/session"
)

// Config is what a Handler is built from. Engine is required; every
// other zero value is a documented default.
type Config struct {
	// Engine runs the sessions the tasks are replies of (the native API's
	// engine, server.Server.Engine, when both are served).
	Engine *engine.Engine
	// Token, when set, is the bearer token every request must carry, the
	// agent cards included; "" requires none. Give the native API's.
	Token string
	// MaxBodyBytes bounds a request body (0: 1 MiB, the native API's
	// default); larger is HTTP 413.
	MaxBodyBytes int64
	// Heartbeat is the silence after which an SSE stream gets a ":"
	// comment (0: 15s).
	Heartbeat time.Duration
	// BaseURL is the public URL the agent cards give for the JSON-RPC
	// endpoints, e.g. https://agents.example.com behind a proxy (""
	// derives it from each request: its Host, and https for a TLS
	// connection).
	BaseURL string
	// Version is the agent cards' version ("": "dev").
	Version string
	// Logger receives the handler's errors (nil: slog.Default()).
	Logger *slog.Logger
}

// Handler serves the A2A v1.0 JSON-RPC binding and the agent cards over
// an engine (see the package documentation for the routes).
type Handler struct {
	cfg Config
	eng *engine.Engine
	log *slog.Logger
	mux *http.ServeMux
}

// New returns the handler of cfg.
func New(cfg Config) (*Handler, error) {
	if cfg.Engine == nil {
		return nil, errors.New("a2a: Config.Engine is required")
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = 15 * time.Second
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	h := &Handler{cfg: cfg, eng: cfg.Engine, log: cfg.Logger, mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /.well-known/agent-card.json", h.rootCard)
	h.mux.HandleFunc("GET /a2a/{agent}/.well-known/agent-card.json", h.agentCard)
	h.mux.HandleFunc("POST /a2a/{agent}", h.rpc)
	h.mux.HandleFunc("POST /a2a/{agent}/{$}", h.rpc)
	return h, nil
}

// ServeHTTP serves the routes.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// writeJSON writes v without HTML escaping.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(marshal(v))
}

func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(`{"error":"internal error"}`)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// tokenOK checks the bearer token as the native API does.
func (h *Handler) tokenOK(r *http.Request) bool {
	return h.cfg.Token == "" || bearer.Match(r.Header.Get("Authorization"), h.cfg.Token)
}

// ---- agent cards ----

func (h *Handler) rootCard(w http.ResponseWriter, r *http.Request) {
	agents := h.eng.ConfiguredAgents()
	if len(agents) == 0 {
		http.NotFound(w, r)
		return
	}
	h.serveCard(w, r, agents[0].ID)
}

func (h *Handler) agentCard(w http.ResponseWriter, r *http.Request) {
	h.serveCard(w, r, r.PathValue("agent"))
}

// serveCard answers the card of agent id: a configured agent, or with an
// X-User-ID header one of that user's own.
func (h *Handler) serveCard(w http.ResponseWriter, r *http.Request, id string) {
	if !h.tokenOK(r) {
		w.Header().Set("WWW-Authenticate", "Bearer")
		writeJSON(w, http.StatusUnauthorized, map[string]string{"detail": "Not authenticated"})
		return
	}
	a, ok := h.findAgent(r.Context(), strings.TrimSpace(r.Header.Get("X-User-ID")), id)
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Agent not found"})
		return
	}
	// Private: the card's URLs come from the request's Host.
	w.Header().Set("Cache-Control", "private, max-age=60")
	writeJSON(w, http.StatusOK, h.card(r, a))
}

// findAgent is agent id for user ("" : the configured agents only).
func (h *Handler) findAgent(ctx context.Context, user, id string) (engine.AgentEntry, bool) {
	for _, a := range h.eng.ConfiguredAgents() {
		if a.ID == id {
			return a, true
		}
	}
	if user == "" {
		return engine.AgentEntry{}, false
	}
	agents, err := h.eng.Agents(ctx, user)
	if err != nil {
		return engine.AgentEntry{}, false
	}
	for _, a := range agents {
		if a.ID == id {
			return a, true
		}
	}
	return engine.AgentEntry{}, false
}

// baseURL is the public URL the request reached us by.
func (h *Handler) baseURL(r *http.Request) string {
	if h.cfg.BaseURL != "" {
		return h.cfg.BaseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// card is agent a's card: one JSON-RPC interface, streaming, and the
// headers every request needs declared as security schemes.
func (h *Handler) card(r *http.Request, a engine.AgentEntry) AgentCard {
	yes, no := true, false
	desc := a.Description
	if desc == "" {
		desc = "The agentscope agent " + a.ID + "."
	}
	schemes := map[string]SecurityScheme{"user": {APIKeySecurityScheme: &APIKeySecurityScheme{Location: "header", Name: "X-User-ID",
		Description: "The user the conversations belong to: a user sees only their own contexts and tasks."}}}
	req := SecurityRequirement{Schemes: map[string]StringList{"user": {List: []string{}}}}
	if h.cfg.Token != "" {
		schemes["bearer"] = SecurityScheme{HTTPAuthSecurityScheme: &HTTPAuthSecurityScheme{Scheme: "Bearer", Description: "The server's token."}}
		req.Schemes["bearer"] = StringList{List: []string{}}
	}
	return AgentCard{
		Name:        a.Name,
		Description: desc,
		SupportedInterfaces: []AgentInterface{{URL: h.baseURL(r) + "/a2a/" + url.PathEscape(a.ID),
			ProtocolBinding: BindingJSONRPC, ProtocolVersion: ProtocolVersion}},
		Version:              h.cfg.Version,
		Capabilities:         AgentCapabilities{Streaming: &yes, PushNotifications: &no, ExtendedAgentCard: &no},
		SecuritySchemes:      schemes,
		SecurityRequirements: []SecurityRequirement{req},
		DefaultInputModes:    []string{"text/plain", "application/json"},
		DefaultOutputModes:   []string{"text/plain"},
		Skills:               []AgentSkill{{ID: a.ID, Name: a.Name, Description: desc, Tags: []string{"agentscope", "chat"}}},
	}
}

// ---- JSON-RPC ----

// rpcError is a JSON-RPC error answered with an HTTP status other than
// 200 (authentication, the body limit, the server's own state).
type rpcError struct {
	e      *Error
	status int
}

func (e *rpcError) Error() string { return e.e.Error() }

// fail answers the request id with err: an *Error as it is, an engine
// error mapped to A2A's codes (see the package documentation), anything
// else an internal error.
func (h *Handler) fail(w http.ResponseWriter, id json.RawMessage, err error) {
	status := http.StatusOK
	var (
		re  *rpcError
		ae  *Error
		ie  *engine.InputError
		ee  *engine.Error
		out *Error
	)
	switch {
	case errors.As(err, &re):
		out, status = re.e, re.status
	case errors.As(err, &ae):
		out = ae
	case errors.As(err, &ie):
		out = invalid("%s", ie.Reason)
	case errors.As(err, &ee):
		switch ee.Kind {
		case engine.ErrNotFound:
			out = &Error{Code: CodeTaskNotFound, Message: ee.Detail}
		case engine.ErrBusy, engine.ErrInterrupted, engine.ErrForbidden:
			out = &Error{Code: CodeUnsupportedOperation, Message: ee.Detail}
		case engine.ErrTooMany:
			out, status = &Error{Code: CodeInternalError, Message: ee.Detail}, http.StatusTooManyRequests
		case engine.ErrUnavailable:
			out, status = &Error{Code: CodeInternalError, Message: ee.Detail}, http.StatusServiceUnavailable
			if ee.RetryAfter > 0 {
				w.Header().Set("Retry-After", strconv.Itoa(ee.RetryAfter))
			}
		}
	case errors.Is(err, context.Canceled):
		out, status = &Error{Code: CodeInternalError, Message: "request cancelled"}, http.StatusServiceUnavailable
	}
	if out == nil {
		h.log.Error("a2a: engine", "err", err)
		out, status = &Error{Code: CodeInternalError, Message: "internal error"}, http.StatusInternalServerError
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	writeJSON(w, status, Response{JSONRPC: "2.0", ID: id, Error: out})
}

func (h *Handler) result(w http.ResponseWriter, id json.RawMessage, v any) {
	writeJSON(w, http.StatusOK, Response{JSONRPC: "2.0", ID: id, Result: marshal(v)})
}

func unauthenticated(msg string) *rpcError {
	return &rpcError{e: &Error{Code: CodeUnauthenticated, Message: msg}, status: http.StatusUnauthorized}
}

// call is one JSON-RPC request of a user to an agent.
type call struct {
	w       http.ResponseWriter
	r       *http.Request
	user    string
	agentID string
	id      json.RawMessage
	params  json.RawMessage
}

// rpc is POST /a2a/{agent}: one JSON-RPC request. The checks run in the
// native API's order — token, user, body — then the protocol's: a
// JSON-RPC 2.0 request object, the A2A version, the agent, the method.
func (h *Handler) rpc(w http.ResponseWriter, r *http.Request) {
	if !h.tokenOK(r) {
		w.Header().Set("WWW-Authenticate", "Bearer")
		h.fail(w, nil, unauthenticated("Not authenticated"))
		return
	}
	user := strings.TrimSpace(r.Header.Get("X-User-ID"))
	if user == "" {
		h.fail(w, nil, unauthenticated("X-User-ID header is required."))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, h.cfg.MaxBodyBytes)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			h.fail(w, nil, &rpcError{e: &Error{Code: CodeInvalidRequest, Message: "Request body too large"}, status: http.StatusRequestEntityTooLarge})
		case errors.Is(err, os.ErrDeadlineExceeded):
			h.fail(w, nil, &rpcError{e: &Error{Code: CodeInvalidRequest, Message: "the request body did not arrive in time"}, status: http.StatusRequestTimeout})
		default:
			h.fail(w, nil, &rpcError{e: &Error{Code: CodeInvalidRequest, Message: "could not read the request body"}, status: http.StatusBadRequest})
		}
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			h.fail(w, nil, &Error{Code: CodeContentTypeNotSupported, Message: fmt.Sprintf("Content-Type %q is not supported: send application/json", ct)})
			return
		}
	}
	req, e := parseRequest(body)
	if e != nil {
		h.fail(w, req.ID, e)
		return
	}
	v := r.Header.Get("A2A-Version")
	if v == "" {
		v = r.URL.Query().Get("A2A-Version")
	}
	if v == "" {
		v = "0.3" // what the protocol says an absent version means
	}
	if majorMinor(strings.TrimSpace(v)) != ProtocolVersion {
		h.fail(w, req.ID, &Error{Code: CodeVersionNotSupported, Message: fmt.Sprintf("A2A version %q is not supported: this server speaks %s (send A2A-Version: %s)", cut(v, 40), ProtocolVersion, ProtocolVersion)})
		return
	}
	agentID := r.PathValue("agent")
	if _, ok := h.findAgent(r.Context(), user, agentID); !ok {
		h.fail(w, req.ID, &rpcError{e: &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("no agent %q here", cut(agentID, 80))}, status: http.StatusNotFound})
		return
	}
	c := &call{w: w, r: r, user: user, agentID: agentID, id: req.ID, params: req.Params}
	switch req.Method {
	case "SendMessage":
		h.sendMessage(c, false)
	case "SendStreamingMessage":
		h.sendMessage(c, true)
	case "GetTask":
		h.getTask(c)
	case "CancelTask":
		h.cancelTask(c)
	case "SubscribeToTask":
		h.subscribe(c)
	case "ListTasks", "GetExtendedAgentCard":
		h.fail(w, req.ID, &Error{Code: CodeUnsupportedOperation, Message: req.Method + " is not supported by this agent"})
	case "CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig", "ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig":
		h.fail(w, req.ID, &Error{Code: CodePushNotificationNotSupported, Message: "push notifications are not supported by this agent"})
	default:
		h.fail(w, req.ID, &Error{Code: CodeMethodNotFound, Message: fmt.Sprintf("Method not found: %q", cut(req.Method, 80))})
	}
}

// parseRequest reads a JSON-RPC 2.0 request object. The id it returns is
// the request's when it has a usable one, for the error's answer.
func parseRequest(body []byte) (Request, *Error) {
	if !utf8.Valid(body) {
		return Request{}, &Error{Code: CodeParseError, Message: "Invalid JSON payload: the body is not valid UTF-8"}
	}
	var raw json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return Request{}, &Error{Code: CodeParseError, Message: "Invalid JSON payload: " + err.Error()}
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		msg := "the request must be a JSON-RPC 2.0 request object"
		if len(t) > 0 && t[0] == '[' {
			msg = "batch requests are not supported: send one request object"
		}
		return Request{}, &Error{Code: CodeInvalidRequest, Message: msg}
	}
	var fields map[string]json.RawMessage
	json.Unmarshal(raw, &fields)
	var req Request
	if id, ok := fields["id"]; ok {
		switch t := bytes.TrimSpace(id); {
		case len(t) > 0 && (t[0] == '"' || t[0] == '-' || (t[0] >= '0' && t[0] <= '9')):
			req.ID = t
		case string(t) == "null":
			req.ID = t
		default:
			return req, &Error{Code: CodeInvalidRequest, Message: "id must be a string, a number or null"}
		}
	}
	if err := json.Unmarshal(fields["jsonrpc"], &req.JSONRPC); err != nil || req.JSONRPC != "2.0" {
		return req, &Error{Code: CodeInvalidRequest, Message: `jsonrpc must be "2.0"`}
	}
	if err := json.Unmarshal(fields["method"], &req.Method); err != nil || req.Method == "" {
		return req, &Error{Code: CodeInvalidRequest, Message: "method must be a non-empty string"}
	}
	if req.ID == nil {
		return req, &Error{Code: CodeInvalidRequest, Message: "id is required: notifications are not answered, and every A2A method answers"}
	}
	req.Params = fields["params"]
	return req, nil
}

// decodeParams reads the call's params into v: an object is required.
func decodeParams(c *call, v any) *Error {
	t := bytes.TrimSpace(c.params)
	if len(t) == 0 || t[0] != '{' {
		return invalid("params must be an object")
	}
	if err := json.Unmarshal(t, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return invalid("params.%s: want a JSON %s, got %s", te.Field, te.Type, te.Value)
		}
		return invalid("params: %v", err)
	}
	return nil
}

// taskNotFound is the error for a task id the user has no task of.
func taskNotFound(id string) *Error {
	return &Error{Code: CodeTaskNotFound, Message: fmt.Sprintf("Task not found: %q", cut(id, 100))}
}

// historyLength is n as the tracker's history bound (-1: all).
func historyLength(n *Int32) int {
	if n == nil || *n < 0 {
		return -1
	}
	return int(*n)
}

// ---- tasks ----

// replayPage is how many events a task's replay reads at a time.
const replayPage = 256

// loadTask finds the user's task id on the agent, from its reply's
// events in the log: TaskNotFound for anything else (another user's, an
// id that is not a task, a task of another agent).
func (h *Handler) loadTask(ctx context.Context, user, agentID, id string) (*tracker, error) {
	sid, seq, ok := parseTaskID(id)
	if !ok {
		return nil, taskNotFound(id)
	}
	k := session.Key{UserID: user, SessionID: sid}
	rec, err := h.eng.Session(ctx, k)
	if errors.Is(err, engine.ErrNotFound) || (err == nil && rec.AgentID != agentID) {
		return nil, taskNotFound(id)
	}
	if err != nil {
		return nil, err
	}
	store := h.eng.Store()
	first, err := store.ReadEvents(ctx, k, seq-1, 1)
	if err != nil {
		return nil, err
	}
	var rs *event.ReplyStart
	if len(first) == 1 && first[0].Seq == seq {
		if ev, err := event.Decode(first[0].JSON); err == nil {
			rs, _ = ev.(*event.ReplyStart)
		}
	}
	if rs == nil {
		return nil, taskNotFound(id)
	}
	t := newTracker(k, seq, rs)
	// A reply's events end at its REPLY_END; a park is read past, since a
	// resume may follow it.
	for t.end == nil && !t.lost {
		evs, err := store.ReadEvents(ctx, k, t.last, replayPage)
		if err != nil {
			return nil, err
		}
		for _, ev := range evs {
			t.apply(engine.Entry{Seq: ev.Seq, JSON: ev.JSON}, false)
			if t.end != nil || t.lost {
				break
			}
		}
		if len(evs) < replayPage {
			break
		}
	}
	return t, nil
}

// history is the messages that started t's reply: the user's messages
// before it in the transcript (before it ends, the transcript's last).
func (h *Handler) history(ctx context.Context, t *tracker) []Message {
	store := h.eng.Store()
	page, err := store.ListMessages(ctx, t.key, session.MessageQuery{Before: t.replyID, Limit: 16})
	if errors.Is(err, session.ErrNotFound) {
		page, err = store.ListMessages(ctx, t.key, session.MessageQuery{Limit: 16})
	}
	if err != nil {
		return nil
	}
	start := len(page.Messages)
	var msgs []Message
	for i := len(page.Messages) - 1; i >= 0; i-- {
		var m message.Msg
		if json.Unmarshal(page.Messages[i].JSON, &m) != nil || m.Role != event.RoleUser {
			break
		}
		start = i
	}
	for _, sm := range page.Messages[start:] {
		var m message.Msg
		if json.Unmarshal(sm.JSON, &m) == nil {
			msgs = append(msgs, historyMessage(&m, t.id, t.key.SessionID))
		}
	}
	return msgs
}

// watch hands fn the session's events from feed on — its replay, then
// live — until fn says stop, ctx ends or the feed cannot go on. A feed
// cut for falling behind is opened again after its last event, so
// nothing is lost; beat, when set, runs after each Heartbeat of silence.
// watch closes the feed.
//
// A task that parks (parked, when set, says so) stops once its park is
// complete: the run that parked is over and every event it logged given,
// since a concurrent batch parks once per call, the last ask logged with
// the run's end. run is the engine's run this request started, whose end
// says so at once; without one (a task followed from elsewhere) the feed
// asks the store once per batch after the park.
func (h *Handler) watch(ctx context.Context, k session.Key, feed *engine.Feed, run *engine.Run, parked func() bool, fn func(engine.Entry) (stop bool, err error), beat func() error) error {
	defer func() {
		if feed != nil {
			feed.Close()
		}
	}()
	each := func(entries []engine.Entry) (bool, error) {
		for _, e := range entries {
			if stop, err := fn(e); stop || err != nil {
				return true, err
			}
		}
		return false, nil
	}
	runDone := false
	// settled reports whether a park is complete.
	settled := func() (bool, error) {
		switch {
		case parked == nil || !parked():
			return false, nil
		case run != nil:
			return runDone && feed.Last() >= run.LastSeq(), nil
		}
		return feed.Settled(ctx)
	}
	hb := time.NewTimer(h.cfg.Heartbeat)
	defer hb.Stop()
	for {
		for page, err := range feed.Replay(ctx) {
			if err != nil {
				return err
			}
			if stop, err := each(page); stop {
				return err
			}
		}
		if ok, err := settled(); ok || err != nil {
			return err
		}
		live := feed.Live()
	follow:
		for {
			var done <-chan struct{}
			if run != nil && !runDone {
				done = run.Done()
			}
			select {
			case batch, ok := <-live:
				if !ok {
					break follow
				}
				if stop, err := each(feed.Take(batch)); stop {
					return err
				}
				hb.Reset(h.cfg.Heartbeat)
			case <-done:
				runDone = true
			case <-hb.C:
				if beat != nil {
					if err := beat(); err != nil {
						return err
					}
				}
				hb.Reset(h.cfg.Heartbeat)
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
			if ok, err := settled(); ok || err != nil {
				return err
			}
		}
		last := feed.Last()
		feed.Close()
		var err error
		if feed, err = h.eng.Follow(ctx, k, engine.After(last)); err != nil {
			feed = nil
			return err
		}
	}
}

// sse is a JSON-RPC stream: each event a "data:" frame holding a response
// to the request.
type sse struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	id      json.RawMessage
	timeout time.Duration
}

func (h *Handler) openSSE(c *call) *sse {
	hd := c.w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	c.w.WriteHeader(http.StatusOK)
	s := &sse{w: c.w, rc: http.NewResponseController(c.w), id: c.id, timeout: max(2*h.cfg.Heartbeat, 10*time.Second)}
	// The headers at once: the client's call returns, and its stream
	// reads, before the first event.
	s.write(nil)
	return s
}

func (s *sse) write(b []byte) error {
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.rc.Flush()
}

func (s *sse) send(v ...StreamResponse) error {
	var b []byte
	for _, r := range v {
		b = append(b, "data: "...)
		b = appendResult(b, s.id, marshal(r))
		b = append(b, "\n\n"...)
	}
	if len(b) == 0 {
		return nil
	}
	return s.write(b)
}

// appendResult appends the JSON-RPC response {"jsonrpc":"2.0","id":id,
// "result":result} as marshal(Response{…}) writes it, without marshalling
// the result a second time: result is marshal's (compact) output, and an
// id is compacted as encoding/json would (an absent one is null).
func appendResult(b []byte, id json.RawMessage, result []byte) []byte {
	idJS := []byte("null")
	if len(id) > 0 {
		var c bytes.Buffer
		if json.Compact(&c, id) != nil {
			return append(b, marshal(Response{JSONRPC: "2.0", ID: id, Result: result})...)
		}
		idJS = c.Bytes()
	}
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, idJS...)
	if len(result) > 0 {
		b = append(b, `,"result":`...)
		b = append(b, result...)
	}
	return append(b, '}')
}

func (s *sse) fail(e *Error) error {
	return s.write(append(append([]byte("data: "), marshal(Response{JSONRPC: "2.0", ID: s.id, Error: e})...), "\n\n"...))
}

func (s *sse) beat() error { return s.write([]byte(":\n\n")) }
