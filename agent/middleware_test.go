package agent_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync"
	"testing"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

type logbook struct {
	mu  sync.Mutex
	log []string
}

func (l *logbook) add(s string) { l.mu.Lock(); l.log = append(l.log, s); l.mu.Unlock() }
func (l *logbook) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.log, ", ")
}

func itemName(it agent.Item) string {
	if it.Msg != nil {
		return "msg"
	}
	return string(it.Event.Type())
}

// logging logs around every hook it implements.
type logging struct {
	name string
	lb   *logbook
}

func (l logging) OnReply(ctx context.Context, _ *agent.Agent, in agent.ReplyInput, next agent.ReplyHandler) iter.Seq2[agent.Item, error] {
	return func(yield func(agent.Item, error) bool) {
		l.lb.add(l.name + "_pre")
		for it, err := range next(ctx, in) {
			if err == nil {
				l.lb.add(l.name + "_" + itemName(it))
			}
			if !yield(it, err) {
				return
			}
		}
		l.lb.add(l.name + "_post")
	}
}

type reasoningLogger logging

func (l reasoningLogger) OnReasoning(ctx context.Context, _ *agent.Agent, in agent.ReasoningInput, next agent.ReasoningHandler) iter.Seq2[agent.Item, error] {
	return func(yield func(agent.Item, error) bool) {
		l.lb.add(l.name + "_pre")
		for it, err := range next(ctx, in) {
			if err == nil {
				l.lb.add(l.name + "_" + itemName(it))
			}
			if !yield(it, err) {
				return
			}
		}
		l.lb.add(l.name + "_post")
	}
}

type modelLogger logging

func (l modelLogger) OnModelCall(ctx context.Context, _ *agent.Agent, in agent.ModelCallInput, next agent.ModelCallHandler) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		l.lb.add(l.name + "_pre")
		for c, err := range next(ctx, in) {
			l.lb.add(l.name + "_chunk")
			if !yield(c, err) {
				return
			}
		}
		l.lb.add(l.name + "_post")
	}
}

type promptAppender logging

func (p promptAppender) OnSystemPrompt(_ context.Context, _ *agent.Agent, prompt string) (string, error) {
	p.lb.add(p.name + "_executed")
	return prompt + " [" + strings.ToUpper(p.name) + "]", nil
}

// MW-1, MW-3, MW-5, MW-6: onion order (first middleware outermost), the
// final message passes the reply chain last, the candidate passes the
// reasoning chain, model chunks pass the model-call chain, the system
// prompt is a pipeline.
func TestMiddlewareOrder(t *testing.T) {
	lb := &logbook{}
	a, m := newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("test response"))}, nil,
		withMW(agent.Middleware{Reply: logging{"mw1", lb}.OnReply}, agent.Middleware{Reply: logging{"mw2", lb}.OnReply}))
	mustReply(t, a, user("test message"))
	want := "mw1_pre, mw2_pre, mw2_REPLY_START, mw1_REPLY_START, mw2_MODEL_CALL_START, mw1_MODEL_CALL_START, mw2_TEXT_BLOCK_START, mw1_TEXT_BLOCK_START, " +
		"mw2_TEXT_BLOCK_DELTA, mw1_TEXT_BLOCK_DELTA, mw2_TEXT_BLOCK_END, mw1_TEXT_BLOCK_END, mw2_MODEL_CALL_END, mw1_MODEL_CALL_END, " +
		"mw2_REPLY_END, mw1_REPLY_END, mw2_msg, mw1_msg, mw2_post, mw1_post"
	if got := lb.String(); got != want {
		t.Fatalf("on_reply log\n got %s\nwant %s", got, want)
	}

	lb = &logbook{}
	a, _ = newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("test response"))}, nil,
		withMW(agent.Middleware{Reasoning: reasoningLogger{"mw1", lb}.OnReasoning}, agent.Middleware{Reasoning: reasoningLogger{"mw2", lb}.OnReasoning}))
	mustReply(t, a, user("test message"))
	want = "mw1_pre, mw2_pre, mw2_MODEL_CALL_START, mw1_MODEL_CALL_START, mw2_TEXT_BLOCK_START, mw1_TEXT_BLOCK_START, mw2_TEXT_BLOCK_DELTA, " +
		"mw1_TEXT_BLOCK_DELTA, mw2_TEXT_BLOCK_END, mw1_TEXT_BLOCK_END, mw2_MODEL_CALL_END, mw1_MODEL_CALL_END, mw2_msg, mw1_msg, mw2_post, mw1_post"
	if got := lb.String(); got != want {
		t.Fatalf("on_reasoning log\n got %s\nwant %s", got, want)
	}

	lb = &logbook{}
	a, _ = newAgent(t, []scripted.Turn{{Steps: []scripted.Step{scripted.Text("chunk1"), scripted.Text("chunk2")}, Explicit: true}}, nil,
		withMW(agent.Middleware{ModelCall: modelLogger{"mw1", lb}.OnModelCall}, agent.Middleware{ModelCall: modelLogger{"mw2", lb}.OnModelCall}))
	mustReply(t, a, user("test message"))
	want = "mw1_pre, mw2_pre, mw2_chunk, mw1_chunk, mw2_chunk, mw1_chunk, mw2_chunk, mw1_chunk, mw2_post, mw1_post"
	if got := lb.String(); got != want {
		t.Fatalf("on_model_call log\n got %s\nwant %s", got, want)
	}

	lb = &logbook{}
	a, m = newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("x"))}, nil,
		func(c *agent.Config) { c.SystemPrompt = "test prompt" }, withMW(agent.Middleware{SystemPrompt: promptAppender{"mw1", lb}.OnSystemPrompt}, agent.Middleware{SystemPrompt: promptAppender{"mw2", lb}.OnSystemPrompt}))
	mustReply(t, a, user("test message"))
	// MW-6: the pipeline runs twice per reply, for the compression check's
	// token count and for the model input.
	if got := lb.String(); got != "mw1_executed, mw2_executed, mw1_executed, mw2_executed" || !strings.Contains(string(m.Calls()[0].Messages), `"text":"test prompt [MW1] [MW2]"`) {
		t.Fatalf("system prompt log %s, messages %s", got, m.Calls()[0].Messages)
	}
}

