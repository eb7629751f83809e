package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
)

func everythingStdio(t testing.TB) *mcp.Client {
	return connect(t, mcp.Config{Name: "everything", Command: "node", Args: []string{everythingJS(t), "stdio"}})
}

// checkEverything runs the scenarios every transport must pass against
// server-everything.
func checkEverything(t *testing.T, c *mcp.Client) {
	t.Run("schemas in the model request", func(t *testing.T) {
		a, m := newAgent(t, []scripted.Turn{done()}, []*mcp.Client{c})
		ask(t, a, "hi")
		var tools []struct {
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(m.Calls()[0].Tools, &tools); err != nil {
			t.Fatalf("%v: %s", err, m.Calls()[0].Tools)
		}
		found := false
		for _, tl := range tools {
			if tl.Function.Name == "mcp__everything__echo" {
				found = true
				var p struct {
					Properties map[string]struct{ Type string } `json:"properties"`
					Required   []string                         `json:"required"`
				}
				if err := json.Unmarshal(tl.Function.Parameters, &p); err != nil {
					t.Fatal(err)
				}
				if p.Properties["message"].Type != "string" || len(p.Required) != 1 || p.Required[0] != "message" {
					t.Errorf("echo schema = %s", tl.Function.Parameters)
				}
			}
		}
		if !found || len(tools) < 10 {
			t.Fatalf("model saw %d tools, echo found %v: %s", len(tools), found, m.Calls()[0].Tools)
		}
	})
	t.Run("echo", func(t *testing.T) {
		a, _ := newAgent(t, []scripted.Turn{call("c1", "mcp__everything__echo", `{"message":"hello mcp"}`), done()}, []*mcp.Client{c})
		if res := ask(t, a, "echo"); res.Outcome != agent.OutcomeCompleted {
			t.Fatalf("outcome %s", res.Outcome)
		}
		r := results(t, a)["c1"]
		if r.State != block.ResultSuccess || !strings.Contains(resultText(r), "hello mcp") {
			t.Fatalf("echo result %s %q", r.State, resultText(r))
		}
	})
	t.Run("invalid input is refused before the call", func(t *testing.T) {
		a, _ := newAgent(t, []scripted.Turn{call("c1", "mcp__everything__echo", `{"message":5}`), done()}, []*mcp.Client{c})
		ask(t, a, "echo")
		r := results(t, a)["c1"]
		if r.State != block.ResultError || !strings.HasPrefix(resultText(r), "Input validation failed for tool 'mcp__everything__echo'") {
			t.Fatalf("result %s %q", r.State, resultText(r))
		}
	})
	t.Run("tiny image", func(t *testing.T) {
		a, _ := newAgent(t, []scripted.Turn{call("c1", "mcp__everything__get-tiny-image", `{}`), done()}, []*mcp.Client{c})
		ask(t, a, "image")
		r := results(t, a)["c1"]
		var png *block.Base64
		for _, b := range r.Output.Blocks {
			if d, ok := b.(*block.Data); ok {
				png, _ = d.Source.(*block.Base64)
			}
		}
		if png == nil || png.MediaType != "image/png" {
			t.Fatalf("no image/png data block in %+v", r.Output.Blocks)
		}
		raw, err := png.Bytes()
		if err != nil || len(raw) < 8 || string(raw[1:4]) != "PNG" {
			t.Fatalf("data is not a PNG: %v %q", err, raw[:min(8, len(raw))])
		}
	})
	t.Run("structured content", func(t *testing.T) {
		a, _ := newAgent(t, []scripted.Turn{call("c1", "mcp__everything__get-structured-content", `{"location":"Chicago"}`), done()}, []*mcp.Client{c})
		ask(t, a, "weather")
		r := results(t, a)["c1"]
		sc, ok := r.Metadata["structured_content"].(map[string]any)
		if !ok || sc["temperature"] == nil {
			t.Fatalf("metadata %v", r.Metadata)
		}
	})
	t.Run("a tool without readOnlyHint asks, then runs", func(t *testing.T) {
		a, _ := newAgent(t, []scripted.Turn{call("c1", "mcp__everything__toggle-simulated-logging", `{}`), done()}, []*mcp.Client{c})
		res := ask(t, a, "toggle")
		if res.Outcome != agent.OutcomeAwaitingConfirmation || len(res.Pending) != 1 || res.Pending[0].Name != "mcp__everything__toggle-simulated-logging" {
			t.Fatalf("outcome %s pending %v", res.Outcome, res.Pending)
		}
		var fin agent.Result
		for _, err := range a.Confirm(context.Background(), approveAll(res), agent.WithResult(&fin)) {
			if err != nil {
				t.Fatal(err)
			}
		}
		r := results(t, a)["c1"]
		if fin.Outcome != agent.OutcomeCompleted || r.State != block.ResultSuccess || !strings.Contains(resultText(r), "simulated logging for session") && !strings.Contains(resultText(r), "random-leveled logging for session") {
			t.Fatalf("after confirm: %s, result %s %q", fin.Outcome, r.State, resultText(r))
		}
	})
	t.Run("long-running tool interrupted mid-call", func(t *testing.T) {
		a, _ := newAgent(t, []scripted.Turn{call("c1", "mcp__everything__trigger-long-running-operation", `{"duration":30,"steps":30}`), done()}, []*mcp.Client{c})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var cancelled time.Time
		var progress int
		var end *event.ToolResultEnd
		var fin agent.Result
		for ev, err := range a.Stream(ctx, []*message.Msg{message.UserText("user", "go")}, agent.WithResult(&fin)) {
			if err != nil {
				break
			}
			switch ev := ev.(type) {
			case *event.ToolResultTextDelta:
				if strings.Contains(ev.Delta, "[progress") {
					progress++
					if cancelled.IsZero() {
						cancelled = time.Now()
						cancel()
					}
				}
			case *event.ToolResultEnd:
				end = ev
			}
		}
		if progress == 0 || end == nil {
			t.Fatalf("progress deltas %d, end %v", progress, end)
		}
		if took := time.Since(cancelled); end.State != block.ResultInterrupted || took > 2*time.Second {
			t.Fatalf("end state %s, %s after the interrupt", end.State, took)
		}
		if fin.Outcome != agent.OutcomeInterrupted {
			t.Fatalf("outcome %s", fin.Outcome)
		}
		// The session survives the cancelled call.
		b, _ := newAgent(t, []scripted.Turn{call("c2", "mcp__everything__get-sum", `{"a":2,"b":40}`), done()}, []*mcp.Client{c})
		ask(t, b, "sum")
		if r := results(t, b)["c2"]; !strings.Contains(resultText(r), "42") {
			t.Fatalf("after the interrupt: %s %q", r.State, resultText(r))
		}
	})
}

func TestEverythingStdio(t *testing.T) {
	checkEverything(t, everythingStdio(t))
}

// The server killed mid-session: the call in flight and the next one are
// error results, never a hang; the one after reconnects.
func TestEverythingKilled(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	c := connect(t, mcp.Config{
		Name:             "everything",
		Command:          "sh",
		Args:             []string{"-c", `echo $$ > "$0"; exec node "$1" stdio`, pidFile, everythingJS(t)},
		ReconnectBackoff: 50 * time.Millisecond,
	})
	kill := func() {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	turns := []scripted.Turn{
		call("c1", "mcp__everything__trigger-long-running-operation", `{"duration":30,"steps":30}`), done(),
		call("c2", "mcp__everything__echo", `{"message":"again"}`), done(),
	}
	a, _ := newAgent(t, turns, []*mcp.Client{c})
	go func() {
		time.Sleep(1500 * time.Millisecond)
		kill()
	}()
	start := time.Now()
	ask(t, a, "long")
	r := results(t, a)["c1"]
	if r.State != block.ResultError || !strings.Contains(resultText(r), mcp.ErrorPrefix+"the connection to the MCP server \"everything\" failed") || time.Since(start) > 10*time.Second {
		t.Fatalf("in-flight call after the kill: %s %q after %s", r.State, resultText(r), time.Since(start))
	}
	ask(t, a, "echo")
	if r := results(t, a)["c2"]; r.State != block.ResultSuccess || !strings.Contains(resultText(r), "again") {
		t.Fatalf("next call did not reconnect: %s %q", r.State, resultText(r))
	}
}
