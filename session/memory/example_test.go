package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/memory"
)

// A run's life on the store: the input is queued, the run takes the lease,
// claims the input, appends its events, saves the state and lets go.
func Example() {
	ctx := context.Background()
	var s session.Store = memory.New(memory.Config{})
	rec, _ := s.CreateSession(ctx, session.NewSession{UserID: "alice", AgentID: "friday"})
	k := session.Key{UserID: "alice", SessionID: rec.ID}

	s.EnqueueInput(ctx, k, json.RawMessage(`[{"role":"user","content":[{"type":"text","text":"hi"}]}]`))
	if _, err := s.AcquireLease(ctx, k, "worker-1", 30*time.Second); err != nil {
		panic(err)
	}
	in, _ := s.ClaimInput(ctx, k, "worker-1")
	first, _ := s.AppendEvents(ctx, k, []json.RawMessage{
		json.RawMessage(`{"type":"REPLY_START"}`),
		json.RawMessage(`{"type":"REPLY_END"}`),
	})
	v, _ := s.SaveState(ctx, k, 0, json.RawMessage(`{"context":[]}`))
	s.CompleteInput(ctx, k, in.ID)
	s.ReleaseLease(ctx, k, "worker-1")

	evs, _ := s.ReadEvents(ctx, k, 1, 10)
	fmt.Println(first, v, len(evs), evs[0].Seq, string(evs[0].JSON))
	_, err := s.GetSession(ctx, session.Key{UserID: "mallory", SessionID: rec.ID})
	fmt.Println(err != nil)
	// Output:
	// 1 1 1 2 {"type":"REPLY_END"}
	// true
}

// The same run in three transactions (session.Runs), as the server makes
// it: the start, the first events with the input message, and the end.
func Example_runs() {
	ctx := context.Background()
	var s session.Store = memory.New(memory.Config{})
	rec, _ := s.CreateSession(ctx, session.NewSession{UserID: "alice", AgentID: "friday"})
	k := session.Key{UserID: "alice", SessionID: rec.ID}

	user := json.RawMessage(`{"id":"m1","role":"user","content":[{"type":"text","text":"hi"}]}`)
	rs, err := s.StartRun(ctx, k, "worker-1", 30*time.Second, json.RawMessage(`[`+string(user)+`]`))
	if err != nil {
		panic(err)
	}
	w, _ := s.WriteRun(ctx, k, session.RunWrite{
		Messages: []session.Message{{ID: "m1", JSON: user}},
		Events:   []json.RawMessage{json.RawMessage(`{"type":"REPLY_START"}`)},
	})
	end, _ := s.WriteRun(ctx, k, session.RunWrite{
		State: json.RawMessage(`{"context":[]}`), StateVersion: rs.State.Version,
		Events: []json.RawMessage{json.RawMessage(`{"type":"REPLY_END"}`)},
		Done:   rs.Input.ID, Release: "worker-1",
	})
	lease, _ := s.GetLease(ctx, k)
	fmt.Println(rs.Pending, rs.Input.Attempts, w.First, end.First, end.Version, lease.Owner == "")
	// Output: 0 1 1 2 1 true
}
