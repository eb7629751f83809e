package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/session"
)

// dyingStore is the store as a process sees it that dies at its run's
// last write: before it commits (the write never happens) or right after.
// From then on nothing the process does reaches the store.
type dyingStore struct {
	session.Store
	afterCommit bool
	once        sync.Once
	died        chan struct{}
}

var errDead = errors.New("the process is dead")

func (d *dyingStore) dead() bool {
	select {
	case <-d.died:
		return true
	default:
		return false
	}
}

func (d *dyingStore) FinishRun(ctx context.Context, k session.Key, l session.Lease, end session.RunEnd) (session.RunWritten, error) {
	if d.dead() {
		return session.RunWritten{}, errDead
	}
	if d.afterCommit {
		if _, err := d.Store.FinishRun(ctx, k, l, end); err != nil {
			return session.RunWritten{}, err
		}
	}
	d.once.Do(func() { close(d.died) })
	return session.RunWritten{}, errDead
}

func (d *dyingStore) AppendRun(ctx context.Context, k session.Key, l session.Lease, a session.RunAppend) (int64, error) {
	if d.dead() {
		return 0, errDead
	}
	return d.Store.AppendRun(ctx, k, l, a)
}

func (d *dyingStore) RenewRun(ctx context.Context, k session.Key, l session.Lease, ttl time.Duration) (session.Lease, error) {
	if d.dead() {
		return session.Lease{}, errDead
	}
	return d.Store.RenewRun(ctx, k, l, ttl)
}

func (d *dyingStore) BeginRun(ctx context.Context, k session.Key, b session.RunBegin) (session.Run, error) {
	if d.dead() {
		return session.Run{}, errDead
	}
	return d.Store.BeginRun(ctx, k, b)
}

// A process that dies at its run's end leaves the session whole for
// another process on the store: dead before the last write, the reply is
// closed as interrupted, holding every event it logged; dead right after
// it, the reply stays as it was stored, completed, and is not rewritten.
// Either way the log holds one REPLY_END, and the transcript's reply is
// the fold of the logged events.
func TestDeathAtTheRunsEnd(t *testing.T) {
	for _, after := range []bool{false, true} {
		name := map[bool]string{false: "before the commit", true: "after the commit"}[after]
		t.Run(name, func(t *testing.T) {
			d := &dyingStore{afterCommit: after, died: make(chan struct{})}
			turn := scripted.Stream(scripted.Text("Hello"), scripted.Text(" world"))
			e := newEnv(t, []scripted.Turn{turn}, func(c *server.Config) {
				d.Store = c.Engine.Store
				c.Engine.Store = d
				c.Engine.LeaseTTL = time.Second
				c.Engine.RescueInterval = -1
			})
			sid := e.createSession()
			if r := e.chat(sid, userMsg("hi")); r.code != 200 {
				t.Fatal(r.body)
			}
			select {
			case <-d.died:
			case <-time.After(10 * time.Second):
				t.Fatal("the run never reached its last write")
			}
			k := session.Key{UserID: user, SessionID: sid}
			ctx := context.Background()
			if !after {
				// The dead owner's lease runs out before another process
				// may take the session.
				for {
					l, err := leaseOf(ctx, d.Store, k)
					if err != nil {
						t.Fatal(err)
					}
					if !l.Held(time.Now()) {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			other, err := server.New(server.Config{Engine: engine.Config{Store: d.Store, Owner: "other", LeaseTTL: time.Second, RescueInterval: -1,
				Agents: []engine.Agent{{ID: "a1", Name: "assistant", New: e.newAgent}}}, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()

			evs, err := d.Store.ReadEvents(ctx, k, 0, 1000)
			if err != nil {
				t.Fatal(err)
			}
			fold, _ := message.AssistantMsg("assistant", nil)
			var ends []*event.ReplyEnd
			for _, e := range evs {
				ev, err := event.Decode(e.JSON)
				if err != nil {
					t.Fatal(err)
				}
				if st, ok := ev.(*event.ReplyStart); ok {
					fold, _ = message.AssistantMsg(st.Name, nil, message.WithID(st.ReplyID), message.WithCreatedAt(st.CreatedAt))
					continue
				}
				if end, ok := ev.(*event.ReplyEnd); ok {
					ends = append(ends, end)
				}
				if err := fold.AppendEvent(ev); err != nil {
					t.Fatalf("fold %s: %v", ev.Type(), err)
				}
			}
			want := event.ReplyInterrupted
			if after {
				want = event.ReplyCompleted
			}
			if len(ends) != 1 || ends[0].FinishedReason != want {
				t.Fatalf("the log's REPLY_ENDs %+v, want one %s", ends, want)
			}
			page, err := d.Store.ListMessages(ctx, k, session.MessageQuery{Limit: 10})
			if err != nil || len(page.Messages) != 2 {
				t.Fatalf("transcript of %d messages, %v", len(page.Messages), err)
			}
			var reply message.Msg
			if err := json.Unmarshal(page.Messages[1].JSON, &reply); err != nil {
				t.Fatal(err)
			}
			if reply.FinishedReason != want || !strings.Contains(string(page.Messages[1].JSON), "Hello world") {
				t.Fatalf("stored reply %s, want %s with the text", page.Messages[1].JSON, want)
			}
			if got, wantJS := string(reply.AppendJSON(nil)), string(fold.AppendJSON(nil)); got != wantJS {
				t.Fatalf("stored reply\n%s\nis not the fold of the log\n%s", got, wantJS)
			}
			if n, _ := d.Store.PendingInputs(ctx, k); n != 0 {
				t.Fatalf("%d inputs pending after the rescue", n)
			}
		})
	}
}
