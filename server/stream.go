package server

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/server/agui"
)

// sinceOf reads the replay cursor: Last-Event-ID, else ?since=. ok is false
// for a malformed one; an absent one is the zero Cursor.
func sinceOf(r *http.Request) (c engine.Cursor, ok bool) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("since")
	}
	if v == "" {
		return engine.Cursor{}, true
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return engine.Cursor{}, false
	}
	return engine.After(n), true
}

// streamWriters are the streams' 32 KiB write buffers, reused: a client
// that opens a stream per reply would otherwise make one of garbage each
// time.
var streamWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 32<<10) }}

// appendFrame appends one event as an SSE frame: "id: <seq>\ndata: <json>\n\n".
func appendFrame(b []byte, e engine.Entry) []byte {
	b = append(b, "id: "...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, "\ndata: "...)
	b = append(b, e.JSON...)
	return append(b, "\n\n"...)
}

// stream is GET /sessions/{sid}/stream: the session's events as SSE, from
// the cursor on (without one: from the first event of the run in progress
// until its end is stored, or from now), then live, until the client
// leaves (engine.Engine.Follow). With ?format=agui each frame's event is
// the reference's AG-UI conversion of it (agui.Converter, one per stream,
// so two streams never share a tool result's text), its id line kept:
// the reference's middleware rewrites the data lines and passes the rest.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, user string) {
	var conv *agui.Converter
	switch f := r.URL.Query().Get("format"); f {
	case "":
	case "agui":
		conv = agui.NewConverter()
	default:
		writeInvalid(w, []any{"query", "format"}, "enum", fmt.Sprintf("format must be agui (or absent for the native events), got %q", f))
		return
	}
	from, ok := sinceOf(r)
	if !ok {
		writeInvalid(w, []any{"header", "last-event-id"}, "int_parsing", "Last-Event-ID (or since) must be a non-negative integer")
		return
	}
	feed, err := s.eng.Follow(r.Context(), key(r, user), from)
	if err != nil {
		s.fail(w, err)
		return
	}
	defer feed.Close()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	bw := streamWriters.Get().(*bufio.Writer)
	bw.Reset(w)
	defer func() { bw.Reset(nil); streamWriters.Put(bw) }()
	writeTimeout := max(2*s.cfg.Heartbeat, 10*time.Second)
	flush := func() bool {
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		return bw.Flush() == nil && rc.Flush() == nil
	}
	if !flush() {
		return
	}

	var fb, cb []byte
	write := func(entries []engine.Entry) {
		for _, e := range entries {
			fb = appendFrame(fb[:0], e)
			if conv != nil {
				cb = conv.AppendChunk(cb[:0], fb)
				bw.Write(cb)
				continue
			}
			bw.Write(fb)
		}
	}
	for page, err := range feed.Replay(r.Context()) {
		if err != nil {
			s.log.Warn("server: replay", "session", r.PathValue("sid"), "err", err)
			return
		}
		write(page)
	}
	if !flush() {
		return
	}

	hb := time.NewTimer(s.cfg.Heartbeat)
	defer hb.Stop()
	live := feed.Live()
	for {
		select {
		case batch, ok := <-live:
			if !ok {
				// Cut for falling behind, the session deleted, or
				// shutdown: the client reconnects with Last-Event-ID.
				flush()
				return
			}
			write(feed.Take(batch))
		more:
			for {
				select {
				case batch, ok := <-live:
					if !ok {
						flush()
						return
					}
					write(feed.Take(batch))
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
		case <-r.Context().Done():
			return
		}
	}
}
