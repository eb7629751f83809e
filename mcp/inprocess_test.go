package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

// goServer serves srv (a go-sdk server) over streamable HTTP on 127.0.0.1
// and connects a client to it.
func goServer(t *testing.T, srv *sdk.Server, cfg mcp.Config) *mcp.Client {
	t.Helper()
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	cfg.URL = hs.URL + "/mcp"
	return connect(t, cfg)
}

var objSchema = map[string]any{"type": "object", "properties": map[string]any{}}

func newGoServer() *sdk.Server {
	return sdk.NewServer(&sdk.Implementation{Name: "go test/server", Version: "1"}, nil)
}

// run calls tl through a tool.Runner and collects its chunks.
func run(ctx context.Context, tl tool.Tool, input map[string]any) []tool.Chunk {
	var out []tool.Chunk
	for c := range (&tool.Runner{Logger: quiet}).Run(ctx, tl, input) {
		out = append(out, c)
	}
	return out
}

func fold(t *testing.T, chunks []tool.Chunk) *tool.Response {
	t.Helper()
	r := tool.NewResponse("id", nil)
	for _, c := range chunks {
		if err := r.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func text(r *tool.Response) string {
	var sb strings.Builder
	for _, b := range r.Content {
		if t, ok := b.(*block.Text); ok {
			sb.WriteString(t.Text)
		}
	}
	return sb.String()
}

func lookup(t *testing.T, c *mcp.Client, name string) tool.Tool {
	t.Helper()
	for _, tl := range c.Tools() {
		if tl.Name() == name {
			return tl
		}
	}
	t.Fatalf("no tool %s among %d", name, len(c.Tools()))
	return nil
}

// blocking is a tool that waits for its cancellation and reports it.
func blocking(srv *sdk.Server, cancelled chan<- struct{}) {
	srv.AddTool(&sdk.Tool{Name: "block", InputSchema: objSchema}, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		select {
		case <-ctx.Done():
			cancelled <- struct{}{}
			return nil, ctx.Err()
		case <-time.After(time.Minute):
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "not cancelled"}}}, nil
		}
	})
}

func TestNameAndPolicy(t *testing.T) {
	srv := newGoServer()
	srv.AddTool(&sdk.Tool{Name: "look.up", InputSchema: objSchema, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "write", InputSchema: objSchema},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	c := goServer(t, srv, mcp.Config{}) // named by its serverInfo.name, "go test/server"
	if c.Name() != "goxtestxserver" {
		t.Fatalf("name %q", c.Name())
	}
	ro := lookup(t, c, "mcp__goxtestxserver__lookxup")
	rw := lookup(t, c, "mcp__goxtestxserver__write")
	if ro.Flags().ConcurrencySafe || rw.Flags().ConcurrencySafe || !ro.Flags().ReadOnly || rw.Flags().ReadOnly {
		t.Fatalf("flags %+v %+v", ro.Flags(), rw.Flags())
	}
	eng := permission.NewEngine(permission.NewContext(permission.ModeDefault))
	in := map[string]any{}
	if d := eng.Check(context.Background(), tool.PermissionSubject(ro), in); d.Behavior != block.Allow {
		t.Fatalf("read-only tool: %+v", d)
	}
	if d := eng.Check(context.Background(), tool.PermissionSubject(rw), in); d.Behavior != block.Ask {
		t.Fatalf("other tool: %+v", d)
	}
	eng.AddRule(block.PermissionRule{ToolName: "mcp__goxtestxserver__write", Behavior: block.Allow})
	if d := eng.Check(context.Background(), tool.PermissionSubject(rw), in); d.Behavior != block.Allow {
		t.Fatalf("after an allow rule: %+v", d)
	}
	explore := permission.NewEngine(permission.NewContext(permission.ModeExplore))
	if d := explore.Check(context.Background(), tool.PermissionSubject(rw), in); d.Behavior != block.Deny {
		t.Fatalf("explore mode: %+v", d)
	}
}

// An interrupted call sends notifications/cancelled: the server's handler
// sees its context cancelled, and the call is answered interrupted at once.
func TestCancelReachesServer(t *testing.T) {
	srv := newGoServer()
	cancelled := make(chan struct{}, 1)
	blocking(srv, cancelled)
	c := goServer(t, srv, mcp.Config{Name: "s"})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	chunks := run(ctx, lookup(t, c, "mcp__s__block"), map[string]any{})
	if r := fold(t, chunks); r.State != block.ResultInterrupted || time.Since(start) > 2*time.Second {
		t.Fatalf("state %s after %s", r.State, time.Since(start))
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the server never saw the cancellation")
	}
}

func TestCallTimeout(t *testing.T) {
	srv := newGoServer()
	cancelled := make(chan struct{}, 1)
	blocking(srv, cancelled)
	c := goServer(t, srv, mcp.Config{Name: "s", CallTimeout: 200 * time.Millisecond})
	r := fold(t, run(context.Background(), lookup(t, c, "mcp__s__block"), map[string]any{}))
	want := mcp.ErrorPrefix + `the call to "block" timed out after 200ms`
	if r.State != block.ResultError || text(r) != want {
		t.Fatalf("%s %q, want %q", r.State, text(r), want)
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the server never saw the cancellation")
	}
}

func TestProgressStreams(t *testing.T) {
	srv := newGoServer()
	srv.AddTool(&sdk.Tool{Name: "slow", InputSchema: objSchema}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		tok := req.Params.GetProgressToken()
		if tok == nil {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "no progress token"}}}, nil
		}
		for i := 1; i <= 2; i++ {
			if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 2, Message: "step"}); err != nil {
				return nil, err
			}
			time.Sleep(50 * time.Millisecond) // the client sees each before the result
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "finished"}}}, nil
	})
	c := goServer(t, srv, mcp.Config{Name: "s"})
	chunks := run(context.Background(), lookup(t, c, "mcp__s__slow"), map[string]any{})
	var texts []string
	for _, ch := range chunks {
		for _, b := range ch.Content {
			texts = append(texts, b.(*block.Text).Text)
		}
	}
	if got := strings.Join(texts, "|"); got != "[progress 1/2] step\n|[progress 2/2] step\n|finished" {
		t.Fatalf("chunks %q", got)
	}
}

