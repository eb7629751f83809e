package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/state"
)

// maxBatch bounds one group commit, and so each frame batch a subscriber
// queues.
const maxBatch = 256

// run is one reply run of one session in this process.
type run struct {
	s      *Server
	key    session.Key
	spec   *Agent
	cancel context.CancelFunc
	ctx    context.Context
	done   chan struct{}
	// started gets nil once the first event is on its way to the log, or
	// the error that stopped the run before any event.
	started chan error
	// firstSeq is the sequence of the run's first event (0 until known).
	firstSeq atomic.Int64
	// closing is set once the agent has finished: the run only stores
	// the reply and state, frees the lease and logs its last events.
	closing atomic.Bool
	// over is set once the run's end is stored, before its last events
	// are published: a stream opened from then on starts from the log's
	// end, after the run, rather than at the run's start.
	over atomic.Bool

	in       runInput
	inputID  int64
	st       *state.AgentState
	version  int64
	renewEnd chan struct{}
	// reply is the fold of the reply's events: the transcript's message,
	// as the reference's service keeps it.
	reply *message.Msg
	meter runMeter
}

// startError is a run that could not start, with its HTTP answer.
type startError struct {
	code int
	msg  string
}

func (e *startError) Error() string { return e.msg }

var errRunning = &startError{http.StatusConflict, "Session is running"}

// startRun claims the session and starts a run for in; it returns once the
// run has emitted its first event (nil), or failed before any (the state
// unchanged). A run that emits nothing (an interrupt with nothing parked)
// also returns nil.
func (s *Server) startRun(key session.Key, spec *Agent, in runInput) error {
	ctx := s.base
	r := &run{s: s, key: key, spec: spec, in: in, done: make(chan struct{}), started: make(chan error, 1), renewEnd: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(ctx)
	s.mu.Lock()
	for {
		prev := s.runs[key]
		switch {
		case s.closed:
			s.mu.Unlock()
			return &startError{http.StatusServiceUnavailable, "server is shutting down"}
		case prev != nil && prev.closing.Load():
			// The previous run has stored everything and is logging its
			// last events: queue behind it rather than refuse.
			s.mu.Unlock()
			<-prev.done
			s.mu.Lock()
			continue
		case prev != nil:
			s.mu.Unlock()
			return errRunning
		}
		break
	}
	s.runs[key] = r
	s.runsWG.Add(1)
	s.mu.Unlock()

	fail := func(err error, leased bool) error {
		if leased {
			if rerr := s.store.ReleaseLease(context.WithoutCancel(ctx), key, s.cfg.Owner); rerr != nil {
				s.log.Warn("server: release lease", "session", key.SessionID, "err", rerr)
			}
		}
		r.cancel()
		s.mu.Lock()
		delete(s.runs, key)
		s.mu.Unlock()
		close(r.done)
		s.runsWG.Done()
		return err
	}
	// One transaction takes the lease, queues the input already claimed
	// and reads the state; when it fails, it has taken nothing.
	payload := in.marshal()
	rs, err := s.store.StartRun(ctx, key, s.cfg.Owner, s.cfg.LeaseTTL, payload)
	if err != nil {
		if errors.Is(err, session.ErrLeased) {
			return fail(errRunning, false)
		}
		return fail(err, false)
	}
	claimed, st := rs.Input, rs.State
	if rs.Pending > 0 {
		// A dead run's leftovers are closed before anything new runs on
		// the session, then the input is queued and claimed the long way.
		if err := s.recoverLeftovers(ctx, key); err != nil {
			return fail(err, true)
		}
		queued, err := s.store.EnqueueInput(ctx, key, payload)
		if err != nil {
			return fail(err, true)
		}
		if claimed, err = s.store.ClaimInput(ctx, key, s.cfg.Owner); err != nil {
			return fail(err, true)
		}
		if claimed.ID != queued.ID {
			return fail(fmt.Errorf("server: claimed input %d, queued %d", claimed.ID, queued.ID), true)
		}
		if st, err = s.store.LoadState(ctx, key); err != nil {
			s.completeInput(key, claimed.ID)
			return fail(err, true)
		}
	}
	r.inputID = claimed.ID
	r.version = st.Version
	if st.JSON == nil {
		r.st = state.New(nil)
		r.st.SessionID = key.SessionID
	} else if r.st, err = state.Decode(st.JSON, nil); err != nil {
		s.completeInput(key, r.inputID)
		return fail(fmt.Errorf("server: stored state: %w", err), true)
	}
	go r.renew()
	go r.exec()
	return <-r.started
}

func (s *Server) completeInput(key session.Key, id int64) {
	if err := s.store.CompleteInput(context.Background(), key, id); err != nil {
		s.log.Warn("server: complete input", "session", key.SessionID, "input", id, "err", err)
	}
}

// renew keeps the lease while the run lasts; a lease lost to another owner
// interrupts the run.
func (r *run) renew() {
	t := time.NewTicker(r.s.cfg.LeaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-r.renewEnd:
			return
		case <-t.C:
			if _, err := r.s.store.RenewLease(context.WithoutCancel(r.ctx), r.key, r.s.cfg.Owner, r.s.cfg.LeaseTTL); err != nil {
				r.s.log.Error("server: renew lease", "session", r.key.SessionID, "err", err)
				if errors.Is(err, session.ErrNotHeld) {
					r.cancel()
				}
			}
		}
	}
}

