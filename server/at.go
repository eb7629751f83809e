package server

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/session"
)

// messagesAt answers GET /sessions/{id}/messages?at=SEQ: the transcript as
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
// transcript, newest page first.
func (s *Server) messagesAt(w http.ResponseWriter, r *http.Request, k session.Key, at int64, before string, limit int) {
	ctx := r.Context()
	var stored []session.Message // oldest first
	for cursor := ""; ; {
		page, err := s.store.ListMessages(ctx, k, session.MessageQuery{Before: cursor, Limit: 200})
		if err != nil {
			s.storeError(w, err)
			return
		}
		stored = append(append([]session.Message(nil), page.Messages...), stored...)
		if !page.HasMore || len(page.Messages) == 0 {
			break
		}
		cursor = page.Messages[0].ID
	}

	replies := map[string]*message.Msg{}
	var order []string // replies by first event
	for after := int64(0); after < at; {
		evs, err := s.store.ReadEvents(ctx, k, after, replayPage)
		if err != nil {
			s.storeError(w, err)
			return
		}
		for _, raw := range evs {
			after = raw.Seq
			if raw.Seq > at {
				break
			}
			ev, err := event.Decode(raw.JSON)
			if err != nil {
				s.log.Warn("server: a logged event does not decode", "session", k.SessionID, "seq", raw.Seq, "err", err)
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
	var running []string
	for _, rid := range order {
		if !isStored[rid] {
			running = append(running, rid)
		}
	}
	if len(running) > 0 {
		cut = len(stored)
	}
	msgs := make([]json.RawMessage, 0, cut+len(running))
	ids := make([]string, 0, cut+len(running))
	for _, m := range stored[:cut] {
		js := m.JSON
		if rp := replies[m.ID]; rp != nil {
			js = rp.AppendJSON(nil)
		}
		msgs, ids = append(msgs, js), append(ids, m.ID)
	}
	for _, rid := range running {
		msgs, ids = append(msgs, replies[rid].AppendJSON(nil)), append(ids, rid)
	}

	end := len(msgs)
	if before != "" {
		end = -1
		for i, id := range ids {
			if id == before {
				end = i
			}
		}
		if end < 0 {
			writeDetail(w, http.StatusNotFound, "Message not found")
			return
		}
	}
	start := max(0, end-limit)
	run, err := s.running(ctx, k)
	if err != nil && !errors.Is(err, session.ErrNotFound) {
		s.storeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"messages": msgs[start:end], "is_running": run, "has_more": start > 0})
}
