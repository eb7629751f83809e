package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/event"
)

// The npm ws client against the built binary's GET /sessions/{id}/ws
// with the keyless demo agent (testdata/peers/ws-check.mjs says what it
// checks): replay from a sequence id, live events, a confirmation over
// the socket, a drop and a reopen with nothing lost or doubled, 409 while
// running, a malformed frame, an interrupt, another user's session
// refused, and a socket idle past --read-timeout still served. The
// sequences and types it saw are then the SSE stream's, replayed from
// the start.
func TestServeWebSocketPeer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and execs the binary and node")
	}
	script, peers := peerScript(t, "ws-check.mjs", "ws")
	s := startServe(t, buildBinary(t), freeAddr(t), filepath.Join(t.TempDir(), "agentscope.db"), "--read-timeout", "1s")

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "AGENTSCOPE_URL="+s.url, "AGENTSCOPE_USER=newcomer", "PEERS_DIR="+peers, "IDLE_MS=1500")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ws-check.mjs: %v\n%s\nserve:\n%s", err, stderr.String(), s.stderr)
	}
	var got struct {
		SessionID string   `json:"session_id"`
		Events    [][2]any `json:"events"` // [seq, type]
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || got.SessionID == "" || len(got.Events) == 0 {
		t.Fatalf("ws-check.mjs printed %q: %v", stdout.String(), err)
	}

	// The log holds two replies: the note (parked, then resumed to its
	// end) and the interrupted wait.
	ch, stop := s.sse(got.SessionID, 0)
	defer stop()
	frames := until(t, ch, event.TypeReplyEnd)
	frames = append(frames, until(t, ch, event.TypeReplyEnd)...)
	if len(frames) != len(got.Events) {
		t.Fatalf("the SSE stream replays %d events, the sockets gave %d", len(frames), len(got.Events))
	}
	for i, f := range frames {
		seq, _ := got.Events[i][0].(float64)
		typ, _ := got.Events[i][1].(string)
		if int64(seq) != f.seq || typ != string(f.ev.Type()) {
			t.Fatalf("event %d: the socket gave seq %v %s, the SSE stream seq %d %s", i, got.Events[i][0], typ, f.seq, f.ev.Type())
		}
	}
}
