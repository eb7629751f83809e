package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentscope-go/agentscope/session/postgres"
	"github.com/agentscope-go/agentscope/session/postgres/postgrestest"
)

// listenInProcess runs `agentscope args…` in this process until the test
// ends and returns what it printed after "listening on " (serve's base URL,
// or mcp --http's /mcp URL); the stderr it returns holds all it printed.
func listenInProcess(t *testing.T, args ...string) (url string, stderr *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr = new(syncBuffer)
	exited := make(chan int, 1)
	go func() { exited <- run(ctx, args, strings.NewReader(""), io.Discard, stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			t.Errorf("%q did not stop", args)
		}
	})
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, rest, ok := strings.Cut(stderr.String(), "listening on "); ok {
			u, _, _ := strings.Cut(rest, "\n")
			u, _, _ = strings.Cut(u, ",")
			return u, stderr
		}
		select {
		case code := <-exited:
			exited <- code
			t.Fatalf("%q exited %d: %s", args, code, stderr)
		default:
		}
	}
	t.Fatalf("%q did not listen: %s", args, stderr)
	return "", nil
}

// send makes one request and returns its status and body; hdr are header
// name, value pairs ("Host" sets the request's Host).
func send(t *testing.T, method, url, body string, hdr ...string) (int, http.Header, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

// mcpInit is an MCP initialize request, and the headers it goes with.
const mcpInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"edges","version":"1"}}}`

var mcpHeaders = []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}

// The MCP endpoint's token check (agentscope mcp --http, and serve's /mcp)
// takes the Bearer scheme in any case, and still only the token.
func TestMCPTokenSchemeAnyCase(t *testing.T) {
	mcpURL, _ := listenInProcess(t, "mcp", "--http", "127.0.0.1:0", "--token", "s3cret")
	base, _ := listenInProcess(t, "serve", "--addr", "127.0.0.1:0", "--db", t.TempDir()+"/s.db", "--token", "s3cret")
	for _, u := range []string{mcpURL, base + "/mcp"} {
		for _, h := range []string{"Bearer s3cret", "bearer s3cret", "BEARER s3cret"} {
			code, _, body := send(t, "POST", u, mcpInit, append([]string{"Authorization", h}, mcpHeaders...)...)
			if code != 200 || !strings.Contains(body, `"serverInfo"`) {
				t.Errorf("%s with %q: %d %s", u, h, code, body)
			}
		}
		for _, h := range []string{"bearer S3CRET", "Basic s3cret", "s3cret", ""} {
			if code, _, body := send(t, "POST", u, mcpInit, append([]string{"Authorization", h}, mcpHeaders...)...); code != 401 {
				t.Errorf("%s with %q: %d %s, want 401", u, h, code, body)
			}
		}
	}
}

// portOf is the port of a URL printed as http://HOST:PORT[/…].
func portOf(t *testing.T, u string) string {
	t.Helper()
	hp := strings.TrimPrefix(u, "http://")
	hp, _, _ = strings.Cut(hp, "/")
	_, port, err := net.SplitHostPort(hp)
	if err != nil {
		t.Fatalf("%q: %v", u, err)
	}
	return port
}

// detailOf is the "detail" of a JSON error body ("" if there is none).
func detailOf(body string) string {
	var v struct {
		Detail string `json:"detail"`
	}
	json.Unmarshal([]byte(body), &v)
	return v.Detail
}

// On loopback, serve answers only its loopback names: another Host is
// 403 {"detail"} on every route it serves, /health and /mcp included, and
// --allow-host adds names. agentscope mcp --http answers the same way.
func TestServeHostCheck(t *testing.T) {
	base, _ := listenInProcess(t, "serve", "--addr", "127.0.0.1:0", "--db", t.TempDir()+"/s.db", "--allow-host", "agents.example.com")
	mcpURL, _ := listenInProcess(t, "mcp", "--http", "127.0.0.1:0")
	port := portOf(t, base)
	user := []string{"X-User-ID", "me"}
	type probe struct{ method, url, body string }
	probes := []probe{{"GET", base + "/health", ""}, {"GET", base + "/agent/", ""}, {"POST", base + "/sessions/", `{"agent_id":"demo"}`}, {"GET", base + "/nowhere", ""}, {"POST", base + "/mcp", mcpInit}, {"POST", mcpURL, mcpInit}}
	for _, host := range []string{"evil.example", "evil.example:" + port, "localhost.evil.example:" + port, "127.0.0.1.nip.io:" + port} {
		for _, p := range probes {
			hdr := append(append([]string{"Host", host, "Content-Type", "application/json"}, user...), mcpHeaders...)
			code, _, body := send(t, p.method, p.url, p.body, hdr...)
			if code != 403 || !strings.Contains(detailOf(body), "is not allowed") {
				t.Errorf("%s %s with Host %q: %d %s, want 403 {\"detail\"}", p.method, p.url, host, code, body)
			}
		}
	}
	if code, _, body := send(t, "GET", base+"/sessions/?agent_id=demo", "", user...); code != 200 || !strings.Contains(body, `"total":0`) {
		t.Fatalf("sessions after the refused creates: %d %s", code, body)
	}
	for _, host := range []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port, "LOCALHOST", "agents.example.com", "agents.example.com:443"} {
		if code, _, body := send(t, "GET", base+"/health", "", "Host", host); code != 200 {
			t.Errorf("serve /health with Host %q: %d %s", host, code, body)
		}
		if code, _, body := send(t, "POST", base+"/mcp", mcpInit, append([]string{"Host", host}, mcpHeaders...)...); code != 200 || !strings.Contains(body, `"serverInfo"`) {
			t.Errorf("serve /mcp with Host %q: %d %s", host, code, body)
		}
	}
	for _, host := range []string{"localhost:" + portOf(t, mcpURL), "127.0.0.1"} {
		if code, _, body := send(t, "POST", mcpURL, mcpInit, append([]string{"Host", host}, mcpHeaders...)...); code != 200 || !strings.Contains(body, `"serverInfo"`) {
			t.Errorf("mcp --http with Host %q: %d %s", host, code, body)
		}
	}
}

// Off loopback (a token required), no Host is refused, on the API or on
// /mcp, unless --allow-host names the hosts to answer; then the others
// are 403 there too.
func TestServeHostCheckOffLoopback(t *testing.T) {
	open, _ := listenInProcess(t, "serve", "--addr", "0.0.0.0:0", "--db", t.TempDir()+"/s.db", "--token", "s3cret")
	named, _ := listenInProcess(t, "serve", "--addr", "0.0.0.0:0", "--db", t.TempDir()+"/n.db", "--token", "s3cret", "--allow-host", "agents.example.com")
	auth := []string{"Authorization", "Bearer s3cret", "X-User-ID", "me"}
	at := func(u string) string { return "http://127.0.0.1:" + portOf(t, u) }
	for _, host := range []string{"evil.example", "agents.example.com", "10.1.2.3:8080"} {
		if code, _, body := send(t, "GET", at(open)+"/agent/", "", append([]string{"Host", host}, auth...)...); code != 200 {
			t.Errorf("off loopback, Host %q: %d %s", host, code, body)
		}
		// The MCP SDK's own check would refuse this one: it came over the
		// loopback interface under another name.
		if code, _, body := send(t, "POST", at(open)+"/mcp", mcpInit, append(append([]string{"Host", host}, auth...), mcpHeaders...)...); code != 200 {
			t.Errorf("off loopback, /mcp with Host %q: %d %s", host, code, body)
		}
	}
	for host, want := range map[string]int{"agents.example.com": 200, "AGENTS.example.com:8443": 200, "localhost": 200, "evil.example": 403, "10.1.2.3:8080": 403} {
		if code, _, body := send(t, "GET", at(named)+"/health", "", "Host", host); code != want {
			t.Errorf("--allow-host off loopback, Host %q: %d %s, want %d", host, code, body, want)
		}
		if code, _, body := send(t, "POST", at(named)+"/mcp", mcpInit, append(append([]string{"Host", host}, auth...), mcpHeaders...)...); code != want {
			t.Errorf("--allow-host off loopback, /mcp with Host %q: %d %s, want %d", host, code, body, want)
		}
	}
}

// trickleTo sends a POST's headers to addr, then its body one byte a
// second, and returns how long until the server closed the connection
// (failing after limit) and what it answered. The writer goroutine ends
// with the connection, which is closed on return.
func trickleTo(t *testing.T, addr, path string, limit time.Duration, hdr ...string) (time.Duration, string) {
	t.Helper()
	// start is taken before the dial: the server's clock for the request
	// starts once it accepts, which a loaded machine can schedule before
	// this goroutine runs again after the dial.
	start := time.Now()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	head := "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n"
	for i := 0; i+1 < len(hdr); i += 2 {
		head += hdr[i] + ": " + hdr[i+1] + "\r\n"
	}
	io.WriteString(conn, head+"\r\n")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
			time.Sleep(time.Second)
		}
	}()
	defer func() { conn.Close(); <-done }()
	conn.SetReadDeadline(start.Add(limit))
	got, err := io.ReadAll(conn)
	// A reset is a close too: the server closes with the client's bytes
	// unread.
	if isTimeoutErr(err) {
		t.Fatalf("POST %s trickled: the connection is still open after %v (%v), having answered %q", path, time.Since(start), err, got)
	}
	return time.Since(start), string(got)
}

// serve's --read-timeout cuts a client that trickles a request body, on
// the API (408 {"detail"}) and on /mcp, or its headers, and does not cut what outlives it
// once the request is in: an SSE stream, an MCP call's reply. Its
// --idle-timeout closes a keep-alive connection left idle, and only then.
func TestServeTimeouts(t *testing.T) {
	// cutBound is how long past a bound the client keeps a connection
	// going (trickling, or idle) before it takes the server for one that
	// never cuts: a server without the bound never closes it, and a
	// loaded machine closes it late, so the margin is wide; that the cut
	// does not come early is checked exactly.
	const cutBound = 30 * time.Second
	const read, idle = time.Second, 2 * time.Second
	base, _ := listenInProcess(t, "serve", "--addr", "127.0.0.1:0", "--db", t.TempDir()+"/s.db", "--read-timeout", read.String(), "--idle-timeout", idle.String())
	addr := strings.TrimPrefix(base, "http://")

	took, answer := trickleTo(t, addr, "/sessions/", read+cutBound, "X-User-ID", "me", "Content-Type", "application/json")
	if !strings.HasPrefix(answer, "HTTP/1.1 408 ") || !strings.Contains(answer, `{"detail":`) || took < read {
		t.Errorf("API: cut after %v with %q, want 408 {\"detail\"} after %v", took, answer, read)
	}
	took, answer = trickleTo(t, addr, "/mcp", read+cutBound, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
	if took < read {
		t.Errorf("/mcp: cut after %v (%q), want after %v", took, answer, read)
	}

	// Headers trickled are cut too.
	hconn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer hconn.Close()
	hstart := time.Now()
	io.WriteString(hconn, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
	hdone := make(chan struct{})
	go func() { // ends with the connection
		defer close(hdone)
		for {
			if _, err := hconn.Write([]byte("a")); err != nil {
				return
			}
			time.Sleep(time.Second)
		}
	}()
	hconn.SetReadDeadline(hstart.Add(read + cutBound))
	if _, err := io.ReadAll(hconn); isTimeoutErr(err) {
		t.Errorf("headers trickled: still open after %v (%v)", time.Since(hstart), err)
	}
	hconn.Close()
	<-hdone

	// An SSE stream, opened on a fresh connection, outlives both bounds
	// and then carries a run's events.
	_, _, body := send(t, "POST", base+"/sessions/", `{"agent_id":"demo"}`, "X-User-ID", "me", "Content-Type", "application/json")
	var created struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(body), &created); err != nil || created.SessionID == "" {
		t.Fatalf("create: %s", body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/sessions/"+created.SessionID+"/stream", nil)
	req.Header.Set("X-User-ID", "me")
	res, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("stream: %v %v", err, res)
	}
	defer res.Body.Close()
	lines := make(chan string, 1024)
	go func() { // ends when the stream does: the server's end, or cancel
		defer close(lines)
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	time.Sleep(idle + read)
	in := `{"agent_id":"demo","session_id":"` + created.SessionID + `","input":{"role":"user","name":"me","content":[{"type":"text","text":"What is 2+2?"}]}}`
	if code, _, body := send(t, "POST", base+"/chat/", in, "X-User-ID", "me", "Content-Type", "application/json"); code != 200 {
		t.Fatalf("chat: %d %s", code, body)
	}
	for l := range lines {
		if strings.Contains(l, `"type":"REPLY_END"`) {
			cancel()
			break
		}
	}
	if ctx.Err() == nil {
		t.Fatal("the stream ended before REPLY_END")
	}

	// An MCP call whose reply takes twice the read bound gets it.
	c := sdk.NewClient(&sdk.Implementation{Name: "edges", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if txt, isErr := askText(t, cs, "wait 2 seconds"); isErr || !strings.Contains(txt, "waited 2 seconds") {
		t.Errorf("a 2 s MCP call with a 1 s read bound: %q (error %v)", txt, isErr)
	}

	// A keep-alive connection is open until idle runs out, then closed.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	br := bufio.NewReader(conn)
	hres, err := http.ReadResponse(br, nil)
	if err != nil || hres.StatusCode != 200 {
		t.Fatalf("health: %v %v", err, hres)
	}
	io.Copy(io.Discard, hres.Body)
	idleFrom := time.Now()
	conn.SetReadDeadline(idleFrom.Add(idle - 500*time.Millisecond))
	if _, err := br.ReadByte(); !isTimeoutErr(err) {
		t.Fatalf("the idle connection was closed before --idle-timeout: %v after %v", err, time.Since(idleFrom))
	}
	conn.SetReadDeadline(idleFrom.Add(idle + cutBound))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("the idle connection is still open after --idle-timeout: %v after %v", err, time.Since(idleFrom))
	}
}

func isTimeoutErr(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// No password of a postgres:// URL (nor of key=value pairs) shows in what
// serve or chat prints: not when the store cannot be reached, in the
// error, and not in serve's "listening on … store …" line once it is.
func TestDBPasswordNeverPrinted(t *testing.T) {
	port := portOf(t, "http://"+freeAddr(t)) // nothing listens there now
	for _, tc := range []struct{ db, secret string }{
		{"postgres://agent:Zq7PlainSecret@127.0.0.1:" + port + "/app", "Zq7PlainSecret"},
		{"postgres://agent:Zq7%40EncodedSecret@127.0.0.1:" + port + "/app", "Zq7@EncodedSecret"},
		{"postgres://agent:Zq7%40EncodedSecret@127.0.0.1:" + port + "/app", "Zq7%40EncodedSecret"},
		{"postgresql://agent@127.0.0.1:" + port + "/app?password=Zq7QuerySecret&sslmode=disable", "Zq7QuerySecret"},
		{"postgres://agent:Zq7BadURLSecret@127.0.0.1:notaport/app", "Zq7BadURLSecret"},
	} {
		code, stdout, stderr := runIn(t, "", "serve", "--addr", "127.0.0.1:0", "--db", tc.db)
		if code != exitFailure || !strings.Contains(stderr, "open postgres") {
			t.Errorf("serve --db %s: exit %d, stderr %q", postgres.Redact(tc.db), code, stderr)
		}
		if strings.Contains(stderr+stdout, tc.secret) {
			t.Errorf("serve printed the password %q: %s", tc.secret, stderr)
		}
		code, stdout, stderr = runIn(t, "", "chat", "--db", tc.db)
		if code != exitFailure || !strings.Contains(stderr, "open postgres") {
			t.Errorf("chat --db %s: exit %d, stderr %q", postgres.Redact(tc.db), code, stderr)
		}
		if strings.Contains(stderr+stdout, tc.secret) {
			t.Errorf("chat printed the password %q: %s", tc.secret, stderr)
		}
	}

	// A store that opens (the test server trusts every connection, so
	// the password is only carried, never checked).
	u, err := neturl.Parse(postgrestest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = neturl.UserPassword(u.User.Username(), "Zq7ServedSecret")
	_, stderr := listenInProcess(t, "serve", "--addr", "127.0.0.1:0", "--db", u.String())
	if out := stderr.String(); strings.Contains(out, "Zq7ServedSecret") || !strings.Contains(out, "store postgres://"+u.User.Username()+":xxxxx@") {
		t.Fatalf("serve's listening line: %s", out)
	}
}
