package engine

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/state"
)

// NewSession is a session to create.
type NewSession struct {
	// ID is the session's id when the client chooses it (an AG-UI
	// thread), as session.NewSession.ID allows; empty: the store makes
	// one. An id already used is ErrExists, one that is not allowed a
	// session.ErrInvalid.
	ID      string
	UserID  string
	AgentID string
	Name    string
	// Config is the session's free-form settings, stored as given (nil:
	// none).
	Config json.RawMessage
}

// CreateSession creates a session of one of the user's agents (a
// configured one or the user's own); ErrNotFound for another.
func (e *Engine) CreateSession(ctx context.Context, s NewSession) (session.Record, error) {
	if _, err := e.lookupAgent(ctx, s.UserID, s.AgentID); err != nil {
		return session.Record{}, err
	}
	rec, err := e.store.CreateSession(ctx, session.NewSession{ID: s.ID, UserID: s.UserID, AgentID: s.AgentID, Name: s.Name, Config: s.Config})
	if errors.Is(err, session.ErrExists) {
		return session.Record{}, newError(ErrExists, "Session id %q is already used", s.ID)
	}
	return rec, storeErr(err)
}

// Session is the user's session; ErrNotFound when the user has none of
// that id.
func (e *Engine) Session(ctx context.Context, k session.Key) (session.Record, error) {
	rec, err := e.store.GetSession(ctx, k)
	return rec, storeErr(err)
}

// SessionInfo is a session with what it is doing.
type SessionInfo struct {
	Record session.Record
	Status session.Status
}

// Sessions lists the user's sessions of q (of one agent, when AgentID is
// set; a page of them, with Limit, Offset and After), with their statuses, and
// how many there are in all. A status is read with its record, from the
// one row: no state is loaded (but a row from before the status column,
// once).
func (e *Engine) Sessions(ctx context.Context, q session.ListQuery) ([]SessionInfo, int, error) {
	recs, total, err := e.store.ListSessions(ctx, q)
	if err != nil {
		return nil, 0, storeErr(err)
	}
	out := make([]SessionInfo, 0, len(recs))
	for _, rec := range recs {
		st, err := e.statusOf(ctx, session.Key{UserID: q.UserID, SessionID: rec.ID}, rec)
		if err != nil {
			return nil, 0, storeErr(err)
		}
		out = append(out, SessionInfo{rec, st})
	}
	return out, total, nil
}

// Status is what the session is doing, as its runs stored it: running
// from the start of a run (here or in another process) until its end is
// stored, and after that what the saved context waits for. A run that
// died stays running until the rescue closes it.
func (e *Engine) Status(ctx context.Context, k session.Key) (session.Status, error) {
	rec, err := e.Session(ctx, k)
	if err != nil {
		return "", err
	}
	st, err := e.statusOf(ctx, k, rec)
	return st, storeErr(err)
}

// StatusOf is Status of a record the caller has just read (Feed.Session,
// Session): the store is read only for a row whose status it cannot vouch
// for.
func (e *Engine) StatusOf(ctx context.Context, rec session.Record) (session.Status, error) {
	st, err := e.statusOf(ctx, session.Key{UserID: rec.UserID, SessionID: rec.ID}, rec)
	return st, storeErr(err)
}

// UpdateSession changes a session's name or settings; ErrBusy while a run
// holds it.
func (e *Engine) UpdateSession(ctx context.Context, k session.Key, p session.Patch) (session.Record, error) {
	if run, err := e.running(ctx, k); err != nil || run {
		if err != nil {
			return session.Record{}, storeErr(err)
		}
		return session.Record{}, errRunning
	}
	rec, err := e.store.UpdateSession(ctx, k, p)
	return rec, storeErr(err)
}

// DeleteSession deletes a session with its log, transcript and state. A
// run of it, here or in another process sharing a store that notifies,
// is interrupted first (ErrBusy if it does not end within 10 s); one in
// another process of a store that cannot tell it is ErrBusy. Its
// followers end, in every process.
func (e *Engine) DeleteSession(ctx context.Context, k session.Key) error {
	if _, err := e.Session(ctx, k); err != nil {
		return err
	}
	run, err := e.cancellableRun(ctx, k)
	if err != nil {
		return err
	}
	if run != nil {
		if run.cancel != nil {
			run.cancel()
		}
		select {
		case <-run.done:
		case <-time.After(10 * time.Second):
			return newError(ErrBusy, "Session is still running")
		}
	}
	if stopped, err := e.stopElsewhere(ctx, k, 10*time.Second); err != nil || !stopped {
		if err != nil {
			return err
		}
		return newError(ErrBusy, "Session is running in another process")
	}
	if err := e.store.DeleteSession(ctx, k); err != nil {
		return storeErr(err)
	}
	e.hot.drop(k)
	e.hub.closeTopic(k)
	return nil
}

