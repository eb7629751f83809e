// Package server is agentscope-go's HTTP API: the reference service's
// routes, bodies and codes (sessions, POST /chat/, one SSE stream per
// session, interrupt, messages, status) over a durable session.Store.
//
// The server is a transport of the run engine (package engine), which
// holds the sessions, runs, inputs, event log, leases, followers and the
// rescue: each handler decodes its request, calls the engine, and maps
// the engine's typed errors to the reference's codes and {"detail"}
// bodies. Events reach clients only through an engine.Feed: GET
// /sessions/{id}/stream writes it as SSE, each frame with the event's log
// sequence ("id: <seq>"), so a client reconnects with Last-Event-ID (or
// ?since=) and gets exactly what it missed; GET /sessions/{id}/ws writes
// the same feed over a WebSocket (below).
//
// # WebSocket
//
// GET /sessions/{id}/ws is the session's SSE stream and its POST routes
// on one socket. The handshake is an HTTP GET and is checked as one:
// the bearer token, X-User-ID (missing 422, empty 401), the cursor
// (Last-Event-ID, else ?since=; malformed 422), the session (another
// user's or none: 404) and the stream caps (Config.MaxStreamClients 429,
// Config.MaxStreams 503 with Retry-After) are refused before the upgrade,
// with the native codes and {"detail"} bodies; so is a GET that is no
// handshake (426) and one from a browser page of another origin (403).
// A browser lets any page open a socket anywhere, with the user's
// cookies and without CORS, which would otherwise let another site's
// page onto a socket that a proxy in front authenticates by cookie.
//
// There is no query-string fallback for the token or X-User-ID, though
// a browser's WebSocket cannot set headers: the native API documents
// none (the reference's own web client reads the SSE stream with fetch,
// not EventSource, to send X-User-ID), and a secret in a URL ends up in
// logs and histories. A browser reaches the socket through a proxy that
// sets the headers.
//
// Server to client, one text message per event or reply:
//
//	{"seq": 7, "event": {…the native event, as the SSE data line…}}
//	{"id": "c1", "status": 200, "body": {…}}
//
// The events are the feed's: the replay after the cursor (without one:
// the run in progress from its first event, or nothing), then the live
// ones, each once with its log sequence, so a socket reopened with
// ?since=<the last seq it got> misses nothing and gets nothing twice.
// When the feed ends (the client fell behind and was cut, the session
// was deleted, the server shuts down) the socket is closed with 1001
// (going away): reconnect from the last seq.
//
// Client to server:
//
//	{"id": "c1", "type": "chat", "agent_id": "…", "input": …}
//	{"id": "c2", "type": "interrupt"}
//
// A chat frame is POST /chat/'s body in the socket's session (a
// "session_id" may be left out; another session's is 422): a user Msg, a
// list of them, a USER_CONFIRM_RESULT or an EXTERNAL_EXECUTION_RESULT. An
// interrupt is POST /sessions/{id}/interrupt. Each frame is answered by
// the route's own handler, so the reply's status and body are the route's
// (200 {"status":"started","session_id"}, 409 {"detail":"Session is
// running"}, 422, 404, 202 {"session_id"} …), with the frame's "id"
// (any string, left out when the frame has none). Frames are answered
// one at a time, in order; a reply and the events of the run it started
// may come in either order. A frame that is no request (not a JSON
// object in a text message, invalid UTF-8, an "id" that is not a
// string, a "type" other than those two) is answered 400 {"detail"}, one
// larger than Config.MaxBodyBytes 413; neither changes anything, and the
// socket goes on.
//
// The server pings every Config.Heartbeat; a client that does not answer
// within the write timeout (twice that, at least 10 s), or does not take
// a batch of events within it, is dropped. The reader, the pinger and
// the follower are the socket's three goroutines: whichever ends first
// (the client left or closed, a pong was missed, the feed ended or a
// write failed) ends the other two, and the handler returns once they
// have, the feed closed. The listener's ReadTimeout does not cut a
// socket: net/http clears the connection's deadlines when it is
// hijacked.
//
// The socket is github.com/coder/websocket, the maintained successor of
// nhooyr.io/websocket: every read, write and ping takes a context, so the
// write deadline and the pong timeout are contexts and a cancelled
// socket unblocks everything on it; Write and Ping are safe beside a
// reader, so no writer goroutine is needed; it upgrades through
// net/http's Hijacker, so the route sits in the same mux behind the same
// checks; compression is off unless asked for; and it has no
// dependencies outside the standard library. gorilla/websocket has
// deadlines rather than contexts and one writer at a time (the replies
// and the events would need a writer goroutine of their own);
// golang.org/x/net/websocket can send neither a ping nor a close frame,
// and its documentation points to this package.
//
// # The listener's edges
//
// A Server bounds what it holds: a body (Config.MaxBodyBytes), the SSE
// clients of a session (Config.MaxStreamClients, 429 beyond) and of the
// whole process (Config.MaxStreams, 503 with Retry-After beyond, so that
// many sessions cannot add up to unbounded connections and buffers). What
// only the listener knows is the listener's: HostCheck refuses a Host that
// is not a loopback name or an allowed one (the defence against DNS
// rebinding where no token is needed), and http.Server.ReadTimeout bounds
// the reading of a request, a body that does not arrive in time being
// 408. ReadTimeout does not cut a long answer: net/http lifts the read
// deadline once the request's body is read, which the tests hold it to
// for an SSE stream and for a reply that outlives it. agentscope serve
// does all of this, with an IdleTimeout for keep-alive connections.
//
// # Metrics
//
// GET /metrics serves the engine's Prometheus metrics (see package
// engine). With Config.Token set, /metrics needs the bearer token like
// the API (model and tool names and the traffic are the operator's
// business) but no X-User-ID: a scraper is not a user.
//
// # Deviations from the reference
//
//   - GET /health needs no token and no X-User-ID, so a load balancer can
//     probe it; it tells nothing about any session. GET /metrics (not in
//     the reference) needs the token when one is set, not X-User-ID.
//   - Agents: GET /agent/ lists the configured agents (Config.Agents,
//     source "server", read-only: PATCH and DELETE are 403) and the
//     user's own. POST /agent/ {"name", "system_prompt", "react_config":
//     {"max_iters"}, "base_agent_id"} creates one of the user's, stored in
//     the session store (so it outlives the process), on top of a
//     configured agent that has Agent.Derive: the model, tools, MCP
//     servers and permission mode stay the operator's, since a user
//     choosing them could run commands or spend keys on the server's
//     host. PATCH changes its name, prompt or max_iters (its base is
//     fixed; a rename is 409 while one of its sessions runs or waits on a
//     reply, which is found by its author's name); DELETE deletes it with
//     its sessions (409 while one runs). Another user's agent is 404.
//   - POST /chat/ refuses, with a 4xx and nothing stored, what the
//     reference accepts and then fails (service.md §1.10): an unknown or
//     foreign session or agent (404), null or an empty list, a message
//     that is not the user's, another event type (422), a resume that does
//     not fit the parked reply — nothing parked, an unknown tool-call id,
//     another reply's id, an empty result list (422) — and a run already
//     active (409). A resume re-emits REPLY_START with the parked reply's
//     id only once the agent accepted it.
//   - SSE frames carry "id:" lines and honour Last-Event-ID and ?since=
//     across runs and restarts: the log is kept for the session's life.
//   - GET /sessions/{id}/messages?at=SEQ (not in the reference) is the
//     transcript as a client of the stream saw it after event SEQ: each
//     reply the fold of its logged events up to SEQ (a reply mid-stream is
//     its partial message), a user message from the first event of the
//     reply it started. The web UI's time travel and any other client get
//     the same history from it.
//   - GET /sessions/ takes limit and offset (not in the reference, which
//     lists every session): each entry costs a status lookup.
package server
