package a2a

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/session"
)

// cancelWait bounds how long CancelTask waits for the interrupted reply
// to end before it answers with the task as it is.
const cancelWait = 30 * time.Second

// unsupported is an UnsupportedOperation error: a request the task's or
// the context's state does not allow.
func unsupported(format string, args ...any) *Error {
	return &Error{Code: CodeUnsupportedOperation, Message: fmt.Sprintf(format, args...)}
}

// sendMessage is SendMessage (stream false) and SendStreamingMessage: a
// new reply in the message's context (a new session without one), or,
// with a taskId, the answer to the task's parked reply. The run starts
// only once everything is checked, so a refused message changes nothing.
func (h *Handler) sendMessage(c *call, stream bool) {
	var p SendMessageRequest
	if e := decodeParams(c, &p); e != nil {
		h.fail(c.w, c.id, e)
		return
	}
	if e := checkMessage(p.Message); e != nil {
		h.fail(c.w, c.id, e)
		return
	}
	n := -1
	immediate := false
	if cfg := p.Configuration; cfg != nil {
		if len(cfg.TaskPushNotificationConfig) > 0 && string(cfg.TaskPushNotificationConfig) != "null" {
			h.fail(c.w, c.id, &Error{Code: CodePushNotificationNotSupported, Message: "push notifications are not supported by this agent"})
			return
		}
		n, immediate = historyLength(cfg.HistoryLength), cfg.ReturnImmediately
	}
	ctx := c.r.Context()
	msg := p.Message
	var (
		t       *tracker
		k       session.Key
		rec     session.Record // the context, as read (or made) here
		in      engine.Input
		feed    *engine.Feed
		err     error
		history []Message
		created bool
	)
	if msg.TaskID != "" {
		if t, err = h.loadTask(ctx, c.user, c.agentID, msg.TaskID); err != nil {
			h.fail(c.w, c.id, err)
			return
		}
		k = t.key
		if msg.ContextID != "" && msg.ContextID != k.SessionID {
			h.fail(c.w, c.id, invalid("params.message.contextId %q is not the context of task %q", cut(msg.ContextID, 80), t.id))
			return
		}
		switch st := t.state(); {
		case st.Terminal():
			h.fail(c.w, c.id, unsupported("task %q is %s and takes no more messages: send a new message in its context (contextId %q) instead", t.id, st, k.SessionID))
			return
		case t.park == nil:
			h.fail(c.w, c.id, unsupported("task %q is working and waits for nothing: wait for it to ask or finish, or cancel it", t.id))
			return
		}
		var e *Error
		if in, e = resumeInput(t, msg); e != nil {
			h.fail(c.w, c.id, e)
			return
		}
		history = h.history(ctx, t)
		if feed, err = h.eng.Follow(ctx, k, engine.After(t.last)); err == nil {
			rec = feed.Session()
		}
	} else {
		m, e := userMsg(msg)
		if e != nil {
			h.fail(c.w, c.id, e)
			return
		}
		if msg.ContextID != "" {
			// Subscribed first, from the log's end, so none of the run's
			// events is missed (the engine's Run tells them from those of
			// another client's run that may come in between); the feed's
			// one read of the session serves the checks and the run.
			k = session.Key{UserID: c.user, SessionID: msg.ContextID}
			feed, err = h.eng.Follow(ctx, k, engine.Cursor{})
			if err == nil {
				rec = feed.Session()
			}
			if errors.Is(err, engine.ErrNotFound) || (err == nil && rec.AgentID != c.agentID) {
				if feed != nil {
					feed.Close()
				}
				h.fail(c.w, c.id, invalid("params.message.contextId %q is not a conversation of yours with this agent: omit it to start one", cut(msg.ContextID, 80)))
				return
			}
			if err != nil {
				h.fail(c.w, c.id, err)
				return
			}
			st, err := h.eng.StatusOf(ctx, rec)
			if err != nil {
				feed.Close()
				h.fail(c.w, c.id, err)
				return
			}
			var busy *Error
			switch st {
			case session.StatusAwaitingPermission, session.StatusAwaitingExternalResult:
				busy = unsupported("a task of context %q waits for input: answer it (the message's taskId), or cancel it first", k.SessionID)
			case session.StatusRunning:
				busy = unsupported("context %q is working on a task: wait for it, or cancel it first", k.SessionID)
			}
			if busy != nil {
				feed.Close()
				h.fail(c.w, c.id, busy)
				return
			}
		} else {
			rec, err = h.eng.CreateSession(ctx, engine.NewSession{UserID: c.user, AgentID: c.agentID})
			if err != nil {
				h.fail(c.w, c.id, err)
				return
			}
			k, created = session.Key{UserID: c.user, SessionID: rec.ID}, true
			// A context made here has no log and no other client yet.
			feed, err = h.eng.FollowNew(rec)
		}
		echo := *msg
		echo.ContextID = k.SessionID
		history = []Message{echo}
		in = engine.Messages(m)
	}
	if err != nil {
		h.abandon(k, created)
		h.fail(c.w, c.id, err)
		return
	}
	var run *engine.Run
	if rec.ID != "" {
		// The record is at hand: the engine need not read it again.
		run, err = h.eng.StartSession(ctx, rec, c.agentID, in)
	} else {
		run, err = h.eng.Start(ctx, k, c.agentID, in)
	}
	if err != nil {
		feed.Close()
		h.abandon(k, created)
		h.fail(c.w, c.id, err)
		return
	}
	if t != nil {
		// The engine took the answer: the task works again.
		t.park = nil
	}
	var out *sse
	if stream {
		out = h.openSSE(c)
	}
	first := func() error {
		for i := range history {
			history[i].TaskID = t.id
		}
		if out != nil {
			return out.send(StreamResponse{Task: t.task(history, n)})
		}
		return nil
	}
	if t != nil {
		if err := first(); err != nil {
			feed.Close()
			return
		}
	}
	parked := func() bool { return t != nil && t.park != nil }
	err = h.watch(ctx, k, feed, run, parked, func(e engine.Entry) (bool, error) {
		if e.Seq < run.FirstSeq() {
			return false, nil // another client's run, before ours
		}
		if t == nil {
			ev, err := event.Decode(e.JSON)
			if err != nil {
				return false, nil
			}
			rs, ok := ev.(*event.ReplyStart)
			if !ok || rs.ReplyID != run.ReplyID() {
				return false, nil
			}
			t = newTracker(k, e.Seq, rs)
			if err := first(); err != nil {
				return true, err
			}
			return immediate && out == nil, nil
		}
		resp := t.apply(e, out != nil)
		if out != nil {
			if err := out.send(resp...); err != nil {
				return true, err
			}
		}
		return t.end != nil || t.lost || (immediate && out == nil), nil
	}, func() error {
		if out != nil {
			return out.beat()
		}
		return nil
	})
	switch {
	case out != nil:
		if err != nil && ctx.Err() == nil && (t == nil || !t.stopped()) {
			out.fail(&Error{Code: CodeInternalError, Message: "the stream ended before the task stopped: " + err.Error()})
		}
	case t == nil:
		if err == nil {
			err = errors.New("the run ended before its reply started")
		}
		h.fail(c.w, c.id, err)
	case err != nil && ctx.Err() != nil:
		// The client left; the task goes on.
	default:
		h.result(c.w, c.id, SendMessageResponse{Task: t.task(history, n)})
	}
}

