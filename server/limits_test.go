package server_test

import (
	"bufio"
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

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/session"
)

// A client that stops reading falls behind; the server cuts it, by the
// bytes it has queued or by the batches, rather than buffer the run for
// it. Reconnecting with Last-Event-ID it gets the rest from the log: with
// what it read before the cut, every event once, in order.
func TestSlowClientCutAndReconnect(t *testing.T) {
	chunk := strings.Repeat("x", 4<<10)
	for _, tc := range []struct {
		name string
		edit func(*server.Config)
	}{
		// 200 deltas of 4 KiB: the batch count (256) is never reached,
		// only the byte budget cuts.
		{"bytes", func(c *server.Config) { c.Engine.SubscriberBufferBytes = 64 << 10 }},
		// No byte budget to speak of: only the batch count cuts.
		{"batches", func(c *server.Config) { c.Engine.SubscriberBuffer = 4; c.Engine.SubscriberBufferBytes = 1 << 30 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var steps []scripted.Step
			for range 200 {
				// The pauses keep the run's events in many small batches.
				steps = append(steps, scripted.Text(chunk), scripted.Pause(time.Millisecond))
			}
			e := newEnvWith(t, envOpts{turns: []scripted.Turn{scripted.Stream(steps...)}, edit: tc.edit, connBuffer: 8 << 10})
			sid := e.createSession()

			// The slow client: a raw connection with a small receive
			// buffer, read only once the run is over.
			conn, err := net.Dial("tcp", e.hs.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := conn.(*net.TCPConn).SetReadBuffer(4 << 10); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(conn, "GET /sessions/%s/stream HTTP/1.1\r\nHost: test\r\nX-User-ID: %s\r\nLast-Event-ID: 0\r\n\r\n", sid, user)

			if r := e.chat(sid, userMsg("go")); r.code != 200 {
				t.Fatal(r.body)
			}
			// The slow client cannot tell when the run is over; the
			// status can.
			e.waitStatus(sid, "idle")
			log, err := e.store.ReadEvents(context.Background(), session.Key{UserID: user, SessionID: sid}, 0, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if len(log) < 200 || !strings.Contains(string(log[len(log)-1].JSON), `"type":"REPLY_END"`) {
				t.Fatalf("%d events logged", len(log))
			}

			// The slow client's stream ends (it was cut) short of the
			// reply's end, without a gap.
			conn.SetReadDeadline(time.Now().Add(20 * time.Second))
			conn.(*net.TCPConn).SetReadBuffer(1 << 20)
			br := bufio.NewReader(conn)
			res, err := http.ReadResponse(br, nil)
			if err != nil || res.StatusCode != 200 {
				t.Fatalf("slow client: %v %v", res, err)
			}
			var last int64
			body := bufio.NewReader(res.Body)
			for {
				line, err := body.ReadString('\n')
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("the slow client was not cut: after seq %d: %v", last, err)
				}
				if v, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "id: "); ok {
					n, _ := strconv.ParseInt(v, 10, 64)
					if n != last+1 {
						t.Fatalf("slow client: seq %d after %d", n, last)
					}
					last = n
				}
			}
			if last >= log[len(log)-1].Seq {
				t.Fatalf("the slow client got every event (%d): it was never cut", last)
			}

			// It reconnects where it stopped and gets the rest.
			again := e.openStream(sid, "", "Last-Event-ID", strconv.FormatInt(last, 10))
			rest := again.until(event.TypeReplyEnd)
			checkSeqs(t, rest, last+1)
			if got, want := int(last)+len(rest), len(log); got != want {
				t.Fatalf("%d events before the cut and %d after, want %d in all", last, len(rest), want)
			}
			for i, ev := range rest {
				if want := log[int(last)+i]; ev.raw != string(want.JSON) {
					t.Fatalf("event %d after the reconnect differs from the log", ev.seq)
				}
			}
		})
	}
}

