package server

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

// crashNotice is the text of the result the server gives a tool call its
// dead run left unanswered.
const crashNotice = "The server stopped while this tool call was running; it was interrupted."

// rescueAll closes what dead runs left behind: every session the store
// reports with no live lease and an input not done or a lease never
// released.
func (s *Server) rescueAll(ctx context.Context) {
	keys, err := s.store.Recoverable(ctx, 100)
	if err != nil {
		s.log.Error("server: list recoverable sessions", "err", err)
		return
	}
	for _, k := range keys {
		if err := s.rescue(ctx, k); err != nil && !errors.Is(err, errRunning) {
			s.log.Error("server: rescue", "session", k.SessionID, "err", err)
		}
	}
}

// rescueOwn closes, at start, the runs this owner's previous incarnation
// left: their leases are this owner's and were never released, and no run
// of this process has started yet, so every one of them died with that
// process. They are closed at once instead of when their leases expire
// (which the periodic rescue would wait for). A session the rescue cannot
// close is left to the periodic rescue.
func (s *Server) rescueOwn(ctx context.Context) {
	tried := map[session.Key]bool{}
	for {
		keys, err := s.store.HeldBy(ctx, s.cfg.Owner, 100)
		if err != nil {
			s.log.Error("server: list the sessions this owner holds", "owner", s.cfg.Owner, "err", err)
			return
		}
		progress := false
		for _, k := range keys {
			if tried[k] {
				continue
			}
			tried[k], progress = true, true
			if err := s.rescue(ctx, k); err != nil && !errors.Is(err, errRunning) {
				s.log.Error("server: rescue", "session", k.SessionID, "err", err)
			}
		}
		if !progress {
			return
		}
	}
}

// rescue claims one session, closes its leftovers and frees it.
func (s *Server) rescue(ctx context.Context, k session.Key) error {
	r := &run{s: s, key: k, done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(ctx)
	s.mu.Lock()
	if s.closed || s.runs[k] != nil {
		s.mu.Unlock()
		r.cancel()
		return errRunning
	}
	s.runs[k] = r
	s.runsWG.Add(1)
	s.mu.Unlock()
	defer func() {
		r.cancel()
		s.mu.Lock()
		delete(s.runs, k)
		s.mu.Unlock()
		close(r.done)
		s.runsWG.Done()
	}()
	if _, err := s.store.AcquireLease(ctx, k, s.cfg.Owner, s.cfg.LeaseTTL); err != nil {
		if errors.Is(err, session.ErrLeased) {
			return errRunning
		}
		return err
	}
	err := s.recoverLeftovers(ctx, k)
	if rerr := s.store.ReleaseLease(context.WithoutCancel(ctx), k, s.cfg.Owner); rerr != nil {
		err = errors.Join(err, rerr)
	}
	return err
}

// recoverLeftovers runs under the session's lease before anything else
// does: it takes the inputs a dead run left. One claimed before (its run
// died) has its reply closed as interrupted; one never claimed (the
// process died before its run started, and its client got no answer) is
// dropped. Neither is run again, so no tool runs twice.
func (s *Server) recoverLeftovers(ctx context.Context, k session.Key) error {
	// A read first: almost always there is nothing left, and a claim is a
	// write.
	if n, err := s.store.PendingInputs(ctx, k); err != nil || n == 0 {
		return err
	}
	// Inputs claimed under this very lease (same owner, same epoch) are
	// not handed out again. A process restarted with its predecessor's
	// owner (serve's host and address) acquires that dead run's unexpired
	// lease as its own and would not see its claim, so the lease is taken
	// anew: freed and acquired again, it gets a new epoch, and the dead
	// run's claim is an earlier lease's. No run of this process holds the
	// session here (the caller registered itself in s.runs first).
	if err := s.store.ReleaseLease(ctx, k, s.cfg.Owner); err != nil {
		return err
	}
	if _, err := s.store.AcquireLease(ctx, k, s.cfg.Owner, s.cfg.LeaseTTL); err != nil {
		if errors.Is(err, session.ErrLeased) {
			return errRunning
		}
		return err
	}
	var crashed *session.Input
	for {
		in, err := s.store.ClaimInput(ctx, k, s.cfg.Owner)
		if errors.Is(err, session.ErrNoInput) {
			break
		}
		if err != nil {
			return err
		}
		if in.Attempts > 1 {
			crashed = &in
		}
		if err := s.store.CompleteInput(ctx, k, in.ID); err != nil {
			return err
		}
	}
	if crashed == nil {
		return nil
	}
	s.log.Warn("server: closing a reply whose run died", "session", k.SessionID, "input", crashed.ID)
	return s.closeDangling(ctx, k, crashed.JSON)
}

// closeDangling closes the last reply of the log when its run died in the
// middle: it rebuilds the reply's message by folding its events, has
// agent.CloseCut answer its open tool calls as interrupted and end it with
// REPLY_END(interrupted) in the saved state, and saves the message into
// the transcript, then logs the closing events.
func (s *Server) closeDangling(ctx context.Context, k session.Key, rawInput json.RawMessage) error {
	var (
		replyID, name, sessionID, created string
		events                            []event.Event
		lastType                          event.Type
	)
	for after := int64(0); ; {
		page, err := s.store.ReadEvents(ctx, k, after, replayPage)
		if err != nil {
			return err
		}
		for _, e := range page {
			after = e.Seq
			ev, err := event.Decode(e.JSON)
			if err != nil {
				continue
			}
			if st, ok := ev.(*event.ReplyStart); ok && st.ReplyID != replyID {
				replyID, name, sessionID, created, events = st.ReplyID, st.Name, st.SessionID, st.CreatedAt, nil
			}
			if rid, ok := event.ReplyIDOf(ev); ok && rid == replyID && replyID != "" {
				events = append(events, ev)
				lastType = ev.Type()
			}
		}
		if len(page) < replayPage {
			break
		}
	}
	switch lastType {
	case "", event.TypeReplyEnd, event.TypeRequireUserConfirm, event.TypeRequireExternalExecution:
		return nil // the last reply ended or parked: nothing is open
	}
	reply, err := message.AssistantMsg(name, nil, message.WithID(replyID), message.WithCreatedAt(created))
	if err != nil {
		return err
	}
	for _, ev := range events {
		if _, ok := ev.(*event.ReplyStart); ok {
			continue
		}
		if err := reply.AppendEvent(ev); err != nil {
			s.log.Warn("server: fold a dead run's event", "session", k.SessionID, "type", ev.Type(), "err", err)
		}
	}
	saved, err := s.store.LoadState(ctx, k)
	if err != nil {
		return err
	}
	st := state.New(nil)
	st.SessionID = k.SessionID
	if saved.JSON != nil {
		if st, err = state.Decode(saved.JSON, nil); err != nil {
			return err
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
		return err
	}
	batch := make([]json.RawMessage, len(closing))
	for i, ev := range closing {
		batch[i] = ev.AppendJSON(nil)
	}

	// The state and the transcript first, then the events that announce
	// the close.
	if _, err := s.store.SaveState(ctx, k, saved.Version, st.AppendJSON(nil)); err != nil {
		return err
	}
	if err := s.store.UpsertMessages(ctx, k, []session.Message{{ID: replyID, JSON: reply.AppendJSON(nil)}}); err != nil {
		return err
	}
	first, err := s.store.AppendEvents(ctx, k, batch)
	if err != nil {
		return err
	}
	s.hub.publish(k, newFrames(first, batch))
	return nil
}