// abandon deletes a session made for a message that did not start.
func (h *Handler) abandon(k session.Key, created bool) {
	if !created {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.eng.DeleteSession(ctx, k); err != nil {
		h.log.Warn("a2a: delete an unused session", "session", k.SessionID, "err", err)
	}
}

func (h *Handler) getTask(c *call) {
	var p GetTaskRequest
	if e := decodeParams(c, &p); e != nil {
		h.fail(c.w, c.id, e)
		return
	}
	t, err := h.loadTask(c.r.Context(), c.user, c.agentID, p.ID)
	if err != nil {
		h.fail(c.w, c.id, err)
		return
	}
	h.result(c.w, c.id, t.task(h.history(c.r.Context(), t), historyLength(p.HistoryLength)))
}

// cancelTask interrupts the task's reply (running or parked) and answers
// once it ended, as canceled.
func (h *Handler) cancelTask(c *call) {
	var p CancelTaskRequest
	if e := decodeParams(c, &p); e != nil {
		h.fail(c.w, c.id, e)
		return
	}
	ctx := c.r.Context()
	t, err := h.loadTask(ctx, c.user, c.agentID, p.ID)
	if err != nil {
		h.fail(c.w, c.id, err)
		return
	}
	if st := t.state(); st.Terminal() {
		h.fail(c.w, c.id, &Error{Code: CodeTaskNotCancelable, Message: fmt.Sprintf("task %q is %s: there is nothing to cancel", t.id, st)})
		return
	}
	feed, err := h.eng.Follow(ctx, t.key, engine.After(t.last))
	if err != nil {
		h.fail(c.w, c.id, err)
		return
	}
	if err := h.eng.Interrupt(ctx, t.key); err != nil {
		feed.Close()
		h.fail(c.w, c.id, err)
		return
	}
	wctx, cancel := context.WithTimeout(ctx, cancelWait)
	defer cancel()
	err = h.watch(wctx, t.key, feed, nil, nil, func(e engine.Entry) (bool, error) {
		t.apply(e, false)
		return t.end != nil || t.lost, nil
	}, nil)
	if err != nil && ctx.Err() != nil {
		return
	}
	h.result(c.w, c.id, t.task(h.history(ctx, t), -1))
}

// subscribe streams a task that is not over: the task as it stands, then
// its updates until it next asks for input or ends. Subscribed to while
// it waits for input, it follows the answer's run.
func (h *Handler) subscribe(c *call) {
	var p SubscribeToTaskRequest
	if e := decodeParams(c, &p); e != nil {
		h.fail(c.w, c.id, e)
		return
	}
	ctx := c.r.Context()
	t, err := h.loadTask(ctx, c.user, c.agentID, p.ID)
	if err != nil {
		h.fail(c.w, c.id, err)
		return
	}
	if st := t.state(); st.Terminal() {
		h.fail(c.w, c.id, unsupported("task %q is %s: there is nothing more to stream (GetTask has it)", t.id, st))
		return
	}
	feed, err := h.eng.Follow(ctx, t.key, engine.After(t.last))
	if err != nil {
		h.fail(c.w, c.id, err)
		return
	}
	out := h.openSSE(c)
	if err := out.send(StreamResponse{Task: t.task(h.history(ctx, t), -1)}); err != nil {
		feed.Close()
		return
	}
	// A task subscribed to while it waits follows the answer's run to its
	// next park or end.
	was := t.park
	parked := func() bool { return t.park != nil && t.park != was }
	err = h.watch(ctx, t.key, feed, nil, parked, func(e engine.Entry) (bool, error) {
		if err := out.send(t.apply(e, true)...); err != nil {
			return true, err
		}
		return t.end != nil || t.lost, nil
	}, out.beat)
	if err != nil && ctx.Err() == nil && !t.stopped() {
		out.fail(&Error{Code: CodeInternalError, Message: "the stream ended before the task stopped: " + err.Error()})
	}
}
