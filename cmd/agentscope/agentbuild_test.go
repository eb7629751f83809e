package main

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/agentscope-go/agentscope/tool"
)

// BenchmarkAgentNew: the agent serve builds for each run (--model demo:demo,
// the demo tools), before the run's first event.
func BenchmarkAgentNew(b *testing.B) {
	s, err := flagAgentSpec("demo:demo", "", "", "", "demo", nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	spec, err := s.build(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := spec.New(nil); err != nil {
			b.Fatal(err)
		}
	}
}

// Two runs' agents share the tools but not the toolkit: what one run
// mounts (its structured-output tool, an MCP server's tools) the other
// does not see.
func TestServeRunsOwnToolkits(t *testing.T) {
	s, err := flagAgentSpec("demo:demo", "", "", "", "demo", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := s.build(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	a, err := spec.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := spec.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	extra, err := tool.Func("extra", "Only a's.", func(context.Context, struct{}) (string, error) { return "", nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Toolkit().Add("", extra); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.Toolkit().Lookup("extra"); !ok {
		t.Fatal("a's toolkit lacks what was added to it")
	}
	if _, ok := b.Toolkit().Lookup("extra"); ok {
		t.Fatal("b's toolkit holds a tool added to a's")
	}
	if _, ok := b.Toolkit().Lookup("calculate"); !ok {
		t.Fatal("b's toolkit lacks the demo tools")
	}
}
