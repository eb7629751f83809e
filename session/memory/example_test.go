package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/memory"
)

// A run's life on the store, in three transactions as the server makes
// it: the run begins (lease, input queued and claimed, state read), writes
// its first events with the input message, and finishes (state, last
// events, input done, status, lease freed).
func Example() {
	ctx := context.Background()
	var s session.Store = memory.New(memory.Config{})
	rec, _ := s.CreateSession(ctx, session.NewSession{UserID: "alice", AgentID: "friday"})
	k := session.Key{UserID: "alice", SessionID: rec.ID}

	user := json.RawMessage(`{"id":"m1","role":"user","content":[{"type":"text","text":"hi"}]}`)
	run, err := s.BeginRun(ctx, k, session.RunBegin{Owner: "worker-1", TTL: 30 * time.Second, Input: json.RawMessage(`[` + string(user) + `]`)})
	if err != nil {
		panic(err)
	}
	first, _ := s.AppendRun(ctx, k, run.Lease, session.RunAppend{
		Messages: []session.Message{{ID: "m1", JSON: user}},
		Events:   []json.RawMessage{json.RawMessage(`{"type":"REPLY_START"}`)},
	})
	running, _ := s.GetSession(ctx, k)
	end, _ := s.FinishRun(ctx, k, run.Lease, session.RunEnd{
		State: json.RawMessage(`{"context":[]}`), StateVersion: run.State.Version,
		Events: []json.RawMessage{json.RawMessage(`{"type":"REPLY_END"}`)},
		Done:   []int64{run.Input.ID}, Status: session.StatusIdle,
	})
	after, _ := s.GetSession(ctx, k)
	evs, _ := s.ReadEvents(ctx, k, 1, 10)
	fmt.Println(run.Input.Attempts, first, end.First, end.Version, running.Status, after.Status, after.Lease.Owner == "")
	fmt.Println(len(evs), evs[0].Seq, string(evs[0].JSON))
	_, err = s.GetSession(ctx, session.Key{UserID: "mallory", SessionID: rec.ID})
	fmt.Println(err != nil)
	// Output:
	// 1 1 2 1 running idle true
	// 1 2 {"type":"REPLY_END"}
	// true
}
