package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"sync"
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
	e      *Engine
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
	// lastSeq is the sequence of the last event the run logged so far.
	lastSeq atomic.Int64
	// replyID is the reply the run writes, set before started gets nil.
	replyID string
	// closing is set once the agent has finished: the run only stores
	// the reply and state, frees the lease and logs its last events.
	closing atomic.Bool
	// over is set once the run's end is stored, before its last events
	// are published: a stream opened from then on starts from the log's
	// end, after the run, rather than at the run's start.
	over atomic.Bool

	in      Input
	inputID int64
	// lease is the run's, from BeginRun: every write of the run names it.
	lease   session.Lease
	st      *state.AgentState
	version int64
	// created is the session's creation time, which with the version
	// identifies the state kept for the next run.
	created time.Time
	// rest is the session's status before the run (of the state it
	// read): what a run that emits nothing leaves.
	rest     session.Status
	renewEnd chan struct{}
	// open is the run's start while it is not committed (session.RunOpener):
	// its first batch commits with it. opMu orders the run's commit with
	// the hold timer's; unstored is set when the start was never stored
	// (its commit failed): nothing of the run is, so there is nothing to
	// end.
	opMu     sync.Mutex
	open     session.Opening
	holdEnd  *time.Timer
	unstored atomic.Bool
	// reply is the fold of the reply's events: the transcript's message,
	// as the reference's service keeps it.
	reply *message.Msg
	meter runMeter
}

