package session

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The errors callers branch on. Backends wrap them with %w, so test with
// errors.Is.
var (
	// ErrNotFound: no such session for this user (another user's session
	// is not found either), or no such message for a ListMessages cursor.
	ErrNotFound = errors.New("session: not found")
	// ErrInvalid: a bad argument (an empty id, a limit below 1, JSON that
	// does not parse, a non-positive TTL).
	ErrInvalid = errors.New("session: invalid argument")
	// ErrConflict: FinishRun was given a state version that is no longer
	// current.
	ErrConflict = errors.New("session: version conflict")
	// ErrLeased: BeginRun found the session held by another owner whose
	// lease has not expired.
	ErrLeased = errors.New("session: leased by another owner")
	// ErrNotHeld: AppendRun, RenewRun or FinishRun named a lease that is
	// not the session's any more (another run began, or this one
	// finished).
	ErrNotHeld = errors.New("session: lease not held by this run")
	// ErrExists: CreateSession was given an ID that a session (of any
	// user) already has.
	ErrExists = errors.New("session: id already used")
)

// MaxIDLen is the longest session id a caller may choose.
const MaxIDLen = 128

// Key names one session of one user. Every operation below a session is
// scoped by both: a session id under the wrong user is ErrNotFound.
type Key struct {
	UserID    string
	SessionID string
}

// Validate reports ErrInvalid for an empty field.
func (k Key) Validate() error {
	if k.UserID == "" {
		return fmt.Errorf("%w: empty user id", ErrInvalid)
	}
	if k.SessionID == "" {
		return fmt.Errorf("%w: empty session id", ErrInvalid)
	}
	return nil
}

// Record is a session's row: who owns it, which agent it talks to, and the
// server's configuration for it. Times are UTC with microsecond precision.
type Record struct {
	ID      string
	UserID  string
	AgentID string
	Name    string
	// Config is the server's JSON for the session, stored as given.
	Config    json.RawMessage
	CreatedAt time.Time
	// UpdatedAt moves on UpdateSession and when a run saves a state.
	UpdatedAt time.Time
	// Status is what the session does, as its runs stored it.
	Status Status
	// Lease is the session's run lease as stored: an expired one keeps
	// its owner (see Lease.Held).
	Lease Lease
	// RunSeq is the sequence of the log's last event when the session's
	// latest run began (BeginRun): that run's events are the ones after
	// it, so a follower on any process can start at the run in progress.
	// 0 before any run.
	RunSeq int64
	// LastSeq is the sequence of the log's last event (LastSeq).
	LastSeq int64
	// Order is the session's place in its store's creation order: unique
	// in the store, higher for a later session. It breaks the ties of
	// CreatedAt in a listing, and with it makes the listing's cursor
	// (ListCursor).
	Order int64
}

// Cursor is the record's position in a listing: a ListQuery with After
// set to it lists the sessions after this one.
func (r Record) Cursor() ListCursor { return ListCursor{CreatedAt: r.CreatedAt, Order: r.Order} }

// NewSession is what CreateSession needs. Config nil is stored as {}.
type NewSession struct {
	// ID is the session's id when the caller chooses it (an AG-UI
	// thread's id): 1 to MaxIDLen printable ASCII characters, none of
	// them a space or one of / ? # % \ (it is a path segment of the
	// native routes). Empty: the store makes one. An id any user's session
	// already has is ErrExists.
	ID      string
	UserID  string
	AgentID string
	Name    string
	Config  json.RawMessage
}

// Patch changes a session. A nil field is left as it is.
type Patch struct {
	Name   *string
	Config json.RawMessage
}

// ListQuery selects a user's sessions, newest first: by CreatedAt, then
// Order, descending.
type ListQuery struct {
	UserID string
	// AgentID "" lists the sessions of every agent.
	AgentID string
	// After, when set, starts the list after that position (the Cursor of
	// the last record of the page before): only older sessions follow. A
	// page read so costs the page, however deep it is, and sessions made
	// or deleted meanwhile shift nothing: each session that was there
	// from the first page to the last is listed once. nil starts at the
	// newest.
	After *ListCursor
	// Limit 0 means no limit; Offset skips that many of the newest (after
	// After, when set). An Offset costs the rows it skips.
	Limit, Offset int
}

// ListCursor is a position in a listing's order (see ListQuery.After).
// Its String is the opaque token a client pages with.
type ListCursor struct {
	CreatedAt time.Time
	Order     int64
}

