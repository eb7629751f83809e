package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// The restart scenario: one reply parks on a confirmation with a second
// call pending behind it; the confirmation resumes it.
func restartTools(t testing.TB) []tool.Tool {
	return []tool.Tool{
		makeTool(t, toolSpec{name: "ask", perm: block.Ask}),
		makeTool(t, toolSpec{name: "echo", concurrent: true}),
	}
}

func restartTurns() []scripted.Turn {
	return []scripted.Turn{
		scripted.Stream(scripted.Text("Checking."), scripted.Multi(
			scripted.ToolCall("c1", "ask", `{"input": "rm build"}`),
			scripted.ToolCall("c2", "echo", `{"input": "after"}`),
		)),
		// An explicit block id: the resuming process scripts only this turn.
		scripted.Stream(scripted.Step{Parts: []scripted.Part{{Kind: model.PartText, ID: "answer", Text: "All done."}}}),
	}
}

const restartEnv = "AGENTSCOPE_RESTART_DIR"

// TestMain doubles as the fresh process of TestParkedReplyResumesInAnotherProcess.
func TestMain(m *testing.M) {
	if dir := os.Getenv(restartEnv); dir != "" {
		if err := resumeFromDisk(dir); err != nil {
			fmt.Fprintln(os.Stderr, "restart helper:", err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// resumeFromDisk is the second process: a new agent on the saved state,
// resumed with the saved confirmation; it writes the events and the final
// state next to them.
func resumeFromDisk(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		return err
	}
	var st state.AgentState
	if err := json.Unmarshal(data, &st); err != nil {
		return err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "confirm.json"))
	if err != nil {
		return err
	}
	ev, err := event.Decode(raw)
	if err != nil {
		return err
	}
	// Only the turn the parked reply still needs is scripted here.
	tb := &testing.B{}
	a, _ := newAgent(tb, restartTurns()[1:], restartTools(tb), withState(&st))
	var out bytes.Buffer
	for e, err := range stream(context.Background(), a, ev) {
		if err != nil {
			return err
		}
		out.Write(event.Marshal(e))
		out.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "events.jsonl"), out.Bytes(), 0o644); err != nil {
		return err
	}
	final, _ := json.Marshal(stateOf(tb, a))
	return os.WriteFile(filepath.Join(dir, "final.json"), final, 0o644)
}

// A parked reply saved as AgentState JSON, loaded by a new agent in a
// fresh process and resumed there with the confirmation, emits the same
// events and ends in the same state as resuming it in place.
func TestParkedReplyResumesInAnotherProcess(t *testing.T) {
	a, _ := newAgent(t, restartTurns(), restartTools(t))
	r := mustReply(t, a, user("Clean up, then echo."))
	if r.res.Outcome != agent.OutcomeAwaitingConfirmation || r.res.Pending[0].ID != "c1" {
		t.Fatalf("not parked: %s", r.kinds())
	}
	saved, err := json.Marshal(stateOf(t, a))
	if err != nil {
		t.Fatal(err)
	}
	ev := confirm(t, a, true, nil, "c1")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "state.json"), saved, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "confirm.json"), event.Marshal(ev), 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), restartEnv+"="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fresh process: %v\n%s", err, out)
	}

	// The same resume, in place.
	var inPlace bytes.Buffer
	for e, err := range stream(context.Background(), a, ev) {
		if err != nil {
			t.Fatal(err)
		}
		inPlace.Write(event.Marshal(e))
		inPlace.WriteByte('\n')
	}
	restarted, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(inPlace.String(), `"type":"REPLY_END"`) || strings.Contains(inPlace.String(), `"type":"REPLY_START"`) {
		t.Fatalf("resume events:\n%s", inPlace.String())
	}
	// Event ids and timestamps are fresh in each run; everything else, the
	// reply and session ids included, must be identical.
	if got, want := normalizeJSON(string(restarted)), normalizeJSON(inPlace.String()); got != want {
		t.Fatalf("events differ after the restart\nrestarted:\n%s\nin place:\n%s", got, want)
	}
	finalRestarted, _ := os.ReadFile(filepath.Join(dir, "final.json"))
	finalInPlace, _ := json.Marshal(stateOf(t, a))
	if got, want := normalizeJSON(string(finalRestarted)), normalizeJSON(string(finalInPlace)); got != want {
		t.Fatalf("final state differs\nrestarted: %s\nin place:  %s", got, want)
	}
	if got := contextShape(stateOf(t, a).Tail()); got != "text Checking. | call c1 finished | call c2 finished | result c1 success list:ask: rm build | result c2 success list:echo: after | text All done." {
		t.Fatalf("context %s", got)
	}
}
