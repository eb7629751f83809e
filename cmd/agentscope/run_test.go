package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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
	if code != exitUsage || !strings.Contains(errOut, "unknown tool set") {
		t.Fatalf("bad --tools: exit %d: %s", code, errOut)
	}
}
