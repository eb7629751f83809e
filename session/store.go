package session

import (
	"context"
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
	// ErrConflict: SaveState was given a version that is no longer current.
	ErrConflict = errors.New("session: version conflict")
	// ErrLeased: AcquireLease found the session held by another owner
	// whose lease has not expired.
	ErrLeased = errors.New("session: leased by another owner")
	// ErrNotHeld: RenewLease, ReleaseLease or ClaimInput was called by an
	// owner that does not hold the session's lease (it expired and was
	// taken over, was released, or was never acquired). ClaimInput also
	// refuses an expired lease nobody took over: renew it first.
	ErrNotHeld = errors.New("session: lease not held by this owner")
	// ErrNoInput: ClaimInput found no pending input for the session.
	ErrNoInput = errors.New("session: no pending input")
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
	// UpdatedAt moves on UpdateSession and SaveState.
	UpdatedAt time.Time
}

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

// ListQuery selects a user's sessions, newest first.
type ListQuery struct {
	UserID string
	// AgentID "" lists the sessions of every agent.
	AgentID string
	// Limit 0 means no limit; Offset skips that many of the newest.
	Limit, Offset int
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
// Owner. Epoch counts the acquisitions that changed hands, so a later
// owner can tell its writes from a previous owner's.
type Lease struct {
	Owner   string
	Expires time.Time
	Epoch   int64
}

// Held reports whether the lease is held at now.
func (l Lease) Held(now time.Time) bool { return l.Owner != "" && now.Before(l.Expires) }

// Input is a pending run input: a user message list, a confirm result, an
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
	// CreateSession stores a new session with a fresh uuid4-hex id.
	CreateSession(ctx context.Context, s NewSession) (Record, error)
	GetSession(ctx context.Context, k Key) (Record, error)
	// ListSessions returns one page, newest first, and the total count
	// matching the query.
	ListSessions(ctx context.Context, q ListQuery) (page []Record, total int, err error)
	UpdateSession(ctx context.Context, k Key, p Patch) (Record, error)
	// DeleteSession removes the session with its state, transcript,
	// events, lease and inputs.
	DeleteSession(ctx context.Context, k Key) error
}

// States holds each session's AgentState.
type States interface {
	LoadState(ctx context.Context, k Key) (State, error)
	// SaveState replaces the state when its version is still expected
	// (0 for a session never saved) and returns the new version; a stale
	// expected version is ErrConflict.
	SaveState(ctx context.Context, k Key, expected int64, state json.RawMessage) (version int64, err error)
}

// Transcript holds the UI's message list (not the agent's context, which
// may be compressed).
type Transcript interface {
	// UpsertMessages replaces each message whose id is stored and appends
	// the others, in order, in one transaction.
	UpsertMessages(ctx context.Context, k Key, msgs []Message) error
	ListMessages(ctx context.Context, k Key, q MessageQuery) (MessagePage, error)
}

// EventLog is each session's append-only event log.
type EventLog interface {
	// AppendEvents appends a batch in one transaction and returns the
	// sequence of its first event: event i gets first+i. Sequences start
	// at 1 and have no gaps, whatever the number of concurrent appenders.
	AppendEvents(ctx context.Context, k Key, events []json.RawMessage) (first int64, err error)
	// ReadEvents returns up to limit events with a sequence above after,
	// in order.
	ReadEvents(ctx context.Context, k Key, after int64, limit int) ([]Event, error)
	// LastSeq is the sequence of the last event appended, 0 for none.
	LastSeq(ctx context.Context, k Key) (int64, error)
}

// Leases gives at most one run per session, across every process that
// shares the store.
type Leases interface {
	// AcquireLease claims the session for owner until now+ttl when it is
	// free, expired, or already owner's (then it is renewed). Held by
	// another owner, it is ErrLeased.
	AcquireLease(ctx context.Context, k Key, owner string, ttl time.Duration) (Lease, error)
	// RenewLease extends owner's lease to now+ttl; ErrNotHeld when owner
	// does not hold it (an expired lease not yet taken over is still
	// owner's).
	RenewLease(ctx context.Context, k Key, owner string, ttl time.Duration) (Lease, error)
	// ReleaseLease frees the session; ErrNotHeld when owner does not hold
	// it.
	ReleaseLease(ctx context.Context, k Key, owner string) error
	// GetLease returns the lease as stored; an expired one keeps its
	// owner (see Lease.Held).
	GetLease(ctx context.Context, k Key) (Lease, error)
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

// Inputs is each session's queue of run inputs, persisted before a run
// starts so a crash between accepting one and running it loses nothing.
type Inputs interface {
	// EnqueueInput appends an input and returns its id.
	EnqueueInput(ctx context.Context, k Key, input json.RawMessage) (Input, error)
	// ClaimInput hands owner, who must hold the session's lease, the
	// oldest input not yet done and not already claimed under this lease
	// (same owner and epoch); an input claimed under an earlier lease is
	// handed out again. ErrNoInput when there is none.
	ClaimInput(ctx context.Context, k Key, owner string) (Input, error)
	// CompleteInput marks a claimed input done; ErrNotFound when it does
	// not exist or is done already.
	CompleteInput(ctx context.Context, k Key, id int64) error
	// PendingInputs counts the inputs not yet done.
	PendingInputs(ctx context.Context, k Key) (int, error)
}

// RunStart is what StartRun took and read.
type RunStart struct {
	Lease Lease
	// Input is the input StartRun queued and claimed; zero when Pending
	// is not.
	Input Input
	// Pending counts the inputs that were already waiting (a dead run's
	// leftovers): then StartRun queued nothing.
	Pending int
	// State is the session's state, as LoadState.
	State State
}

// RunWrite is one transaction of a run. Each part is optional; they apply
// in this order, with the semantics and errors of the calls they name.
type RunWrite struct {
	// State, when not nil, is saved as SaveState(StateVersion, State).
	State        json.RawMessage
	StateVersion int64
	// Messages, when any, are upserted as UpsertMessages.
	Messages []Message
	// Events, when any, are appended as AppendEvents.
	Events []json.RawMessage
	// Done, when not 0, is an input marked done as CompleteInput.
	Done int64
	// Release, when not "", is the owner whose lease is freed as
	// ReleaseLease.
	Release string
}

// RunWritten is what WriteRun stored.
type RunWritten struct {
	// First is the sequence of Events[0] (0 without events).
	First int64
	// Version is the state's new version (0 without State).
	Version int64
}

// Runs is the run path in few transactions: a chat's start and each of
// its writes are one transaction each instead of one per call above. A
// write costs tens of microseconds on SQLite and a commit on Postgres,
// and they sit between a POST /chat/ and its first event.
type Runs interface {
	// StartRun acquires the lease for owner, as AcquireLease (ErrLeased
	// when another owner holds it), and reads the state. When no input is
	// pending it also queues input and claims it under that lease, as
	// EnqueueInput then ClaimInput; otherwise it queues nothing and
	// reports Pending, and the caller, holding the lease, deals with the
	// inputs left behind first.
	StartRun(ctx context.Context, k Key, owner string, ttl time.Duration, input json.RawMessage) (RunStart, error)
	// WriteRun stores w in one transaction: all of it, or nothing and an
	// error.
	WriteRun(ctx context.Context, k Key, w RunWrite) (RunWritten, error)
}

// Store is a whole backend. Implementations are safe for concurrent use.
type Store interface {
	Sessions
	States
	Transcript
	EventLog
	Leases
	Inputs
	Runs
	Agents
	// Close releases the backend's resources.
	Close() error
}
