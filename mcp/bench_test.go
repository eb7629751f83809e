package mcp_test

import (
	"context"
	"testing"

	"github.com/agentscope-go/agentscope/tool"
)

// One call of the same Go function: directly as a tool, and as a tool of
// a go-sdk MCP server over stdio (a child process; JSON-RPC both ways).
func BenchmarkCallDirect(b *testing.B) {
	tl, err := tool.Func("echo", "Echo s.", func(_ context.Context, in struct {
		S string `json:"s"`
	}) (string, error) {
		return echoText(in.S), nil
	})
	if err != nil {
		b.Fatal(err)
	}
	benchCall(b, tl)
}

func BenchmarkCallStdio(b *testing.B) {
	c := connect(b, fakeConfig("sdk"))
	for _, tl := range c.Tools() {
		if tl.Name() == "mcp__fake__echo" {
			benchCall(b, tl)
			return
		}
	}
	b.Fatal("no echo tool")
}

func benchCall(b *testing.B, tl tool.Tool) {
	r := &tool.Runner{Logger: quiet}
	in := map[string]any{"s": "hello"}
	ctx := context.Background()
	for b.Loop() {
		n := 0
		for c := range r.Run(ctx, tl, in) {
			n += len(c.Content)
		}
		if n != 1 {
			b.Fatalf("%d blocks", n)
		}
	}
}

// Listing the tools of a server with 102 tools over stdio, when they did
// not change (warm: each tool is kept as it was, nothing is compiled).
func BenchmarkListTools100(b *testing.B) {
	c := connect(b, fakeConfig("sdk"))
	if len(c.Tools()) != 102 {
		b.Fatalf("%d tools", len(c.Tools()))
	}
	ctx := context.Background()
	for b.Loop() {
		if err := c.Refresh(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// The same listing cold, as the first one at Connect: every tool is built
// and its input schema compiled.
func BenchmarkListTools100Cold(b *testing.B) {
	c := connect(b, fakeConfig("sdk"))
	if len(c.Tools()) != 102 {
		b.Fatalf("%d tools", len(c.Tools()))
	}
	ctx := context.Background()
	for b.Loop() {
		c.ForgetTools()
		if err := c.Refresh(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
