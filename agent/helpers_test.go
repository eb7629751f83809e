package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

const inputSchema = `{"type":"object","properties":{"input":{"type":"string"}},"required":[]}`

// toolSpec describes a test tool.
type toolSpec struct {
	name       string
	concurrent bool
	readOnly   bool
	external   bool
	perm       block.Behavior // "" = allow
	body       tool.CallFunc  // nil = text "<name>: <input>"
}

func makeTool(t testing.TB, s toolSpec) tool.Tool {
	t.Helper()
	perm := s.perm
	if perm == "" {
		perm = block.Allow
	}
	opts := []tool.Option{
		tool.ConcurrencySafe(s.concurrent),
		tool.WithPermissionCheck(func(context.Context, map[string]any, *permission.Context) permission.Decision {
			return permission.Decision{Behavior: perm, Message: s.name + ": " + string(perm)}
		}),
	}
	if s.readOnly {
		opts = append(opts, tool.ReadOnly())
	}
	if s.external {
		opts = append(opts, tool.External())
	}
	body := s.body
	if body == nil && !s.external {
		name := s.name
		body = func(_ context.Context, in map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) {
				yield(tool.Text(fmt.Sprintf("%s: %v", name, in["input"])), nil)
			}
		}
	}
	tl, err := tool.New(s.name, "Test tool "+s.name+".", json.RawMessage(inputSchema), body, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// sleeper waits d (interruptible), then answers.
func sleeper(d time.Duration) tool.CallFunc {
	return func(ctx context.Context, _ map[string]any) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) {
			if err := sleepCtx(ctx, d); err != nil {
				yield(tool.Chunk{}, err)
				return
			}
			yield(tool.Text("slept"), nil)
		}
	}
}

var quietLog = slog.New(slog.DiscardHandler)

// cfgFn changes the test agent's configuration.
type cfgFn func(*agent.Config)

func maxIters(n int) cfgFn                 { return func(c *agent.Config) { c.MaxIters = n } }
func withState(st *state.AgentState) cfgFn { return func(c *agent.Config) { c.State = st } }
func preemption(d time.Duration) cfgFn     { return func(c *agent.Config) { c.Preemption = d } }
func runtimeState(rs agent.RuntimeStateConfig, now func() time.Time) cfgFn {
	return func(c *agent.Config) { c.RuntimeState, c.Now = rs, now }
}
func withMW(mws ...agent.Middleware) cfgFn {
	return func(c *agent.Config) { c.Middleware = append(c.Middleware, mws...) }
}

// newAgent builds "Friday" with a scripted model, the tools, injection off.
func newAgent(t testing.TB, turns []scripted.Turn, tools []tool.Tool, cfgs ...cfgFn) (*agent.Agent, *scripted.Model) {
	t.Helper()
	m := scripted.New("mock-model", turns, scripted.WithRecording())
	tk, err := tool.NewToolkit(tools)
	if err != nil {
		t.Fatal(err)
	}
	cfg := agent.Config{
		Name: "Friday", Model: m, SystemPrompt: "You are a helpful assistant.", Toolkit: tk,
		RuntimeState: agent.RuntimeStateConfig{Disabled: true}, Logger: quietLog,
	}
	for _, f := range cfgs {
		f(&cfg)
	}
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a, m
}

// stateOf is a copy of a's state (between replies).
func stateOf(t testing.TB, a *agent.Agent) *state.AgentState {
	t.Helper()
	st, err := a.State()
	if err != nil {
		t.Fatalf("state: %v", err)
	}
	return st
}

// replyRun is what one reply produced.
type replyRun struct {
	events []event.Event
	res    agent.Result
	err    error
}

// kinds renders the events compactly: TYPE, or TYPE(detail).
func (r replyRun) kinds() string {
	var out []string
	for _, e := range r.events {
		out = append(out, describe(e))
	}
	return strings.Join(out, " ")
}

func describe(e event.Event) string {
	switch e := e.(type) {
	case *event.TextBlockDelta:
		return "TEXT_DELTA(" + e.Delta + ")"
	case *event.ThinkingBlockDelta:
		return "THINKING_DELTA(" + e.Delta + ")"
	case *event.ToolCallStart:
		return "TOOL_CALL_START(" + e.ToolCallID + ")"
	case *event.ToolCallDelta:
		return "TOOL_CALL_DELTA(" + e.ToolCallID + ")"
	case *event.ToolCallEnd:
		return "TOOL_CALL_END(" + e.ToolCallID + ")"
	case *event.ToolResultStart:
		return "RESULT_START(" + e.ToolCallID + ")"
	case *event.ToolResultTextDelta:
		return "RESULT_DELTA(" + e.ToolCallID + ":" + e.Delta + ")"
	case *event.ToolResultEnd:
		return "RESULT_END(" + e.ToolCallID + ":" + string(e.State) + ")"
	case *event.RequireUserConfirm:
		return "REQUIRE_CONFIRM(" + e.ToolCalls[0].ID + ")"
	case *event.RequireExternalExecution:
		return "REQUIRE_EXTERNAL(" + e.ToolCalls[0].ID + ")"
	case *event.ReplyEnd:
		return "REPLY_END(" + string(e.FinishedReason) + ")"
	case *event.ModelCallEnd:
		if e.FinishedReason == event.ModelInterrupted {
			return "MODEL_CALL_END(interrupted)"
		}
	}
	return strings.TrimSuffix(strings.TrimSuffix(string(e.Type()), "_EVENT"), "")
}