// swallow drops the first n REPLY_END events.
type swallow struct{ n int }

func (s *swallow) OnReply(ctx context.Context, _ *agent.Agent, in agent.ReplyInput, next agent.ReplyHandler) iter.Seq2[agent.Item, error] {
	return func(yield func(agent.Item, error) bool) {
		for it, err := range next(ctx, in) {
			if _, ok := it.Event.(*event.ReplyEnd); ok && s.n > 0 {
				s.n--
				continue
			}
			if !yield(it, err) {
				return
			}
		}
	}
}

// MW-2, DRV-5: a swallowed REPLY_END makes the loop go on in the same
// reply; two swallows with nothing in between raise the guard error.
func TestSwallowReplyEnd(t *testing.T) {
	a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("first answer")), scripted.Reply(scripted.Text("second answer"))}, nil,
		withMW(agent.Middleware{Reply: (&swallow{n: 1}).OnReply}))
	r := mustReply(t, a, user("hi"))
	expectKinds(t, r, `REPLY_START MODEL_CALL_START TEXT_BLOCK_START TEXT_DELTA(first answer) TEXT_BLOCK_END MODEL_CALL_END
		MODEL_CALL_START TEXT_BLOCK_START TEXT_DELTA(second answer) TEXT_BLOCK_END MODEL_CALL_END REPLY_END(completed)`)
	if stateOf(t, a).Reply.CurIter != 2 || !strings.HasSuffix(contextShape(r.res.Msg), "text second answer") {
		t.Fatalf("cur_iter %d msg %s", stateOf(t, a).Reply.CurIter, contextShape(r.res.Msg))
	}

	a, _ = newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("a"))}, nil, maxIters(1), withMW(agent.Middleware{Reply: (&swallow{n: 99}).OnReply}))
	r = reply(t, context.Background(), a, user("hi"))
	if !errors.Is(r.err, agent.ErrNoProgress) {
		t.Fatalf("err %v", r.err)
	}
	expectKinds(t, r, "REPLY_START MODEL_CALL_START TEXT_BLOCK_START TEXT_DELTA(a) TEXT_BLOCK_END MODEL_CALL_END EXCEED_MAX_ITERS")
}

type inputRewriter struct{}

