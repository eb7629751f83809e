package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/internal/mockllm"
	"github.com/agentscope-go/agentscope/message"
)

// chatServer answers every chat completion with the SSE body and records
// the request bodies.
type chatServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
	paths  []string
	auth   []string
}

func newChatServer(t *testing.T, status int, body string) *chatServer {
	t.Helper()
	s := &chatServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		b.ReadFrom(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, b.String())
		s.paths = append(s.paths, r.URL.Path)
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		if status != 200 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
		} else {
			w.Header().Set("Content-Type", "text/event-stream")
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

const helloSSE = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n" +
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo!\"},\"finish_reason\":\"stop\"}]}\n\n" +
	"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":2,\"prompt_tokens_details\":{\"cached_tokens\":4}}}\n\n" +
	"data: [DONE]\n\n"

func TestRunText(t *testing.T) {
	srv := newChatServer(t, 200, helloSSE)
	code, stdout, stderr := runIn(t, "", "run", "--model", "openai-compatible:qwen3@"+srv.URL+"/v1", "--system", "Be brief.", "say", "hello")
	if code != 0 || stdout != "Hello!\n" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if len(srv.paths) != 1 || srv.paths[0] != "/v1/chat/completions" {
		t.Fatalf("paths %v", srv.paths)
	}
	got, err := fixture.Parse([]byte(srv.bodies[0]))
	if err != nil {
		t.Fatal(err)
	}
	// System prompt, the prompt, then whatever runtime state the agent
	// injects as hints.
	msgs := got.(map[string]any)["messages"].([]any)
	if len(msgs) < 2 || msgs[0].(map[string]any)["content"] != "Be brief." || msgs[1].(map[string]any)["content"] != "say hello" {
		t.Errorf("messages %v", msgs)
	}
}

func TestRunJSON(t *testing.T) {
	srv := newChatServer(t, 200, helloSSE)
	// The prompt comes from stdin; --base-url wins over the URI's.
	code, stdout, stderr := runIn(t, "say hello\n", "run", "--json", "--model", "openai-compatible:qwen3@http://unused.invalid/v1", "--base-url", srv.URL+"/v1")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var types []string
	var text string
	var end *event.ModelCallEnd
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		ev, err := event.Decode(sc.Bytes())
		if err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		types = append(types, string(ev.Type()))
		switch e := ev.(type) {
		case *event.TextBlockDelta:
			text += e.Delta
		case *event.ModelCallEnd:
			end = e
		}
	}
	if text != "Hello!" {
		t.Errorf("text %q", text)
	}
	if types[0] != "REPLY_START" || types[len(types)-1] != "REPLY_END" || !contains(types, "MODEL_CALL_START") || !contains(types, "TEXT_BLOCK_END") {
		t.Errorf("events %v", types)
	}
	if end == nil || end.InputTokens != 11 || end.OutputTokens != 2 || end.CacheInputTokens != 4 {
		t.Errorf("MODEL_CALL_END %+v", end)
	}
	if !strings.Contains(srv.bodies[0], `"content":"say hello"`) {
		t.Errorf("body %s", srv.bodies[0])
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestRunErrors(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("AGENTSCOPE_MODEL", "")
	unauthorized := newChatServer(t, 401, `{"error":{"message":"Incorrect API key provided: sk-bad.","type":"invalid_request_error"}}`)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"no model", []string{"run", "hi"}, exitUsage, []string{"--model is required"}},
		{"no prompt", []string{"run", "--model", "openai:gpt-4.1"}, exitUsage, []string{"no prompt"}},
		{"bad uri", []string{"run", "--model", "gpt-4.1", "hi"}, exitFailure, []string{"agentscope run: setup: bad model URI"}},
		{"unknown provider", []string{"run", "--model", "nosuch:m", "hi"}, exitFailure, []string{"setup:", "unknown model provider"}},
		{"missing key", []string{"run", "--model", "openai:gpt-4.1", "hi"}, exitFailure, []string{"setup:", "OPENAI_API_KEY"}},
		{"401", []string{"run", "--model", "openai-compatible:m@" + unauthorized.URL + "/v1", "hi"}, exitFailure,
			[]string{"authentication", "HTTP 401", "Incorrect API key provided: sk-bad."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runIn(t, "", tc.args...)
			if code != tc.code || stdout != "" {
				t.Errorf("exit %d (want %d), stdout %q", code, tc.code, stdout)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr %q lacks %q", stderr, s)
				}
			}
		})
	}
	if n := len(unauthorized.bodies); n != 1 {
		t.Errorf("401 was retried: %d requests", n)
	}
}

