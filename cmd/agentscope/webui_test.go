package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/internal/checkout"
)

// uiModel is a scripted model over real HTTP, speaking OpenAI's streamed
// chat completions, for the shapes the demo model does not make; the last
// user message picks the answer:
//
//   - "SLOW": slowText, one word every 60 ms (a reply to reload in the
//     middle of);
//   - "XSS": Markdown carrying a script tag, an image with onerror and a
//     javascript: link;
//   - "MANY n": n text deltas, 2 ms apart (the frame-rate measurement);
//   - "FAIL": a 400 with an OpenAI error body (a reply that fails);
//   - "IMAGE": a call of server-everything's get-tiny-image, then, once
//     its result is in, "here it is." (a tool result carrying an image);
//   - "EXTERNAL word": a call of the external tool lookup with
//     {"word": word}, then, once its result is in, "the lookup says: "
//     and the result's text (a reply parked on the host);
//   - anything else: "ok."
func uiModel(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		prompt, answered, result := "", false, ""
		for _, m := range req.Messages {
			// The last user message, less the runtime hint that may follow it.
			if t := contentText(m.Content); m.Role == "user" && !strings.HasPrefix(strings.TrimSpace(t), "<system-reminder>") {
				prompt, answered = t, false
			}
			if m.Role == "tool" {
				answered, result = true, contentText(m.Content)
			}
		}
		if strings.Contains(prompt, "FAIL") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"the scripted model refuses","type":"invalid_request_error"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl, _ := w.(http.Flusher)
		send := func(text, finish string) {
			c := map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": text}}
			if finish != "" {
				c["finish_reason"] = finish
			}
			b, _ := json.Marshal(map[string]any{"choices": []any{c}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			if fl != nil {
				fl.Flush()
			}
		}
		var n int
		switch {
		case strings.Contains(prompt, "IMAGE") && !answered:
			b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{
				"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_img", "type": "function",
					"function": map[string]any{"name": "mcp__everything__get-tiny-image", "arguments": "{}"}}},
			}}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			send("", "tool_calls")
			fmt.Fprint(w, "data: [DONE]\n\n")
			return
		case strings.Contains(prompt, "IMAGE"):
			send("here it is.", "")
		case strings.HasPrefix(prompt, "EXTERNAL ") && !answered:
			args, _ := json.Marshal(map[string]string{"word": strings.TrimSpace(strings.TrimPrefix(prompt, "EXTERNAL "))})
			b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{
				"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_ext", "type": "function",
					"function": map[string]any{"name": "lookup", "arguments": string(args)}}},
			}}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			send("", "tool_calls")
			fmt.Fprint(w, "data: [DONE]\n\n")
			return
		case strings.HasPrefix(prompt, "EXTERNAL "):
			send("the lookup says: "+result, "")
		case strings.Contains(prompt, "SLOW"):
			for _, word := range strings.SplitAfter(slowText, " ") {
				send(word, "")
				select {
				case <-r.Context().Done():
					return
				case <-time.After(60 * time.Millisecond):
				}
			}
		case strings.Contains(prompt, "XSS"):
			send(xssText, "")
		case func() bool {
			_, err := fmt.Sscanf(prompt[max(0, strings.Index(prompt, "MANY")):], "MANY %d", &n)
			return err == nil
		}():
			for i := range n {
				send(fmt.Sprintf("w%d ", i), "")
				time.Sleep(2 * time.Millisecond)
			}
		default:
			send("ok.", "")
		}
		send("", "stop")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return "openai-compatible:scripted@" + srv.URL + "/v1"
}

// slowText is the SLOW answer: 40 numbered words, so a duplicated or a
// lost piece shows.
var slowText = func() string {
	var b strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "word%02d ", i)
	}
	return strings.TrimSpace(b.String())
}()

const xssText = "Look: <script>window.__xss = 1</script> and <img src=x onerror=\"window.__xss = 2\"> " +
	"and [a link](javascript:window.__xss=3) and <a href=\"javascript:window.__xss=4\">raw</a> **bold**."

