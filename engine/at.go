package engine

import (
	"context"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/session"
)

// MessagesAt is the transcript as
// a client following the stream saw it once it had the event of sequence
// at. Each reply of the log is the fold of its events up to at, by the
// run's own fold (REPLY_START opens it, every event of its reply_id is
// appended), so a reply mid-stream at at is its partial message — text cut
// where the stream was, blocks without finished_at, no finished_reason —
// and a reply that had not started is absent; one whose events all lie at
// or before at is what the transcript stores. A message the log does not
// hold (the user's input) joined the transcript in the transaction that
// logged the first event of the reply after it, so it stands from that
// event on. at=0 is before the first event: no messages. A reply logged
// but not yet stored (the run in progress) comes after the stored
// transcript. before and limit page the result as they page the
// transcript, newest page first; running tells whether a run holds the
// session now.
func (e *Engine) MessagesAt(ctx context.Context, k session.Key, at int64, before string, limit int) (page session.MessagePage, running bool, err error) {
	if _, err := e.Session(ctx, k); err != nil {
		return page, false, err
	}
	var stored []session.Message // oldest first
	for cursor := ""; ; {
		p, err := e.store.ListMessages(ctx, k, session.MessageQuery{Before: cursor, Limit: 200})
		if err != nil {
			return page, false, storeErr(err)
		}
		stored = append(append([]session.Message(nil), p.Messages...), stored...)
		if !p.HasMore || len(p.Messages) == 0 {
			break
		}
		cursor = p.Messages[0].ID
	}

	replies := map[string]*message.Msg{}
	var order []string // replies by first event
	for after := int64(0); after < at; {
		evs, err := e.store.ReadEvents(ctx, k, after, replayPage)
		if err != nil {
			return page, false, storeErr(err)
		}
		for _, raw := range evs {
			after = raw.Seq
			if raw.Seq > at {
				break
			}
			ev, err := event.Decode(raw.JSON)
			if err != nil {
				e.log.Warn("engine: a logged event does not decode", "session", k.SessionID, "seq", raw.Seq, "err", err)
				continue
			}
			rid, ok := event.ReplyIDOf(ev)
			if !ok {
				continue
			}
			rp := replies[rid]
			if st, isStart := ev.(*event.ReplyStart); isStart && rp == nil {
				m, err := message.AssistantMsg(st.Name, nil, message.WithID(st.ReplyID), message.WithCreatedAt(st.CreatedAt))
				if err != nil {
					continue
				}
				rp = m
				replies[rid] = rp
				order = append(order, rid)
			}
			if rp != nil {
				// As the run's fold: a refused event changes nothing.
				_ = rp.AppendEvent(ev)
			}
		}
		if len(evs) < replayPage {
			break
		}
	}

	// Runs are one at a time and each stores its input messages when it
	// logs its first event and its reply after its last, so the messages
	// that stood are the transcript up to the last reply started by at, or
	// all of it when a reply started by at is not stored yet (the run in
	// progress, which comes last).
	cut := 0
	isStored := make(map[string]bool, len(stored))
	for i, m := range stored {
		isStored[m.ID] = true
		if replies[m.ID] != nil {
			cut = i + 1
		}
	}
	var unstored []string
	for _, rid := range order {
		if !isStored[rid] {
			unstored = append(unstored, rid)
		}
	}
	if len(unstored) > 0 {
		cut = len(stored)
	}
	msgs := make([]session.Message, 0, cut+len(unstored))
	for _, m := range stored[:cut] {
		js := m.JSON
		if rp := replies[m.ID]; rp != nil {
			js = rp.AppendJSON(nil)
		}
		msgs = append(msgs, session.Message{ID: m.ID, JSON: js})
	}
	for _, rid := range unstored {
		msgs = append(msgs, session.Message{ID: rid, JSON: replies[rid].AppendJSON(nil)})
	}

	end := len(msgs)
	if before != "" {
		end = -1
		for i, m := range msgs {
			if m.ID == before {
				end = i
			}
		}
		if end < 0 {
			return page, false, newError(ErrNotFound, "Message not found")
		}
	}
	start := max(0, end-limit)
	run, err := e.running(ctx, k)
	if err != nil {
		return page, false, storeErr(err)
	}
	return session.MessagePage{Messages: msgs[start:end], HasMore: start > 0}, run, nil
}
