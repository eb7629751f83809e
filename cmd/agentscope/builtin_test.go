package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool/builtin"
)

// The word "demo" gives the same agent everywhere (one assembly,
// agentSpec): run, mcp, serve and a config file offer the demo model the
// four demo tools, which it names when greeted.
func TestDemoAgentEverywhere(t *testing.T) {
	const want = "I can use these tools: calculate, get_time, save_note, wait."
	if code, out, errOut := runIn(t, "", "run", "--model", "demo", "hi"); code != exitOK || !strings.Contains(out, want) {
		t.Errorf("run --model demo: exit %d %q %s", code, out, errOut)
	}
	cs, wait := mcpCommand(t)
	if text, isErr := askText(t, cs, "hi"); isErr || !strings.Contains(text, want) {
		t.Errorf("mcp's ask: %q (error %v)", text, isErr)
	}
	cs.Close()
	if code, errOut := wait(); code != exitOK {
		t.Errorf("mcp: exit %d: %s", code, errOut)
	}
	file := filepath.Join(t.TempDir(), "agents.json")
	if err := os.WriteFile(file, []byte(`{"agents": [{"id": "d", "model": "demo"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	specs, err := readAgentFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := specs[0].build(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	fromFlags, err := serveAgent("", "", "", "assistant", "demo", nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	for name, spec := range map[string]engine.Agent{"a config file": fromFile, "serve's flags": fromFlags} {
		a, err := spec.New(state.New(nil))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range a.Toolkit().Tools(nil) {
			names = append(names, tl.Name())
		}
		if !slices.Equal(names, demoToolNames) {
			t.Errorf("%s: tools %v, want %v", name, names, demoToolNames)
		}
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