func TestContentConversion(t *testing.T) {
	srv := newGoServer()
	srv.AddTool(&sdk.Tool{Name: "all", InputSchema: objSchema}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{
			Content: []sdk.Content{
				&sdk.TextContent{Text: "hello"},
				&sdk.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG")},
				&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "body"}},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///b.bin", MIMEType: "application/octet-stream", Blob: []byte{1, 2}}},
				&sdk.ResourceLink{URI: "file:///c.md", Name: "c.md"},
			},
			StructuredContent: map[string]any{"n": 1},
		}, nil
	})
	srv.AddTool(&sdk.Tool{Name: "fail", InputSchema: objSchema}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "it broke"}}}, nil
	})
	c := goServer(t, srv, mcp.Config{Name: "s"})
	r := fold(t, run(context.Background(), lookup(t, c, "mcp__s__all"), map[string]any{}))
	if r.State != block.ResultSuccess {
		t.Fatalf("state %s", r.State)
	}
	var kinds []string
	for _, b := range r.Content {
		switch b := b.(type) {
		case *block.Text:
			kinds = append(kinds, "text:"+b.Text)
		case *block.Data:
			src := b.Source.(*block.Base64)
			raw, _ := src.Bytes()
			kinds = append(kinds, "data:"+src.MediaType+":"+string(raw))
		}
	}
	want := []string{
		"text:hello",
		"data:image/png:\x89PNG",
		"data:audio/wav:RIFF",
		"text:{\n  \"uri\": \"file:///a.txt\",\n  \"mimeType\": \"text/plain\",\n  \"meta\": null,\n  \"text\": \"body\"\n}",
		"data:application/octet-stream:\x01\x02",
		"text:Resource link: file:///c.md (c.md)",
	}
	if strings.Join(kinds, "\n---\n") != strings.Join(want, "\n---\n") {
		t.Fatalf("blocks:\n%q\nwant\n%q", kinds, want)
	}
	if sc, ok := r.Metadata["structured_content"].(map[string]any); !ok || sc["n"] != float64(1) {
		t.Fatalf("metadata %v", r.Metadata)
	}
	f := fold(t, run(context.Background(), lookup(t, c, "mcp__s__fail"), map[string]any{}))
	if f.State != block.ResultError || text(f) != "it broke" {
		t.Fatalf("isError: %s %q", f.State, text(f))
	}
}

// notifications/tools/list_changed updates the mounted toolkit.
func TestListChanged(t *testing.T) {
	srv := newGoServer()
	noop := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{}, nil
	}
	srv.AddTool(&sdk.Tool{Name: "one", InputSchema: objSchema}, noop)
	c := goServer(t, srv, mcp.Config{Name: "s"})
	tk, err := tool.NewToolkit(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Mount(tk, "remote"); err != nil {
		t.Fatal(err)
	}
	srv.AddTool(&sdk.Tool{Name: "two", InputSchema: objSchema}, noop)
	srv.RemoveTools("one")
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, two := tk.Lookup("mcp__s__two")
		_, one := tk.Lookup("mcp__s__one")
		if two && !one {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("toolkit not refreshed: one %v two %v", one, two)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if names := tk.Tools([]string{"remote"}); len(names) != 2 || names[1].Name() != "mcp__s__two" { // reset_tools first
		t.Fatalf("active tools %v", names)
	}
}
