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
	status  session.Status
	runSeq  int64
	inputs  []*input
}

type input struct {
	session.Input
	done bool
}

// record is e's row as the store returns it (e.mu held).
func (e *entry) record() session.Record {
	r := copyRecord(e.rec)
	r.Status, r.Lease, r.RunSeq, r.LastSeq, r.Order = e.status, e.lease, e.runSeq, int64(len(e.events)), e.order
	return r
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
	e := &entry{rec: rec, order: s.created, msgIdx: map[string]int{}, status: session.StatusIdle}
	s.sessions[rec.ID] = e
	return e.record(), nil
}

func (s *Store) GetSession(ctx context.Context, k session.Key) (session.Record, error) {
	e, err := s.lock(ctx, k)
	if err != nil {
		return session.Record{}, err
	}
	defer e.mu.Unlock()
	return e.record(), nil
}

func (s *Store) ListSessions(ctx context.Context, q session.ListQuery) ([]session.Record, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if err := check.List(q); err != nil {
		return nil, 0, err
	}
	var rows []session.Record
	total := 0
	s.mu.RLock()
	for _, e := range s.sessions {
		e.mu.Lock()
		if !e.deleted && e.rec.UserID == q.UserID && (q.AgentID == "" || e.rec.AgentID == q.AgentID) {
			total++
			if q.After == nil || q.After.Precedes(e.rec.CreatedAt, e.order) {
				rows = append(rows, e.record())
			}
		}
		e.mu.Unlock()
	}
	s.mu.RUnlock()
	slices.SortFunc(rows, func(a, b session.Record) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.Order, a.Order)
	})
	rows = rows[min(q.Offset, len(rows)):]
	if q.Limit > 0 && len(rows) > q.Limit {
		rows = rows[:q.Limit]
	}
	return slices.Clone(rows), total, nil
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
	return e.record(), nil
}

