// Package session is the durable store behind the server: for each session
// its record, its AgentState, its transcript, its event log, its run lease
// and its queue of run inputs. The Store interface is the contract; the
// backends are session/sqlite (the embedded default), session/postgres
// (several replicas on one database) and session/memory (tests, demos), and
// all three pass one contract suite, session/sessiontest.
//
// The store speaks the wire JSON (state.AgentState, message.Msg, the
// events) as bytes and never decodes it, so it depends on nothing but the
// standard library and stamp, and what it returns is byte for byte what it
// was given.
//
// # What is stored
//
//   - sessions: id (uuid4 hex), user_id (the owner), agent_id, name, the
//     server's config JSON, created_at, updated_at; the lease (owner,
//     expiry, epoch) and the event counter live on this row too, because
//     both are claimed with one atomic update of it.
//   - status: what the session does (running, awaiting_permission,
//     awaiting_external_result, idle), on its row, kept by the run
//     transactions, so a listing never reads a state (see Status).
//   - states: the session's AgentState JSON and its version. A run's
//     FinishRun saves it optimistically: it names the version it read, and a concurrent save makes
//     it ErrConflict instead of losing a write.
//   - messages: the transcript, the UI's message list (not state.context,
//     which the agent may compress). A message is upserted by its id: a
//     known id is replaced in place, a new one appended, so a reply stored
//     while it streams keeps its position. ListMessages pages backwards
//     from a message id and says whether older ones exist.
//   - events: the append-only event log, kept for the session's life. Each
//     event gets the next sequence of its session (1, 2, 3, … with no gap,
//     whatever the number of appenders), and its JSON is stored as given.
//     AppendRun takes a batch and writes it in one transaction: the
//     server appends every event before publishing it, and group commit
//     is what makes that affordable at the rate a reply streams.
//     ReadEvents(after, limit) is the replay for an SSE client's
//     Last-Event-ID.
//   - inputs: the run inputs accepted and not yet run (a user message list,
//     a confirm result, an external result, an interrupt), persisted before
//     the run that takes them starts, so a crash in between loses nothing.
//     A run claims them oldest first under the session's lease and marks
//     each done when its effects are stored; an input claimed under a lease
//     that ended without marking it done is handed out again, with its
//     Attempts count, so delivery is at least once and visible as such.
//   - agents: the agents users create over the API (POST /agent/): id
//     (uuid4 hex), user_id (the owner), the server's config JSON,
//     created_at, updated_at. Like sessions they are scoped by their user;
//     DeleteAgent deletes the user's sessions of that agent with it.
//   - schema_migrations: the schema version of a SQL backend. Each backend
//     embeds its numbered SQL files and applies the missing ones, each in
//     a transaction, when it opens; opening an up-to-date database changes
//     nothing.
//
// Every operation on a session is scoped by its user: a session id under
// another user is ErrNotFound, exactly like an unknown id. Deleting a
// session deletes everything above with it.
//
// # The run lease, and why it is ours
//
// At most one run per session, cluster-wide: a run first takes the
// session's lease for a TTL (BeginRun), renews it as a heartbeat, and
// frees it when the reply and state are stored (FinishRun). The take is
// one atomic claim that succeeds only when the lease is free, expired, or
// already the caller's; Epoch counts the runs begun, and fences their
// writes. A run whose process died leaves an
// expired lease that was never released: Recoverable lists those sessions
// (and those with inputs waiting and no run), so a restarted process, or
// another replica within one TTL, closes the dead run as interrupted and
// runs what is queued. A process restarted under its predecessor's owner
// need not wait for those leases to expire: HeldBy lists the sessions an
// owner holds, and the runs its previous incarnation left are closed at
// once. Lease times come from the store's clock (Config.Now
// of each backend): the replicas' clocks must agree to well within a TTL.
//
// # One protocol: a run
//
// A session is written while it runs through Runs only, each call one
// transaction, all or nothing:
//
//   - BeginRun takes the lease (ErrLeased means another run is active:
//     answer 409), starts a new epoch, marks the session running, reads
//     the state and queues the run's input already claimed; when a dead
//     run left inputs pending it claims those instead (Run.Leftovers),
//     for the caller to close before anything else runs;
//   - AppendRun writes the run's transcript messages and events (every
//     event is appended before it is published), RenewRun is the
//     heartbeat;
//   - FinishRun saves the state, the reply, the last events, marks the
//     inputs done, stores the status and frees the lease.
//
// Every call after BeginRun names the run's lease, owner and epoch, and
// is refused (ErrNotHeld) once another run began: a run that lost its
// lease cannot write into the next one. A crash anywhere leaves a session
// running with a lease that expires, and its input pending; Recoverable
// finds it, and the rescue closes it with BeginRun and FinishRun, as any
// run. The status column is therefore exact for every row a run wrote;
// rows from before it are StatusUnknown until the engine fills them in
// (FillStatus).
//
// A job engine was considered for this. River (github.com/riverqueue/river
// v0.51, drivers riverpgxv5 and riversqlite) gives durable jobs, retries,
// cancellation and the rescue of jobs stuck in "running", and fits as the
// carrier of run triggers: a "run session S" job inserted in the same
// transaction as the input it announces (on Postgres, Config.Pool shares
// the pool). It does not fit as the lock. Its open-source edition has no
// per-key concurrency limit, so two jobs for one session could run at once
// on two workers (unique jobs only refuse a second insert, which would drop
// a trigger rather than queue it); its rescuer judges a job stuck by the age
// of its attempt, one hour by default, with no heartbeat and no fencing
// token, where a session whose worker died must be closed within seconds
// of a restart and one lease period on another replica. So the lease stays
// here, renewed by the run, its Epoch telling one holder from the next,
// and so does
// the input queue: "inputs persisted before the run starts" must hold
// whether or not a job row exists, and a job that finds the lease held or
// the queue empty simply ends. The server may add River on top for
// triggers and cancellation without changing this package.
//
// # Replicas
//
// A store that several processes share may also be a Notifier: it tells
// each of them what the others do to a session (its log grew, its run is
// asked to stop, it was deleted), so that a follower on one process is
// woken by a run on another without polling. The PostgreSQL backend is
// one (LISTEN/NOTIFY); SQLite and memory, used by one process, need none.
// Record.RunSeq and Record.LastSeq say where the latest run's events
// start and where the log ends, for a follower of a run elsewhere.
//
// # Errors
//
// Callers branch with errors.Is on ErrNotFound, ErrInvalid (empty ids, a
// limit below 1, JSON that does not parse, a status a run cannot leave),
// ErrConflict, ErrLeased and ErrNotHeld; a cancelled context returns the context's
// error.
package session