// startRun claims the session and starts a run for in; it returns once the
// run has emitted its first event (nil), or failed before any (the state
// unchanged). A run that emits nothing (an interrupt with nothing parked)
// also returns nil.
//
// There is one way in: the store's BeginRun, one transaction that takes
// the lease (a new epoch), marks the session running, queues the input
// already claimed and reads the state. When a dead run left inputs
// behind, BeginRun claims those instead of queuing; they are closed as
// the rescue closes them (closeLeftovers, ending with the one finish
// every run ends with, which frees the lease), and BeginRun is tried
// again, now with nothing pending.
func (e *Engine) startRun(key session.Key, spec *Agent, in Input, agentID string) (*run, error) {
	ctx := e.base
	r := &run{e: e, key: key, spec: spec, in: in, done: make(chan struct{}), started: make(chan error, 1), renewEnd: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(ctx)
	if err := e.register(r); err != nil {
		r.cancel()
		return nil, err
	}
	fail := func(err error) (*run, error) {
		r.rollback()
		e.unregister(r)
		return nil, err
	}
	begin := session.RunBegin{Owner: e.cfg.Owner, TTL: e.cfg.LeaseTTL, Input: in.marshal(), Known: e.hot.known(key)}
	var rs session.Run
	for attempt := 0; ; attempt++ {
		var err error
		if rs, err = r.beginRun(ctx, begin, agentID); err != nil {
			if errors.Is(err, session.ErrLeased) {
				return fail(errRunning)
			}
			return fail(err)
		}
		if agentID != "" {
			// The session's record came with the run's start (OpenRun):
			// its agent is checked and its permission mode applied here.
			if rs.AgentID != agentID {
				return fail(errAgentNotFound)
			}
			r.spec = withSessionMode(spec, session.Record{Config: rs.Config})
		}
		var kept *state.AgentState
		if rs.State.JSON != nil && begin.Known != 0 {
			e.hot.drop(key) // the state moved elsewhere: what was kept is stale
		}
		if rs.State.JSON == nil && rs.State.Version != 0 {
			// The store left out the state it holds at the version this
			// engine kept: take that one, or read it after all (the kept
			// one was another session's of the same id, or is gone).
			if kept = e.hot.take(key, rs.State.Version, rs.Created); kept == nil || len(rs.Leftovers) > 0 {
				if rs.State, err = e.store.LoadState(ctx, key); err != nil {
					// An open start is dropped; a committed one is left as
					// a crash here leaves it: this owner's next BeginRun
					// takes the lease again and closes the input.
					return fail(err)
				}
				kept = nil
			}
		}
		if len(rs.Leftovers) == 0 {
			r.st = kept
			break
		}
		// The leftovers are closed with runs' own writes: the start is
		// committed first.
		if err := r.commitStart(ctx); err != nil {
			return fail(err)
		}
		if err := e.closeLeftovers(ctx, key, spec.Name, rs); err != nil {
			return fail(err)
		}
		if attempt > 0 {
			// Inputs keep arriving from elsewhere: another process runs
			// the session after all.
			return fail(errRunning)
		}
	}
	r.lease, r.inputID, r.version, r.created = rs.Lease, rs.Input.ID, rs.State.Version, rs.Created
	if len(rs.State.JSON) >= hotMin {
		// A long state takes a while to decode: not while the start holds
		// the store's writer.
		if err := r.commitStart(ctx); err != nil {
			return fail(err)
		}
	}
	switch {
	case r.st != nil:
		// The state this engine kept from the session's last run.
	case rs.State.JSON == nil:
		r.st = state.New(nil)
		r.st.SessionID = key.SessionID
	default:
		var err error
		if r.st, err = state.Decode(rs.State.JSON, nil); err != nil {
			// The input is answered (by this error) and the state left as
			// it is, unreadable: idle is all that can be said of it.
			if cerr := r.commitStart(ctx); cerr != nil {
				return fail(cerr)
			}
			e.finishRun(context.WithoutCancel(ctx), key, rs.Lease, runEnd{done: []int64{r.inputID}, status: session.StatusIdle})
			return fail(fmt.Errorf("engine: stored state: %w", err))
		}
	}
	r.rest = statusOf(r.st, r.spec.Name)
	go r.renew()
	go r.exec()
	if err := <-r.started; err != nil {
		return nil, err
	}
	return r, nil
}

// openHold bounds how long a run's start stays open (session.RunOpener),
// holding the store's writer, while the run gets to its first event: past
// it the start is committed alone and the first batch is a transaction of
// its own, as with a store without RunOpener.
const openHold = 2 * time.Millisecond

// beginRun begins the run: opened when the store can (its first batch
// then commits with it, begin), else with BeginRun. An opened start of a
// session whose agent is not agentID (when given) is dropped at once,
// before its hold could commit it with its input.
func (r *run) beginRun(ctx context.Context, b session.RunBegin, agentID string) (session.Run, error) {
	o, ok := r.e.store.(session.RunOpener)
	if !ok {
		return r.e.store.BeginRun(ctx, r.key, b)
	}
	rs, op, err := o.OpenRun(ctx, r.key, b)
	if err != nil {
		return rs, err
	}
	if agentID != "" && rs.AgentID != agentID {
		// Refused before the hold can commit the start: nothing of it,
		// the input included, is stored.
		if err := op.Rollback(); err != nil {
			r.e.log.Error("engine: drop the run's start", "session", r.key.SessionID, "err", err)
		}
		return rs, errAgentNotFound
	}
	r.opMu.Lock()
	r.open = op
	// Whatever the run does before its first event (a middleware waiting
	// on the network, a slow agent factory), the store's other writers
	// wait no longer than this.
	r.holdEnd = time.AfterFunc(openHold, func() {
		if err := r.commitStart(context.WithoutCancel(r.ctx)); err != nil {
			r.e.log.Error("engine: store the run's start", "session", r.key.SessionID, "err", err)
			r.cancel()
		}
	})
	r.opMu.Unlock()
	return rs, nil
}

// commitOpen commits the run's open start with a (nil: nothing more);
// committed is false when the start was committed already (or the store
// has no RunOpener), and a is then not written. A failed commit leaves
// nothing of the run stored.
func (r *run) commitOpen(ctx context.Context, a session.RunAppend) (first int64, committed bool, err error) {
	r.opMu.Lock()
	defer r.opMu.Unlock()
	if r.open == nil {
		return 0, false, nil
	}
	r.holdEnd.Stop()
	first, err = r.open.Commit(ctx, a)
	r.open = nil
	if err != nil {
		r.unstored.Store(true)
	}
	return first, true, err
}

// commitStart commits the run's start if it is still open.
func (r *run) commitStart(ctx context.Context) error {
	_, _, err := r.commitOpen(ctx, session.RunAppend{})
	return err
}

// rollback drops the run's start if it is still open: nothing of it is
// stored.
func (r *run) rollback() {
	r.opMu.Lock()
	defer r.opMu.Unlock()
	if r.open == nil {
		return
	}
	r.holdEnd.Stop()
	if err := r.open.Rollback(); err != nil {
		r.e.log.Warn("engine: roll back a run's start", "session", r.key.SessionID, "err", err)
	}
	r.open = nil
	r.unstored.Store(true)
}

// register makes r the session's run in this process: it waits for a
// previous run that is only storing its end, and refuses one that still
// runs (errRunning) or a shutdown.
func (e *Engine) register(r *run) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		prev := e.runs[r.key]
		switch {
		case e.closed:
			return errShuttingDown
		case e.draining:
			return errDraining
		case prev != nil && prev.closing.Load():
			// The previous run has stored everything and is logging its
			// last events: queue behind it rather than refuse.
			e.mu.Unlock()
			<-prev.done
			e.mu.Lock()
			continue
		case prev != nil:
			return errRunning
		}
		e.runs[r.key] = r
		e.runsWG.Add(1)
		return nil
	}
}