func (inputRewriter) OnReply(ctx context.Context, _ *agent.Agent, in agent.ReplyInput, next agent.ReplyHandler) iter.Seq2[agent.Item, error] {
	if len(in.Msgs) == 1 {
		text, _ := in.Msgs[0].TextContent("\n")
		in.Msgs = []*message.Msg{message.UserText(in.Msgs[0].Name, "MODIFIED: "+text)}
	}
	return next(ctx, in)
}

type choiceForcer struct{}

func (choiceForcer) OnReasoning(ctx context.Context, _ *agent.Agent, in agent.ReasoningInput, next agent.ReasoningHandler) iter.Seq2[agent.Item, error] {
	in.ToolChoice = &model.ToolChoice{Mode: model.ChoiceNone}
	return next(ctx, in)
}

type messageInjector struct{}

func (messageInjector) OnModelCall(ctx context.Context, _ *agent.Agent, in agent.ModelCallInput, next agent.ModelCallHandler) iter.Seq2[model.Chunk, error] {
	req := *in.Request
	req.Messages = append([]*message.Msg{message.SystemText("system", "INJECTED SYSTEM MESSAGE")}, req.Messages...)
	in.Request = &req
	return next(ctx, in)
}

// MW-8, MW-10, MW-12: middlewares change the input, the tool choice, the
// model's messages.
func TestMiddlewareRewrites(t *testing.T) {
	a, m := newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("ok"))}, nil,
		withMW(agent.Middleware{Reply: inputRewriter{}.OnReply}, agent.Middleware{Reasoning: choiceForcer{}.OnReasoning}, agent.Middleware{ModelCall: messageInjector{}.OnModelCall}))
	mustReply(t, a, user("original message"))
	c := m.Calls()[0]
	for _, want := range []string{"MODIFIED: original message", "INJECTED SYSTEM MESSAGE"} {
		if !strings.Contains(string(c.Messages), want) {
			t.Errorf("model messages lack %q", want)
		}
	}
	if string(c.ToolChoice) != `{"mode":"none","tools":null}` {
		t.Errorf("tool choice %s", c.ToolChoice)
	}
}

type actingRewriter struct{ seen *[]string }

func (r actingRewriter) OnActing(ctx context.Context, _ *agent.Agent, in agent.ActingInput, next agent.ActingHandler) iter.Seq[tool.Chunk] {
	*r.seen = append(*r.seen, in.ToolCall.Input)
	in.Input = map[string]any{"input": "MODIFIED"}
	return next(ctx, in)
}

// MW-11: on_acting wraps only the execution; the context keeps the
// original call.
func TestActingMiddleware(t *testing.T) {
	var seen []string
	echo := makeTool(t, toolSpec{name: "echo"})
	a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.ToolCall("call_1", "echo", `{"input": "ORIGINAL"}`)), scripted.Reply(scripted.Text("ok"))},
		[]tool.Tool{echo}, withMW(agent.Middleware{Acting: actingRewriter{&seen}.OnActing}))
	mustReply(t, a, user("go"))
	if len(seen) != 1 || !strings.Contains(seen[0], "ORIGINAL") {
		t.Fatalf("middleware saw %v", seen)
	}
	if got := contextShape(stateOf(t, a).Tail()); !strings.Contains(got, "result call_1 success list:echo: MODIFIED") {
		t.Fatalf("context %s", got)
	}
	if c := stateOf(t, a).Tail().Content[0].(*block.ToolCall); c.Input != `{"input": "ORIGINAL"}` {
		t.Fatal("the context call was changed")
	}
}

type policy struct {
	lb       *logbook
	callNext bool
	replace  *permission.Decision
	err      error
}

func (p policy) OnCheckPermission(ctx context.Context, _ *agent.Agent, in agent.PermissionInput, next agent.PermissionHandler) (permission.Decision, error) {
	if p.err != nil {
		return permission.Decision{}, p.err
	}
	if p.callNext {
		d, err := next(ctx, in)
		if err != nil {
			return d, err
		}
		p.lb.add(string(d.Behavior))
		if p.replace == nil {
			return d, nil
		}
	}
	return *p.replace, nil
}

