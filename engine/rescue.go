package engine

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/state"
)

// crashNotice is the text of the result the engine gives a tool call its
// dead run left unanswered.
const crashNotice = "The server stopped while this tool call was running; it was interrupted."

// replayPage is how many logged events one read of the log takes.
const replayPage = 1000

// rescueAll closes what dead runs left behind: every session the store
// reports with no live lease and an input not done or a lease never
// released.
func (e *Engine) rescueAll(ctx context.Context) {
	keys, err := e.store.Recoverable(ctx, 100)
	if err != nil {
		e.log.Error("engine: list recoverable sessions", "err", err)
		return
	}
	for _, k := range keys {
		if err := e.rescue(ctx, k); err != nil && !errors.Is(err, ErrBusy) {
			e.log.Error("engine: rescue", "session", k.SessionID, "err", err)
		}
	}
}

// rescueOwn closes, at start, the runs this owner's previous incarnation
// left: their leases are this owner's and were never released, and no run
// of this process has started yet, so every one of them died with that
// process. They are closed at once instead of when their leases expire
// (which the periodic rescue would wait for). A session the rescue cannot
// close is left to the periodic rescue.
func (e *Engine) rescueOwn(ctx context.Context) {
	tried := map[session.Key]bool{}
	for {
		keys, err := e.store.HeldBy(ctx, e.cfg.Owner, 100)
		if err != nil {
			e.log.Error("engine: list the sessions this owner holds", "owner", e.cfg.Owner, "err", err)
			return
		}
		progress := false
		for _, k := range keys {
			if tried[k] {
				continue
			}
			tried[k], progress = true, true
			if err := e.rescue(ctx, k); err != nil && !errors.Is(err, ErrBusy) {
				e.log.Error("engine: rescue", "session", k.SessionID, "err", err)
			}
		}
		if !progress {
			return
		}
	}
}

