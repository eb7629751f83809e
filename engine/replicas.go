package engine

import (
	"context"
	"errors"
	"time"

	"github.com/agentscope-go/agentscope/session"
)

// Several processes on one store (replicas behind a load balancer) share
// what the store keeps: sessions, state, the log, leases and inputs. What
// each holds alone is its runs and its followers; a store that is a
// session.Notifier links those. Each engine listens to the store's
// notices: a session's log grew (another replica's run appended), a run
// here is asked to stop (an interrupt posted to another replica), a
// session was deleted. The followers of a session are woken by the
// first, and their hub reads the log once for all of them; when the
// listener loses its connection, every session followed here is read to
// the end of its log, so nothing appended meanwhile is missed. Nothing
// polls.

// errDraining is every new run's and follower's error while the engine
// drains: another replica takes them.
var errDraining = &Error{Kind: ErrUnavailable, Detail: "server is draining: try another replica", RetryAfter: 1}

// listen starts the engine's listener when the store can notify: it runs
// until Shutdown. It also gives the hub its log reads.
func (e *Engine) listen() {
	e.hub.read = func(ctx context.Context, k session.Key, after int64) ([]Entry, error) {
		evs, err := e.store.ReadEvents(ctx, k, after, replayPage)
		out := make([]Entry, len(evs))
		for i, ev := range evs {
			out[i] = Entry{Seq: ev.Seq, JSON: ev.JSON}
		}
		return out, err
	}
	e.hub.ctx, e.hub.warn = e.base, e.log.Warn
	n, ok := e.store.(session.Notifier)
	if !ok {
		return
	}
	e.notifier = n
	e.bgWG.Add(1)
	go func() {
		defer e.bgWG.Done()
		if err := n.Listen(e.base, e.notice); err != nil && !errors.Is(err, context.Canceled) {
			e.log.Error("engine: listen to the store's notices", "err", err)
		}
	}()
}

// notice takes one notice of the store's (on the listener's goroutine:
// nothing here waits on the store).
func (e *Engine) notice(n session.Notice) {
	e.metrics.notice(n.Kind)
	switch n.Kind {
	case session.NoticeAppended:
		e.hub.announce(n.Key.SessionID, n.Seq)
	case session.NoticeDeleted:
		e.hub.closeSession(n.Key.SessionID)
	case session.NoticeListening:
		// The first time, or again after a loss: whatever was appended
		// while nobody listened is read now.
		e.hub.resync()
	case session.NoticeLost:
		e.log.Warn("engine: lost the store's notices; reconnecting (the followers read the log again then)", "err", n.Err)
	case session.NoticeInterrupt:
		if n.Lease.Owner != e.cfg.Owner {
			return
		}
		e.mu.Lock()
		closed := e.closed
		if !closed {
			e.bgWG.Add(1)
		}
		e.mu.Unlock()
		if closed {
			return
		}
		go func() {
			defer e.bgWG.Done()
			e.interruptFor(n.Key, n.Lease.Epoch)
		}()
	}
}

// interruptFor interrupts, as Interrupt does, what the run of epoch left
// on k, unless a later run began: the interrupt was asked of that run.
func (e *Engine) interruptFor(k session.Key, epoch int64) {
	ctx, cancel := context.WithTimeout(e.base, 30*time.Second)
	defer cancel()
	rec, err := e.store.GetSession(ctx, k)
	if err != nil || rec.Lease.Epoch != epoch {
		return
	}
	if err := e.interrupt(ctx, k, false); err != nil && !errors.Is(err, ErrBusy) && !errors.Is(err, ErrNotFound) {
		e.log.Warn("engine: interrupt asked by another replica", "session", k.SessionID, "err", err)
	}
}

// forwardInterrupt asks the replica whose run holds rec's lease to stop it,
// when that is another process and the store can tell it; handled says
// it was asked.
func (e *Engine) forwardInterrupt(ctx context.Context, k session.Key, rec session.Record) (handled bool, err error) {
	if e.notifier == nil || !rec.Lease.Held(time.Now()) || rec.Lease.Owner == e.cfg.Owner {
		return false, nil
	}
	// The request is kept first, for the owner's next renewal to read:
	// the notice is the fast way, and a broken LISTEN connection loses it.
	if s, ok := e.store.(session.RunStopper); ok {
		switch err := s.AskStop(ctx, k, rec.Lease); {
		case errors.Is(err, session.ErrNotHeld):
			// The run ended meanwhile: the notice still closes what it
			// left (a parked reply), unless a later run began.
		case err != nil:
			return true, storeErr(err)
		}
	}
	n := session.Notice{Kind: session.NoticeInterrupt, Key: k, Lease: rec.Lease}
	if err := e.notifier.Notify(ctx, n); err != nil {
		return true, storeErr(err)
	}
	return true, nil
}

// stopElsewhere asks another replica's run of k to stop and waits up to
// wait for its lease to be released; false when it still runs.
func (e *Engine) stopElsewhere(ctx context.Context, k session.Key, wait time.Duration) (bool, error) {
	rec, err := e.store.GetSession(ctx, k)
	if err != nil {
		return false, storeErr(err)
	}
	if !rec.Lease.Held(time.Now()) {
		return true, nil
	}
	if handled, err := e.forwardInterrupt(ctx, k, rec); !handled || err != nil {
		return false, err
	}
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return false, ctx.Err()
		}
		rec, err := e.store.GetSession(ctx, k)
		if err != nil {
			return false, storeErr(err)
		}
		if !rec.Lease.Held(time.Now()) {
			return true, nil
		}
	}
	return false, nil
}

// Drain stops taking work, for a replica about to go: new runs and new
// followers are ErrUnavailable with a RetryAfter (a load balancer sends
// them to another replica, where they find everything in the store),
// and the runs rescued from dead ones are left to the others. It waits
// for the runs in progress to end on their own, or ctx; the followers
// keep streaming meanwhile. Shutdown then interrupts what is left, and
// ends the followers, who reconnect elsewhere with their last sequence.
func (e *Engine) Drain(ctx context.Context) error {
	e.mu.Lock()
	e.draining = true
	e.mu.Unlock()
	done := make(chan struct{})
	go func() {
		e.runsWG.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Draining reports whether Drain or Shutdown was called: the engine takes
// no new runs.
func (e *Engine) Draining() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.draining || e.closed
}
