package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/sqlite"
)

// Open creates the file and its schema; a second Open of the same file
// finds everything as it was left.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "agentscope-example-")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "agentscope.db")
	ctx := context.Background()

	s, err := sqlite.Open(ctx, sqlite.Config{Path: path})
	if err != nil {
		panic(err)
	}
	rec, _ := s.CreateSession(ctx, session.NewSession{UserID: "alice", AgentID: "friday", Name: "first"})
	k := session.Key{UserID: "alice", SessionID: rec.ID}
	run, _ := s.BeginRun(ctx, k, session.RunBegin{Owner: "example", TTL: time.Minute})
	first, _ := s.AppendRun(ctx, k, run.Lease, session.RunAppend{Events: []json.RawMessage{json.RawMessage(`{"type":"REPLY_START"}`), json.RawMessage(`{"type":"REPLY_END"}`)}})
	s.FinishRun(ctx, k, run.Lease, session.RunEnd{Status: session.StatusAwaitingPermission})
	s.Close()

	s, err = sqlite.Open(ctx, sqlite.Config{Path: path})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	last, _ := s.LastSeq(ctx, k)
	got, _ := s.GetSession(ctx, k)
	fmt.Println(first, last, got.Name, got.Status)
	// Output: 1 2 first awaiting_permission
}
