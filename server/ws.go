package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/agentscope-go/agentscope/engine"
)

// ws is GET /sessions/{sid}/ws: the session's events as WebSocket text
// frames, from the cursor on exactly as the SSE stream gives them, and
// the session's chat and interrupt requests taken over the same socket.
// Everything that can be refused is refused before the upgrade, as HTTP
// with the native codes and bodies: the cursor (422), a request that is
// no handshake (426), another origin (403), and what Follow refuses
// (404, 429, 503).
func (s *Server) ws(w http.ResponseWriter, r *http.Request, user string) {
	from, ok := sinceOf(r)
	if !ok {
		writeInvalid(w, []any{"header", "last-event-id"}, "int_parsing", "Last-Event-ID (or since) must be a non-negative integer")
		return
	}
	if !headerHasToken(r.Header, "Connection", "upgrade") || !headerHasToken(r.Header, "Upgrade", "websocket") {
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Upgrade", "websocket")
		writeDetail(w, http.StatusUpgradeRequired, "this route is a WebSocket: send a handshake (Connection: Upgrade, Upgrade: websocket), or read GET /sessions/{id}/stream")
		return
	}
	if !sameOrigin(r) {
		writeDetail(w, http.StatusForbidden, "Origin "+quoteHost(r.Header.Get("Origin"))+" is not this server's: a WebSocket is answered only from its own origin")
		return
	}
	k := key(r, user)
	feed, err := s.eng.Follow(r.Context(), k, from)
	if err != nil {
		s.fail(w, err)
		return
	}
	defer feed.Close()
	// The library checks the origin as sameOrigin did (same rule), and
	// answers a malformed handshake itself (400).
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	// Frames are bounded by read, which answers an oversize one with 413
	// and keeps the socket, where the library's own limit would close it.
	c.SetReadLimit(-1)

	// The connection is hijacked: the request's context says nothing
	// about it any more. The socket's own context ends everything.
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	defer cancel()
	sock := &wsConn{s: s, c: c, user: user, sid: k.SessionID, writeTimeout: max(2*s.cfg.Heartbeat, 10*time.Second)}
	var wg sync.WaitGroup
	// The reader and the pinger end the socket when they end (the client
	// left, sent a close, or missed a pong); the follower here ends it
	// when the feed ends or a write fails. Whoever ends first cancels
	// ctx, which ends the other two, and this handler waits for them.
	wg.Go(func() { defer cancel(); sock.read(ctx) })
	wg.Go(func() { defer cancel(); sock.ping(ctx) })
	if sock.follow(ctx, feed) {
		// Cut for falling behind, the session deleted, or shutdown: a
		// close frame, so the client knows to reconnect from its last
		// seq rather than think the network failed.
		feed.Close()
		c.Close(websocket.StatusGoingAway, "the stream ended: reconnect with ?since=<last seq>")
	}
	cancel()
	c.CloseNow()
	wg.Wait()
}

// wsConn is one socket of GET /sessions/{sid}/ws.
type wsConn struct {
	s            *Server
	c            *websocket.Conn
	user, sid    string
	writeTimeout time.Duration
}

// follow writes the feed's events, the replay then the live ones, until
// ctx ends or a write fails (false), or the feed ends (true).
func (x *wsConn) follow(ctx context.Context, feed *engine.Feed) bool {
	var buf []byte
	write := func(entries []engine.Entry) bool {
		if len(entries) == 0 {
			return true
		}
		// One deadline for the batch: a client that does not take it in
		// time is dead or too slow, and the library closes the socket.
		wctx, cancel := context.WithTimeout(ctx, x.writeTimeout)
		defer cancel()
		for _, e := range entries {
			buf = appendWSEvent(buf[:0], e)
			if err := x.c.Write(wctx, websocket.MessageText, buf); err != nil {
				return false
			}
		}
		return true
	}
	for page, err := range feed.Replay(ctx) {
		if err != nil {
			if ctx.Err() == nil {
				x.s.log.Warn("server: replay", "session", x.sid, "err", err)
			}
			return false
		}
		if !write(page) {
			return false
		}
	}
	live := feed.Live()
	for {
		select {
		case batch, ok := <-live:
			if !ok {
				return true
			}
			if !write(feed.Take(batch)) {
				return false
			}
		case <-ctx.Done():
			return false
		}
	}
}

// ping pings the client every Heartbeat and returns when a pong does not
// come within the write timeout: the client is gone, though its TCP
// connection may say nothing for minutes.
func (x *wsConn) ping(ctx context.Context) {
	t := time.NewTicker(x.s.cfg.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, x.writeTimeout)
		err := x.c.Ping(pctx)
		cancel()
		if err != nil {
			return
		}
	}
}