// String is c as a URL-safe token (ParseListCursor reads it back).
func (c ListCursor) String() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(c.CreatedAt.UnixMicro()))
	binary.BigEndian.PutUint64(b[8:], uint64(c.Order))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// ParseListCursor reads a ListCursor's String; anything else is
// ErrInvalid.
func ParseListCursor(s string) (ListCursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != 16 {
		return ListCursor{}, fmt.Errorf("%w: not a list cursor: %q", ErrInvalid, s)
	}
	return ListCursor{
		CreatedAt: time.UnixMicro(int64(binary.BigEndian.Uint64(b[:8]))).UTC(),
		Order:     int64(binary.BigEndian.Uint64(b[8:])),
	}, nil
}

// Precedes reports whether a record at (created, order) is listed after c:
// it is older, or as old and made before.
func (c ListCursor) Precedes(created time.Time, order int64) bool {
	if d := created.Compare(c.CreatedAt); d != 0 {
		return d < 0
	}
	return order < c.Order
}

// State is a session's saved AgentState JSON and its version. A session
// whose state was never saved has Version 0 and a nil JSON.
type State struct {
	JSON    json.RawMessage
	Version int64
}

// Message is one entry of the transcript: a Msg's id and its JSON.
type Message struct {
	ID   string
	JSON json.RawMessage
}

// MessageQuery pages backwards through a transcript.
type MessageQuery struct {
	// Before is the id of a message: only older ones are returned. ""
	// starts from the newest.
	Before string
	// Limit is the page size, at least 1.
	Limit int
}

// MessagePage is one page of a transcript, oldest first.
type MessagePage struct {
	Messages []Message
	// HasMore says older messages exist before the first one returned.
	HasMore bool
}

// Event is one entry of a session's event log.
type Event struct {
	Seq  int64
	JSON json.RawMessage
}

// Lease is who runs a session, and until when. A free session has an empty
// Owner. Epoch counts the runs begun on the session (BeginRun): it tells one
// run's tenure from the next, even under one owner, so a write of a run
// whose lease was taken over is refused (ErrNotHeld) instead of landing in
// its successor's run.
type Lease struct {
	Owner   string
	Expires time.Time
	Epoch   int64
	// StopAsked is set by RenewRun when an interrupt was asked of the run
	// (RunStopper.AskStop) and the owner may not have heard it.
	StopAsked bool
}

// Held reports whether the lease is held at now.
func (l Lease) Held(now time.Time) bool { return l.Owner != "" && now.Before(l.Expires) }

// Status is what a session is doing, as the reference's SessionStatus
// says it. The store keeps it on the session's row, set by the run's
// transactions (BeginRun: running; FinishRun: what the run left), so a
// listing reads it with the record instead of decoding each state.
type Status string

// The statuses. StatusUnknown is only ever read, never written by a run:
// it is a session whose row predates the status column and that has a
// state, which only its engine can read (see FillStatus).
const (
	StatusRunning                Status = "running"
	StatusIdle                   Status = "idle"
	StatusAwaitingPermission     Status = "awaiting_permission"
	StatusAwaitingExternalResult Status = "awaiting_external_result"
	StatusUnknown                Status = ""
)

// Resting reports whether s is a status a run may leave (FinishRun,
// FillStatus): any but running and unknown.
func (s Status) Resting() bool {
	switch s {
	case StatusIdle, StatusAwaitingPermission, StatusAwaitingExternalResult:
		return true
	}
	return false
}

// Input is a run input: a user message list, a confirm result, an
// external result or an interrupt, as the server's JSON.
type Input struct {
	ID        int64
	JSON      json.RawMessage
	CreatedAt time.Time
	// Attempts counts the claims, this one included: more than 1 means a
	// run that claimed it ended without marking it done.
	Attempts int
}