// Messages is a page of the session's transcript, and whether a run holds
// the session. ErrNotFound names the session, or the Before message when
// the transcript has no such message.
func (e *Engine) Messages(ctx context.Context, k session.Key, q session.MessageQuery) (session.MessagePage, bool, error) {
	if _, err := e.Session(ctx, k); err != nil {
		return session.MessagePage{}, false, err
	}
	page, err := e.store.ListMessages(ctx, k, q)
	if err != nil {
		if errors.Is(err, session.ErrNotFound) {
			return page, false, newError(ErrNotFound, "Message not found")
		}
		return page, false, storeErr(err)
	}
	run, err := e.running(ctx, k)
	return page, run, storeErr(err)
}

// Start starts a run of the session on in, as agentID (the session's
// agent: another is ErrNotFound), and returns once the run's first event
// is logged — a follower sees it — or the run failed before any, with
// nothing stored: an *InputError for an input that does not fit (a
// resume with nothing parked, an unknown tool-call id), ErrBusy while
// another run holds the session, ErrUnavailable during shutdown,
// ErrInterrupted when the run was cancelled before it began.
//
// The Run tells a transport which of a session's events are this run's
// and when the run is over, so it can end a reply's stream when the run
// ends even where no event says so.
func (e *Engine) Start(ctx context.Context, k session.Key, agentID string, in Input) (*Run, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	if _, ok := e.store.(session.RunOpener); !ok {
		rec, err := e.Session(ctx, k)
		if err != nil {
			return nil, err
		}
		return e.start(ctx, k, agentID, rec, in)
	}
	// The run's first transaction reads the session's record (OpenRun),
	// where its agent is checked and its permission mode applied: no read
	// before it.
	spec, err := e.lookupAgent(ctx, k.UserID, agentID)
	if err != nil {
		// A session the user does not have is said first, as when the
		// record is read before.
		if _, serr := e.Session(ctx, k); serr != nil {
			return nil, serr
		}
		return nil, err
	}
	r, err := e.startRun(k, spec, in, agentID)
	if err != nil {
		return nil, e.startErr(err)
	}
	return &Run{r: r}, nil
}

// StartSession is Start on a session the caller has just created or read
// (rec, of user rec.UserID): it saves Start's read of the record. A
// session deleted since is ErrNotFound all the same (the run's first
// transaction finds no session); its permission mode is rec's.
func (e *Engine) StartSession(ctx context.Context, rec session.Record, agentID string, in Input) (*Run, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	return e.start(ctx, session.Key{UserID: rec.UserID, SessionID: rec.ID}, agentID, rec, in)
}

func (e *Engine) start(ctx context.Context, k session.Key, agentID string, rec session.Record, in Input) (*Run, error) {
	if rec.AgentID != agentID {
		return nil, errAgentNotFound
	}
	spec, err := e.lookupAgent(ctx, k.UserID, agentID)
	if err != nil {
		return nil, err
	}
	r, err := e.startRun(k, withSessionMode(spec, rec), in, "")
	if err != nil {
		return nil, e.startErr(err)
	}
	return &Run{r: r}, nil
}

// Run is a run that Start started, as a transport that follows it sees
// it: its events in the session's log are those from FirstSeq to LastSeq,
// and Done says when there are no more. A follower opened before Start
// (engine.Cursor{}) may also see another run's events before FirstSeq.
type Run struct{ r *run }

// ReplyID is the reply the run writes: a new one for messages, the parked
// one for a resume or an interrupt.
func (h *Run) ReplyID() string { return h.r.replyID }

// FirstSeq is the sequence of the run's first event in the log. It is 0
// only for a run that logs no event at all.
func (h *Run) FirstSeq() int64 { return h.r.firstSeq.Load() }

// Done is closed once the run is over: its end is stored and its last
// events are published, so every follower has them queued.
func (h *Run) Done() <-chan struct{} { return h.r.done }

// LastSeq, once Done is closed, is the sequence of the run's last event
// in the log (0: it logged none).
func (h *Run) LastSeq() int64 { return h.r.lastSeq.Load() }

// strictness orders the permission modes from the one that lets the
// agent do least.
var strictness = map[permission.Mode]int{
	permission.ModeExplore: 0, permission.ModeDontAsk: 1, permission.ModeDefault: 2,
	permission.ModeAcceptEdits: 3, permission.ModeBypass: 4,
}

// withSessionMode is spec with the session's permission_mode (PATCH
// /sessions/{id}) applied: only where it is stricter than the mode the
// agent runs in, since the operator configured the agent and a user may
// not loosen it (a bypass asked for by a user would let the model run
// anything on the server's host).
func withSessionMode(spec *Agent, rec session.Record) *Agent {
	var cfg struct {
		PermissionMode permission.Mode `json:"permission_mode"`
	}
	if len(rec.Config) == 0 || json.Unmarshal(rec.Config, &cfg) != nil {
		return spec
	}
	want, ok := strictness[cfg.PermissionMode]
	if !ok {
		return spec
	}
	s := *spec
	s.New = func(st *state.AgentState) (*agent.Agent, error) {
		a, err := spec.New(st)
		if err != nil {
			return nil, err
		}
		if cur, ok := strictness[a.Permissions().Mode()]; ok && want < cur {
			if err := a.Permissions().SetMode(cfg.PermissionMode); err != nil {
				return nil, err
			}
		}
		return a, nil
	}
	return &s
}