// TestRunMockLLM runs the built binary, as a user does, against the real
// third-party server: the echo streams back through the agent loop.
func TestRunMockLLM(t *testing.T) {
	base := mockllm.URL(t)
	bin := filepath.Join(t.TempDir(), "agentscope")
	if out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(args ...string) (int, string, string) {
		cmd := exec.CommandContext(t.Context(), bin, args...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), out.String(), errOut.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, out.String(), errOut.String()
	}
	uri := "openai-compatible:mock-model@" + base + "/v1"
	code, stdout, stderr := run("run", "--model", uri, "streamed back by a real server")
	if code != 0 || stdout != "streamed back by a real server\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, _ = run("run", "--json", "--model", uri, "twelve chars")
	deltas := strings.Count(stdout, `"type":"TEXT_BLOCK_DELTA"`)
	if code != 0 || deltas < 2 || !strings.Contains(stdout, `"type":"REPLY_END"`) {
		t.Fatalf("exit %d, %d deltas:\n%s", code, deltas, stdout)
	}
}

func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	var errOut bytes.Buffer
	// The user presses Ctrl-C once the first text is on the screen.
	out := &cancelOnWrite{cancel: cancel}
	code := run(ctx, []string{"run", "--model", "openai-compatible:m@" + srv.URL + "/v1", "hi"}, strings.NewReader(""), out, &errOut)
	if code != exitFailure || out.String() != "Hel\n" || !strings.Contains(errOut.String(), "interrupted") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}

type cancelOnWrite struct {
	bytes.Buffer
	cancel func()
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	w.cancel()
	return n, err
}

// TestRunDemo is the README's first command: the keyless demo model with
// its tools, through the real agent loop; --json output folds back into
// the reply.
func TestRunDemo(t *testing.T) {
	code, out, errOut := runIn(t, "", "run", "--model", "demo", "What is 12*(3+4)?")
	if code != 0 || !strings.Contains(out, "12*(3+4) = 84") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut = runIn(t, "", "run", "--model", "demo", "--json", "What is 12*(3+4)?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, folded, errOut := runIn(t, out, "fold")
	if code != 0 || errOut != "" {
		t.Fatalf("fold: exit %d: %s", code, errOut)
	}
	m := decodeMsg(t, folded)
	if len(message.BlocksOf[*block.ToolResult](m)) != 1 || m.FinishedReason != event.ReplyCompleted {
		t.Fatalf("folded reply: %s", folded)
	}
	code, _, errOut = runIn(t, "", "run", "--model", "demo", "--tools", "bogus", "hi")
	if code != exitUsage || !strings.Contains(errOut, `--tools: unknown tool "bogus": want a set (demo, builtin, none)`) {
		t.Fatalf("bad --tools: exit %d: %s", code, errOut)
	}
}

// decodeEvents reads --json output back, failing on any bad line.
func decodeEvents(t *testing.T, stdout string) []event.Event {
	t.Helper()
	var evs []event.Event
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		ev, err := event.Decode(sc.Bytes())
		if err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// checkClosedWithError checks that a --json stream ends with the REPLY_END
// of its REPLY_START, finished_reason "error" and the error type want, and
// that it folds back into a failed reply.
func checkClosedWithError(t *testing.T, stdout string, want event.ErrorType) *event.ErrorInfo {
	t.Helper()
	evs := decodeEvents(t, stdout)
	if len(evs) < 2 {
		t.Fatalf("stream %q", stdout)
	}
	start, ok := evs[0].(*event.ReplyStart)
	end, ok2 := evs[len(evs)-1].(*event.ReplyEnd)
	if !ok || !ok2 {
		t.Fatalf("stream does not run from REPLY_START to REPLY_END:\n%s", stdout)
	}
	if end.ReplyID != start.ReplyID || end.SessionID != start.SessionID || end.FinishedReason != event.ReplyError ||
		end.Error == nil || end.Error.Type != want || end.ID == "" || end.CreatedAt == "" {
		t.Fatalf("REPLY_END %s, want error %s closing reply %s", end.AppendJSON(nil), want, start.ReplyID)
	}
	code, folded, errOut := runIn(t, stdout, "fold")
	if m := decodeMsg(t, folded); code != 0 || m.FinishedReason != event.ReplyError || m.Error == nil || m.Error.Type != want {
		t.Fatalf("fold: exit %d, %s %s", code, folded, errOut)
	}
	return end.Error
}

// A model that fails on every attempt: the JSON stream still closes with
// REPLY_END(error), the error counts every request, and the retry
// warnings go to the command's logger (shown with -v only), never to
// slog.Default.
func TestRunModelErrorClosesReply(t *testing.T) {
	srv := newChatServer(t, 503, `{"error":{"message":"overloaded"}}`)
	srv.Config.Handler = retryAfterFast(srv.Config.Handler)
	var def bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&def, nil)))
	defer slog.SetDefault(old)
	uri := "openai-compatible:m@" + srv.URL + "/v1"

	code, stdout, stderr := runIn(t, "", "run", "--json", "--model", uri, "hi")
	if code != exitFailure {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	info := checkClosedWithError(t, stdout, event.ErrUpstream)
	if !strings.Contains(info.Message, "failed after 4 attempt(s)") || !strings.Contains(info.Message, "overloaded") {
		t.Errorf("error message %q", info.Message)
	}
	if !strings.Contains(stderr, "agentscope run: upstream: model m failed after 4 attempt(s)") || strings.Contains(stderr, "retrying") {
		t.Errorf("stderr %q", stderr)
	}
	if n := len(srv.bodies); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}

	code, _, stderr = runIn(t, "", "run", "-v", "--model", uri, "hi")
	if code != exitFailure || strings.Count(stderr, "model call failed; retrying") != 3 {
		t.Errorf("-v: exit %d, stderr %q", code, stderr)
	}
	if def.Len() != 0 {
		t.Errorf("slog.Default got %q", def.String())
	}
}

