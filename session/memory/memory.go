package memory

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/internal/check"
	"github.com/agentscope-go/agentscope/stamp"
)

// Config sets up a Store. The zero value is ready to use.
type Config struct {
	// Now is the clock for timestamps and lease expiry; nil is time.Now.
	Now func() time.Time
	// IDs makes session ids; nil is stamp.Default.
	IDs stamp.Source
}

// Store keeps every session in memory. It is safe for concurrent use.
type Store struct {
	now func() time.Time
	ids stamp.Source

	mu       sync.RWMutex
	sessions map[string]*entry
	created  int64 // creation counter: the order of sessions created in one microsecond
	inputIDs atomic.Int64

	// agents is guarded by mu, like the sessions map: DeleteAgent removes
	// an agent and its sessions under one lock.
	agents       map[session.AgentKey]*agentEntry
	agentCreated int64
}

// entry is one session; its own mutex serializes the operations on it, so
// appenders to different sessions do not contend.
type entry struct {
	mu      sync.Mutex
	deleted bool
	order   int64
	rec     session.Record
	state   session.State
	msgs    []session.Message
	msgIdx  map[string]int
	events  []session.Event
	lease   session.Lease
	inputs  []*input
}

type input struct {
	session.Input
	done       bool
	claimOwner string
	claimEpoch int64
}

var _ session.Store = (*Store)(nil)

// New returns an empty Store.
func New(cfg Config) *Store {
	ids := cfg.IDs
	if ids == nil {
		ids = stamp.Default
	}
	return &Store{now: check.Clock(cfg.Now), ids: ids, sessions: map[string]*entry{}, agents: map[session.AgentKey]*agentEntry{}}
}

// Close does nothing: there is nothing to release.
func (s *Store) Close() error { return nil }

func clone(b []byte) json.RawMessage { return bytes.Clone(b) }

// lock returns the session's entry, locked, or ErrNotFound.
func (s *Store) lock(ctx context.Context, k session.Key) (*entry, error) {
	if err := check.Begin(ctx, k); err != nil {
		return nil, err
	}
	s.mu.RLock()
	e := s.sessions[k.SessionID]
	s.mu.RUnlock()
	if e == nil || e.rec.UserID != k.UserID {
		return nil, fmt.Errorf("session %s: %w", k.SessionID, session.ErrNotFound)
	}
	e.mu.Lock()
	if e.deleted {
		e.mu.Unlock()
		return nil, fmt.Errorf("session %s: %w", k.SessionID, session.ErrNotFound)
	}
	return e, nil
}

func copyRecord(r session.Record) session.Record {
	r.Config = clone(r.Config)
	return r
}