// Sessions holds the session records.
type Sessions interface {
	// CreateSession stores a new session, idle, with a fresh uuid4-hex id
	// (or NewSession.ID).
	CreateSession(ctx context.Context, s NewSession) (Record, error)
	// GetSession returns the session's row: its record, status and lease.
	GetSession(ctx context.Context, k Key) (Record, error)
	// ListSessions returns one page, newest first, and the total count
	// matching the query (all of the user's or agent's sessions, whatever
	// After, Limit and Offset: read off a count the store keeps, not
	// counted); each record carries its status and lease.
	ListSessions(ctx context.Context, q ListQuery) (page []Record, total int, err error)
	UpdateSession(ctx context.Context, k Key, p Patch) (Record, error)
	// DeleteSession removes the session with its state, transcript,
	// events, lease and inputs.
	DeleteSession(ctx context.Context, k Key) error
	// FillStatus stores the status of a session whose stored status is
	// stale: StatusUnknown (a row from before the status column, which
	// the engine derives from the state once), or running with no lease
	// owner (ended by a build that did not keep the column). Any other
	// status was written by a run's transaction and is left as it is, so
	// a fill racing a run never overwrites what the run stored. s must be
	// Resting (else ErrInvalid).
	FillStatus(ctx context.Context, k Key, s Status) error
}

// Reads are what followers, the rescue and the API read between runs.
type Reads interface {
	// LoadState is the session's state as the last run saved it.
	LoadState(ctx context.Context, k Key) (State, error)
	ListMessages(ctx context.Context, k Key, q MessageQuery) (MessagePage, error)
	// ReadEvents returns up to limit events with a sequence above after,
	// in order.
	ReadEvents(ctx context.Context, k Key, after int64, limit int) ([]Event, error)
	// LastSeq is the sequence of the last event appended, 0 for none.
	LastSeq(ctx context.Context, k Key) (int64, error)
	// PendingInputs counts the inputs not yet done.
	PendingInputs(ctx context.Context, k Key) (int, error)
}

// RunBegin is what BeginRun needs.
type RunBegin struct {
	// Owner names the process (Engine.Config.Owner); TTL is the lease's
	// life without renewal.
	Owner string
	TTL   time.Duration
	// Input, when not nil, is queued and claimed by the run, unless
	// inputs are pending already (then Run.Leftovers says which).
	Input json.RawMessage
	// Known is the version of the state the caller holds decoded from an
	// earlier run (0: none). When the stored state still has it, Run.State
	// comes without its JSON (Version set, JSON nil): a long session's
	// state is neither read nor sent again. Run.Created tells the caller
	// whether it is the same session, not one deleted and made again
	// under the same id.
	Known int64
}

// Run is a run begun: the lease it holds, what it claimed and the state it
// read, all in BeginRun's one transaction.
type Run struct {
	Lease Lease
	// Input is RunBegin.Input, queued and claimed (Attempts 1); zero when
	// there was none or Leftovers is not empty.
	Input Input
	// Leftovers are the inputs that were pending when the run began (a
	// dead run's), oldest first, each claimed now under this lease: the
	// caller closes them (and marks them done in FinishRun) before
	// anything else runs.
	Leftovers []Input
	// State is the session's state, as LoadState; without its JSON when
	// its version is RunBegin.Known.
	State State
	// Created is the session's CreatedAt.
	Created time.Time
	// AgentID and Config are the session's, as the run's transaction read
	// them: set by OpenRun (BeginRun may leave them empty), so that the
	// caller needs no read of the record before the run.
	AgentID string
	Config  json.RawMessage
}

// RunAppend is a write in the middle of a run. Each part is optional, but
// not both.
type RunAppend struct {
	// Messages are upserted into the transcript: a stored id is replaced
	// in place, a new one appended, in order (the last of repeated ids
	// wins, at the first one's place).
	Messages []Message
	// Events are appended to the log: event i gets sequence first+i.
	// Sequences start at 1 and have no gaps, whatever the number of
	// appenders.
	Events []json.RawMessage
}

// RunEnd is the last write of a run. Status is required; every other part
// is optional.
type RunEnd struct {
	// State, when not nil, replaces the state if its version is still
	// StateVersion (ErrConflict otherwise).
	State        json.RawMessage
	StateVersion int64
	// Messages and Events are written as RunAppend's.
	Messages []Message
	Events   []json.RawMessage
	// Done are the inputs the run answered (its own, and any leftovers it
	// closed), marked done; ErrNotFound when one is unknown, not claimed
	// or done already.
	Done []int64
	// Status is what the session does once the run is over (Resting).
	Status Status
}

// RunWritten is what a run's write stored.
type RunWritten struct {
	// First is the sequence of Events[0] (0 without events).
	First int64
	// Version is the state's new version (0 without State).
	Version int64
}