// retryAfterFast asks for retries 1ms apart, so a test of four attempts
// does not wait for the real backoff.
func retryAfterFast(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "0.001")
		h.ServeHTTP(w, r)
	})
}

// A server that streams one chunk and then goes silent: --timeout ends
// the reply as a connection error instead of hanging, and the JSON stream
// closes.
func TestRunTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	// Without the timeout the call would hang until this deadline, and
	// end as interrupted.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	code := run(ctx, []string{"run", "--json", "--timeout", "100ms", "--model", "openai-compatible:m@" + srv.URL + "/v1", "hi"}, strings.NewReader(""), &out, &errOut)
	if code != exitFailure || ctx.Err() != nil || !strings.Contains(errOut.String(), "connection") || !strings.Contains(errOut.String(), "no data from the server for 100ms") {
		t.Fatalf("exit %d (ctx %v), stderr %q", code, ctx.Err(), errOut.String())
	}
	checkClosedWithError(t, out.String(), event.ErrConnection)
	if !strings.Contains(out.String(), `"delta":"Hel"`) {
		t.Errorf("the text before the stall is missing:\n%s", out.String())
	}
	if code, _, stderr := runIn(t, "", "run", "--timeout", "-1s", "--model", "demo", "hi"); code != exitUsage || !strings.Contains(stderr, "--timeout") {
		t.Errorf("negative --timeout: exit %d, %q", code, stderr)
	}
}

// Flags after the prompt are flags, as users expect; "--" keeps words
// that start with '-' in the prompt.
func TestRunFlagsAfterPrompt(t *testing.T) {
	t.Setenv("AGENTSCOPE_MODEL", "")
	srv := newChatServer(t, 200, helloSSE)
	code, stdout, stderr := runIn(t, "", "run", "say", "hello", "--model", "openai-compatible:qwen3@"+srv.URL+"/v1", "--system", "Be brief.")
	if code != 0 || stdout != "Hello!\n" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if !strings.Contains(srv.bodies[0], `"content":"say hello"`) || !strings.Contains(srv.bodies[0], `"content":"Be brief."`) {
		t.Errorf("body %s", srv.bodies[0])
	}
	code, _, stderr = runIn(t, "", "run", "--model", "openai-compatible:qwen3@"+srv.URL+"/v1", "--", "explain", "-v", "--json")
	if code != 0 || !strings.Contains(srv.bodies[1], `"content":"explain -v --json"`) {
		t.Errorf("after --: exit %d, %s, body %s", code, stderr, srv.bodies[1])
	}
	code, _, stderr = runIn(t, "", "run", "hi", "--bogus")
	if code != exitUsage || !strings.Contains(stderr, "-bogus") {
		t.Errorf("unknown flag after the prompt: exit %d, %q", code, stderr)
	}
}

func TestRunUsageAndBadURIHint(t *testing.T) {
	// Every flag the command defines is in its synopsis.
	code, stdout, _ := runIn(t, "", "help", "run")
	synopsis, list, _ := strings.Cut(stdout, "\n")
	flags := regexp.MustCompile(`(?m)^  -(\S+)`).FindAllStringSubmatch(list, -1)
	if code != 0 || len(flags) < 7 {
		t.Fatalf("help run: exit %d\n%s", code, stdout)
	}
	for _, f := range flags {
		if !regexp.MustCompile(`(^| |\[)--?` + regexp.QuoteMeta(f[1]) + `( |\])`).MatchString(synopsis) {
			t.Errorf("synopsis %q lacks -%s", synopsis, f[1])
		}
	}
	code, _, stderr := runIn(t, "", "run", "--model", "openai-compatible:foo@localhost:1", "hi")
	if code != exitFailure || !strings.Contains(stderr, "must start with http:// or https://, e.g. openai-compatible:foo@http://localhost:1\n") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
