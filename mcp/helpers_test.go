package mcp_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/tool"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func connect(t testing.TB, cfg mcp.Config) *mcp.Client {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := mcp.Connect(ctx, cfg)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// newAgent builds an agent on a scripted model whose toolkit holds the
// clients' tools (mounted in the basic group) and extra.
func newAgent(t testing.TB, turns []scripted.Turn, clients []*mcp.Client, extra ...tool.Tool) (*agent.Agent, *scripted.Model) {
	t.Helper()
	m := scripted.New("mock-model", turns, scripted.WithRecording())
	tk, err := tool.NewToolkit(extra)
	if err != nil {
		t.Fatal(err)
	}
	var mws []agent.Middleware
	for _, c := range clients {
		if err := c.Mount(tk, ""); err != nil {
			t.Fatal(err)
		}
		mws = append(mws, c.Middleware())
	}
	a, err := agent.New(agent.Config{
		Name: "Friday", Model: m, Toolkit: tk, Middleware: mws,
		RuntimeState: agent.RuntimeStateConfig{Disabled: true}, Logger: quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	return a, m
}

func ask(t testing.TB, a *agent.Agent, text string) *agent.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := a.Reply(ctx, []*message.Msg{message.UserText("user", text)})
	if err != nil {
		t.Fatalf("reply: %v", err)
	}
	return res
}

// results are the tool results of a reply, by call id.
func results(t testing.TB, a *agent.Agent) map[string]*block.ToolResult {
	t.Helper()
	st, err := a.State()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*block.ToolResult{}
	for _, m := range st.Context {
		for _, b := range m.Content {
			if r, ok := b.(*block.ToolResult); ok {
				out[r.ID] = r
			}
		}
	}
	return out
}

func resultText(r *block.ToolResult) string {
	if r.Output.Plain {
		return r.Output.Text
	}
	var sb strings.Builder
	for _, b := range r.Output.Blocks {
		if t, ok := b.(*block.Text); ok {
			sb.WriteString(t.Text)
		}
	}
	return sb.String()
}

func call(id, name, input string) scripted.Turn {
	return scripted.Stream(scripted.ToolCall(id, name, input))
}

func done() scripted.Turn { return scripted.Stream(scripted.Text("Done.")) }

// approveAll confirms every pending call of a parked reply.
func approveAll(res *agent.Result) *event.UserConfirmResult {
	ev := &event.UserConfirmResult{ReplyID: res.ReplyID}
	for _, p := range res.Pending {
		ev.ConfirmResults = append(ev.ConfirmResults, event.ConfirmResult{Confirmed: true, ToolCall: p})
	}
	return ev
}

func errorsAs[T error](err error, target *T) bool { return errors.As(err, target) }
