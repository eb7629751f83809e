package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
)

// hostGet sends GET path with the given Host header and returns the
// status and body.
func (e *env) hostGet(path, host string) response {
	e.t.Helper()
	req, _ := http.NewRequest("GET", e.hs.URL+path, nil)
	req.Host = host
	req.Header.Set("X-User-ID", user)
	res, err := e.hs.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{res.StatusCode, string(b)}
}

// Behind HostCheck, a request naming another host than loopback's or the
// configured ones is 403 {"detail"} on every route, /health included, and
// does nothing; loopback names pass with any port, in any case. Without
// it, any Host passes.
func TestHostCheck(t *testing.T) {
	port := func(e *env) string { _, p, _ := net.SplitHostPort(e.hs.Listener.Addr().String()); return p }
	loopbackOnly := newEnvWith(t, envOpts{turns: []scripted.Turn{textTurn}, hosts: []string{}})
	p := port(loopbackOnly)
	for _, h := range []string{"localhost", "localhost:" + p, "LocalHost:" + p, "localhost.:" + p, "127.0.0.1", "127.0.0.1:" + p, "127.9.8.7:" + p, "[::1]", "[::1]:" + p} {
		for _, path := range []string{"/health", "/agent/"} {
			if r := loopbackOnly.hostGet(path, h); r.code != 200 {
				t.Errorf("Host %q, %s: %d %s", h, path, r.code, r.body)
			}
		}
	}
	for _, h := range []string{"evil.example", "evil.example:" + p, "localhost.evil.example:" + p, "127.0.0.1.nip.io:" + p, "10.0.0.1:" + p, "[::2]:" + p} {
		for _, path := range []string{"/health", "/agent/", "/sessions/x/stream", "/no-such-route"} {
			r := loopbackOnly.hostGet(path, h)
			if r.code != 403 || !strings.Contains(r.json(t)["detail"].(string), "is not allowed") {
				t.Errorf("Host %q, %s: %d %s, want 403", h, path, r.code, r.body)
			}
		}
	}
	// A refused request does nothing: no session is created.
	req, _ := http.NewRequest("POST", loopbackOnly.hs.URL+"/sessions/", strings.NewReader(`{"agent_id":"a1"}`))
	req.Host, req.Header["X-User-Id"], req.Header["Content-Type"] = "evil.example", []string{user}, []string{"application/json"}
	res, err := loopbackOnly.hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 403 {
		t.Fatalf("POST /sessions/ from evil.example: %d", res.StatusCode)
	}
	if r := loopbackOnly.do("GET", "/sessions/?agent_id=a1", user, ""); r.code != 200 || r.json(t)["total"] != 0.0 {
		t.Fatalf("sessions after a refused create: %d %s", r.code, r.body)
	}

	named := newEnvWith(t, envOpts{turns: []scripted.Turn{textTurn}, hosts: []string{"api.example.com", "API2.example.com:443"}})
	for h, want := range map[string]int{"api.example.com": 200, "API.example.COM:8443": 200, "api2.example.com": 200, "localhost:" + port(named): 200, "example.com": 403, "evil.api.example.com": 403} {
		if r := named.hostGet("/health", h); r.code != want {
			t.Errorf("Hosts configured, Host %q: %d %s, want %d", h, r.code, r.body, want)
		}
	}

	unchecked := newEnvWith(t, envOpts{turns: []scripted.Turn{textTurn}})
	if r := unchecked.hostGet("/agent/", "evil.example"); r.code != 200 {
		t.Fatalf("no Hosts, Host evil.example: %d %s", r.code, r.body)
	}
}

// trickle sends a request's headers on a fresh connection, then its body
// one byte per second until the connection fails or the test ends, and
// returns the connection. The goroutine that writes ends by the end of the
// test, which waits for it.
func trickle(t *testing.T, addr, head string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, head); err != nil {
		conn.Close()
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() {
		close(stop)
		conn.Close()
		<-done
	})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return conn
}