// Runs is the one way a session is written while it runs: a run begins,
// appends and renews, and finishes, each one transaction, all or nothing.
// Every write after BeginRun names the run's lease (owner and epoch) and
// is refused with ErrNotHeld when the session's lease is another one (it
// expired and another run began), so a run that lost its lease cannot
// write into its successor's. An expired lease no other run took is still
// the run's.
type Runs interface {
	// BeginRun takes the session for b.Owner until now+b.TTL when its
	// lease is free, expired, or already b.Owner's (a previous
	// incarnation's, restarted under the same owner); another owner's
	// live lease is ErrLeased. It starts a new epoch, marks the session
	// running, reads the state, and claims the pending inputs (Leftovers)
	// or, with none pending, queues and claims b.Input.
	BeginRun(ctx context.Context, k Key, b RunBegin) (Run, error)
	// AppendRun writes a in one transaction and returns the sequence of
	// its first event (0 without events).
	AppendRun(ctx context.Context, k Key, l Lease, a RunAppend) (first int64, err error)
	// RenewRun extends the run's lease to now+ttl.
	RenewRun(ctx context.Context, k Key, l Lease, ttl time.Duration) (Lease, error)
	// FinishRun writes e, stores its status and frees the lease, in one
	// transaction.
	FinishRun(ctx context.Context, k Key, l Lease, e RunEnd) (RunWritten, error)
}

// RunOpener is a store that can leave BeginRun's transaction open until
// the run's first events are ready, so that the run's start and its first
// batch are one transaction: one commit on the way to a run's first event
// instead of two. It is optional: a caller without it calls BeginRun, then
// AppendRun. Nothing of an open run is visible, or durable, until it is
// committed; a crash before that leaves what a crash before BeginRun
// leaves.
type RunOpener interface {
	// OpenRun is BeginRun (the same checks, claims and errors; Run's
	// AgentID and Config set) with its transaction left open. Until the
	// Opening is committed or rolled back the store takes no other write
	// (SQLite has one writer), so the caller keeps it open only across
	// short work on memory, bounded in time.
	OpenRun(ctx context.Context, k Key, b RunBegin) (Run, Opening, error)
}

// Opening is a run begun and not yet committed. Exactly one of Commit and
// Rollback is called, once; it is not safe for concurrent use.
type Opening interface {
	// Commit writes a under the run's lease (as AppendRun; a may be empty)
	// and commits it with the run's start, all or nothing, returning the
	// sequence of a's first event (0 without events). On an error nothing
	// of the run is stored.
	Commit(ctx context.Context, a RunAppend) (first int64, err error)
	// Rollback drops the run's start: nothing of it is stored.
	Rollback() error
}

// Rescue lists the sessions whose runs died, for the engine to close them
// (with BeginRun and FinishRun, as any run).
type Rescue interface {
	// Recoverable lists up to limit sessions, of every user, that need a
	// run and have none: no live lease, and either an input not yet done
	// or an expired lease that was never released (its run died). A
	// server calls it at start and periodically to rescue them.
	Recoverable(ctx context.Context, limit int) ([]Key, error)
	// HeldBy lists up to limit sessions, of every user, whose lease is
	// owner's and was never released, expired or not. A server restarted
	// under its previous incarnation's owner calls it at start: those
	// runs died with that process, so they are closed at once instead of
	// when their leases expire. Only an owner no live process shares may
	// do that.
	HeldBy(ctx context.Context, owner string, limit int) ([]Key, error)
}

// RunStopper is a store that keeps an interrupt asked of a run held by
// another process: the notice to the owner (Notifier) is the fast way,
// which a broken LISTEN connection can lose; the owner's next RenewRun
// reads the request (Lease.StopAsked) whatever became of the notice.
type RunStopper interface {
	// AskStop records that an interrupt was asked of the run holding l:
	// ErrNotHeld when no run holds it any more.
	AskStop(ctx context.Context, k Key, l Lease) error
}

// StatusCounter is a store that counts its sessions by their stored
// status, for the engine's metrics: every replica on one database counts
// the same sessions, and a process keeps nothing per parked session. A
// row whose status is not known yet (StatusUnknown) counts under "".
type StatusCounter interface {
	CountStatuses(ctx context.Context) (map[Status]int64, error)
}

// Store is a whole backend. Implementations are safe for concurrent use.
type Store interface {
	Sessions
	Reads
	Runs
	Rescue
	Agents
	// Close releases the backend's resources.
	Close() error
}
