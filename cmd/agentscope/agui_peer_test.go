package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
)

// The real @ag-ui/client HttpAgent against the built binary's POST
// /agui/demo (testdata/peers/agui-client.mjs says what it checks):
// streamed text, a call parked for confirmation then resumed with
// resume[] and completed, a denied call, a run interrupted natively
// (cancelled) and one the client aborted, every frame validated with
// @ag-ui/core's schemas, nothing thrown or warned. The threads it ran are
// then the user's sessions of the demo agent, each reply stored as the
// client saw it end, and another user's requests for them find nothing.
func TestAGUIClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and execs the binary and node")
	}
	script, peers := peerScript(t, "agui-client.mjs", "@ag-ui/client", "@ag-ui/core")
	s := startServe(t, buildBinary(t), freeAddr(t), filepath.Join(t.TempDir(), "agentscope.db"))

	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "AGENTSCOPE_URL="+s.url, "AGENTSCOPE_USER=newcomer", "AGENT=demo", "PEERS_DIR="+peers)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var report struct {
		FramesChecked int `json:"framesChecked"`
		Scenarios     []struct {
			Name   string   `json:"name"`
			Thread string   `json:"thread"`
			Errors []string `json:"errors"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("agui-client.mjs printed %q (%v): %v\n%s\nserve:\n%s", stdout.String(), runErr, err, stderr.String(), s.stderr)
	}
	for _, sc := range report.Scenarios {
		for _, e := range sc.Errors {
			t.Errorf("%s: %s", sc.Name, e)
		}
	}
	if runErr != nil {
		t.Fatalf("agui-client.mjs: %v\n%s\nserve:\n%s", runErr, stderr.String(), s.stderr)
	}
	if report.FramesChecked < 20 {
		t.Fatalf("only %d frames checked", report.FramesChecked)
	}
	want := map[string]struct {
		reason event.ReplyReason
		result string // the state of the reply's tool result, "" for none
	}{
		"text":      {event.ReplyCompleted, ""},
		"confirm":   {event.ReplyCompleted, "success"},
		"deny":      {event.ReplyCompleted, "denied"},
		"interrupt": {event.ReplyInterrupted, "interrupted"},
		"abort":     {event.ReplyInterrupted, "interrupted"},
	}
	seen := 0
	for _, sc := range report.Scenarios {
		w, ok := want[sc.Name]
		if !ok {
			continue
		}
		seen++
		code, body := s.call("GET", "/sessions/"+sc.Thread+"/messages?agent_id=demo", "")
		var page struct{ Messages []json.RawMessage }
		if code != 200 || json.Unmarshal([]byte(body), &page) != nil || len(page.Messages) < 2 {
			t.Errorf("%s: thread %s: %d %s", sc.Name, sc.Thread, code, body)
			continue
		}
		var reply message.Msg
		if err := json.Unmarshal(page.Messages[len(page.Messages)-1], &reply); err != nil {
			t.Fatal(err)
		}
		var state string
		for _, b := range reply.Content {
			var r struct{ Type, State string }
			if json.Unmarshal(b.AppendJSON(nil), &r) == nil && r.Type == "tool_result" {
				state = r.State
			}
		}
		if reply.FinishedReason != w.reason || state != w.result {
			t.Errorf("%s: the stored reply ended %s with a tool result %q, want %s and %q", sc.Name, reply.FinishedReason, state, w.reason, w.result)
		}
		req, _ := http.NewRequest("GET", s.url+"/sessions/"+sc.Thread+"/messages?agent_id=demo", nil)
		req.Header.Set("X-User-ID", "someone-else")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 404 {
			t.Errorf("%s: another user reads thread %s: %d", sc.Name, sc.Thread, res.StatusCode)
		}
	}
	if seen != len(want) {
		t.Fatalf("the report has %d of the %d scenarios: %s", seen, len(want), stdout.String())
	}
}
