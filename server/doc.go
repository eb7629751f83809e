// Package server is agentscope-go's HTTP API: the reference service's
// routes, bodies and codes (sessions, POST /chat/, one SSE stream per
// session, interrupt, messages, status) over a durable session.Store.
//
// The server is a transport of the run engine (package engine), which
// holds the sessions, runs, inputs, event log, leases, followers and the
// rescue: each handler decodes its request, calls the engine, and maps
// the engine's typed errors to the reference's codes and {"detail"}
// bodies. Events reach clients only through GET /sessions/{id}/stream,
// an engine.Feed written as SSE: each frame carries the event's log
// sequence ("id: <seq>"), so a client reconnects with Last-Event-ID (or
// ?since=) and gets exactly what it missed.
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
