package mcp_test

import (
	"runtime"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/tool"
)

// A server builds a toolkit per run and mounts the client in each: the
// client forgets the toolkits their runs dropped, so mounting per run
// does not grow it.
func TestMountsOfDroppedToolkitsAreForgotten(t *testing.T) {
	srv := newGoServer()
	srv.AddTool(&sdk.Tool{Name: "one", InputSchema: objSchema, Annotations: readOnly}, okResult)
	c := goServer(t, srv, mcp.Config{Name: "s"})
	mountOne := func() *tool.Toolkit {
		tk, err := tool.NewToolkit(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Mount(tk, ""); err != nil {
			t.Fatal(err)
		}
		return tk
	}
	for range 100 {
		mountOne()
	}
	kept := mountOne()
	runtime.GC()
	if n := c.Mounts(); n != 1 {
		t.Fatalf("%d toolkits kept after 100 were dropped, want 1", n)
	}
	// The one still used is still kept current.
	srv.AddTool(&sdk.Tool{Name: "two", InputSchema: objSchema, Annotations: readOnly}, okResult)
	if err := c.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, ok := kept.Lookup("mcp__s__two"); !ok {
		t.Fatal("the kept toolkit lacks the tool listed after it was mounted")
	}
	runtime.KeepAlive(kept)
}
