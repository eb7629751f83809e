package a2a_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server/a2a"
	"github.com/agentscope-go/agentscope/session/memory"
	"github.com/agentscope-go/agentscope/state"
)

// An agent served over A2A, and a client of it: the card names the
// JSON-RPC endpoint, a message makes a task, the task's artifacts hold
// the reply.
func Example() {
	m := scripted.New("scripted", []scripted.Turn{scripted.Stream(scripted.Text("Hi there!"))})
	eng, err := engine.New(engine.Config{Store: memory.New(memory.Config{}), Logger: slog.New(slog.DiscardHandler),
		Agents: []engine.Agent{{ID: "friday", Name: "Friday", Description: "A helpful assistant.",
			New: func(st *state.AgentState) (*agent.Agent, error) {
				return agent.New(agent.Config{Name: "Friday", Model: m, State: st, Logger: slog.New(slog.DiscardHandler)})
			}}}})
	if err != nil {
		panic(err)
	}
	defer eng.Shutdown(context.Background())
	h, err := a2a.New(a2a.Config{Engine: eng})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	ctx := context.Background()
	c, err := a2a.Dial(ctx, a2a.ClientConfig{URL: srv.URL, Header: http.Header{"X-User-Id": {"alice"}}})
	if err != nil {
		panic(err)
	}
	res, err := c.SendMessage(ctx, a2a.SendMessageRequest{Message: &a2a.Message{
		MessageID: "m1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("Hello!")}}})
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Card().Name, res.Task.Status.State, res.Task.Text(""))
	// Output: Friday TASK_STATE_COMPLETED Hi there!
}