// unregister ends r's tenure as the session's run.
func (e *Engine) unregister(r *run) {
	r.cancel()
	e.mu.Lock()
	delete(e.runs, r.key)
	e.mu.Unlock()
	close(r.done)
	e.runsWG.Done()
}

// renew keeps the lease while the run lasts; a lease lost to another owner
// interrupts the run, as does an interrupt another replica asked of it
// whose notice did not reach this process (Lease.StopAsked).
func (r *run) renew() {
	t := time.NewTicker(r.e.cfg.LeaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-r.renewEnd:
			return
		case <-t.C:
			l, err := r.e.store.RenewRun(context.WithoutCancel(r.ctx), r.key, r.lease, r.e.cfg.LeaseTTL)
			if err != nil {
				r.e.log.Error("engine: renew lease", "session", r.key.SessionID, "err", err)
				if errors.Is(err, session.ErrNotHeld) {
					r.cancel()
				}
			} else if l.StopAsked {
				r.cancel()
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
		return &InputError{Reason: fmt.Sprintf("reply_id %q is not the parked reply (%q)", rid, r.st.Reply.ReplyID)}
	}
	return nil
}

// exec runs the reply, then persists it and frees the session.
func (r *run) exec() {
	e := r.e
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
		// A run that stopped before its first event ends as any: its start
		// is stored first.
		if err := r.commitStart(bg); err != nil {
			r.e.log.Error("engine: store the run's start", "session", r.key.SessionID, "err", err)
			if first && startErr == nil {
				startErr = err
			}
		}
		// The agent is done: a run started here meanwhile waits for this
		// one to end rather than being refused, and an interrupt waits
		// and then reads what was stored.
		r.closing.Store(true)
		if !first {
			// Counted before the last events go out: whoever sees them
			// sees the run counted.
			e.metrics.runEnded(&r.meter)
		}
		if !r.unstored.Load() {
			r.finish(bg, ag, !first, held)
		}
		e.mu.Lock()
		delete(e.runs, r.key)
		e.mu.Unlock()
		if first {
			r.started <- startErr
		}
		close(r.done)
		e.runsWG.Done()
	}()
	if err := r.checkResume(); err != nil {
		startErr = err
		return
	}
	var err error
	if ag, err = r.spec.New(r.st); err != nil {
		startErr = fmt.Errorf("engine: build agent %s: %w", r.spec.ID, err)
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
				startErr = asInputError(err)
				return
			}
			if open {
				end := event.NewReplyEndError(r.st.SessionID, replyID, model.Info(err))
				event.Stamp(end, nil)
				r.out(w, end)
			}
			e.log.Warn("engine: reply failed", "session", r.key.SessionID, "reply", replyID, "err", err)
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
			if rs, ok := ev.(*event.ReplyStart); ok {
				r.replyID = rs.ReplyID
			} else {
				r.replyID = replyID
			}
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
			r.e.log.Debug("engine: fold", "session", r.key.SessionID, "type", ev.Type(), "err", err)
		}
	}
	r.meter.observe(r.e.metrics, ev)
}

