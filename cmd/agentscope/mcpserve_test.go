package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// syncBuffer is a bytes.Buffer the command and the test may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// mcpCommand runs `agentscope mcp args…` in process over pipes and
// connects a go-sdk client to it; closing the session ends the command,
// whose exit code the returned func waits for.
func mcpCommand(t *testing.T, args ...string) (*sdk.ClientSession, func() (int, string)) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		code := run(context.Background(), append([]string{"mcp"}, args...), inR, outW, &stderr)
		outW.Close()
		done <- code
	}()
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr %q)", err, stderr.String())
	}
	return cs, func() (int, string) {
		cs.Close()
		select {
		case code := <-done:
			return code, stderr.String()
		case <-time.After(10 * time.Second):
			t.Fatal("agentscope mcp did not exit after its stdin closed")
			return 0, ""
		}
	}
}

func askText(t *testing.T, cs *sdk.ClientSession, msg string) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{"message": msg}})
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String(), res.IsError
}

func TestMCPCommandStdio(t *testing.T) {
	cs, wait := mcpCommand(t)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "ask" {
		t.Fatalf("tools %+v %v", tools, err)
	}
	if txt, isErr := askText(t, cs, "What is 12*(3+4)?"); isErr || !strings.Contains(txt, "84") {
		t.Fatalf("demo answer %q (error %v)", txt, isErr)
	}
	// save_note asks: the call is a tool error naming it.
	if txt, isErr := askText(t, cs, "Save a note: buy milk"); !isErr || !strings.Contains(txt, "permission to run: save_note") {
		t.Fatalf("parked reply %q (error %v)", txt, isErr)
	}
	if code, stderr := wait(); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

func TestMCPCommandUnattended(t *testing.T) {
	cs, wait := mcpCommand(t, "--permission-mode", "bypass")
	if txt, isErr := askText(t, cs, "Save a note: buy milk"); isErr || strings.Contains(txt, "permission") {
		t.Fatalf("bypass: %q (error %v)", txt, isErr)
	}
	if code, stderr := wait(); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// An idle MCP session over HTTP is closed: a client that walks away does
// not hold it for ever; a new session works.
func TestMCPHTTPIdleSessionClosed(t *testing.T) {
	defer func(d time.Duration) { mcpSessionIdle = d }(mcpSessionIdle)
	mcpSessionIdle = 300 * time.Millisecond
	spec, err := serveAgent("", "", "", "assistant", "demo", nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := agentMCPServer(spec, "assistant", "", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	h, stop := mcpHTTPHandler(func() *sdk.Server { return srv }, "")
	defer stop()
	hs := httptest.NewServer(h)
	defer hs.Close()
	connect := func() *sdk.ClientSession {
		c := sdk.NewClient(&sdk.Implementation{Name: "idle-test", Version: "1"}, nil)
		cs, err := c.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: hs.URL, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	cs := connect()
	defer cs.Close()
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatalf("a fresh session: %v", err)
	}
	time.Sleep(time.Second)
	if _, err := cs.ListTools(t.Context(), nil); err == nil {
		t.Fatal("an idle session still answers")
	}
	fresh := connect()
	defer fresh.Close()
	if _, err := fresh.ListTools(t.Context(), nil); err != nil {
		t.Fatalf("a new session after: %v", err)
	}
}