func (s *Store) FillStatus(ctx context.Context, k session.Key, st session.Status) error {
	if err := check.Status(st); err != nil {
		return err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return err
	}
	defer e.mu.Unlock()
	if e.status == session.StatusUnknown || (e.status == session.StatusRunning && e.lease.Owner == "") {
		e.status = st
	}
	return nil
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

func (s *Store) PendingInputs(ctx context.Context, k session.Key) (int, error) {
	e, err := s.lock(ctx, k)
	if err != nil {
		return 0, err
	}
	defer e.mu.Unlock()
	return pending(e), nil
}

// upsert writes msgs into the transcript (e.mu held).
func (e *entry) upsert(msgs []session.Message) {
	for _, m := range msgs {
		m = session.Message{ID: m.ID, JSON: clone(m.JSON)}
		if i, ok := e.msgIdx[m.ID]; ok {
			e.msgs[i] = m
			continue
		}
		e.msgIdx[m.ID] = len(e.msgs)
		e.msgs = append(e.msgs, m)
	}
}

// appendEvents appends to the log and returns the first sequence, 0 for
// none (e.mu held).
func (e *entry) appendEvents(events []json.RawMessage) int64 {
	if len(events) == 0 {
		return 0
	}
	first := int64(len(e.events)) + 1
	for i, ev := range events {
		e.events = append(e.events, session.Event{Seq: first + int64(i), JSON: clone(ev)})
	}
	return first
}

// held refuses a write of a run whose lease is not the session's (e.mu
// held).
func (e *entry) held(k session.Key, l session.Lease) error {
	if e.lease.Owner != l.Owner || e.lease.Epoch != l.Epoch {
		return fmt.Errorf("session %s: %w", k.SessionID, session.ErrNotHeld)
	}
	return nil
}

func (s *Store) BeginRun(ctx context.Context, k session.Key, b session.RunBegin) (session.Run, error) {
	if err := check.RunBegin(b); err != nil {
		return session.Run{}, err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return session.Run{}, err
	}
	defer e.mu.Unlock()
	now := check.Time(s.now())
	if e.lease.Owner != b.Owner && e.lease.Held(now) {
		return session.Run{}, check.Leased(k, e.lease)
	}
	e.lease = session.Lease{Owner: b.Owner, Expires: check.Time(now.Add(b.TTL)), Epoch: e.lease.Epoch + 1}
	e.status, e.runSeq = session.StatusRunning, int64(len(e.events))
	run := session.Run{Lease: e.lease, State: session.State{Version: e.state.Version}, Created: e.rec.CreatedAt}
	if b.Known == 0 || b.Known != e.state.Version {
		run.State.JSON = clone(e.state.JSON)
	}
	for _, in := range e.inputs {
		if !in.done {
			in.Attempts++
			out := in.Input
			out.JSON = clone(in.JSON)
			run.Leftovers = append(run.Leftovers, out)
		}
	}
	if len(run.Leftovers) == 0 && b.Input != nil {
		in := &input{Input: session.Input{ID: s.inputIDs.Add(1), JSON: clone(b.Input), CreatedAt: now, Attempts: 1}}
		e.inputs = append(e.inputs, in)
		run.Input = in.Input
		run.Input.JSON = clone(b.Input)
	}
	return run, nil
}

func (s *Store) AppendRun(ctx context.Context, k session.Key, l session.Lease, a session.RunAppend) (int64, error) {
	if err := check.RunAppend(l, a); err != nil {
		return 0, err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return 0, err
	}
	defer e.mu.Unlock()
	if err := e.held(k, l); err != nil {
		return 0, err
	}
	e.upsert(a.Messages)
	return e.appendEvents(a.Events), nil
}

func (s *Store) RenewRun(ctx context.Context, k session.Key, l session.Lease, ttl time.Duration) (session.Lease, error) {
	if err := check.RunLease(l); err != nil {
		return session.Lease{}, err
	}
	if err := check.TTL(ttl); err != nil {
		return session.Lease{}, err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return session.Lease{}, err
	}
	defer e.mu.Unlock()
	if err := e.held(k, l); err != nil {
		return session.Lease{}, err
	}
	e.lease.Expires = check.Time(s.now().Add(ttl))
	return e.lease, nil
}

func (s *Store) FinishRun(ctx context.Context, k session.Key, l session.Lease, end session.RunEnd) (session.RunWritten, error) {
	if err := check.RunEnd(l, end); err != nil {
		return session.RunWritten{}, err
	}
	e, err := s.lock(ctx, k)
	if err != nil {
		return session.RunWritten{}, err
	}
	defer e.mu.Unlock()
	// Every part is checked before any is applied: all or nothing.
	if err := e.held(k, l); err != nil {
		return session.RunWritten{}, err
	}
	if end.State != nil && e.state.Version != end.StateVersion {
		return session.RunWritten{}, fmt.Errorf("session %s: state is at version %d, not %d: %w", k.SessionID, e.state.Version, end.StateVersion, session.ErrConflict)
	}
	done := make([]*input, 0, len(end.Done))
	for _, id := range end.Done {
		i := slices.IndexFunc(e.inputs, func(in *input) bool { return in.ID == id && !in.done && in.Attempts > 0 })
		if i < 0 || slices.Contains(done, e.inputs[i]) {
			return session.RunWritten{}, fmt.Errorf("input %d: %w", id, session.ErrNotFound)
		}
		done = append(done, e.inputs[i])
	}
	var out session.RunWritten
	if end.State != nil {
		e.state = session.State{JSON: clone(end.State), Version: end.StateVersion + 1}
		e.rec.UpdatedAt = check.Time(s.now())
		out.Version = e.state.Version
	}
	e.upsert(end.Messages)
	out.First = e.appendEvents(end.Events)
	for _, in := range done {
		e.complete(in)
	}
	e.lease.Owner, e.lease.Expires = "", time.Time{}
	e.status = end.Status
	return out, nil
}
