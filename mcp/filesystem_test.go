package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/model/scripted"
)

func TestFilesystem(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("remember the milk"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := connect(t, mcp.Config{Name: "fs", Command: "node", Args: []string{filesystemJS(t), dir}})
	path := filepath.Join(dir, "notes.txt")
	out := filepath.Join(dir, "out.txt")
	a, _ := newAgent(t, []scripted.Turn{
		call("c1", "mcp__fs__read_text_file", `{"path":"`+path+`"}`), done(),
		call("c2", "mcp__fs__write_file", `{"path":"`+out+`","content":"written by the agent"}`), done(),
	}, []*mcp.Client{c})

	if res := ask(t, a, "read"); res.Outcome != agent.OutcomeCompleted {
		t.Fatalf("read: outcome %s (a read-only tool must not ask)", res.Outcome)
	}
	if r := results(t, a)["c1"]; r.State != block.ResultSuccess || !strings.Contains(resultText(r), "remember the milk") {
		t.Fatalf("read: %s %q", r.State, resultText(r))
	}

	res := ask(t, a, "write")
	if res.Outcome != agent.OutcomeAwaitingConfirmation || res.Pending[0].Name != "mcp__fs__write_file" {
		t.Fatalf("write: outcome %s", res.Outcome)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("the write ran before the confirmation: %v", err)
	}
	for _, err := range a.Confirm(t.Context(), approveAll(res)) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "written by the agent" {
		t.Fatalf("after confirm: %q %v (result %q)", b, err, resultText(results(t, a)["c2"]))
	}
}