// checkResume refuses a resume the agent would accept but the reference's
// lax spots let through: a reply id that is not the parked reply's.
func (r *run) checkResume() error {
	var rid string
	switch r.in.kind {
	case inputConfirm:
		rid = r.in.confirm.ReplyID
	case inputExternal:
		rid = r.in.external.ReplyID
	default:
		return nil
	}
	if r.st.HasAwaitingToolCalls(r.spec.Name) && rid != r.st.Reply.ReplyID {
		return &startError{http.StatusUnprocessableEntity, fmt.Sprintf("reply_id %q is not the parked reply (%q)", rid, r.st.Reply.ReplyID)}
	}
	return nil
}

// exec runs the reply, then persists it and frees the session.
func (r *run) exec() {
	s := r.s
	bg := context.WithoutCancel(r.ctx)
	w := newWriter(r)
	var (
		first    = true
		startErr error
		replyID  string
		open     bool // a REPLY_START without its REPLY_END
		ag       *agent.Agent
		res      agent.Result
	)
	defer func() {
		held := w.close()
		r.cancel()
		close(r.renewEnd)
		// The agent is done: a run started here meanwhile waits for this
		// one to end rather than being refused, and an interrupt waits
		// and then reads what was stored.
		r.closing.Store(true)
		if !first {
			// Counted before the last events go out: whoever sees them
			// sees the run counted.
			s.metrics.runEnded(r.key, &r.meter)
		}
		r.finish(bg, ag, !first, held)
		s.mu.Lock()
		delete(s.runs, r.key)
		s.mu.Unlock()
		if first {
			r.started <- startErr
		}
		close(r.done)
		s.runsWG.Done()
	}()
	if err := r.checkResume(); err != nil {
		startErr = err
		return
	}
	var err error
	if ag, err = r.spec.New(r.st); err != nil {
		startErr = fmt.Errorf("server: build agent %s: %w", r.spec.ID, err)
		return
	}
	var seq iter.Seq2[event.Event, error]
	switch r.in.kind {
	case inputMsgs:
		seq = ag.Stream(r.ctx, r.in.msgs, agent.WithResult(&res))
	case inputConfirm:
		seq = ag.Confirm(r.ctx, r.in.confirm, agent.WithResult(&res))
	case inputExternal:
		seq = ag.DeliverExternal(r.ctx, r.in.external, agent.WithResult(&res))
	case inputInterrupt:
		seq = ag.Interrupt(r.ctx, agent.WithResult(&res))
	}
	for ev, err := range seq {
		if err != nil {
			if first {
				startErr = err
				return
			}
			if open {
				end := event.NewReplyEndError(r.st.SessionID, replyID, model.Info(err))
				event.Stamp(end, nil)
				r.out(w, end)
			}
			s.log.Warn("server: reply failed", "session", r.key.SessionID, "reply", replyID, "err", err)
			return
		}
		if first {
			if r.in.kind != inputMsgs {
				replyID, open = r.st.Reply.ReplyID, true
			}
			if err := r.begin(bg, ev, w); err != nil {
				// Nothing of the run is stored: it did not start.
				startErr = err
				return
			}
			first = false
			r.started <- nil
			if !isTerminal(ev) {
				if e, ok := ev.(*event.ReplyStart); ok {
					replyID, open = e.ReplyID, true
				}
				continue // in the first batch
			}
		}
		switch e := ev.(type) {
		case *event.ReplyStart:
			replyID, open = e.ReplyID, true
		case *event.ReplyEnd:
			open = false
		}
		r.out(w, ev)
	}
}

// isTerminal tells the events after which a client may act on the stored
// session: they are logged only once the reply and state are stored.
func isTerminal(e event.Event) bool {
	switch e.(type) {
	case *event.ReplyEnd, *event.RequireUserConfirm, *event.RequireExternalExecution:
		return true
	}
	return false
}