// read answers the client's frames, one at a time in the order they
// came, until the socket ends. Bad frames are answered and change
// nothing; only the socket's end ends it.
func (x *wsConn) read(ctx context.Context) {
	limit := x.s.cfg.MaxBodyBytes
	var buf []byte
	for {
		typ, rd, err := x.c.Reader(ctx)
		if err != nil {
			return
		}
		data, err := io.ReadAll(io.LimitReader(rd, limit+1))
		if err != nil {
			return
		}
		rec := &recorder{}
		var id json.RawMessage
		if int64(len(data)) > limit {
			// The rest is dropped as it arrives: it costs no memory, and
			// a client that sends it for ever misses its pongs.
			if _, err := io.Copy(io.Discard, rd); err != nil {
				return
			}
			writeDetail(rec, http.StatusRequestEntityTooLarge, "Request body too large")
		} else {
			id = x.handle(ctx, rec, typ, data)
		}
		buf = appendWSReply(buf[:0], id, rec.status(), rec.body.Bytes())
		wctx, cancel := context.WithTimeout(ctx, x.writeTimeout)
		err = x.c.Write(wctx, websocket.MessageText, buf)
		cancel()
		if err != nil {
			return
		}
	}
}

// handle answers one frame into rec, as the native route it stands for
// answers it (the handler itself runs), and returns the frame's id.
func (x *wsConn) handle(ctx context.Context, rec *recorder, typ websocket.MessageType, data []byte) (id json.RawMessage) {
	if typ != websocket.MessageText {
		writeDetail(rec, http.StatusBadRequest, "a frame must be a text message holding a JSON object")
		return nil
	}
	// encoding/json would replace invalid bytes silently.
	if !utf8.Valid(data) {
		writeDetail(rec, http.StatusBadRequest, "a frame must be valid UTF-8")
		return nil
	}
	var f map[string]json.RawMessage
	if err := json.Unmarshal(data, &f); err != nil || f == nil {
		writeDetail(rec, http.StatusBadRequest, "a frame must be a JSON object")
		return nil
	}
	if raw, ok := f["id"]; ok && !isNull(raw) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			writeDetail(rec, http.StatusBadRequest, `"id" must be a string`)
			return nil
		}
		id = raw
	}
	var op string
	if raw, ok := f["type"]; ok {
		json.Unmarshal(raw, &op)
	}
	delete(f, "id")
	delete(f, "type")
	switch op {
	case "chat":
		x.chat(ctx, rec, f)
	case "interrupt":
		req := x.request(ctx, nil)
		x.s.interrupt(rec, req, x.user)
	default:
		writeDetail(rec, http.StatusBadRequest, `"type" must be "chat" or "interrupt"`)
	}
	return id
}

// chat is POST /chat/ with the frame's fields as its body, in the
// socket's session.
func (x *wsConn) chat(ctx context.Context, rec *recorder, f map[string]json.RawMessage) {
	// A socket follows one session; a chat of another would start a run
	// whose events it never shows.
	if raw, ok := f["session_id"]; ok && !isNull(raw) {
		var sid string
		if err := json.Unmarshal(raw, &sid); err != nil || sid != x.sid {
			writeInvalid(rec, []any{"body", "session_id"}, "value_error", "session_id must be this socket's session (or left out)")
			return
		}
	}
	f["session_id"], _ = json.Marshal(x.sid)
	body, err := json.Marshal(f)
	if err != nil {
		writeDetail(rec, http.StatusBadRequest, "a frame must be a JSON object")
		return
	}
	req := x.request(ctx, body)
	req.Header.Set("Content-Type", "application/json")
	x.s.chat(rec, req, x.user)
}

// request is the request a native handler is given for a frame: the
// socket's session in its path, body as its body.
func (x *wsConn) request(ctx context.Context, body []byte) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "/", bytes.NewReader(body))
	req.SetPathValue("sid", x.sid)
	return req
}

// recorder is the http.ResponseWriter a frame's handler answers into.
type recorder struct {
	h    http.Header
	code int
	body bytes.Buffer
}

func (r *recorder) Header() http.Header {
	if r.h == nil {
		r.h = http.Header{}
	}
	return r.h
}

func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(p)
}

func (r *recorder) status() int {
	if r.code == 0 {
		return http.StatusOK
	}
	return r.code
}

// appendWSEvent appends one event as a frame: {"seq":<seq>,"event":<json>}.
func appendWSEvent(b []byte, e engine.Entry) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, `,"event":`...)
	b = append(b, e.JSON...)
	return append(b, '}')
}

// appendWSReply appends the answer to a frame:
// {"id":<the frame's id>,"status":<code>,"body":<json>}, without "id"
// when the frame had none (or none could be read), "body" null when the
// handler wrote none.
func appendWSReply(b []byte, id json.RawMessage, code int, body []byte) []byte {
	b = append(b, '{')
	if id != nil {
		b = append(b, `"id":`...)
		b = append(b, id...)
		b = append(b, ',')
	}
	b = append(b, `"status":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"body":`...)
	switch body = bytes.TrimSpace(body); {
	case len(body) == 0:
		b = append(b, "null"...)
	case json.Valid(body):
		b = append(b, body...)
	default:
		q, _ := json.Marshal(string(body))
		b = append(b, q...)
	}
	return append(b, '}')
}

// headerHasToken reports whether the comma-separated header holds token
// (without regard to case).
func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// sameOrigin reports whether the handshake has no Origin (a program, not
// a browser) or one whose host is the request's Host. A browser lets any
// page open a WebSocket anywhere, with the user's cookies and without
// CORS; only this check keeps another site's page off a socket that a
// proxy in front authenticates by cookie.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
}
