package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/session"
)

// wsEvent is one event frame of GET /sessions/{id}/ws.
type wsEvent struct {
	seq int64
	ev  event.Event
	raw string // the event's JSON as sent
	// at is when its frame arrived, before the client decoded it.
	at time.Time
}

// wsReply is the answer to one client frame.
type wsReply struct {
	ID     *string         `json:"id"`
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
}

// wsClient is one socket, read by a goroutine into its channels.
type wsClient struct {
	t       testing.TB
	c       *websocket.Conn
	events  chan wsEvent
	replies chan wsReply
	done    chan struct{}
	err     error // why the reading ended; read after done
}

// wsHeader is the handshake's headers for user u (none when u is "-"),
// with hdr's pairs.
func wsHeader(u string, hdr ...string) http.Header {
	h := http.Header{}
	if u != "-" {
		h.Set("X-User-ID", u)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		h.Set(hdr[i], hdr[i+1])
	}
	return h
}

// dialWS opens the session's socket as user u; a refused handshake is
// returned as its response (code and body), with a nil client.
func (e *env) dialWS(sid, query, u string, hdr ...string) (*wsClient, response) {
	e.t.Helper()
	c, r := e.dialWSWith(e.hs.Client(), sid, query, u, hdr...)
	if c == nil {
		return nil, r
	}
	return e.reading(c), r
}

// dialWSWith is dialWS's handshake over client, without the reading.
func (e *env) dialWSWith(client *http.Client, sid, query, u string, hdr ...string) (*websocket.Conn, response) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, res, err := websocket.Dial(ctx, e.hs.URL+"/sessions/"+sid+"/ws"+query, &websocket.DialOptions{HTTPClient: client, HTTPHeader: wsHeader(u, hdr...)})
	if err != nil {
		if res == nil {
			e.t.Fatalf("dial: %v", err)
		}
		b, _ := io.ReadAll(res.Body)
		return nil, response{res.StatusCode, string(b)}
	}
	return c, response{res.StatusCode, ""}
}

// reading starts reading c into a client.
func (e *env) reading(c *websocket.Conn) *wsClient {
	w := &wsClient{t: e.t, c: c, events: make(chan wsEvent, 1<<16), replies: make(chan wsReply, 64), done: make(chan struct{})}
	go w.read()
	e.t.Cleanup(w.drop)
	return w
}

// openWS is dialWS as user, failing on a refused handshake.
func (e *env) openWS(sid, query string, hdr ...string) *wsClient {
	e.t.Helper()
	w, r := e.dialWS(sid, query, user, hdr...)
	if w == nil {
		e.t.Fatalf("handshake: %d %s", r.code, r.body)
	}
	return w
}