// out folds one event into the reply's message, then queues it for the
// log.
func (r *run) out(w *writer, ev event.Event) {
	r.fold(ev)
	w.emit(ev)
}

// fold applies one event to the reply's message.
func (r *run) fold(ev event.Event) {
	if st, ok := ev.(*event.ReplyStart); ok && (r.reply == nil || r.reply.ID != st.ReplyID) {
		m, err := message.AssistantMsg(st.Name, nil, message.WithID(st.ReplyID), message.WithCreatedAt(st.CreatedAt))
		if err == nil {
			r.reply = m
		}
	}
	if r.reply != nil {
		if err := r.reply.AppendEvent(ev); err != nil {
			r.s.log.Debug("server: fold", "session", r.key.SessionID, "type", ev.Type(), "err", err)
		}
	}
	r.meter.observe(r.s.metrics, ev)
}

// begin runs at the run's first event and writes the first batch itself,
// in one transaction, before the writer takes over: the input messages
// join the transcript, and a resume announces its input and re-opens the
// reply, with the first event unless it is terminal (then the writer holds
// it back as any other).
func (r *run) begin(ctx context.Context, first event.Event, w *writer) error {
	var batch []event.Event
	var msgs []session.Message
	switch r.in.kind {
	case inputMsgs:
		msgs = make([]session.Message, len(r.in.msgs))
		for i, m := range r.in.msgs {
			msgs[i] = session.Message{ID: m.ID, JSON: m.AppendJSON(nil)}
		}
	case inputConfirm:
		batch = append(batch, r.in.confirm)
	case inputExternal:
		batch = append(batch, r.in.external)
	}
	if _, ok := first.(*event.ReplyStart); !ok && r.in.kind != inputMsgs {
		start := &event.ReplyStart{SessionID: r.st.SessionID, ReplyID: r.st.Reply.ReplyID, Name: r.spec.Name, Role: event.RoleAssistant}
		event.Stamp(start, nil)
		batch = append(batch, start)
	}
	if !isTerminal(first) {
		batch = append(batch, first)
	}
	if len(batch) == 0 && len(msgs) == 0 {
		return nil
	}
	js := make([]json.RawMessage, len(batch))
	for i, ev := range batch {
		js[i] = w.encode(ev)
	}
	written, err := r.s.store.WriteRun(ctx, r.key, session.RunWrite{Messages: msgs, Events: js})
	if err != nil {
		return err
	}
	if len(js) > 0 {
		r.firstSeq.CompareAndSwap(0, written.First)
		r.s.hub.publish(r.key, newFrames(written.First, js))
		// The subscribers just woken get the CPU before the agent goes on:
		// with a fast model this goroutine would otherwise run the whole
		// reply before they write the first event to their clients.
		runtime.Gosched()
	}
	// The reply's message is read and folded only now, off the path to
	// the first event.
	if r.in.kind != inputMsgs {
		r.reply = r.storedReply(ctx, r.st.Reply.ReplyID)
	}
	for _, ev := range batch {
		r.fold(ev)
	}
	return nil
}

// storedReply returns the transcript's message of a parked reply (its
// tail), or an empty one to fold into.
func (r *run) storedReply(ctx context.Context, id string) *message.Msg {
	page, err := r.s.store.ListMessages(ctx, r.key, session.MessageQuery{Limit: 4})
	if err == nil {
		for i := len(page.Messages) - 1; i >= 0; i-- {
			if m := page.Messages[i]; m.ID == id {
				var msg message.Msg
				if err := json.Unmarshal(m.JSON, &msg); err == nil {
					return &msg
				}
			}
		}
	}
	m, _ := message.AssistantMsg(r.spec.Name, nil, message.WithID(id))
	return m
}