// stream starts the entry point that takes input: messages (one or a
// list, nil to continue), a confirmation, external results, or
// *event.UserInterrupt for Agent.Interrupt.
func stream(ctx context.Context, a *agent.Agent, input any, opts ...agent.ReplyOption) iter.Seq2[event.Event, error] {
	switch in := input.(type) {
	case nil:
		return a.Stream(ctx, nil, opts...)
	case *message.Msg:
		return a.Stream(ctx, []*message.Msg{in}, opts...)
	case []*message.Msg:
		return a.Stream(ctx, in, opts...)
	case *event.UserConfirmResult:
		return a.Confirm(ctx, in, opts...)
	case *event.ExternalExecutionResult:
		return a.DeliverExternal(ctx, in, opts...)
	case *event.UserInterrupt:
		return a.Interrupt(ctx, opts...)
	}
	panic(fmt.Sprintf("test input of type %T", input))
}

func reply(t testing.TB, ctx context.Context, a *agent.Agent, input any, opts ...agent.ReplyOption) replyRun {
	t.Helper()
	var r replyRun
	opts = append(opts, agent.WithResult(&r.res))
	for e, err := range stream(ctx, a, input, opts...) {
		if err != nil {
			r.err = err
			break
		}
		r.events = append(r.events, e)
	}
	return r
}

func mustReply(t testing.TB, a *agent.Agent, input any, opts ...agent.ReplyOption) replyRun {
	t.Helper()
	r := reply(t, context.Background(), a, input, opts...)
	if r.err != nil {
		t.Fatalf("reply: %v", r.err)
	}
	return r
}

func expectKinds(t testing.TB, r replyRun, want string) {
	t.Helper()
	want = strings.Join(strings.Fields(want), " ")
	if got := r.kinds(); got != want {
		t.Fatalf("events\n got: %s\nwant: %s", got, want)
	}
}

func user(text string) *message.Msg { return message.UserText("user", text) }

// confirm answers the parked calls: approve each id listed.
func confirm(t testing.TB, a *agent.Agent, approve bool, rules []block.PermissionRule, ids ...string) *event.UserConfirmResult {
	t.Helper()
	st := stateOf(t, a)
	e := &event.UserConfirmResult{ReplyID: st.Reply.ReplyID}
	for _, id := range ids {
		c, ok := st.Tail().Find(block.KindToolCall, id).(*block.ToolCall)
		if !ok {
			t.Fatalf("no call %s", id)
		}
		e.ConfirmResults = append(e.ConfirmResults, event.ConfirmResult{Confirmed: approve, ToolCall: c.CloneBlock().(*block.ToolCall), Rules: rules})
	}
	return e
}

func external(t testing.TB, a *agent.Agent, results ...*block.ToolResult) *event.ExternalExecutionResult {
	return &event.ExternalExecutionResult{ReplyID: stateOf(t, a).Reply.ReplyID, ExecutionResults: results}
}

// contextShape summarizes the reply message: calls with states, results
// with states and outputs, texts.
func contextShape(m *message.Msg) string {
	var out []string
	for _, b := range m.Content {
		switch b := b.(type) {
		case *block.ToolCall:
			out = append(out, "call "+b.ID+" "+string(b.State))
		case *block.ToolResult:
			o := ""
			if b.Output.Plain {
				o = "plain:" + b.Output.Text
			} else {
				for _, ob := range b.Output.Blocks {
					if tb, ok := ob.(*block.Text); ok {
						o += "list:" + tb.Text
					}
				}
			}
			out = append(out, "result "+b.ID+" "+string(b.State)+" "+o)
		case *block.Text:
			out = append(out, "text "+b.Text)
		case *block.Thinking:
			out = append(out, "thinking "+b.Thinking)
		case *block.Hint:
			out = append(out, "hint")
		}
	}
	return strings.Join(out, " | ")
}

var (
	hexRE  = regexp.MustCompile(`"[0-9a-f]{32}"`)
	tsRE   = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?`)
	hexTok = regexp.MustCompile(`[0-9a-f]{32}`)
)

// normalizeJSON renumbers generated ids by first appearance and masks
// timestamps, so two runs of the same scenario can be compared byte for
// byte.
func normalizeJSON(s string) string {
	ids := map[string]int{}
	s = hexRE.ReplaceAllStringFunc(s, func(m string) string {
		k := hexTok.FindString(m)
		n, ok := ids[k]
		if !ok {
			n = len(ids) + 1
			ids[k] = n
		}
		return fmt.Sprintf(`"<id:%d>"`, n)
	})
	return tsRE.ReplaceAllString(s, "<ts>")
}

// sleepCtx is how a plain Go tool waits: d, or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
