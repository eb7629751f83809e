package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/server/client"
	"github.com/agentscope-go/agentscope/session/memory"
	"github.com/agentscope-go/agentscope/state"
)

// A session, a message, and the reply's events as the stream gives them.
func ExampleClient() {
	m := scripted.New("scripted", []scripted.Turn{scripted.Stream(scripted.Text("Hi there!"))})
	srv, err := server.New(server.Config{
		Engine: engine.Config{Store: memory.New(memory.Config{}), Agents: []engine.Agent{{ID: "helper", Name: "assistant",
			New: func(st *state.AgentState) (*agent.Agent, error) {
				return agent.New(agent.Config{Name: "assistant", Model: m, State: st, RuntimeState: agent.RuntimeStateConfig{Disabled: true}})
			}}}},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()

	ctx := context.Background()
	c := &client.Client{BaseURL: hs.URL, User: "alice"}
	sid, err := c.CreateSession(ctx, "helper", "")
	if err != nil {
		panic(err)
	}
	opened := make(chan struct{})
	go func() {
		<-opened
		in, _ := json.Marshal(message.UserText("alice", "Hello"))
		if err := c.Chat(ctx, "helper", sid, in); err != nil {
			panic(err)
		}
	}()
	for f, err := range c.Stream(ctx, sid, -1, func() { close(opened) }) {
		if err != nil {
			panic(err)
		}
		switch ev := f.Event.(type) {
		case *event.TextBlockDelta:
			fmt.Printf("%d %q\n", f.Seq, ev.Delta)
		case *event.ReplyEnd:
			fmt.Println(f.Seq, ev.FinishedReason)
			st, _ := c.Status(ctx, sid, "helper")
			fmt.Println(st)
			return
		}
	}
	// Output:
	// 4 "Hi there!"
	// 7 completed
	// idle
}
