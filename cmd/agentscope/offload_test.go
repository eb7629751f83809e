package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool/builtin"
)

// An agent of a server on a SQLite store offloads what its context cuts
// to the folder beside the store, one folder per session, and the agents
// file's context settings reach the agent: with tool_result_limit 1 the
// calculator's result is cut, the context keeps a reminder naming the
// file, and the file holds the whole result. The folder is a secret path:
// the built-in Read asks before it reads it.
func TestContextOffloadBesideTheStore(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "agents.json")
	if err := os.WriteFile(file, []byte(`{"agents": [{"id": "d", "model": "demo", "context": {"tool_result_limit": 1}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	specs, err := readAgentFile(file)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "agentscope.db")
	protectStore(specs, db)
	spec, err := specs[0].build(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	st := state.New(nil)
	a, err := spec.New(st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Reply(context.Background(), []*message.Msg{message.UserText("user", "What is 12*(3+4)?")}); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "agentscope.db.offload", "sessions", st.SessionID)
	entries, err := os.ReadDir(saved)
	if err != nil || len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), "tool_result-") {
		t.Fatalf("the session's offload folder: %v %v", entries, err)
	}
	path := filepath.Join(saved, entries[0].Name())
	body, _ := os.ReadFile(path)
	if !strings.Contains(string(body), "= 84") {
		t.Errorf("offloaded %q", body)
	}
	var kept string
	for _, m := range st.Context {
		for _, b := range m.Content {
			if r, ok := b.(*block.ToolResult); ok {
				kept = string(r.Output.AppendJSON(nil))
			}
		}
	}
	if !strings.Contains(kept, path) {
		t.Errorf("the context's cut result does not name %s: %q", path, kept)
	}
	if got := (builtin.Config{SecretPaths: specs[0].secretPaths}).SecretPath(path, ""); got == "" {
		t.Errorf("the offload folder is not a secret path of the agent: %v", specs[0].secretPaths)
	}
}

// A context setting the agent refuses stops the build, so the server does
// not start with it.
func TestContextSettingsCheckedAtStart(t *testing.T) {
	s := agentSpec{ID: "d", Model: "demo", Context: &contextSettings{TriggerRatio: 0.95}}
	if _, err := s.build(slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "TriggerRatio must be in (0, 0.9]") {
		t.Errorf("trigger_ratio 0.95: %v", err)
	}
}

// run and mcp keep no store: their agents offload to a private folder of
// their own (0700, a secret path) that is gone when the command ends.
func TestPrivateOffload(t *testing.T) {
	s := agentSpec{ID: "d", Model: "demo", Context: &contextSettings{ToolResultLimit: 1}}
	remove, err := privateOffload(&s)
	if err != nil {
		t.Fatal(err)
	}
	dir := s.offload
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the offload folder %s: %v %v", dir, fi, err)
	}
	spec, err := s.build(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	st := state.New(nil)
	a, err := spec.New(st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Reply(context.Background(), []*message.Msg{message.UserText("user", "What is 12*(3+4)?")}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "sessions", st.SessionID))
	if err != nil || len(entries) != 1 {
		t.Fatalf("the session's offload folder: %v %v", entries, err)
	}
	if got := (builtin.Config{SecretPaths: s.secretPaths}).SecretPath(filepath.Join(dir, "sessions", st.SessionID, entries[0].Name()), ""); got == "" {
		t.Errorf("the offload folder is not a secret path of the agent: %v", s.secretPaths)
	}
	remove()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the offload folder outlives the command: %v", err)
	}
}