// A client that sends its headers and then trickles the body is cut once
// the listener's ReadTimeout has run out: the API answers 408 {"detail"}
// and the connection is closed, though the client is still sending.
func TestReadTimeoutCutsTrickledBody(t *testing.T) {
	const bound = time.Second
	e := newEnvWith(t, envOpts{turns: []scripted.Turn{textTurn}, readTimeout: bound})
	for _, path := range []string{"/sessions/", "/chat/"} {
		start := time.Now()
		conn := trickle(t, e.hs.Listener.Addr().String(), fmt.Sprintf("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User-ID: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n", path, user))
		// Well before the trickle's 1000 s: a connection not cut within
		// the bound and some slack fails here, not by hanging.
		conn.SetReadDeadline(time.Now().Add(bound + 5*time.Second))
		br := bufio.NewReader(conn)
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: no answer: %v", path, err)
		}
		b, _ := io.ReadAll(res.Body)
		var d map[string]any
		if res.StatusCode != 408 || json.Unmarshal(b, &d) != nil || d["detail"] == nil {
			t.Fatalf("%s: %d %s, want 408 {\"detail\"}", path, res.StatusCode, b)
		}
		if el := time.Since(start); el < bound || el > bound+3*time.Second {
			t.Errorf("%s: answered after %v, want about %v", path, el, bound)
		}
		// And the connection is closed: nothing more comes, not even to a
		// client that keeps writing.
		if n, err := br.Read(make([]byte, 1)); err == nil || isTimeout(err) {
			t.Fatalf("%s: the connection is still open after the 408 (%d, %v)", path, n, err)
		}
	}
	if r := e.do("GET", "/sessions/?agent_id=a1", user, ""); r.code != 200 || r.json(t)["total"] != 0.0 {
		t.Fatalf("sessions after a cut create: %d %s", r.code, r.body)
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// ReadTimeout bounds the reading of a request, not the answer: a
// connection that carried a POST, and an SSE stream on it, outlive it
// several times over, and the stream delivers a run's events after that.
// (net/http lifts the read deadline once a request's body is read, for its
// own watch on the connection; this holds it to that.)
func TestReadTimeoutSparesStreams(t *testing.T) {
	const bound = 300 * time.Millisecond
	e := newEnvWith(t, envOpts{turns: []scripted.Turn{textTurn}, readTimeout: bound})
	conn, err := net.Dial("tcp", e.hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReader(conn)
	body := `{"agent_id":"a1"}`
	fmt.Fprintf(conn, "POST /sessions/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User-ID: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", user, len(body), body)
	res, err := http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != 201 {
		t.Fatalf("create: %v %v", err, res)
	}
	var created struct {
		SessionID string `json:"session_id"`
	}
	if err := json.NewDecoder(res.Body).Decode(&created); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	fmt.Fprintf(conn, "GET /sessions/%s/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User-ID: %s\r\n\r\n", created.SessionID, user)
	res, err = http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("stream on the same connection: %v %v", err, res)
	}
	time.Sleep(4 * bound)
	if r := e.chat(created.SessionID, userMsg("hi")); r.code != 200 {
		t.Fatal(r.body)
	}
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"type":"`+string(event.TypeReplyEnd)+`"`) {
			return
		}
	}
	t.Fatalf("the stream ended before REPLY_END: %v", sc.Err())
}

// A handler that has read its body and then answers for longer than
// ReadTimeout (an MCP call's SSE reply does) is not cut: the bound ends
// with the body, so the server's watch on the connection, which cancels
// the request when a read fails, does not fire.
func TestReadTimeoutEndsWithTheBody(t *testing.T) {
	const bound = 200 * time.Millisecond
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			t.Errorf("body: %v", err)
			return
		}
		rc := http.NewResponseController(w)
		for i := range 5 {
			select {
			case <-r.Context().Done():
				fmt.Fprintf(w, "cancelled after %d\n", i)
				return
			case <-time.After(bound):
			}
			fmt.Fprintf(w, "tick %d\n", i)
			rc.Flush()
		}
		io.WriteString(w, "done\n")
	})
	hs := httptest.NewUnstartedServer(h)
	hs.Config.ReadTimeout = bound
	hs.Start()
	defer hs.Close()
	res, err := hs.Client().Post(hs.URL, "text/plain", strings.NewReader("a body"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.HasSuffix(string(b), "tick 4\ndone\n") {
		t.Fatalf("the reply after the body: %q", b)
	}
}
