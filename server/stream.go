package server

import (
	"bufio"
	"net/http"
	"strconv"
	"time"
)

// replayPage is how many logged events one read of a replay takes.
const replayPage = 1000

// sinceOf reads the replay cursor: Last-Event-ID, else ?since=. ok is false
// for a malformed one; given is false when neither is set.
func sinceOf(r *http.Request) (since int64, given, ok bool) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("since")
	}
	if v == "" {
		return 0, false, true
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, true, false
	}
	return n, true, true
}

// stream is GET /sessions/{sid}/stream: the session's events as SSE, from
// the cursor on (without one: from the first event of the run in progress
// until its end is stored, or from now), then live, until the client
// leaves.
//
// It subscribes before it reads the log, and skips what it already sent,
// so no event is lost or sent twice between the replay and the live feed.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, user string) {
	since, given, ok := sinceOf(r)
	if !ok {
		writeInvalid(w, []any{"header", "last-event-id"}, "int_parsing", "Last-Event-ID (or since) must be a non-negative integer")
		return
	}
	_, k, ok := s.session(w, r, user)
	if !ok {
		return
	}
	sub, why := s.hub.subscribe(k, s.cfg.MaxStreamClients)
	switch why {
	case refusedClosed:
		writeDetail(w, http.StatusServiceUnavailable, "server is shutting down")
		return
	case refusedTopic:
		writeDetail(w, http.StatusTooManyRequests, "too many stream clients on this session")
		return
	case refusedTotal:
		// The server's load, not this client's doing: 503, and a hint to
		// come back, as the streams of others end.
		w.Header().Set("Retry-After", "1")
		writeDetail(w, http.StatusServiceUnavailable, "too many streams open on this server")
		return
	}
	defer s.hub.unsubscribe(k, sub)
	if !given {
		s.mu.Lock()
		run := s.runs[k]
		s.mu.Unlock()
		// The run in progress is replayed from its first event, which is
		// seq 1 on a new session: since 0 then means "from the start".
		var first int64
		if run != nil && !run.over.Load() {
			first = run.firstSeq.Load()
		}
		if first > 0 {
			since = first - 1
		} else {
			last, err := s.store.LastSeq(r.Context(), k)
			if err != nil {
				s.storeError(w, err)
				return
			}
			since = last
		}
	}

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	bw := bufio.NewWriterSize(w, 32<<10)
	writeTimeout := max(2*s.cfg.Heartbeat, 10*time.Second)
	flush := func() bool {
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		return bw.Flush() == nil && rc.Flush() == nil
	}
	if !flush() {
		return
	}

	last := since
	for {
		evs, err := s.store.ReadEvents(r.Context(), k, last, replayPage)
		if err != nil {
			s.log.Warn("server: replay", "session", k.SessionID, "err", err)
			return
		}
		var fb []byte
		for _, e := range evs {
			fb = appendFrame(fb[:0], e.Seq, e.JSON)
			bw.Write(fb)
			last = e.Seq
		}
		if len(evs) < replayPage {
			break
		}
	}
	if !flush() {
		return
	}

	hb := time.NewTimer(s.cfg.Heartbeat)
	defer hb.Stop()
	write := func(frames []frame) {
		sub.took(frames)
		for _, f := range frames {
			if f.seq > last {
				bw.Write(f.b)
				last = f.seq
			}
		}
	}
	for {
		select {
		case frames := <-sub.ch:
			write(frames)
		more:
			for {
				select {
				case frames := <-sub.ch:
					write(frames)
				default:
					break more
				}
			}
			if !flush() {
				return
			}
			hb.Reset(s.cfg.Heartbeat)
		case <-hb.C:
			bw.WriteString(":\n\n")
			if !flush() {
				return
			}
			hb.Reset(s.cfg.Heartbeat)
		case <-sub.gone:
			// Cut for falling behind, the session deleted, or shutdown: the
			// client reconnects with Last-Event-ID.
			return
		case <-r.Context().Done():
			return
		}
	}
}
