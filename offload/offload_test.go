package offload_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/offload"
)

var _ agent.Offloader = offload.Dir{}

var ctx = context.Background()

func fileOf(t *testing.T, d *block.Data) string {
	t.Helper()
	u, ok := d.Source.(*block.URL)
	if !ok {
		t.Fatalf("source %T", d.Source)
	}
	p, err := url.Parse(u.URL)
	if err != nil || p.Scheme != "file" {
		t.Fatalf("url %q: %v", u.URL, err)
	}
	return p.Path
}

func TestToolResult(t *testing.T) {
	dir := t.TempDir()
	o := offload.Dir{Root: dir}
	u, _ := block.NewURL("image/jpeg", "https://example.com/x.jpg")
	res := &block.ToolResult{ID: "call_1", Name: "shot", Output: block.BlocksBody(
		block.NewText("before "),
		&block.Data{Source: block.Base64Bytes("image/png", []byte("PNGDATA")), Name: block.Some("s.png")},
		&block.Data{Source: u},
		block.NewText(" after"),
	)}
	p, err := o.OffloadToolResult(ctx, "sess1", res)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "sessions", "sess1", "tool_result-call_1.txt"); p != want {
		t.Fatalf("path %s, want %s", p, want)
	}
	got, _ := os.ReadFile(p)
	s := string(got)
	if !strings.HasPrefix(s, "before <data url='file://"+dir+"/data/") ||
		!strings.Contains(s, ".png' name='s.png' media_type='image/png'/>") ||
		!strings.HasSuffix(s, "<data url='https://example.com/x.jpg' name='None' media_type='image/jpeg'/> after") {
		t.Fatalf("file %q", s)
	}
	// The same id again does not overwrite.
	p2, err := o.OffloadToolResult(ctx, "sess1", &block.ToolResult{ID: "call_1", Output: block.PlainBody("second")})
	if err != nil || filepath.Base(p2) != "tool_result-call_1(1).txt" {
		t.Fatalf("second path %s, %v", p2, err)
	}
	if got, _ := os.ReadFile(p); string(got) != s {
		t.Fatal("the first file was overwritten")
	}
}

func TestContext(t *testing.T) {
	dir := t.TempDir()
	o := offload.Dir{Root: dir}
	img := &block.Data{Source: block.Base64Bytes("image/png", []byte("PNGDATA"))}
	m1, _ := message.UserMsg("user", []block.Block{block.NewText("look"), img})
	p, err := o.OffloadContext(ctx, "s", []*message.Msg{m1, message.AssistantText("Friday", "seen")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.OffloadContext(ctx, "s", []*message.Msg{message.UserText("user", "more")}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines: %s", len(lines), data)
	}
	var back message.Msg
	if err := back.UnmarshalJSON([]byte(lines[0])); err != nil {
		t.Fatal(err)
	}
	f := fileOf(t, back.Content[1].(*block.Data))
	if raw, err := os.ReadFile(f); err != nil || string(raw) != "PNGDATA" {
		t.Fatalf("image file %q: %v", raw, err)
	}
	// The caller's message is not changed.
	if _, ok := img.Source.(*block.Base64); !ok {
		t.Fatal("the input message was modified")
	}
}

func TestData(t *testing.T) {
	dir := t.TempDir()
	o := offload.Dir{Root: dir}
	d := &block.Data{Source: block.Base64Bytes("image/png", []byte("PNGDATA")), Name: block.Some("a.png")}
	a, err := o.OffloadData(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	b, err := o.OffloadData(ctx, d)
	if err != nil || fileOf(t, a) != fileOf(t, b) || !strings.HasSuffix(fileOf(t, a), ".png") || a.Name != d.Name {
		t.Fatalf("%v %v %v", a, b, err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "data"))
	if len(entries) != 1 {
		t.Fatalf("%d files in data/", len(entries))
	}
	u, _ := block.NewURL("image/png", "https://example.com/a.png")
	byURL := &block.Data{Source: u}
	if got, err := o.OffloadData(ctx, byURL); err != nil || got != byURL {
		t.Fatal("a URL block is not returned as it is")
	}
}

func TestSessionID(t *testing.T) {
	o := offload.Dir{Root: t.TempDir()}
	for _, id := range []string{"", "..", "a/b", `a\b`} {
		if _, err := o.OffloadContext(ctx, id, nil); !errors.Is(err, offload.ErrSessionID) {
			t.Errorf("%q: %v", id, err)
		}
	}
	if _, err := (offload.Dir{}).OffloadData(ctx, &block.Data{Source: block.Base64Bytes("image/png", []byte("x"))}); err == nil {
		t.Error("an empty root is accepted")
	}
}
