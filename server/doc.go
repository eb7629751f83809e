// Package server is agentscope-go's HTTP API: the reference service's
// routes, bodies and codes (sessions, POST /chat/, one SSE stream per
// session, interrupt, messages, status) over a durable session.Store.
//
// A run answers one input of one session. It holds the session's lease
// (at most one run per session, across every process on the store), takes
// its input from the store's input queue (persisted before the run
// starts), appends every event to the session's log before publishing it,
// and saves the reply and the AgentState before it releases the lease.
// The agent is rebuilt from the stored state for each run, so a parked
// reply is only rows in the store: no goroutine, no lock, no memory.
//
// Events reach clients only through GET /sessions/{id}/stream. Each frame
// carries the event's log sequence ("id: <seq>"), so a client reconnects
// with Last-Event-ID (or ?since=) and gets exactly what it missed, from
// the log, then the live feed; the handler subscribes before it reads the
// log and skips sequences it has sent. A client that falls behind its
// bounded buffer is cut rather than buffered without bound.
//
// A run costs few transactions (session.Runs): one starts it (the lease,
// its input queued and claimed, the state read), one writes its first
// events with the input messages, and one ends it (state, reply, input
// done, lease freed, last events). In between, a per-run writer group
// commits: it takes all the events available, appends them in one
// AppendEvents call, then publishes them. The run's last event (REPLY_END
// or a park) is logged and published only in the transaction that stores
// the reply and frees the lease, so a client that sees it finds the reply
// in GET /messages and may post the next input at once.
//
// # Why not River
//
// The issue suggested River (github.com/riverqueue/river) as the job
// engine for run triggers. It does not fit the latency budget
// (service.md §6: POST /chat/ → first event ≤ 1 ms p50 on SQLite): River
// hands a job to a worker by polling (FetchPollInterval, 1 s by default;
// its SQLite driver has no other way) or by Postgres LISTEN/NOTIFY, a
// round trip of milliseconds to hundreds of them, where our run starts in
// the request that posted its input; and its open-source edition has no
// per-key concurrency limit, so "one run per session" would still need
// our own lock. Its
// default rescue of a job whose worker died comes after an hour, where
// the spec wants seconds. The discipline River offers is kept on the
// store we have: an atomic lease claim with a TTL renewed while the run
// lasts, inputs claimed under the lease and marked done at the end, and a
// rescue (at start and every RescueInterval) of sessions whose lease
// expired with an input claimed and not done.
//
// # Rescue of a run that died
//
// A run that died (the process was killed) leaves its input claimed and
// its lease unreleased; the saved state is the one before the run, and
// the log holds the run's events. The rescue folds the dead reply's
// events into its message and hands it to agent.CloseCut, which answers
// every open tool call with an interrupted result, ends the reply with
// REPLY_END(interrupted) and puts it into the saved state's context; the
// server saves the state and the message into the transcript, then logs
// the closing events. Nothing of the dead run survives but its log, so
// the agent's interruption message is not added and the reply's iteration
// count is not kept.
//
// A process restarted with its predecessor's owner (agentscope serve on
// the same host and address, or the same --replica id) does not wait for
// those leases to expire: New asks the store for the sessions whose
// leases its owner holds (session.Leases.HeldBy) and closes them before
// it returns, since no run of the new process exists yet. The claim the
// dead run made is under the same lease epoch, which the store does not
// hand out again, so the leftovers are closed under a lease freed and
// taken anew (a new epoch).
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
// GET /metrics serves Prometheus metrics in the text exposition format:
// agentscope_runs_total by outcome, agentscope_parked_sessions,
// agentscope_sse_clients, agentscope_model_call_duration_seconds and
// agentscope_model_tokens_total and agentscope_model_errors_total by
// model, agentscope_tool_duration_seconds, agentscope_tool_results_total
// and agentscope_tool_errors_total by tool. They are read off the events
// each run streams (MODEL_CALL_START to MODEL_CALL_END, TOOL_RESULT_START
// to TOOL_RESULT_END, REPLY_END, the parking events), so they need nothing
// from the agents Agent.New builds. They count this process only: the
// parked sessions are those whose last run here parked (a restarted
// process starts from none). With Config.Token set, /metrics needs the
// bearer token like the API (model and tool names and the traffic are the
// operator's business) but no X-User-ID: a scraper is not a user.
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