// One SSE client beyond MaxStreamClients on a session is refused with 429
// {"detail"}; other sessions are not affected, and a slot freed by a
// client that left is taken again.
func TestStreamClientLimit(t *testing.T) {
	e := newEnv(t, []scripted.Turn{textTurn}, func(c *server.Config) { c.Engine.MaxStreamClients = 2 })
	sid, other := e.createSession(), e.createSession()
	a := e.openStream(sid, "")
	b := e.openStream(sid, "")
	r := e.do("GET", "/sessions/"+sid+"/stream", user, "")
	if r.code != 429 || r.json(t)["detail"] == nil {
		t.Fatalf("third client: %d %s, want 429", r.code, r.body)
	}
	e.openStream(other, "") // another session has its own limit
	// The two clients still get the session's events.
	if r := e.chat(sid, userMsg("hi")); r.code != 200 {
		t.Fatal(r.body)
	}
	checkSeqs(t, a.until(event.TypeReplyEnd), 1)
	checkSeqs(t, b.until(event.TypeReplyEnd), 1)
	// The server frees a client's slot when it sees the connection gone,
	// which the client cannot observe: retry until it has.
	a.close()
	for deadline := time.Now().Add(10 * time.Second); ; {
		req, _ := http.NewRequest("GET", e.hs.URL+"/sessions/"+sid+"/stream", nil)
		req.Header.Set("X-User-ID", user)
		res, err := e.hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == 200 {
			break
		}
		if res.StatusCode != 429 || time.Now().After(deadline) {
			t.Fatalf("after a client left: %d", res.StatusCode)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// One SSE stream beyond MaxStreams in the process, whichever session and
// user it is for, is refused with 503 {"detail"} and Retry-After; the open
// streams and the other routes go on, and a stream that ends frees its
// slot.
func TestStreamProcessLimit(t *testing.T) {
	e := newEnv(t, []scripted.Turn{textTurn}, func(c *server.Config) { c.Engine.MaxStreams = 2; c.Engine.MaxStreamClients = 10 })
	sid, other := e.createSession(), e.createSession()
	a := e.openStream(sid, "")
	e.openStream(other, "")
	bob := e.do("POST", "/sessions/", "bob", `{"agent_id":"a1"}`).json(t)["session_id"].(string)
	req, _ := http.NewRequest("GET", e.hs.URL+"/sessions/"+bob+"/stream", nil)
	req.Header.Set("X-User-ID", "bob")
	// A stream let through would not end: the deadline makes that a
	// failure, not a hang.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := e.hs.Client().Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var detail map[string]any
	if res.StatusCode != 503 || res.Header.Get("Retry-After") == "" || json.Unmarshal(body, &detail) != nil || detail["detail"] == nil {
		t.Fatalf("a third stream: %d %q %s, want 503 with Retry-After and a detail", res.StatusCode, res.Header.Get("Retry-After"), body)
	}
	// The same session's second client is refused too: the bound is the
	// process's, not a session's.
	if r := e.do("GET", "/sessions/"+sid+"/stream", user, ""); r.code != 503 {
		t.Fatalf("a second client of a streamed session: %d %s", r.code, r.body)
	}
	// Nothing else is affected: a run starts, and its events reach the
	// open stream.
	if r := e.chat(sid, userMsg("hi")); r.code != 200 {
		t.Fatal(r.body)
	}
	checkSeqs(t, a.until(event.TypeReplyEnd), 1)
	if r := e.do("GET", "/sessions/"+bob+"/status?agent_id=a1", "bob", ""); r.code != 200 {
		t.Fatalf("status: %d %s", r.code, r.body)
	}
	// The server frees the slot when it sees the connection gone.
	a.close()
	for deadline := time.Now().Add(10 * time.Second); ; {
		res, err := e.hs.Client().Do(req.Clone(context.Background()))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == 200 {
			break
		}
		if res.StatusCode != 503 || time.Now().After(deadline) {
			t.Fatalf("after a stream ended: %d", res.StatusCode)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The body limit is the message limit: a message that fits in a body is
// taken and stored whole; one that does not is 413 and stores nothing.
func TestBodyLimitIsTheMessageLimit(t *testing.T) {
	const limit = 64 << 10
	e := newEnv(t, []scripted.Turn{textTurn}, func(c *server.Config) { c.MaxBodyBytes = limit })
	sid := e.createSession()
	before := e.snap(sid)
	over := strings.Repeat("y", limit)
	if r := e.chat(sid, userMsg(over)); r.code != 413 || r.json(t)["detail"] == nil {
		t.Fatalf("a message over the body limit: %d %s", r.code, r.body)
	}
	if after := e.snap(sid); after != before {
		t.Fatalf("the refused message changed %+v to %+v", before, after)
	}
	text := strings.Repeat("x", limit-512)
	s := e.openStream(sid, "?since=0")
	if r := e.chat(sid, userMsg(text)); r.code != 200 {
		t.Fatalf("a message within the body limit: %d %s", r.code, r.body)
	}
	s.until(event.TypeReplyEnd)
	r := e.do("GET", "/sessions/"+sid+"/messages", user, "")
	var page struct{ Messages []*message.Msg }
	if err := json.Unmarshal([]byte(r.body), &page); err != nil || len(page.Messages) != 2 {
		t.Fatalf("transcript %d %.200s", r.code, r.body)
	}
	if got, _ := page.Messages[0].TextContent(""); got != text {
		t.Fatalf("stored %d bytes of a %d-byte message", len(got), len(text))
	}
}