// finish stores what the run leaves — the state, the reply's message, its
// input done, the lease freed and the events held back — in one
// transaction, then publishes those events: whoever sees them, live or in
// a replay, finds the reply stored and the session free. ran is false for
// a run that emitted nothing (then only its input and lease are settled).
func (r *run) finish(ctx context.Context, ag *agent.Agent, ran bool, held []json.RawMessage) {
	s := r.s
	wr := session.RunWrite{Done: r.inputID, Release: s.cfg.Owner, Events: held}
	if ran {
		if st, err := ag.State(); err != nil {
			s.log.Error("server: state after run", "session", r.key.SessionID, "err", err)
		} else {
			wr.State, wr.StateVersion = st.AppendJSON(nil), r.version
		}
		if r.reply != nil {
			wr.Messages = []session.Message{{ID: r.reply.ID, JSON: r.reply.AppendJSON(nil)}}
		}
	}
	written, err := s.store.WriteRun(ctx, r.key, wr)
	if err == nil {
		// Stored: a stream opened from now on starts after the run.
		r.over.Store(true)
		if len(held) > 0 {
			s.hub.publish(r.key, newFrames(written.First, held))
		}
		return
	}
	// One part failed (a state saved meanwhile, a lease lost): store
	// what can be, each on its own, in the same order.
	s.log.Warn("server: store the run's end", "session", r.key.SessionID, "err", err)
	if wr.State != nil {
		if _, err := s.store.SaveState(ctx, r.key, wr.StateVersion, wr.State); err != nil {
			s.log.Error("server: save state", "session", r.key.SessionID, "err", err)
		}
	}
	if len(wr.Messages) > 0 {
		if err := s.store.UpsertMessages(ctx, r.key, wr.Messages); err != nil {
			s.log.Error("server: save reply", "session", r.key.SessionID, "err", err)
		}
	}
	s.completeInput(r.key, r.inputID)
	if err := s.store.ReleaseLease(ctx, r.key, s.cfg.Owner); err != nil {
		s.log.Warn("server: release lease", "session", r.key.SessionID, "err", err)
	}
	r.over.Store(true)
	if len(held) > 0 && !r.log(ctx, held) {
		s.log.Error("server: the run's last events are lost", "session", r.key.SessionID)
	}
}

// writer is a run's group commit: it takes every event available, appends
// them to the log in one AppendEvents call, then publishes them. The last
// terminal event of a batch (REPLY_END, a park) and whatever follows it
// are kept back, not even logged, until either more events follow or the
// run ends: then the run logs and publishes them with the reply and state
// (finish), so a client that sees a terminal event — live or from a
// replay of the log — finds the reply stored and the session free. The
// events before it are logged at once.
type writer struct {
	r      *run
	ch     chan item
	result chan []json.RawMessage
	failed bool
	// buf is the run goroutine's encoding arena: events are encoded one
	// after another into it, so an event costs no allocation of its own.
	buf []byte
}

type item struct {
	js       []byte
	terminal bool
}

// arenaSize is the size of one encoding arena; a full one is left to the
// events still referring to it and a new one started.
const arenaSize = 64 << 10

func newWriter(r *run) *writer {
	w := &writer{r: r, ch: make(chan item, 4*maxBatch), result: make(chan []json.RawMessage, 1)}
	go w.loop()
	return w
}

// encode returns e's JSON, in the arena (run goroutine only).
func (w *writer) encode(e event.Event) []byte {
	if cap(w.buf)-len(w.buf) < 1024 {
		w.buf = make([]byte, 0, arenaSize)
	}
	start := len(w.buf)
	w.buf = e.AppendJSON(w.buf)
	return w.buf[start:len(w.buf):len(w.buf)]
}

// emit queues one event (blocking while the log is behind).
func (w *writer) emit(e event.Event) {
	w.ch <- item{js: w.encode(e), terminal: isTerminal(e)}
}

// close ends the writer and returns the events it kept back, not logged.
func (w *writer) close() []json.RawMessage {
	close(w.ch)
	return <-w.result
}

func (w *writer) loop() {
	r := w.r
	ctx := context.WithoutCancel(r.ctx)
	var batch, held []json.RawMessage
	for {
		it, ok := <-w.ch
		if !ok {
			w.result <- held
			return
		}
		batch = append(batch[:0], held...)
		held = nil
		last := -1 // index of the batch's last new terminal event
		for {
			if it.terminal {
				last = len(batch)
			}
			batch = append(batch, it.js)
			if len(batch) >= maxBatch {
				break
			}
			select {
			case it, ok = <-w.ch:
			default:
				ok = false
			}
			if !ok {
				break
			}
		}
		if w.failed {
			continue
		}
		// Events held before and followed by new ones are released; the
		// batch's last terminal event waits, with whatever follows it.
		now := batch
		if last >= 0 {
			now, held = batch[:last], append([]json.RawMessage(nil), batch[last:]...)
		}
		if !r.log(ctx, now) {
			w.failed = true
			held = nil
			r.cancel()
		}
	}
}

// log appends a batch and publishes it; false when the store failed.
func (r *run) log(ctx context.Context, batch []json.RawMessage) bool {
	if len(batch) == 0 {
		return true
	}
	first, err := r.s.store.AppendEvents(ctx, r.key, batch)
	if err != nil {
		// Nothing unlogged is ever published.
		r.s.log.Error("server: append events", "session", r.key.SessionID, "err", err)
		return false
	}
	r.firstSeq.CompareAndSwap(0, first)
	r.s.hub.publish(r.key, newFrames(first, batch))
	return true
}