// MW-21..MW-28: the permission hook sees every decision, may replace or
// short-circuit it, and its errors propagate; a user-approved call skips
// the engine but not the hook.
func TestPermissionMiddleware(t *testing.T) {
	ran := 0
	guarded := makeTool(t, toolSpec{name: "guarded", perm: block.Ask, body: func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) { ran++; yield(tool.Text("ran"), nil) }
	}})
	turns := func() []scripted.Turn {
		return []scripted.Turn{scripted.Reply(scripted.ToolCall("c1", "guarded", `{}`)), scripted.Reply(scripted.Text("done"))}
	}
	deny := permission.Decision{Behavior: block.Deny, Message: "denied by application policy"}

	lb := &logbook{}
	a, _ := newAgent(t, turns(), []tool.Tool{guarded}, withMW(agent.Middleware{Permission: policy{lb: lb, callNext: true, replace: &deny}.OnCheckPermission}))
	r := mustReply(t, a, user("go"))
	if !strings.Contains(r.kinds(), "RESULT_DELTA(c1:denied by application policy) RESULT_END(c1:denied)") || lb.String() != "ask" || ran != 0 {
		t.Fatalf("replace: %s (log %s)", r.kinds(), lb.String())
	}

	a, _ = newAgent(t, turns(), []tool.Tool{guarded}, withMW(agent.Middleware{Permission: policy{replace: &deny}.OnCheckPermission}))
	if r := mustReply(t, a, user("go")); !strings.Contains(r.kinds(), "RESULT_END(c1:denied)") || ran != 0 {
		t.Fatalf("short-circuit: %s", r.kinds())
	}

	boom := errors.New("policy service unavailable")
	a, _ = newAgent(t, turns(), []tool.Tool{guarded}, withMW(agent.Middleware{Permission: policy{err: boom}.OnCheckPermission}))
	if r := reply(t, context.Background(), a, user("go")); !errors.Is(r.err, boom) {
		t.Fatalf("error: %v", r.err)
	}

	// A confirmed call: the hook runs, the engine answers "allow" without
	// asking the tool; the hook may still deny.
	lb = &logbook{}
	a, _ = newAgent(t, turns(), []tool.Tool{guarded}, withMW(agent.Middleware{Permission: policy{lb: lb, callNext: true}.OnCheckPermission}))
	mustReply(t, a, user("go")) // parks: the engine asks
	lb.log = nil
	a2mw := policy{lb: lb, callNext: true, replace: &permission.Decision{Behavior: block.Deny, Message: "application policy changed while awaiting user"}}
	b, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("done"))}, []tool.Tool{guarded}, withState(stateOf(t, a)), withMW(agent.Middleware{Permission: a2mw.OnCheckPermission}))
	r = mustReply(t, b, confirm(t, b, true, nil, "c1"))
	if lb.String() != "allow" || ran != 0 || !strings.Contains(r.kinds(), "RESULT_END(c1:denied)") {
		t.Fatalf("confirmed call: log %s, events %s", lb.String(), r.kinds())
	}
}

// A hook reaches the reply's live state through ReplyState: this one
// grants another round when the rounds run out, as ErrNoProgress advises.
func TestHookChangesReplyState(t *testing.T) {
	granted := false
	grant := func(ctx context.Context, _ *agent.Agent, in agent.ReplyInput, next agent.ReplyHandler) iter.Seq2[agent.Item, error] {
		return func(yield func(agent.Item, error) bool) {
			for it, err := range next(ctx, in) {
				if e, ok := it.Event.(*event.ReplyEnd); ok && e.FinishedReason == event.ReplyExceedMaxIters && !granted {
					granted = true
					agent.ReplyState(ctx).Reply.CurIter = 0
					continue
				}
				if !yield(it, err) {
					return
				}
			}
		}
	}
	a, m := newAgent(t, []scripted.Turn{scripted.Reply(scripted.Thinking("hmm")), scripted.Reply(scripted.Text("done"))}, nil,
		maxIters(1), withMW(agent.Middleware{Reply: grant}))
	r := mustReply(t, a, user("hi"))
	expectKinds(t, r, `REPLY_START MODEL_CALL_START THINKING_BLOCK_START THINKING_DELTA(hmm) THINKING_BLOCK_END MODEL_CALL_END EXCEED_MAX_ITERS
		MODEL_CALL_START TEXT_BLOCK_START TEXT_DELTA(done) TEXT_BLOCK_END MODEL_CALL_END REPLY_END(completed)`)
	if r.res.Outcome != agent.OutcomeCompleted || m.Remaining() != 0 {
		t.Fatalf("outcome %s", r.res.Outcome)
	}
	if agent.ReplyState(context.Background()) != nil {
		t.Fatal("a state outside a reply")
	}
}
