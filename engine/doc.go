// Package engine is the run engine of agentscope's services: sessions,
// their runs, inputs, event log, leases and followers, and the rescue of
// runs that died, over a durable session.Store. It knows no transport:
// operations take typed values and return typed errors (ErrNotFound,
// ErrBusy, ErrForbidden, ErrUnavailable, ErrTooMany, ErrInterrupted, as
// an *Error with the text a client is shown, and *InputError), which each
// transport — package server's native HTTP + SSE API and the others —
// maps to its protocol.
//
// A run answers one input of one session. It holds the session's lease
// (at most one run per session, across every process on the store), takes
// its input from the store's input queue (persisted before the run
// starts), appends every event to the session's log before publishing it,
// and saves the reply and the AgentState before it releases the lease.
// The agent is rebuilt from the stored state for each run, so a parked
// reply is only rows in the store: no goroutine, no lock, no memory.
//
// Events reach clients only through a Feed (Follow): the logged events
// after a cursor, then the live ones, each with its log sequence, so a
// client reconnects from the last sequence it has and gets exactly what it
// missed; the feed subscribes before it reads the log and skips sequences
// it has given. A follower that falls behind its bounded buffer is cut
// rather than buffered without bound.
//
// A run costs few transactions (session.Runs): one starts it (BeginRun:
// the lease, the session marked running, its input queued and claimed,
// the state read), one writes its first events with the input messages
// (AppendRun), and one ends it (FinishRun: state, reply, input done,
// status, lease freed, last events). In between, a per-run writer group
// commits: it takes all the events available, appends them in one
// AppendRun call, then publishes them. Every write names the run's lease,
// so a run whose lease another run took writes nothing more. The run's last event (REPLY_END
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
// it returns, since no run of the new process exists yet. Each BeginRun
// starts a new lease epoch, so the dead run's claims are an earlier
// lease's even under the same owner, and its late writes are refused.
//
// # One way in, one way out
//
// A run starts only through the store's BeginRun (the lease, its input
// queued and claimed, the state read, in one transaction); when a dead
// run left inputs behind, BeginRun claims those instead and they are
// closed first as the rescue closes them, and BeginRun is tried again.
// The rescue begins the same way, with no input of its own. Every run
// ends through finishRun (FinishRun: the state, the reply, the inputs
// done, the status the state leaves, the lease freed and the last events
// in one transaction, then those events published), and so does the
// rescue of a dead one: its closing state, reply and events are that
// finish's too. An end the store refuses for good, or keeps failing, is
// not stored part by part: the session is left as a crash there leaves
// it, and the rescue closes it.
//
// # Status
//
// A session's status (Status, Sessions) is read off its row, where the
// run's transactions keep it: running from BeginRun to FinishRun, then
// what the saved state waits for (a confirmation, an external result, or
// nothing), computed by the run that saved it. Listing sessions loads no
// state. A row from before the status column is derived from its state
// once and filled in (session.Sessions.FillStatus).
//
// # Replicas
//
// Several engines, in several processes, may share one store: each
// session's lease makes one run of it at a time anywhere. When the store
// is a session.Notifier (PostgreSQL's), each engine listens to it:
// followers here are woken when another process appends to their
// session's log (the hub reads the log once for all of a session's
// followers, after the last event they have), a run here is interrupted
// when another process is asked to (a notice naming the run's lease),
// and a session deleted elsewhere ends its followers here. A lost
// listener connection makes every followed session's log be read to its
// end once it listens again. Drain stops a replica taking work before it
// goes (new runs and followers are ErrUnavailable with a RetryAfter), and
// waits for its runs to end; Shutdown then interrupts the rest.
//
// # Metrics
//
// WriteMetrics writes Prometheus metrics in the text exposition format:
// agentscope_runs_total by outcome, agentscope_parked_sessions and
// agentscope_sessions by status, agentscope_sse_clients, agentscope_model_call_duration_seconds and
// agentscope_model_tokens_total and agentscope_model_errors_total by
// model, agentscope_tool_duration_seconds, agentscope_tool_results_total
// and agentscope_tool_errors_total by tool. They are read off the events
// each run streams (MODEL_CALL_START to MODEL_CALL_END, TOOL_RESULT_START
// to TOOL_RESULT_END, REPLY_END, the parking events), so they need nothing
// from the agents Agent.New builds, and count this process only, but for
// the sessions by status: those are counted in the store when the
// metrics are written (a session.StatusCounter's one scan), so every
// replica reports the same sessions, whichever ran them, and a process
// keeps nothing per parked session. agentscope_sse_clients counts the
// followers of every transport.
package engine