// uiAgents writes the --config file of the browser tests: the demo agent,
// one on uiModel, and the extra ones.
func uiAgents(t testing.TB, modelURI string, extra ...map[string]any) string {
	t.Helper()
	cfg := map[string]any{"agents": append([]map[string]any{
		{"id": "demo", "name": "assistant", "description": "DEMO model", "model": "demo", "tools": "demo"},
		{"id": "scripted", "name": "scripted", "description": "a scripted model over HTTP", "model": modelURI, "tools": "none"},
	}, extra...)}
	path := filepath.Join(t.TempDir(), "agents.json")
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runUIScript runs one of web/ui/e2e's Node scripts against the servers
// in env and fails with its output when it fails. It needs web/ui's npm
// tree (scripts/webui.sh installs it) and Debian's chromium: the test
// fails, never skips, without them.
func runUIScript(t testing.TB, script string, env ...string) string {
	t.Helper()
	root, err := checkout.Here()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("the browser tests need Debian's chromium at %s (.ci/run installs it): %v", chromiumPath, err)
	}
	out, err := exec.Command("bash", filepath.Join(root, "scripts", "webui.sh"), "install").Output()
	if err != nil {
		t.Fatalf("scripts/webui.sh install: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "e2e", script))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"CHROMIUM=" + chromiumPath}, env...)...)
	// Its own process group, so the browser goes with it on a timeout.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	res, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, res)
	}
	return string(res)
}

const chromiumPath = "/usr/bin/chromium"

// cutProxy forwards TCP connections to target and cuts every open one
// when its control URL (the second result) is fetched: a dropped
// connection as the network drops it, which a browser's offline
// emulation does not do to a response already streaming.
func cutProxy(t testing.TB, target string) (addr, cut string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	open := map[net.Conn]bool{}
	track := func(c net.Conn, add bool) {
		mu.Lock()
		defer mu.Unlock()
		if add {
			open[c] = true
		} else {
			delete(open, c)
		}
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				up, err := net.Dial("tcp", target)
				if err != nil {
					c.Close()
					return
				}
				track(c, true)
				track(up, true)
				go func() { io.Copy(up, c); up.Close() }()
				io.Copy(c, up)
				c.Close()
				track(c, false)
				track(up, false)
			}()
		}
	}()
	ctl := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n := len(open)
		for c := range open {
			c.Close()
		}
		mu.Unlock()
		fmt.Fprintf(w, "%d", n)
	}))
	t.Cleanup(func() { ln.Close(); ctl.Close() })
	return ln.Addr().String(), ctl.URL
}

// artifacts is where the browser tests leave their screenshots (kept by
// CI): $AGENTSCOPE_ARTIFACTS/webui, or web/ui/e2e/artifacts.
func artifacts(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(os.Getenv("AGENTSCOPE_ARTIFACTS"), "webui")
	if os.Getenv("AGENTSCOPE_ARTIFACTS") == "" {
		root, err := checkout.Here()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(root, "web", "ui", "e2e", "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The web UI in headless Chromium against the built binary, serving the
// demo agent and the scripted model: web/ui/e2e/webui.e2e.mjs sends a
// message and sees the streamed answer, approves and denies
// confirmations (one by keyboard only), stops a slow tool, reloads
// mid-stream, answers a confirmation in one of two tabs, pastes the
// result of an external tool call (its card and "awaiting external
// result" badge surviving a reload, closed in a second tab) and sees the
// call's states over the event log, scrubs a finished reply against
// GET /messages?at=, renders hostile Markdown as text, asks once for the
// token of a server that has one, and fits 375 px; a screenshot of each
// step goes to the artifacts folder.
func TestWebUIInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives a browser")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	model := uiModel(t)
	// An agent whose tool result carries an image: server-everything's
	// get-tiny-image, over stdio.
	images := map[string]any{"id": "images", "name": "images", "description": "an MCP tool that returns an image",
		"model": model, "tools": "none", "mcp": []string{"everything=node " + everythingJS(t) + " stdio"}}
	// An agent with a tool the host runs: the browser pastes its result.
	external := map[string]any{"id": "external", "name": "external", "description": "an external tool, run by the client",
		"model": model, "tools": "none", "external_tools": []map[string]any{{"name": "lookup", "description": "looks a word up in the host's dictionary",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"word": map[string]any{"type": "string"}}, "required": []string{"word"}}}}}
	s := startServe(t, bin, freeAddr(t), filepath.Join(dir, "ui.db"), "--config", uiAgents(t, model, images, external))
	tok := startServe(t, bin, freeAddr(t), filepath.Join(dir, "token.db"), "--token", "s3cret")
	proxy, cut := cutProxy(t, strings.TrimPrefix(s.url, "http://"))
	t.Logf("serve: %s", s.stderr)
	out := runUIScript(t, "webui.e2e.mjs", "BASE_URL="+s.url, "TOKEN_URL="+tok.url, "TOKEN=s3cret",
		"PROXY_URL=http://"+proxy, "CUT_URL="+cut, "ARTIFACTS="+artifacts(t))
	t.Logf("%s", out)
}

// BenchmarkWebUIInBrowser measures what BENCHMARKS.md reports of the web
// UI in the CI browser (web/ui/e2e/bench.mjs): the embedded bundle's
// gzipped size, the first paint of a session of 200 messages, and the
// frame rate while a reply of 1,000 text deltas streams. Run it with
// go test -run '^$' -bench WebUIInBrowser -benchtime 1x ./cmd/agentscope.
func BenchmarkWebUIInBrowser(b *testing.B) {
	bin := buildBinary(b)
	s := startServe(b, bin, freeAddr(b), filepath.Join(b.TempDir(), "bench.db"), "--config", uiAgents(b, uiModel(b)))
	for range b.N {
		b.Logf("%s", runUIScript(b, "bench.mjs", "BASE_URL="+s.url))
	}
}
