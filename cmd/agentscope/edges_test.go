package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
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