// begin runs at the run's first event and writes the first batch itself,
// in one transaction, before the writer takes over: the input messages
// join the transcript, and a resume announces its input and re-opens the
// reply, with the first event unless it is terminal (then the writer holds
// it back as any other).
func (r *run) begin(ctx context.Context, first event.Event, w *writer) error {
	batch, msgs := r.in.opening(r.st, r.spec.Name, first)
	if !isTerminal(first) {
		batch = append(batch, first)
	}
	js := make([]json.RawMessage, len(batch))
	for i, ev := range batch {
		js[i] = w.encode(ev)
	}
	// With the run's start when it is still open: one transaction.
	seq, committed, err := r.commitOpen(ctx, session.RunAppend{Messages: msgs, Events: js})
	if err != nil {
		return err
	}
	if len(js) == 0 && len(msgs) == 0 {
		return nil
	}
	if !committed {
		if seq, err = r.e.store.AppendRun(ctx, r.key, r.lease, session.RunAppend{Messages: msgs, Events: js}); err != nil {
			return err
		}
	}
	if len(js) > 0 {
		r.firstSeq.CompareAndSwap(0, seq)
		r.lastSeq.Store(seq + int64(len(js)) - 1)
		r.e.hub.publish(r.key, newBatch(seq, js))
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

// opening is what a run for in logs before its first event, first: the
// input messages joining the transcript, and for a resume (or the
// interrupt of a parked reply) the event that answers the park and the
// REPLY_START that re-opens the reply st waits on, unless first is one.
// The rescue of a run that died before logging it logs the same.
func (in Input) opening(st *state.AgentState, name string, first event.Event) ([]event.Event, []session.Message) {
	var batch []event.Event
	var msgs []session.Message
	switch in.kind {
	case inputMsgs:
		msgs = make([]session.Message, len(in.msgs))
		for i, m := range in.msgs {
			msgs[i] = session.Message{ID: m.ID, JSON: m.AppendJSON(nil)}
		}
	case inputConfirm:
		batch = append(batch, in.confirm)
	case inputExternal:
		batch = append(batch, in.external)
	}
	if _, ok := first.(*event.ReplyStart); !ok && in.kind != inputMsgs {
		start := &event.ReplyStart{SessionID: st.SessionID, ReplyID: st.Reply.ReplyID, Name: name, Role: event.RoleAssistant}
		event.Stamp(start, nil)
		batch = append(batch, start)
	}
	return batch, msgs
}

// storedReply returns the transcript's message of a parked reply (its
// tail), or an empty one to fold into.
func (r *run) storedReply(ctx context.Context, id string) *message.Msg {
	page, err := r.e.store.ListMessages(ctx, r.key, session.MessageQuery{Limit: 4})
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
// input done, its status, the lease freed and the events held back — with
// the one finish every run ends with. ran is false for a run that emitted
// nothing (then only its input, status and lease are settled).
func (r *run) finish(ctx context.Context, ag *agent.Agent, ran bool, held []json.RawMessage) {
	end := runEnd{events: held, status: r.rest}
	if r.inputID != 0 {
		end.done = []int64{r.inputID}
	}
	var left *state.AgentState
	if ran {
		if st, err := ag.State(); err != nil {
			r.e.log.Error("engine: state after run", "session", r.key.SessionID, "err", err)
		} else {
			left = st
			end.state, end.version, end.status = st.AppendJSON(nil), r.version, statusOf(st, r.spec.Name)
		}
		end.reply = r.reply
	}
	// Stored: a stream opened from now on starts after the run (set
	// before the last events are published, or a stream opened right
	// after them would replay the finished run). The state stored is
	// kept for the session's next run (a copy: the agent is done with
	// it).
	end.stored = func(first, last, version int64) {
		if last > 0 {
			r.firstSeq.CompareAndSwap(0, first)
			r.lastSeq.Store(last)
		}
		if left != nil && version != 0 {
			r.e.hot.put(r.key, version, r.created, left, int64(len(end.state)))
		} else {
			r.e.hot.drop(r.key)
		}
		r.over.Store(true)
	}
	r.e.finishRun(ctx, r.key, r.lease, end)
}

// runEnd is what a run leaves behind, for finishRun.
type runEnd struct {
	state   json.RawMessage // nil: the state is left as it is
	version int64           // the version state replaces
	reply   *message.Msg    // the reply's message for the transcript, or nil
	// input are the messages of the run's input, stored before the
	// reply, when no write of the run stored them yet (a rescue's).
	input  []session.Message
	done   []int64 // the inputs the run answered
	events []json.RawMessage
	// status is what the session does after the run (of the state it
	// leaves).
	status session.Status
	// stored, when set, is called once the end is stored (or given up
	// on), before its events are published, with the sequences of the
	// first and last of them (0, 0: none, or the end is not stored) and
	// the state's new version (0: no state stored).
	stored func(first, last, version int64)
}

// finishTries bounds the attempts at a run's end; finishBackoff is the
// wait before the second (doubling after).
const (
	finishTries   = 3
	finishBackoff = 50 * time.Millisecond
)

// finishRun is the end of every run, and of the rescue of a dead one: the
// state, the reply, the inputs done, the status, the lease freed and the
// last events, in one transaction (FinishRun), then those events
// published — whoever sees them, live or in a replay, finds the reply
// stored and the session free.
//
// A failed end is tried again when the failure may pass (a store error);
// one the store refused for good (the lease lost to another run, a state
// saved meanwhile) is not. An end never stored leaves what a crash at
// that point leaves, and is closed the same way: the lease expires (or is
// taken by this owner's next run of the session), and the rescue closes
// the reply from the log as interrupted. Nothing is stored part by part:
// a half-stored end (the state without its reply, the reply without its
// events) is what no reader may see.
func (e *Engine) finishRun(ctx context.Context, key session.Key, lease session.Lease, end runEnd) {
	re := session.RunEnd{State: end.state, StateVersion: end.version, Events: end.events, Done: end.done, Status: end.status}
	re.Messages = end.input
	if end.reply != nil {
		re.Messages = append(re.Messages, session.Message{ID: end.reply.ID, JSON: end.reply.AppendJSON(nil)})
	}
	var (
		written session.RunWritten
		err     error
	)
	for attempt := 0; ; attempt++ {
		if written, err = e.store.FinishRun(ctx, key, lease, re); err == nil || attempt == finishTries-1 || !retryable(err) || ctx.Err() != nil {
			break
		}
		e.log.Warn("engine: store the run's end (trying again)", "session", key.SessionID, "err", err)
		time.Sleep(finishBackoff << attempt)
	}
	var first, last, version int64
	if err == nil && len(end.events) > 0 {
		first, last = written.First, written.First+int64(len(end.events))-1
	}
	if err == nil {
		version = written.Version
	}
	if end.stored != nil {
		end.stored(first, last, version)
	}
	if err != nil {
		e.log.Error("engine: the run's end is not stored: the rescue closes the run", "session", key.SessionID, "err", err)
		return
	}
	if len(end.events) > 0 {
		e.hub.publish(key, newBatch(written.First, end.events))
	}
}

// retryable tells a store failure that may pass from one that will not.
func retryable(err error) bool {
	for _, final := range []error{session.ErrNotHeld, session.ErrConflict, session.ErrNotFound, session.ErrInvalid, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, final) {
			return false
		}
	}
	return true
}

// writer is a run's group commit: it takes every event available, appends
// them to the log in one AppendRun call, then publishes them. The last
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
	// end is close's last item: the writer's loop stops there.
	end bool
}

// queues are writers' channels, reused: a channel of 4*maxBatch items is
// 32 KiB to allocate and clear, tens of microseconds before a run's first
// event. A writer's channel is empty when its loop returns it (close's end
// item is the last send of the one goroutine that sends), and close takes
// it from the writer, so no run reaches a channel another run has.
var queues = sync.Pool{New: func() any { return make(chan item, 4*maxBatch) }}

// Encoding arenas: a full one is left to the events still referring to it
// and a new one started, twice the size of the last up to arenaSize. Most
// replies are short (a few events of a few hundred bytes): a run starts
// with a small arena, so it does not make 64 KiB of garbage each time,
// and a long one soon encodes into 64 KiB ones.
const (
	firstArena = 4 << 10
	arenaSize  = 64 << 10
)

func newWriter(r *run) *writer {
	w := &writer{r: r, ch: queues.Get().(chan item), result: make(chan []json.RawMessage, 1)}
	go w.loop(w.ch)
	return w
}

// encode returns e's JSON, in the arena (run goroutine only).
func (w *writer) encode(e event.Event) []byte {
	if cap(w.buf)-len(w.buf) < 1024 {
		w.buf = make([]byte, 0, min(max(2*cap(w.buf), firstArena), arenaSize))
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
	ch := w.ch
	w.ch = nil // an emit after close blocks rather than reach a reused channel
	ch <- item{end: true}
	return <-w.result
}

func (w *writer) loop(ch chan item) {
	r := w.r
	ctx := context.WithoutCancel(r.ctx)
	var batch, held []json.RawMessage
	for ending := false; ; {
		var it item
		if !ending {
			it = <-ch
		}
		if ending || it.end {
			// ch is empty: end was the last item sent.
			queues.Put(ch)
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
			ok := false
			select {
			case it = <-ch:
				ok = !it.end
				ending = it.end
			default:
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

// log appends a batch of the run's to the log, under its lease, and
// publishes it; false when the store failed (or the lease is lost).
func (r *run) log(ctx context.Context, batch []json.RawMessage) bool {
	if len(batch) == 0 {
		return true
	}
	seq, err := r.e.store.AppendRun(ctx, r.key, r.lease, session.RunAppend{Events: batch})
	if err != nil {
		// Nothing unlogged is ever published.
		r.e.log.Error("engine: append events", "session", r.key.SessionID, "err", err)
		return false
	}
	r.firstSeq.CompareAndSwap(0, seq)
	r.lastSeq.Store(seq + int64(len(batch)) - 1)
	r.e.hub.publish(r.key, newBatch(seq, batch))
	return true
}

// asInputError is err as the engine's InputError when the agent refused
// the input (a resume that does not fit the parked reply), else err.
func asInputError(err error) error {
	var ie *agent.InputError
	if errors.As(err, &ie) {
		return &InputError{Reason: ie.Error(), Err: ie}
	}
	return err
}