// rescue claims one session, closes its leftovers and frees it. It takes
// the session's place in this process as a run does, so no run starts
// on it meanwhile.
func (e *Engine) rescue(ctx context.Context, k session.Key) error {
	r := &run{e: e, key: k, done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(ctx)
	if err := e.register(r); err != nil {
		r.cancel()
		return err
	}
	defer e.unregister(r)
	if _, err := e.store.AcquireLease(ctx, k, e.cfg.Owner, e.cfg.LeaseTTL); err != nil {
		if errors.Is(err, session.ErrLeased) {
			return errRunning
		}
		return err
	}
	return e.closeLeftovers(ctx, k)
}

// closeLeftovers runs under the session's lease before anything else
// does: it takes the inputs a dead run left. One claimed before (its run
// died) has its reply closed as interrupted; one never claimed (the
// process died before its run started, and its client got no answer) is
// dropped. Neither is run again, so no tool runs twice. It ends as every
// run does (finishRun), the lease freed, whether there was anything to
// close or not.
func (e *Engine) closeLeftovers(ctx context.Context, k session.Key) error {
	// A read first: almost always there is nothing left, and a claim is a
	// write.
	n, err := e.store.PendingInputs(ctx, k)
	if err != nil {
		return err
	}
	if n == 0 {
		e.finishRun(ctx, k, runEnd{})
		return nil
	}
	// Inputs claimed under this very lease (same owner, same epoch) are
	// not handed out again. A process restarted with its predecessor's
	// owner (serve's host and address) acquires that dead run's unexpired
	// lease as its own and would not see its claim, so the lease is taken
	// anew: freed and acquired again, it gets a new epoch, and the dead
	// run's claim is an earlier lease's. No run of this process holds the
	// session here (the caller registered itself in e.runs first).
	if err := e.store.ReleaseLease(ctx, k, e.cfg.Owner); err != nil {
		return err
	}
	if _, err := e.store.AcquireLease(ctx, k, e.cfg.Owner, e.cfg.LeaseTTL); err != nil {
		if errors.Is(err, session.ErrLeased) {
			return errRunning
		}
		return err
	}
	var crashed *session.Input
	for {
		in, err := e.store.ClaimInput(ctx, k, e.cfg.Owner)
		if errors.Is(err, session.ErrNoInput) {
			break
		}
		if err != nil {
			return err
		}
		if in.Attempts <= 1 {
			if err := e.store.CompleteInput(ctx, k, in.ID); err != nil {
				return err
			}
			continue
		}
		// Claimed before: its run died. The last such input's reply is the
		// one the log leaves open; it is done with in the finish below,
		// an earlier one now.
		if crashed != nil {
			if err := e.store.CompleteInput(ctx, k, crashed.ID); err != nil {
				return err
			}
		}
		crashed = &in
	}
	if crashed == nil {
		e.finishRun(ctx, k, runEnd{})
		return nil
	}
	e.log.Warn("engine: closing a reply whose run died", "session", k.SessionID, "input", crashed.ID)
	end, err := e.closeDangling(ctx, k, crashed.JSON)
	if err != nil {
		return err
	}
	end.done = crashed.ID
	e.finishRun(ctx, k, end)
	return nil
}

// closeDangling is the end of the last reply of the log when its run died
// in the middle: it rebuilds the reply's message by folding its events,
// and agent.CloseCut answers its open tool calls as interrupted and ends
// it with REPLY_END(interrupted) in the saved state. A reply that ended or
// parked leaves nothing to close (an empty end).
func (e *Engine) closeDangling(ctx context.Context, k session.Key, rawInput json.RawMessage) (runEnd, error) {
	var (
		replyID, name, sessionID, created string
		events                            []event.Event
		lastType                          event.Type
	)
	for after := int64(0); ; {
		page, err := e.store.ReadEvents(ctx, k, after, replayPage)
		if err != nil {
			return runEnd{}, err
		}
		for _, ev := range page {
			after = ev.Seq
			dec, err := event.Decode(ev.JSON)
			if err != nil {
				continue
			}
			if st, ok := dec.(*event.ReplyStart); ok && st.ReplyID != replyID {
				replyID, name, sessionID, created, events = st.ReplyID, st.Name, st.SessionID, st.CreatedAt, nil
			}
			if rid, ok := event.ReplyIDOf(dec); ok && rid == replyID && replyID != "" {
				events = append(events, dec)
				lastType = dec.Type()
			}
		}
		if len(page) < replayPage {
			break
		}
	}
	switch lastType {
	case "", event.TypeReplyEnd, event.TypeRequireUserConfirm, event.TypeRequireExternalExecution:
		return runEnd{}, nil // the last reply ended or parked: nothing is open
	}
	reply, err := message.AssistantMsg(name, nil, message.WithID(replyID), message.WithCreatedAt(created))
	if err != nil {
		return runEnd{}, err
	}
	for _, ev := range events {
		if _, ok := ev.(*event.ReplyStart); ok {
			continue
		}
		if err := reply.AppendEvent(ev); err != nil {
			e.log.Warn("engine: fold a dead run's event", "session", k.SessionID, "type", ev.Type(), "err", err)
		}
	}
	saved, err := e.store.LoadState(ctx, k)
	if err != nil {
		return runEnd{}, err
	}
	st := state.New(nil)
	st.SessionID = k.SessionID
	if saved.JSON != nil {
		if st, err = state.Decode(saved.JSON, nil); err != nil {
			return runEnd{}, err
		}
	}
	var input []*message.Msg
	if in, err := parseInput(rawInput, true); err == nil && in.kind == inputMsgs {
		input = in.msgs
	}
	if st.SessionID == "" {
		st.SessionID = sessionID
	}
	closing, err := agent.CloseCut(st, reply, input, crashNotice)
	if err != nil {
		return runEnd{}, err
	}
	batch := make([]json.RawMessage, len(closing))
	for i, ev := range closing {
		batch[i] = ev.AppendJSON(nil)
	}
	return runEnd{state: st.AppendJSON(nil), version: saved.Version, reply: reply, events: batch}, nil
}