func (s *Store) CreateSession(ctx context.Context, ns session.NewSession) (session.Record, error) {
	if err := ctx.Err(); err != nil {
		return session.Record{}, err
	}
	cfg, err := check.New(ns)
	if err != nil {
		return session.Record{}, err
	}
	now := check.Time(s.now())
	rec := session.Record{
		ID: cmp.Or(ns.ID, s.ids.NewID()), UserID: ns.UserID, AgentID: ns.AgentID, Name: ns.Name,
		Config: clone(cfg), CreatedAt: now, UpdatedAt: now,
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.sessions[rec.ID]; dup {
		return session.Record{}, fmt.Errorf("session %s: %w", rec.ID, session.ErrExists)
	}
	s.created++
	s.sessions[rec.ID] = &entry{rec: rec, order: s.created, msgIdx: map[string]int{}}
	return copyRecord(rec), nil
}

func (s *Store) GetSession(ctx context.Context, k session.Key) (session.Record, error) {
	e, err := s.lock(ctx, k)
	if err != nil {
		return session.Record{}, err
	}
	defer e.mu.Unlock()
	return copyRecord(e.rec), nil
}

func (s *Store) ListSessions(ctx context.Context, q session.ListQuery) ([]session.Record, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if err := check.List(q); err != nil {
		return nil, 0, err
	}
	type row struct {
		rec   session.Record
		order int64
	}
	var rows []row
	s.mu.RLock()
	for _, e := range s.sessions {
		e.mu.Lock()
		if !e.deleted && e.rec.UserID == q.UserID && (q.AgentID == "" || e.rec.AgentID == q.AgentID) {
			rows = append(rows, row{copyRecord(e.rec), e.order})
		}
		e.mu.Unlock()
	}
	s.mu.RUnlock()
	slices.SortFunc(rows, func(a, b row) int {
		if c := b.rec.CreatedAt.Compare(a.rec.CreatedAt); c != 0 {
			return c
		}
		return int(b.order - a.order)
	})
	total := len(rows)
	rows = rows[min(q.Offset, len(rows)):]
	if q.Limit > 0 && len(rows) > q.Limit {
		rows = rows[:q.Limit]
	}
	out := make([]session.Record, len(rows))
	for i, r := range rows {
		out[i] = r.rec
	}
	return out, total, nil
}

func (s *Store) UpdateSession(ctx context.Context, k session.Key, p session.Patch) (session.Record, error) {
	if err := check.Patch(p); err != nil {
		return session.Record{}, err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return session.Record{}, err
	}
	defer e.mu.Unlock()
	if p.Name != nil {
		e.rec.Name = *p.Name
	}
	if p.Config != nil {
		e.rec.Config = clone(p.Config)
	}
	e.rec.UpdatedAt = check.Time(s.now())
	return copyRecord(e.rec), nil
}

func (s *Store) DeleteSession(ctx context.Context, k session.Key) error {
	e, err := s.lock(ctx, k)
	if err != nil {
		return err
	}
	e.deleted = true
	e.mu.Unlock()
	s.mu.Lock()
	if s.sessions[k.SessionID] == e {
		delete(s.sessions, k.SessionID)
	}
	s.mu.Unlock()
	return nil
}

func (s *Store) LoadState(ctx context.Context, k session.Key) (session.State, error) {
	e, err := s.lock(ctx, k)
	if err != nil {
		return session.State{}, err
	}
	defer e.mu.Unlock()
	return session.State{JSON: clone(e.state.JSON), Version: e.state.Version}, nil
}

func (s *Store) SaveState(ctx context.Context, k session.Key, expected int64, st json.RawMessage) (int64, error) {
	if err := check.JSON("state", st); err != nil {
		return 0, err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return 0, err
	}
	defer e.mu.Unlock()
	if e.state.Version != expected {
		return 0, fmt.Errorf("session %s: state is at version %d, not %d: %w", k.SessionID, e.state.Version, expected, session.ErrConflict)
	}
	e.state = session.State{JSON: clone(st), Version: expected + 1}
	e.rec.UpdatedAt = check.Time(s.now())
	return e.state.Version, nil
}

func (s *Store) UpsertMessages(ctx context.Context, k session.Key, msgs []session.Message) error {
	if err := check.Messages(msgs); err != nil {
		return err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return err
	}
	defer e.mu.Unlock()
	for _, m := range msgs {
		m = session.Message{ID: m.ID, JSON: clone(m.JSON)}
		if i, ok := e.msgIdx[m.ID]; ok {
			e.msgs[i] = m
			continue
		}
		e.msgIdx[m.ID] = len(e.msgs)
		e.msgs = append(e.msgs, m)
	}
	return nil
}

func (s *Store) ListMessages(ctx context.Context, k session.Key, q session.MessageQuery) (session.MessagePage, error) {
	if err := check.Limit(q.Limit); err != nil {
		return session.MessagePage{}, err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return session.MessagePage{}, err
	}
	defer e.mu.Unlock()
	end := len(e.msgs)
	if q.Before != "" {
		i, ok := e.msgIdx[q.Before]
		if !ok {
			return session.MessagePage{}, fmt.Errorf("message %s: %w", q.Before, session.ErrNotFound)
		}
		end = i
	}
	start := max(0, end-q.Limit)
	page := session.MessagePage{Messages: make([]session.Message, 0, end-start), HasMore: start > 0}
	for _, m := range e.msgs[start:end] {
		page.Messages = append(page.Messages, session.Message{ID: m.ID, JSON: clone(m.JSON)})
	}
	return page, nil
}

func (s *Store) AppendEvents(ctx context.Context, k session.Key, events []json.RawMessage) (int64, error) {
	if err := check.Events(events); err != nil {
		return 0, err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return 0, err
	}
	defer e.mu.Unlock()
	first := int64(len(e.events)) + 1
	for i, ev := range events {
		e.events = append(e.events, session.Event{Seq: first + int64(i), JSON: clone(ev)})
	}
	return first, nil
}

func (s *Store) ReadEvents(ctx context.Context, k session.Key, after int64, limit int) ([]session.Event, error) {
	if err := check.Limit(limit); err != nil {
		return nil, err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return nil, err
	}
	defer e.mu.Unlock()
	// Sequences are 1..n in order, so event seq lives at index seq-1.
	start := min(max(after, 0), int64(len(e.events)))
	end := min(start+int64(limit), int64(len(e.events)))
	out := make([]session.Event, 0, end-start)
	for _, ev := range e.events[start:end] {
		out = append(out, session.Event{Seq: ev.Seq, JSON: clone(ev.JSON)})
	}
	return out, nil
}

func (s *Store) LastSeq(ctx context.Context, k session.Key) (int64, error) {
	e, err := s.lock(ctx, k)
	if err != nil {
		return 0, err
	}
	defer e.mu.Unlock()
	return int64(len(e.events)), nil
}

func (s *Store) AcquireLease(ctx context.Context, k session.Key, owner string, ttl time.Duration) (session.Lease, error) {
	if err := check.Lease(owner, ttl); err != nil {
		return session.Lease{}, err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return session.Lease{}, err
	}
	defer e.mu.Unlock()
	if err := e.take(k, owner, ttl, s.now()); err != nil {
		return session.Lease{}, err
	}
	return e.lease, nil
}

// take gives e's lease to owner until now+ttl, unless another owner holds
// it (e.mu held); a new owner starts a new epoch.
func (e *entry) take(k session.Key, owner string, ttl time.Duration, now time.Time) error {
	now = check.Time(now)
	if e.lease.Owner != owner {
		if e.lease.Held(now) {
			return check.Leased(k, e.lease)
		}
		e.lease.Owner = owner
		e.lease.Epoch++
	}
	e.lease.Expires = check.Time(now.Add(ttl))
	return nil
}

func (s *Store) RenewLease(ctx context.Context, k session.Key, owner string, ttl time.Duration) (session.Lease, error) {
	if err := check.Lease(owner, ttl); err != nil {
		return session.Lease{}, err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return session.Lease{}, err
	}
	defer e.mu.Unlock()
	if e.lease.Owner != owner {
		return session.Lease{}, fmt.Errorf("session %s: %w", k.SessionID, session.ErrNotHeld)
	}
	e.lease.Expires = check.Time(s.now().Add(ttl))
	return e.lease, nil
}

func (s *Store) ReleaseLease(ctx context.Context, k session.Key, owner string) error {
	if err := check.Owner(owner); err != nil {
		return err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return err
	}
	defer e.mu.Unlock()
	if e.lease.Owner != owner {
		return fmt.Errorf("session %s: %w", k.SessionID, session.ErrNotHeld)
	}
	e.lease.Owner, e.lease.Expires = "", time.Time{}
	return nil
}

func (s *Store) GetLease(ctx context.Context, k session.Key) (session.Lease, error) {
	e, err := s.lock(ctx, k)
	if err != nil {
		return session.Lease{}, err
	}
	defer e.mu.Unlock()
	return e.lease, nil
}

func (s *Store) Recoverable(ctx context.Context, limit int) ([]session.Key, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := check.Limit(limit); err != nil {
		return nil, err
	}
	now := check.Time(s.now())
	type row struct {
		k     session.Key
		order int64
	}
	var rows []row
	s.mu.RLock()
	for _, e := range s.sessions {
		e.mu.Lock()
		if !e.deleted && !e.lease.Held(now) && (e.lease.Owner != "" || pending(e) > 0) {
			rows = append(rows, row{session.Key{UserID: e.rec.UserID, SessionID: e.rec.ID}, e.order})
		}
		e.mu.Unlock()
	}
	s.mu.RUnlock()
	slices.SortFunc(rows, func(a, b row) int { return int(a.order - b.order) })
	out := make([]session.Key, 0, min(limit, len(rows)))
	for _, r := range rows[:min(limit, len(rows))] {
		out = append(out, r.k)
	}
	return out, nil
}

// complete marks in done and drops it from the queue: a done input is
// never handed out or completed again, and a queue that kept them would
// make every later call walk all of a session's past inputs.
func (e *entry) complete(in *input) {
	in.done = true
	e.inputs = slices.DeleteFunc(e.inputs, func(x *input) bool { return x == in })
}

func pending(e *entry) int {
	n := 0
	for _, in := range e.inputs {
		if !in.done {
			n++
		}
	}
	return n
}

func (s *Store) EnqueueInput(ctx context.Context, k session.Key, raw json.RawMessage) (session.Input, error) {
	if err := check.JSON("input", raw); err != nil {
		return session.Input{}, err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return session.Input{}, err
	}
	defer e.mu.Unlock()
	in := &input{Input: session.Input{ID: s.inputIDs.Add(1), JSON: clone(raw), CreatedAt: check.Time(s.now())}}
	e.inputs = append(e.inputs, in)
	out := in.Input
	out.JSON = clone(raw)
	return out, nil
}

func (s *Store) ClaimInput(ctx context.Context, k session.Key, owner string) (session.Input, error) {
	if err := check.Owner(owner); err != nil {
		return session.Input{}, err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return session.Input{}, err
	}
	defer e.mu.Unlock()
	if !e.lease.Held(check.Time(s.now())) || e.lease.Owner != owner {
		return session.Input{}, fmt.Errorf("session %s: %w", k.SessionID, session.ErrNotHeld)
	}
	for _, in := range e.inputs {
		if in.done || (in.claimOwner == owner && in.claimEpoch == e.lease.Epoch) {
			continue
		}
		in.claimOwner, in.claimEpoch = owner, e.lease.Epoch
		in.Attempts++
		out := in.Input
		out.JSON = clone(in.JSON)
		return out, nil
	}
	return session.Input{}, fmt.Errorf("session %s: %w", k.SessionID, session.ErrNoInput)
}

func (s *Store) CompleteInput(ctx context.Context, k session.Key, id int64) error {
	e, err := s.lock(ctx, k)
	if err != nil {
		return err
	}
	defer e.mu.Unlock()
	for _, in := range e.inputs {
		if in.ID == id && !in.done && in.Attempts > 0 {
			e.complete(in)
			return nil
		}
	}
	return fmt.Errorf("input %d: %w", id, session.ErrNotFound)
}

func (s *Store) PendingInputs(ctx context.Context, k session.Key) (int, error) {
	e, err := s.lock(ctx, k)
	if err != nil {
		return 0, err
	}
	defer e.mu.Unlock()
	return pending(e), nil
}

func (s *Store) StartRun(ctx context.Context, k session.Key, owner string, ttl time.Duration, raw json.RawMessage) (session.RunStart, error) {
	if err := check.Lease(owner, ttl); err != nil {
		return session.RunStart{}, err
	}
	if err := check.JSON("input", raw); err != nil {
		return session.RunStart{}, err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return session.RunStart{}, err
	}
	defer e.mu.Unlock()
	now := check.Time(s.now())
	if err := e.take(k, owner, ttl, now); err != nil {
		return session.RunStart{}, err
	}
	rs := session.RunStart{Lease: e.lease, Pending: pending(e), State: session.State{JSON: clone(e.state.JSON), Version: e.state.Version}}
	if rs.Pending > 0 {
		return rs, nil
	}
	in := &input{Input: session.Input{ID: s.inputIDs.Add(1), JSON: clone(raw), CreatedAt: now, Attempts: 1}, claimOwner: owner, claimEpoch: e.lease.Epoch}
	e.inputs = append(e.inputs, in)
	rs.Input = in.Input
	rs.Input.JSON = clone(raw)
	return rs, nil
}

func (s *Store) WriteRun(ctx context.Context, k session.Key, w session.RunWrite) (session.RunWritten, error) {
	if err := check.RunWrite(w); err != nil {
		return session.RunWritten{}, err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return session.RunWritten{}, err
	}
	defer e.mu.Unlock()
	// Every part is checked before any is applied: all or nothing.
	if w.State != nil && e.state.Version != w.StateVersion {
		return session.RunWritten{}, fmt.Errorf("session %s: state is at version %d, not %d: %w", k.SessionID, e.state.Version, w.StateVersion, session.ErrConflict)
	}
	var done *input
	if w.Done != 0 {
		for _, in := range e.inputs {
			if in.ID == w.Done && !in.done && in.Attempts > 0 {
				done = in
			}
		}
		if done == nil {
			return session.RunWritten{}, fmt.Errorf("input %d: %w", w.Done, session.ErrNotFound)
		}
	}
	if w.Release != "" && e.lease.Owner != w.Release {
		return session.RunWritten{}, fmt.Errorf("session %s: %w", k.SessionID, session.ErrNotHeld)
	}
	var out session.RunWritten
	if w.State != nil {
		e.state = session.State{JSON: clone(w.State), Version: w.StateVersion + 1}
		e.rec.UpdatedAt = check.Time(s.now())
		out.Version = e.state.Version
	}
	for _, m := range w.Messages {
		m = session.Message{ID: m.ID, JSON: clone(m.JSON)}
		if i, ok := e.msgIdx[m.ID]; ok {
			e.msgs[i] = m
			continue
		}
		e.msgIdx[m.ID] = len(e.msgs)
		e.msgs = append(e.msgs, m)
	}
	if len(w.Events) > 0 {
		out.First = int64(len(e.events)) + 1
		for i, ev := range w.Events {
			e.events = append(e.events, session.Event{Seq: out.First + int64(i), JSON: clone(ev)})
		}
	}
	if done != nil {
		e.complete(done)
	}
	if w.Release != "" {
		e.lease.Owner, e.lease.Expires = "", time.Time{}
	}
	return out, nil
}
