package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/model/scripted"
)

// Config.Dir: the stdio child runs in that directory.
func TestStdioDir(t *testing.T) {
	dir := t.TempDir()
	cfg := fakeConfig("ok")
	cfg.Command = "sh"
	// The shell notes where it runs, then becomes the fake server.
	cfg.Args = append([]string{"-c", `pwd -P > cwd.txt && exec "$0" "$@"`, os.Args[0]}, cfg.Args...)
	cfg.Dir = dir
	c := connect(t, cfg)
	lookup(t, c, "mcp__fake__good")
	got, err := os.ReadFile(filepath.Join(dir, "cwd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(got)) != want {
		t.Fatalf("the child ran in %q, want %q", got, want)
	}
}

// Config.Headers go with every HTTP request: the handshake, the listing
// and the calls.
func TestHTTPHeaders(t *testing.T) {
	srv := newGoServer()
	srv.AddTool(&sdk.Tool{Name: "one", InputSchema: objSchema, Annotations: readOnly}, okResult)
	inner := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	var mu sync.Mutex
	var seen []string // "METHOD auth x-team" of each request
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.Header.Get("Authorization")+" "+r.Header.Get("X-Team"))
		mu.Unlock()
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	c := connect(t, mcp.Config{Name: "s", URL: hs.URL + "/mcp", Headers: map[string]string{
		"Authorization": "Bearer s3cret", "X-Team": "blue",
	}})
	if r := fold(t, run(t.Context(), lookup(t, c, "mcp__s__one"), map[string]any{})); text(r) != "ok" {
		t.Fatalf("call: %s %q", r.State, text(r))
	}
	mu.Lock()
	defer mu.Unlock()
	posts := 0
	for _, s := range seen {
		if !strings.HasSuffix(s, " Bearer s3cret blue") {
			t.Errorf("a request without the headers: %q", s)
		}
		if strings.HasPrefix(s, "POST ") {
			posts++
		}
	}
	if posts < 3 { // initialize, tools/list, tools/call (and the initialized notification)
		t.Fatalf("only %d POSTs seen: %q", posts, seen)
	}
}

// Config.Timeout bounds the wait for an HTTP response's headers: a server
// that accepts a call and never answers it gives an error result in time.
func TestHTTPTimeout(t *testing.T) {
	srv := newGoServer()
	srv.AddTool(&sdk.Tool{Name: "one", InputSchema: objSchema, Annotations: readOnly}, okResult)
	inner := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	var stall atomic.Bool
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if stall.Load() && bytes.Contains(body, []byte(`"tools/call"`)) {
			select { // no headers until the client gives up
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	c := connect(t, mcp.Config{Name: "s", URL: hs.URL + "/mcp", Timeout: 300 * time.Millisecond})
	stall.Store(true)
	start := time.Now()
	r := fold(t, run(t.Context(), lookup(t, c, "mcp__s__one"), map[string]any{}))
	took := time.Since(start)
	if r.State != block.ResultError || !strings.HasPrefix(text(r), mcp.ErrorPrefix) || !strings.Contains(text(r), "timeout awaiting response headers") {
		t.Fatalf("%s %q", r.State, text(r))
	}
	if took > 3*time.Second {
		t.Fatalf("the call took %s with a 300ms Timeout", took)
	}
}

// The tool's description reaches the model request, and audio content
// comes back as a data block with its media type.
func TestDescriptionAndAudioThroughAgent(t *testing.T) {
	srv := newGoServer()
	srv.AddTool(&sdk.Tool{Name: "speak", Description: "Say something aloud.", InputSchema: objSchema, Annotations: readOnly},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "here it is"},
				&sdk.AudioContent{MIMEType: "audio/mpeg", Data: []byte("ID3\x04sound")},
			}}, nil
		})
	c := goServer(t, srv, mcp.Config{Name: "s"})
	a, m := newAgent(t, []scripted.Turn{call("c1", "mcp__s__speak", `{}`), done()}, []*mcp.Client{c})
	ask(t, a, "speak")
	var tools []struct {
		Function struct{ Name, Description string } `json:"function"`
	}
	if err := json.Unmarshal(m.Calls()[0].Tools, &tools); err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Function.Name != "mcp__s__speak" || tools[0].Function.Description != "Say something aloud." {
		t.Fatalf("model request tools %s", m.Calls()[0].Tools)
	}
	r := results(t, a)["c1"]
	if r.State != block.ResultSuccess || len(r.Output.Blocks) != 2 {
		t.Fatalf("result %s %+v", r.State, r.Output)
	}
	d, ok := r.Output.Blocks[1].(*block.Data)
	if !ok {
		t.Fatalf("second block %T", r.Output.Blocks[1])
	}
	src, ok := d.Source.(*block.Base64)
	raw, err := src.Bytes()
	if !ok || err != nil || src.MediaType != "audio/mpeg" || string(raw) != "ID3\x04sound" {
		t.Fatalf("audio block %+v (%v): %q", d.Source, err, raw)
	}
}
