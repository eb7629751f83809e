package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/stamp"
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
// on it meanwhile, and begins a run of its own in the store (BeginRun,
// with no input of its own), so what it claims is claimed as a run claims
// it.
func (e *Engine) rescue(ctx context.Context, k session.Key) error {
	r := &run{e: e, key: k, done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(ctx)
	if err := e.register(r); err != nil {
		r.cancel()
		return err
	}
	defer e.unregister(r)
	rs, err := e.store.BeginRun(ctx, k, session.RunBegin{Owner: e.cfg.Owner, TTL: e.cfg.LeaseTTL})
	if err != nil {
		if errors.Is(err, session.ErrLeased) {
			return errRunning
		}
		return err
	}
	return e.closeLeftovers(ctx, k, "", rs)
}

// closeLeftovers closes, under the lease rs holds, the inputs a dead run
// left (rs.Leftovers, claimed by BeginRun). One claimed before (its run
// died: Attempts above 1) has its reply closed as interrupted, opened
// first when the run died before logging it (closeDangling); one never
// claimed (the process died before its run started, and its client got no
// answer) is dropped. Neither is run again, so no tool runs twice. It ends
// as every run does (finishRun): the inputs done, the status of the state
// it leaves, the lease freed, whether there was anything to close or not.
// BeginRun starts a new epoch each time, so a process restarted under its
// predecessor's owner sees that dead run's claims as an earlier lease's.
// name is the session's agent's name ("": looked up).
func (e *Engine) closeLeftovers(ctx context.Context, k session.Key, name string, rs session.Run) error {
	var (
		done    []int64
		crashed *session.Input
	)
	for i := range rs.Leftovers {
		in := &rs.Leftovers[i]
		done = append(done, in.ID)
		if in.Attempts > 1 {
			// The last such input's reply is the one the log leaves open.
			crashed = in
		}
	}
	if name == "" {
		name = e.agentName(ctx, k)
	}
	st, err := decodeState(k, rs.State)
	if err != nil && crashed != nil {
		return err
	}
	end := runEnd{status: session.StatusIdle}
	if err == nil {
		end.status = statusOf(st, name)
	}
	if crashed != nil {
		e.log.Warn("engine: closing a reply whose run died", "session", k.SessionID, "input", crashed.ID)
		if end, err = e.closeDangling(ctx, k, name, crashed.JSON, st, rs.State.Version); err != nil {
			return err
		}
	}
	end.done = done
	e.finishRun(ctx, k, rs.Lease, end)
	return nil
}

// decodeState is the session's saved state, or a fresh one when it has
// none.
func decodeState(k session.Key, saved session.State) (*state.AgentState, error) {
	if saved.JSON == nil {
		st := state.New(nil)
		st.SessionID = k.SessionID
		return st, nil
	}
	st, err := state.Decode(saved.JSON, nil)
	if err != nil {
		return nil, fmt.Errorf("engine: stored state: %w", err)
	}
	return st, nil
}

// agentName is the name of the session's agent (which authors the reply
// a parked session waits on): its id when no agent has it any more.
func (e *Engine) agentName(ctx context.Context, k session.Key) string {
	rec, err := e.store.GetSession(ctx, k)
	if err != nil {
		return ""
	}
	if a, err := e.lookupAgent(ctx, k.UserID, rec.AgentID); err == nil {
		return a.Name
	}
	return rec.AgentID
}

// closeDangling is the end of the last reply of the log when its run died
// in the middle: it rebuilds the reply's message by folding its events,
// and agent.CloseCut answers its open tool calls as interrupted and ends
// it with REPLY_END(interrupted) in st, the saved state (at version).
// When the log's last reply ended or parked, the run (of rawInput) died
// before its first event: it is closed as if it had logged its opening
// (Input.opening, as a run logs it: a chat input's messages and a new
// REPLY_START; a resume's event and the parked reply's REPLY_START) and
// been cut right after, so the input is neither lost nor run. An input
// its run would have refused leaves nothing to close (an end with st's
// status only).
func (e *Engine) closeDangling(ctx context.Context, k session.Key, name string, rawInput json.RawMessage, st *state.AgentState, version int64) (runEnd, error) {
	unchanged := runEnd{status: statusOf(st, name)}
	var (
		replyID, author, sessionID, created string
		events                              []event.Event
		lastType                            event.Type
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
				replyID, author, sessionID, created, events = st.ReplyID, st.Name, st.SessionID, st.CreatedAt, nil
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
	in, inErr := parseInput(rawInput, true)
	var (
		opening []event.Event
		msgs    []session.Message
	)
	switch lastType {
	case "", event.TypeReplyEnd, event.TypeRequireUserConfirm, event.TypeRequireExternalExecution:
		// The last reply ended or parked: the dead run logged nothing of
		// its own (its opening is logged before anything else of it, and
		// its terminal event only with its end, which would have marked
		// its input done). It is closed as having opened and been cut
		// there, so its input is in the transcript and answered.
		if inErr != nil || !opens(in, st, name) || in.kind != inputMsgs && replyID != st.Reply.ReplyID {
			// Refused as its run would have refused it, or a resume of a
			// reply the log does not end with: left as it is.
			return unchanged, nil
		}
		var first event.Event
		if in.kind == inputMsgs {
			start := &event.ReplyStart{SessionID: st.SessionID, ReplyID: stamp.NewID(), Name: name, Role: event.RoleAssistant}
			event.Stamp(start, nil)
			first = start
			replyID, author, sessionID, created, events = start.ReplyID, start.Name, start.SessionID, start.CreatedAt, nil
		}
		opening, msgs = in.opening(st, name, first)
		if first != nil {
			opening = append(opening, first)
		}
		events = append(events, opening...)
	}
	reply, err := message.AssistantMsg(author, nil, message.WithID(replyID), message.WithCreatedAt(created))
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
	var input []*message.Msg
	if inErr == nil && in.kind == inputMsgs {
		input = in.msgs
	}
	if st.SessionID == "" {
		st.SessionID = sessionID
	}
	closing, err := agent.CloseCut(st, reply, input, crashNotice)
	if err != nil {
		return runEnd{}, err
	}
	batch := make([]json.RawMessage, 0, len(opening)+len(closing))
	for _, ev := range opening {
		batch = append(batch, ev.AppendJSON(nil))
	}
	for _, ev := range closing {
		batch = append(batch, ev.AppendJSON(nil))
	}
	return runEnd{state: st.AppendJSON(nil), version: version, reply: reply, input: msgs, events: batch, status: statusOf(st, name)}, nil
}

// opens tells whether a run for in on st would have opened a reply: new
// messages when no reply is parked; a resume, or an interrupt, of the
// reply that is parked (the reply id checked as checkResume checks it).
// The agent checks a resume further (which calls it answers) once it
// runs; a dead run's resume that would have failed those checks is
// closed all the same, its parked reply interrupted, which is a valid
// end of it too.
func opens(in Input, st *state.AgentState, name string) bool {
	parked := st.HasAwaitingToolCalls(name)
	switch in.kind {
	case inputMsgs:
		return !parked
	case inputConfirm:
		return parked && in.confirm.ReplyID == st.Reply.ReplyID
	case inputExternal:
		return parked && in.external.ReplyID == st.Reply.ReplyID
	case inputInterrupt:
		return parked
	}
	return false
}