// startErr is a run's start error as the engine's kinds.
func (e *Engine) startErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled) && e.Closed():
		return errShuttingDown
	case errors.Is(err, context.Canceled):
		return newError(ErrInterrupted, "the run was interrupted before it started")
	}
	return storeErr(err)
}

// Interrupt interrupts the session's run, here or in another process
// sharing a store that notifies (session.Notifier: that process is asked
// to): the reply ends with every tool call answered. A parked reply is
// closed as interrupted. Nothing running or parked: a no-op.
func (e *Engine) Interrupt(ctx context.Context, k session.Key) error {
	return e.interrupt(ctx, k, true)
}

// interrupt is Interrupt; forward asks another process's run to stop
// (false: the asking process's notice is being answered).
func (e *Engine) interrupt(ctx context.Context, k session.Key, forward bool) error {
	rec, err := e.Session(ctx, k)
	if err != nil {
		return err
	}
	run, err := e.cancellableRun(ctx, k)
	if err != nil {
		return err
	}
	if run != nil {
		if run.cancel != nil {
			run.cancel()
		}
		return nil
	}
	if forward {
		if handled, err := e.forwardInterrupt(ctx, k, rec); handled {
			return err
		}
	}
	st, err := e.statusOf(ctx, k, rec)
	if err != nil {
		return storeErr(err)
	}
	if st != session.StatusAwaitingPermission && st != session.StatusAwaitingExternalResult {
		return nil
	}
	spec, err := e.lookupAgent(ctx, k.UserID, rec.AgentID)
	if err != nil {
		return err
	}
	if _, err := e.startRun(k, spec, Input{kind: inputInterrupt}, ""); err != nil && !errors.Is(err, ErrBusy) {
		return e.startErr(err)
	}
	return nil
}

// running reports whether a run holds the session, here or in another
// process sharing the store.
func (e *Engine) running(ctx context.Context, k session.Key) (bool, error) {
	e.mu.Lock()
	r := e.runs[k]
	e.mu.Unlock()
	if r != nil && !r.closing.Load() {
		return true, nil
	}
	rec, err := e.store.GetSession(ctx, k)
	if err != nil {
		return false, err
	}
	return rec.Lease.Held(time.Now()), nil
}

// statusOf is rec's status. One the store cannot vouch for (a row from
// before the status column, or one a build without it left running) is
// derived once from the saved state, as it was before the column, and
// stored (FillStatus): the next read finds it on the row.
func (e *Engine) statusOf(ctx context.Context, k session.Key, rec session.Record) (session.Status, error) {
	stale := rec.Status == session.StatusUnknown || (rec.Status == session.StatusRunning && rec.Lease.Owner == "")
	if !stale {
		return rec.Status, nil
	}
	if rec.Lease.Held(time.Now()) {
		return session.StatusRunning, nil
	}
	saved, err := e.store.LoadState(ctx, k)
	if err != nil {
		return "", err
	}
	status := session.StatusIdle
	if saved.JSON != nil {
		st, err := state.Decode(saved.JSON, nil)
		if err != nil {
			return "", err
		}
		name := rec.AgentID
		a, err := e.lookupAgent(ctx, k.UserID, rec.AgentID)
		switch {
		case err == nil:
			name = a.Name
		case !errors.Is(err, ErrNotFound):
			return "", err
		}
		status = statusOf(st, name)
	}
	if err := e.store.FillStatus(ctx, k, status); err != nil {
		e.log.Warn("engine: store a derived status", "session", k.SessionID, "err", err)
	}
	return status, nil
}

// statusOf is what a session whose saved state is st waits for, its
// agent's name being name (which authors the reply a parked session
// waits on): a confirmation, an external result, or nothing.
func statusOf(st *state.AgentState, name string) session.Status {
	status := session.StatusIdle
	for _, c := range st.AwaitingToolCalls(name) {
		if c.State == block.CallAsking {
			return session.StatusAwaitingPermission
		}
		status = session.StatusAwaitingExternalResult
	}
	return status
}

// cancellableRun returns the session's run if cancelling it can still
// interrupt something, else nil. A run that has stored everything (a
// parked reply's REQUIRE_USER_CONFIRM may already be out) and is only
// logging its last events would interrupt nothing: it is waited for, and
// then the stored state says what to interrupt. The error is ctx's when
// it ended first.
func (e *Engine) cancellableRun(ctx context.Context, k session.Key) (*run, error) {
	e.mu.Lock()
	rn := e.runs[k]
	e.mu.Unlock()
	if rn != nil && rn.closing.Load() {
		select {
		case <-rn.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return nil, nil
	}
	return rn, nil
}

// storeErr is a store error as the engine's kinds: a session not found,
// a lease or version conflict (a run holds the session); other errors as
// they are.
func storeErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, session.ErrNotFound):
		return errSessionNotFound
	case errors.Is(err, session.ErrLeased), errors.Is(err, session.ErrConflict):
		return errRunning
	}
	return err
}