func (w *wsClient) read() {
	defer close(w.done)
	defer close(w.events)
	defer close(w.replies)
	for {
		typ, data, err := w.c.Read(context.Background())
		at := time.Now()
		if err != nil {
			w.err = err
			return
		}
		if typ != websocket.MessageText {
			w.err = fmt.Errorf("a %v frame", typ)
			return
		}
		var f struct {
			Seq    *int64          `json:"seq"`
			Event  json.RawMessage `json:"event"`
			Status int             `json:"status"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			w.err = fmt.Errorf("frame %q: %v", data, err)
			return
		}
		if f.Event != nil {
			ev, err := event.Decode(f.Event)
			if err != nil || f.Seq == nil {
				w.err = fmt.Errorf("event frame %q: %v", data, err)
				return
			}
			w.events <- wsEvent{*f.Seq, ev, string(f.Event), at}
			continue
		}
		var r wsReply
		if err := json.Unmarshal(data, &r); err != nil || r.Status == 0 {
			w.err = fmt.Errorf("reply frame %q: %v", data, err)
			return
		}
		w.replies <- r
	}
}

// close closes the socket with a close handshake and waits for the
// reading to end.
func (w *wsClient) close() {
	w.c.Close(websocket.StatusNormalClosure, "")
	<-w.done
}

// drop drops the socket without a close handshake.
func (w *wsClient) drop() {
	w.c.CloseNow()
	<-w.done
}

func (w *wsClient) send(frame string) {
	w.t.Helper()
	w.sendType(websocket.MessageText, []byte(frame))
}

func (w *wsClient) sendType(typ websocket.MessageType, frame []byte) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.c.Write(ctx, typ, frame); err != nil {
		w.t.Fatalf("write: %v", err)
	}
}

// reply is the next reply frame.
func (w *wsClient) reply() wsReply {
	w.t.Helper()
	select {
	case r, ok := <-w.replies:
		if !ok {
			<-w.done
			w.t.Fatalf("socket ended waiting for a reply: %v", w.err)
		}
		return r
	case <-time.After(10 * time.Second):
		w.t.Fatal("no reply within 10s")
	}
	return wsReply{}
}

// ask sends a frame and returns its reply.
func (w *wsClient) ask(frame string) wsReply {
	w.t.Helper()
	w.send(frame)
	return w.reply()
}

func (w *wsClient) next() wsEvent {
	w.t.Helper()
	select {
	case ev, ok := <-w.events:
		if !ok {
			<-w.done
			w.t.Fatalf("socket ended waiting for an event: %v", w.err)
		}
		return ev
	case <-time.After(10 * time.Second):
		w.t.Fatal("no event within 10s")
	}
	return wsEvent{}
}

// until reads events up to and including the first of type t.
func (w *wsClient) until(t event.Type) []wsEvent {
	w.t.Helper()
	var out []wsEvent
	for {
		ev := w.next()
		out = append(out, ev)
		if ev.ev.Type() == t {
			return out
		}
	}
}

// ended waits for the socket to end and returns its close status (-1:
// none, the connection just went).
func (w *wsClient) ended(within time.Duration) websocket.StatusCode {
	w.t.Helper()
	select {
	case <-w.done:
	case <-time.After(within):
		w.t.Fatalf("the socket did not end within %v", within)
	}
	return websocket.CloseStatus(w.err)
}

// quiet fails if an event or a reply comes within d.
func (w *wsClient) quiet(d time.Duration) {
	w.t.Helper()
	select {
	case ev, ok := <-w.events:
		if ok {
			w.t.Fatalf("unexpected event %d %s", ev.seq, ev.ev.Type())
		}
	case r, ok := <-w.replies:
		if ok {
			w.t.Fatalf("unexpected reply %+v", r)
		}
	case <-time.After(d):
	}
}

func wsChat(id, input string) string {
	return fmt.Sprintf(`{"id":%q,"type":"chat","agent_id":"a1","input":%s}`, id, input)
}

// checkWSSeqs fails unless the sequences run from first without a gap.
func checkWSSeqs(t testing.TB, evs []wsEvent, first int64) {
	t.Helper()
	for i, e := range evs {
		if e.seq != first+int64(i) {
			t.Fatalf("event %d (%s) has seq %d, want %d", i, e.ev.Type(), e.seq, first+int64(i))
		}
	}
}

// sameAsLog fails unless evs are the log's events from seq first on,
// byte for byte.
func sameAsLog(t testing.TB, e *env, sid string, evs []wsEvent, first int64) {
	t.Helper()
	log, err := e.store.ReadEvents(context.Background(), session.Key{UserID: user, SessionID: sid}, first-1, 10000)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) < len(evs) {
		t.Fatalf("%d events on the socket, %d in the log from %d", len(evs), len(log), first)
	}
	for i, ev := range evs {
		if log[i].Seq != ev.seq || string(log[i].JSON) != ev.raw {
			t.Fatalf("socket event %d (seq %d) is not the log's (seq %d)", i, ev.seq, log[i].Seq)
		}
	}
}

// The socket replays from ?since= (or Last-Event-ID) what the SSE stream
// replays, byte for byte with the same sequences, then gives the live
// events as they come; a chat over it is answered as POST /chat/ is.
func TestWSReplayThenLive(t *testing.T) {
	e := newEnv(t, []scripted.Turn{textTurn, textTurn}, nil)
	sid := e.createSession()
	sse := e.openStream(sid, "?since=0")
	if r := e.chat(sid, userMsg("hi")); r.code != 200 {
		t.Fatal(r.body)
	}
	first := sse.until(event.TypeReplyEnd)
	n := int64(len(first))

	since := e.openWS(sid, "?since=3")
	replay := since.until(event.TypeReplyEnd)
	checkWSSeqs(t, replay, 4)
	for i, ev := range replay {
		if ev.raw != first[3+i].raw {
			t.Fatalf("replayed event %d differs from the SSE stream's", ev.seq)
		}
	}
	header := e.openWS(sid, "", "Last-Event-ID", "5")
	checkWSSeqs(t, header.until(event.TypeReplyEnd), 6)
	// No cursor: from the log's end, as the SSE stream without one. The
	// run is over in the store first: a stream without a cursor opened
	// while it still finishes (REPLY_END sent, its end not yet committed)
	// starts at that run, rightly, from its first event.
	e.waitStatus(sid, "idle")
	now := e.openWS(sid, "")
	now.quiet(100 * time.Millisecond)

	r := since.ask(wsChat("c1", userMsg("again")))
	var started map[string]string
	if r.ID == nil || *r.ID != "c1" || r.Status != 200 || json.Unmarshal(r.Body, &started) != nil ||
		len(started) != 2 || started["status"] != "started" || started["session_id"] != sid {
		t.Fatalf("chat over the socket: %+v %s", r, r.Body)
	}
	second := sse.until(event.TypeReplyEnd)
	checkSeqs(t, second, n+1)
	var live []wsEvent
	for _, w := range []*wsClient{since, header, now} {
		live = w.until(event.TypeReplyEnd)
		checkWSSeqs(t, live, n+1)
		for i, ev := range live {
			if ev.raw != second[i].raw {
				t.Fatalf("live event %d differs from the SSE stream's", ev.seq)
			}
		}
	}
	sameAsLog(t, e, sid, append(replay, live...), 4)
}

// A reply parked on a confirmation resumes on a USER_CONFIRM_RESULT sent
// over the socket, as POST /chat/ would resume it; the tool runs once.
func TestWSConfirmResumesParkedReply(t *testing.T) {
	e := newEnv(t, []scripted.Turn{noteTurn, doneTurn}, nil)
	sid := e.createSession()
	w := e.openWS(sid, "")
	if r := w.ask(wsChat("c1", userMsg("note milk"))); r.Status != 200 {
		t.Fatalf("chat: %+v %s", r, r.Body)
	}
	first := w.until(event.TypeRequireUserConfirm)
	if st := e.status(sid); st != "awaiting_permission" {
		t.Fatalf("status %s", st)
	}
	rq := first[len(first)-1].ev.(*event.RequireUserConfirm)
	c := &event.UserConfirmResult{ReplyID: rq.ReplyID, ConfirmResults: []event.ConfirmResult{{Confirmed: true, ToolCall: rq.ToolCalls[0]}}}
	event.Stamp(c, nil)
	if r := w.ask(wsChat("c2", string(event.Marshal(c)))); r.Status != 200 || *r.ID != "c2" {
		t.Fatalf("confirm over the socket: %+v %s", r, r.Body)
	}
	second := w.until(event.TypeReplyEnd)
	all := append(first, second...)
	checkWSSeqs(t, all, 1)
	sameAsLog(t, e, sid, all, 1)
	if got := types(toSSE(second[:2])); got != "USER_CONFIRM_RESULT REPLY_START" {
		t.Fatalf("resume starts %s", got)
	}
	if end := second[len(second)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyCompleted || end.ReplyID != rq.ReplyID {
		t.Fatalf("end %+v", end)
	}
	if n := e.notes.Load(); n != 1 {
		t.Fatalf("save_note ran %d times", n)
	}
	e.waitStatus(sid, "idle")
}

// An EXTERNAL_EXECUTION_RESULT sent over the socket resumes a reply
// parked on a tool the client runs.
func TestWSExternalResult(t *testing.T) {
	e := newEnvWith(t, envOpts{external: true, turns: []scripted.Turn{
		scripted.Stream(scripted.ToolCall("x1", "lookup", `{"key":"answer"}`)),
		scripted.Stream(scripted.Text("It is 42.")),
	}})
	sid := e.createSession()
	w := e.openWS(sid, "")
	if r := w.ask(wsChat("c1", userMsg("look it up"))); r.Status != 200 {
		t.Fatalf("chat: %+v %s", r, r.Body)
	}
	first := w.until(event.TypeRequireExternalExecution)
	rq := first[len(first)-1].ev.(*event.RequireExternalExecution)
	res := &event.ExternalExecutionResult{ReplyID: rq.ReplyID, ExecutionResults: []*block.ToolResult{
		{ID: "x1", Name: "lookup", State: block.ResultSuccess, Output: block.Body{Plain: true, Text: "the client says 42"}}}}
	event.Stamp(res, nil)
	if r := w.ask(wsChat("c2", string(event.Marshal(res)))); r.Status != 200 {
		t.Fatalf("external result over the socket: %+v %s", r, r.Body)
	}
	second := w.until(event.TypeReplyEnd)
	checkWSSeqs(t, append(first, second...), 1)
	if got := types(toSSE(second[:2])); got != "EXTERNAL_EXECUTION_RESULT REPLY_START" {
		t.Fatalf("resume starts %s", got)
	}
	if end := second[len(second)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyCompleted {
		t.Fatalf("end %+v", end)
	}
}

// A chat while a run holds the session is answered 409 with the body
// POST /chat/ gives; an interrupt over the socket is 202 and ends the run.
func TestWSChatWhileRunningAndInterrupt(t *testing.T) {
	e := newEnv(t, []scripted.Turn{waitTurn}, nil)
	sid := e.createSession()
	w := e.openWS(sid, "")
	if r := w.ask(wsChat("c1", userMsg("wait"))); r.Status != 200 {
		t.Fatalf("chat: %+v %s", r, r.Body)
	}
	<-e.waiting
	// Without a cursor, a socket opened now starts at the run's first
	// event, as the SSE stream does.
	late := e.openWS(sid, "")
	if ev := late.next(); ev.seq != 1 || ev.ev.Type() != event.TypeReplyStart {
		t.Fatalf("a socket opened during the run starts at seq %d %s", ev.seq, ev.ev.Type())
	}
	busy := w.ask(wsChat("c2", userMsg("again")))
	h := e.chat(sid, userMsg("again"))
	if busy.Status != 409 || h.code != 409 || string(busy.Body) != h.body || h.body != `{"detail":"Session is running"}` {
		t.Fatalf("chat while running: socket %d %s, HTTP %d %s", busy.Status, busy.Body, h.code, h.body)
	}
	r := w.ask(`{"id":"i1","type":"interrupt"}`)
	if r.Status != 202 || *r.ID != "i1" || string(r.Body) != fmt.Sprintf(`{"session_id":%q}`, sid) {
		t.Fatalf("interrupt: %+v %s", r, r.Body)
	}
	evs := w.until(event.TypeReplyEnd)
	if end := evs[len(evs)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyInterrupted {
		t.Fatalf("end %+v", end)
	}
	e.waitStatus(sid, "idle")
	// An interrupt with nothing to interrupt is 202 and changes nothing,
	// as on the HTTP route.
	before := e.snap(sid)
	if r := w.ask(`{"type":"interrupt"}`); r.Status != 202 || r.ID != nil {
		t.Fatalf("idle interrupt: %+v", r)
	}
	if after := e.snap(sid); after != before {
		t.Fatalf("an idle interrupt changed %+v to %+v", before, after)
	}
}

// A socket dropped in the middle of a reply, with or without a close
// handshake, and reopened with ?since= the last sequence it got, misses
// nothing and gets nothing twice.
func TestWSReconnectNothingLostOrDoubled(t *testing.T) {
	var steps []scripted.Step
	for i := range 200 {
		steps = append(steps, scripted.Text(fmt.Sprintf("chunk %d ", i)), scripted.Pause(time.Millisecond))
	}
	e := newEnv(t, []scripted.Turn{scripted.Stream(steps...)}, nil)
	sid := e.createSession()
	w := e.openWS(sid, "?since=0")
	if r := w.ask(wsChat("c1", userMsg("go"))); r.Status != 200 {
		t.Fatal(string(r.Body))
	}
	var got []wsEvent
	take := func(w *wsClient, n int) {
		for range n {
			got = append(got, w.next())
		}
	}
	take(w, 30)
	w.close()
	w = e.openWS(sid, "?since="+strconv.FormatInt(got[len(got)-1].seq, 10))
	take(w, 60)
	w.drop()
	w = e.openWS(sid, "?since="+strconv.FormatInt(got[len(got)-1].seq, 10))
	got = append(got, w.until(event.TypeReplyEnd)...)
	checkWSSeqs(t, got, 1)
	sameAsLog(t, e, sid, got, 1)
	last, err := e.store.LastSeq(context.Background(), session.Key{UserID: user, SessionID: sid})
	if err != nil || last != got[len(got)-1].seq {
		t.Fatalf("the log ends at %d (%v), the socket at %d", last, err, got[len(got)-1].seq)
	}
	if len(got) < 200 {
		t.Fatalf("%d events", len(got))
	}
}

// The handshake is refused as HTTP, with the native route's code and
// {"detail"} body, for what the SSE route refuses (another user's or an
// unknown session, no or an empty X-User-ID, a bad cursor, the token, the
// stream caps), and also for a plain GET and another origin; a refused
// handshake changes nothing and holds no follower.
func TestWSHandshakeRefusals(t *testing.T) {
	e := newEnv(t, []scripted.Turn{textTurn}, func(c *server.Config) { c.Token = "sekret"; c.Engine.MaxStreamClients = 1 })
	auth := []string{"Authorization", "Bearer sekret"}
	sid := e.do("POST", "/sessions/", user, `{"agent_id":"a1"}`, auth...).json(t)["session_id"].(string)
	status := func() string {
		return e.do("GET", "/sessions/"+sid+"/status", user, "", auth...).body
	}
	before := status()
	for _, tc := range []struct {
		name   string
		sid    string
		query  string
		u      string
		hdr    []string
		code   int
		detail string // a substring of the detail ("": any)
	}{
		{"another user's session", sid, "", "bob", auth, 404, "Session not found"},
		{"unknown session", "nope", "", user, auth, 404, "Session not found"},
		{"no X-User-ID", sid, "", "-", auth, 422, ""},
		{"empty X-User-ID", sid, "", " ", auth, 401, "X-User-ID header is required."},
		{"no token", sid, "", user, nil, 401, "Not authenticated"},
		{"wrong token", sid, "", user, []string{"Authorization", "Bearer nope"}, 401, "Not authenticated"},
		{"bad since", sid, "?since=x", user, auth, 422, ""},
		{"negative Last-Event-ID", sid, "", user, append([]string{"Last-Event-ID", "-1"}, auth...), 422, ""},
		{"another origin", sid, "", user, append([]string{"Origin", "http://evil.example"}, auth...), 403, "is not this server's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, r := e.dialWS(tc.sid, tc.query, tc.u, tc.hdr...)
			if w != nil {
				w.drop()
				t.Fatal("the handshake was accepted")
			}
			var body struct{ Detail any }
			if r.code != tc.code || json.Unmarshal([]byte(r.body), &body) != nil || body.Detail == nil || !strings.Contains(fmt.Sprint(body.Detail), tc.detail) {
				t.Fatalf("%d %s, want %d with a detail %q", r.code, r.body, tc.code, tc.detail)
			}
		})
	}
	// A plain GET is told to upgrade.
	r := e.do("GET", "/sessions/"+sid+"/ws", user, "", auth...)
	if r.code != 426 || !strings.Contains(r.json(t)["detail"].(string), "WebSocket") {
		t.Fatalf("plain GET: %d %s", r.code, r.body)
	}
	// None of them took the session's one follower slot, and the same
	// origin is let in.
	host := strings.TrimPrefix(e.hs.URL, "http://")
	w, r := e.dialWS(sid, "", user, append([]string{"Origin", "http://" + host}, auth...)...)
	if w == nil {
		t.Fatalf("same origin: %d %s", r.code, r.body)
	}
	// The slot is taken now: 429, as on the SSE route.
	if w2, r := e.dialWS(sid, "", user, auth...); w2 != nil || r.code != 429 || !strings.Contains(r.body, "detail") {
		t.Fatalf("a second socket: %d %s", r.code, r.body)
	}
	if sse := e.do("GET", "/sessions/"+sid+"/stream", user, "", auth...); sse.code != 429 {
		t.Fatalf("an SSE client beside the socket: %d", sse.code)
	}
	if after := status(); after != before {
		t.Fatalf("refused handshakes changed the status from %s to %s", before, after)
	}
}

// Past the process's stream cap the handshake is 503 with Retry-After,
// as the SSE route; the slot a closed socket held is free again at once.
func TestWSProcessCap(t *testing.T) {
	e := newEnv(t, nil, func(c *server.Config) { c.Engine.MaxStreams = 1 })
	sid := e.createSession()
	w := e.openWS(sid, "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, res, err := websocket.Dial(ctx, e.hs.URL+"/sessions/"+sid+"/ws", &websocket.DialOptions{HTTPClient: e.hs.Client(), HTTPHeader: wsHeader(user)})
	if err == nil || res == nil || res.StatusCode != 503 || res.Header.Get("Retry-After") == "" {
		t.Fatalf("a socket past MaxStreams: %v %v", res, err)
	}
	if r := e.do("GET", "/sessions/"+sid+"/stream", user, ""); r.code != 503 {
		t.Fatalf("an SSE client past MaxStreams: %d", r.code)
	}
	w.close()
	// Closing the socket ends its follower: the slot is free once the
	// handler has seen the close, which the client cannot observe.
	for deadline := time.Now().Add(5 * time.Second); ; {
		w, r := e.dialWS(sid, "", user)
		if w != nil {
			w.close()
			break
		}
		if r.code != 503 || time.Now().After(deadline) {
			t.Fatalf("after the socket closed: %d %s", r.code, r.body)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Bad frames are answered, with the frame's id when it could be read,
// by the code and body the native route gives for the same request
// (400 for a frame that is no request at all, 413 past the body limit),
// change nothing, and leave the socket working.
func TestWSBadFrames(t *testing.T) {
	const limit = 8 << 10
	e := newEnv(t, []scripted.Turn{textTurn}, func(c *server.Config) { c.MaxBodyBytes = limit })
	sid := e.createSession()
	other := e.createSession()
	w := e.openWS(sid, "?since=0")
	before := e.snap(sid)
	msg := userMsg("hi")
	confirm := `{"type":"USER_CONFIRM_RESULT","id":"e1","created_at":"2025-01-01T00:00:00Z","metadata":{},"reply_id":"r1","confirm_results":[{"confirmed":true,"tool_call":{"type":"tool_call","id":"c1","name":"save_note","input":"{}","created_at":"2025-01-01T00:00:00.000000"}}]}`
	for _, tc := range []struct {
		name  string
		frame string
		typ   websocket.MessageType // 0: text
		code  int
		id    string // the id echoed ("": none)
		// http, when set, is the POST /chat/ body that must be answered
		// the same.
		http string
	}{
		{"not JSON", `hello`, 0, 400, "", ""},
		{"a list", `[{"type":"chat"}]`, 0, 400, "", ""},
		{"a string", `"chat"`, 0, 400, "", ""},
		{"null", `null`, 0, 400, "", ""},
		{"binary", `{"id":"b","type":"interrupt"}`, websocket.MessageBinary, 400, "", ""},
		{"invalid UTF-8", "{\"id\":\"u\",\"type\":\"chat\",\"agent_id\":\"a1\",\"input\":{\"role\":\"user\",\"name\":\"u\",\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}}", 0, 400, "", ""},
		{"id not a string", `{"id":5,"type":"interrupt"}`, 0, 400, "", ""},
		{"no type", `{"id":"t0"}`, 0, 400, "t0", ""},
		{"unknown type", `{"id":"t1","type":"USER_CONFIRM_RESULT"}`, 0, 400, "t1", ""},
		{"no agent_id", fmt.Sprintf(`{"id":"a","type":"chat","input":%s}`, msg), 0, 422, "a", fmt.Sprintf(`{"session_id":%q,"input":%s}`, sid, msg)},
		{"agent_id not a string", fmt.Sprintf(`{"id":"a2","type":"chat","agent_id":5,"input":%s}`, msg), 0, 422, "a2", fmt.Sprintf(`{"agent_id":5,"session_id":%q,"input":%s}`, sid, msg)},
		{"another agent", fmt.Sprintf(`{"id":"a3","type":"chat","agent_id":"zz","input":%s}`, msg), 0, 404, "a3", fmt.Sprintf(`{"agent_id":"zz","session_id":%q,"input":%s}`, sid, msg)},
		{"no input", `{"id":"i0","type":"chat","agent_id":"a1"}`, 0, 422, "i0", fmt.Sprintf(`{"agent_id":"a1","session_id":%q}`, sid)},
		{"null input", wsChat("i1", "null"), 0, 422, "i1", fmt.Sprintf(`{"agent_id":"a1","session_id":%q,"input":null}`, sid)},
		{"empty list", wsChat("i2", "[]"), 0, 422, "i2", fmt.Sprintf(`{"agent_id":"a1","session_id":%q,"input":[]}`, sid)},
		{"not the user's message", wsChat("i3", `{"role":"assistant","name":"x","content":[]}`), 0, 422, "i3", fmt.Sprintf(`{"agent_id":"a1","session_id":%q,"input":{"role":"assistant","name":"x","content":[]}}`, sid)},
		{"a confirm with nothing parked", wsChat("i4", confirm), 0, 422, "i4", fmt.Sprintf(`{"agent_id":"a1","session_id":%q,"input":%s}`, sid, confirm)},
		{"another session", fmt.Sprintf(`{"id":"s1","type":"chat","agent_id":"a1","session_id":%q,"input":%s}`, other, msg), 0, 422, "s1", ""},
		{"over the body limit", wsChat("big", userMsg(strings.Repeat("x", limit))), 0, 413, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			typ := tc.typ
			if typ == 0 {
				typ = websocket.MessageText
			}
			w.sendType(typ, []byte(tc.frame))
			r := w.reply()
			if r.Status != tc.code {
				t.Fatalf("%d %s, want %d", r.Status, r.Body, tc.code)
			}
			switch {
			case tc.id == "" && r.ID != nil:
				t.Fatalf("id %q echoed", *r.ID)
			case tc.id != "" && (r.ID == nil || *r.ID != tc.id):
				t.Fatalf("id %v, want %q", r.ID, tc.id)
			}
			var body struct{ Detail any }
			if json.Unmarshal(r.Body, &body) != nil || body.Detail == nil {
				t.Fatalf("body %s: no detail", r.Body)
			}
			if tc.http != "" {
				h := e.do("POST", "/chat/", user, tc.http)
				if h.code != r.Status || h.body != string(r.Body) {
					t.Fatalf("socket %d %s, POST /chat/ %d %s", r.Status, r.Body, h.code, h.body)
				}
			}
			if after := e.snap(sid); after != before {
				t.Fatalf("the frame changed %+v to %+v", before, after)
			}
		})
	}
	w.quiet(50 * time.Millisecond)
	// Frames sent together are answered one by one, in order.
	for _, id := range []string{"p1", "p2", "p3"} {
		w.send(fmt.Sprintf(`{"id":%q,"type":"?"}`, id))
	}
	for _, id := range []string{"p1", "p2", "p3"} {
		if r := w.reply(); r.ID == nil || *r.ID != id || r.Status != 400 {
			t.Fatalf("pipelined frames: %+v, want %s", r, id)
		}
	}
	// The socket still works.
	if r := w.ask(wsChat("ok", msg)); r.Status != 200 || *r.ID != "ok" {
		t.Fatalf("chat after the bad frames: %+v %s", r, r.Body)
	}
	checkWSSeqs(t, w.until(event.TypeReplyEnd), 1)
}

// A socket that stops reading falls behind and is cut rather than
// buffered for: once it reads again it gets its events without a gap,
// then a close frame (going away); reopened with ?since= its last seq,
// it gets the rest, every event once.
func TestWSSlowClientCutAndReconnect(t *testing.T) {
	chunk := strings.Repeat("x", 4<<10)
	var steps []scripted.Step
	for range 200 {
		steps = append(steps, scripted.Text(chunk), scripted.Pause(time.Millisecond))
	}
	e := newEnvWith(t, envOpts{turns: []scripted.Turn{scripted.Stream(steps...)}, connBuffer: 8 << 10,
		edit: func(c *server.Config) { c.Engine.SubscriberBufferBytes = 64 << 10 }})
	sid := e.createSession()
	// A small receive buffer, so the server's writes stall after a few
	// KiB instead of the kernel taking the whole reply.
	tr := e.hs.Client().Transport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			err = c.(*net.TCPConn).SetReadBuffer(4 << 10)
		}
		return c, err
	}
	defer tr.CloseIdleConnections()
	c, r := e.dialWSWith(&http.Client{Transport: tr}, sid, "?since=0", user)
	if c == nil {
		t.Fatalf("handshake: %d %s", r.code, r.body)
	}
	if r := e.chat(sid, userMsg("go")); r.code != 200 {
		t.Fatal(r.body)
	}
	// Well within the write timeout, so the server waits on its write
	// rather than drop the socket.
	e.waitStatus(sid, "idle")
	log, err := e.store.ReadEvents(context.Background(), session.Key{UserID: user, SessionID: sid}, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	w := e.reading(c)
	var got []wsEvent
	for ev := range w.events {
		got = append(got, ev)
	}
	if code := w.ended(time.Second); code != websocket.StatusGoingAway {
		t.Fatalf("the cut socket ended with %v (%v)", code, w.err)
	}
	checkWSSeqs(t, got, 1)
	if len(got) == 0 || len(got) >= len(log) {
		t.Fatalf("the slow socket got %d of %d events: it was never cut", len(got), len(log))
	}
	again := e.openWS(sid, "?since="+strconv.FormatInt(got[len(got)-1].seq, 10))
	got = append(got, again.until(event.TypeReplyEnd)...)
	checkWSSeqs(t, got, 1)
	sameAsLog(t, e, sid, got, 1)
	if len(got) != len(log) {
		t.Fatalf("%d events in all, %d in the log", len(got), len(log))
	}
}

// A client that stops answering pings is dropped within the write
// timeout (10 s at the least), and its follower slot is freed.
func TestWSDeadClientDropped(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the 10 s pong timeout")
	}
	e := newEnv(t, nil, func(c *server.Config) { c.Engine.MaxStreamClients = 1 })
	sid := e.createSession()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Never read: no pong is ever sent.
	dead, _, err := websocket.Dial(ctx, e.hs.URL+"/sessions/"+sid+"/ws", &websocket.DialOptions{HTTPClient: e.hs.Client(), HTTPHeader: wsHeader(user)})
	if err != nil {
		t.Fatal(err)
	}
	defer dead.CloseNow()
	start := time.Now()
	for {
		w, r := e.dialWS(sid, "", user)
		if w != nil {
			w.close()
			break
		}
		if r.code != 429 {
			t.Fatalf("while the dead client holds the slot: %d %s", r.code, r.body)
		}
		if time.Since(start) > 20*time.Second {
			t.Fatal("the dead client was not dropped within 20s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d := time.Since(start); d < 5*time.Second {
		t.Fatalf("dropped after %v: before its pong could be late", d)
	}
}

// The socket ends with a close frame (going away) when its session is
// deleted, and when the server shuts down.
func TestWSEndsWithTheSessionAndTheServer(t *testing.T) {
	e := newEnv(t, nil, nil)
	sid, other := e.createSession(), e.createSession()
	w := e.openWS(sid, "")
	stays := e.openWS(other, "")
	if r := e.do("DELETE", "/sessions/"+sid, user, ""); r.code != 204 {
		t.Fatalf("delete: %d", r.code)
	}
	if code := w.ended(5 * time.Second); code != websocket.StatusGoingAway {
		t.Fatalf("socket of a deleted session closed with %v (%v)", code, w.err)
	}
	if _, r := e.dialWS(sid, "", user); r.code != 404 {
		t.Fatalf("reopened after the delete: %d", r.code)
	}
	stays.quiet(50 * time.Millisecond)
	if err := e.srv.Close(); err != nil {
		t.Fatal(err)
	}
	if code := stays.ended(5 * time.Second); code != websocket.StatusGoingAway {
		t.Fatalf("socket at shutdown closed with %v (%v)", code, stays.err)
	}
}

// toSSE is the socket's events as the SSE helpers take them.
func toSSE(evs []wsEvent) []sseEvent {
	out := make([]sseEvent, len(evs))
	for i, e := range evs {
		out[i] = sseEvent{e.seq, e.ev, e.raw}
	}
	return out
}
