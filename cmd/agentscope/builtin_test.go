package main

import (
	"log/slog"
	"slices"
	"testing"

	"github.com/agentscope-go/agentscope/demo"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool/builtin"
)

// --tools builtin offers the six built-in tools, whatever the model.
func TestToolsBuiltin(t *testing.T) {
	tk, err := toolkitFor("builtin", demo.New(), builtin.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tk.Tools(nil) {
		names = append(names, tl.Name())
	}
	if !slices.Equal(names, builtin.Names) {
		t.Errorf("tools %v, want %v", names, builtin.Names)
	}
}

// serve --tools builtin builds agents with the six built-in tools.
func TestServeToolsBuiltin(t *testing.T) {
	spec, err := serveAgent("", "", "", "assistant", "builtin", nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	a, err := spec.New(state.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range a.Toolkit().Tools(nil) {
		names = append(names, tl.Name())
	}
	if !slices.Equal(names, builtin.Names) {
		t.Errorf("tools %v, want %v", names, builtin.Names)
	}
}
