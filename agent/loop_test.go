package agent_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

// LOOP-1: configurations are per agent.
func TestDefaultsArePerAgent(t *testing.T) {
	a1, _ := newAgent(t, nil, nil, maxIters(2))
	a2, _ := newAgent(t, nil, nil)
	if a1 == a2 || a1.Toolkit() == a2.Toolkit() || a1.Permissions() == a2.Permissions() {
		t.Fatal("agents share a toolkit or a permission engine")
	}
	if stateOf(t, a1).SessionID == stateOf(t, a2).SessionID {
		t.Fatal("agents share a session id")
	}
}

// LOOP-2: a Config that cannot work is rejected at construction; zero
// values are the reference defaults.
func TestConfigValidation(t *testing.T) {
	m := scripted.New("m", nil)
	for _, tc := range []struct {
		name string
		cfg  agent.Config
	}{
		{"no name", agent.Config{Model: m}},
		{"no model", agent.Config{Name: "x"}},
		{"negative max iters", agent.Config{Name: "x", Model: m, MaxIters: -1}},
		{"negative grace", agent.Config{Name: "x", Model: m, StructuredOutputGraceIters: -1}},
		{"negative retries", agent.Config{Name: "x", Model: m, ModelRetries: -1}},
		{"negative tool grace", agent.Config{Name: "x", Model: m, ToolGrace: -time.Millisecond}},
		{"negative preemption", agent.Config{Name: "x", Model: m, Preemption: -time.Millisecond}},
		{"template without placeholder", agent.Config{Name: "x", Model: m, RuntimeState: agent.RuntimeStateConfig{Template: "<system-reminder></system-reminder>"}}},
		{"middleware without hooks", agent.Config{Name: "x", Model: m, Middleware: []agent.Middleware{{Name: "empty"}}}},
	} {
		if _, err := agent.New(tc.cfg); !errors.Is(err, agent.ErrConfig) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if _, err := agent.New(agent.Config{Name: "x", Model: m}); err != nil {
		t.Fatalf("minimal config: %v", err)
	}
}

// The zero Config is the reference's: 50 rounds, runtime-state injection
// on.
func TestConfigZeroValues(t *testing.T) {
	turns := make([]scripted.Turn, 0, 51)
	for range 51 {
		turns = append(turns, scripted.Reply(scripted.Thinking("hmm")))
	}
	m := scripted.New("m", turns)
	a, err := agent.New(agent.Config{Name: "Friday", Model: m, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	r := mustReply(t, a, user("think"))
	if r.res.Outcome != agent.OutcomeExceededMaxIters || m.Remaining() != 1 {
		t.Fatalf("outcome %s after %d model calls", r.res.Outcome, 51-m.Remaining())
	}
	if r.events[1].Type() != event.TypeHintBlock {
		t.Fatalf("no runtime-state hint: %s", r.kinds())
	}
}

// LOOP-3, LOOP-4: streamed text, cur_iter 1; a second message starts a new
// reply whose final message is the whole reply message.
func TestStreamingTextReply(t *testing.T) {
	turn := scripted.Turn{Steps: []scripted.Step{scripted.Text("Hello"), scripted.Text(" world"), scripted.Text("!")}, Explicit: true}
	a, _ := newAgent(t, []scripted.Turn{turn, turn}, nil)
	r := mustReply(t, a, user("Hi"))
	expectKinds(t, r, `REPLY_START MODEL_CALL_START TEXT_BLOCK_START TEXT_DELTA(Hello) TEXT_DELTA( world) TEXT_DELTA(!)
		TEXT_BLOCK_END MODEL_CALL_END REPLY_END(completed)`)
	st := stateOf(t, a)
	if st.Reply.CurIter != 1 || len(st.Context) != 2 || contextShape(st.Context[1]) != "text Hello world!" {
		t.Fatalf("cur_iter %d, context %v", st.Reply.CurIter, contextShape(st.Context[1]))
	}
	start := r.events[0].(*event.ReplyStart)
	end := r.events[len(r.events)-1].(*event.ReplyEnd)
	if start.SessionID != st.SessionID || start.ReplyID != st.Reply.ReplyID || end.ReplyID != start.ReplyID || start.Name != "Friday" {
		t.Fatalf("start %+v end %+v", start, end)
	}
	first := st.Reply.ReplyID
	res, err := a.Reply(context.Background(), []*message.Msg{user("Hi again")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != agent.OutcomeCompleted || res.Msg.ID == first || res.Msg.FinishedReason != event.ReplyCompleted ||
		res.Msg.FinishedAt.Valid || contextShape(res.Msg) != "text Hello world!" {
		t.Fatalf("result %+v %s", res, contextShape(res.Msg))
	}
	if st = stateOf(t, a); len(st.Context) != 4 || st.Context[3].FinishedReason != "" {
		t.Fatalf("context after two replies: %d messages", len(st.Context))
	}
}

// LOOP-6/7/8: usage is propagated and accumulated; the final message
// carries the reply's accumulated usage.
func TestUsageAccumulates(t *testing.T) {
	echo := makeTool(t, toolSpec{name: "echo"})
	a, _ := newAgent(t, []scripted.Turn{
		scripted.Reply(scripted.ToolCall("c1", "echo", `{"input": "x"}`).WithUsage(100, 20)),
		scripted.Reply(scripted.Step{Parts: scripted.Text("done").Parts, Usage: &message.Usage{InputTokens: 10, OutputTokens: 5, CacheInputTokens: 60, CacheCreationInputTokens: 40}}),
	}, []tool.Tool{echo})
	r := mustReply(t, a, user("go"))
	var ends []*event.ModelCallEnd
	for _, e := range r.events {
		if e, ok := e.(*event.ModelCallEnd); ok {
			ends = append(ends, e)
		}
	}
	if len(ends) != 2 || ends[1].CacheInputTokens != 60 || ends[1].CacheCreationInputTokens != 40 || ends[0].InputTokens != 100 {
		t.Fatalf("MODEL_CALL_END events: %+v", ends)
	}
	u := r.res.Msg.Usage
	if u == nil || *u != (message.Usage{InputTokens: 110, OutputTokens: 25, CacheInputTokens: 60, CacheCreationInputTokens: 40}) {
		t.Fatalf("final usage %+v", u)
	}
	if got := stateOf(t, a).Tail().Usage; *got != *u {
		t.Fatalf("context usage %+v", got)
	}
}

// LOOP-9: a round counts once its tool calls have results; a text answer
// at cur_iter == max_iters still completes.
func TestMaxItersCountsRounds(t *testing.T) {
	seq := makeTool(t, toolSpec{name: "seq", readOnly: true})
	a, m := newAgent(t, []scripted.Turn{
		scripted.Reply(scripted.ToolCall("c1", "seq", `{"input": "x"}`)),
		scripted.Reply(scripted.Text("done")),
	}, []tool.Tool{seq}, maxIters(2))
	r := mustReply(t, a, user("Go"))
	if r.res.Outcome != agent.OutcomeCompleted || stateOf(t, a).Reply.CurIter != 2 || m.Remaining() != 0 {
		t.Fatalf("outcome %s cur_iter %d", r.res.Outcome, stateOf(t, a).Reply.CurIter)
	}
	if got := contextShape(stateOf(t, a).Tail()); got != "call c1 finished | result c1 success list:seq: x | text done" {
		t.Fatalf("context %s", got)
	}
}

// DRV-4: running out of rounds.
func TestMaxItersExceeded(t *testing.T) {
	seq := makeTool(t, toolSpec{name: "seq", readOnly: true})
	a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.ToolCall("c1", "seq", `{}`))}, []tool.Tool{seq}, maxIters(1))
	r := mustReply(t, a, user("Go"))
	expectKinds(t, r, `REPLY_START MODEL_CALL_START TOOL_CALL_START(c1) TOOL_CALL_DELTA(c1) TOOL_CALL_END(c1) MODEL_CALL_END
		RESULT_START(c1) RESULT_DELTA(c1:seq: <nil>) RESULT_END(c1:success) EXCEED_MAX_ITERS REPLY_END(exceed_max_iters)`)
	if r.res.Outcome != agent.OutcomeExceededMaxIters || r.res.Msg.FinishedReason != event.ReplyExceedMaxIters ||
		contextShape(r.res.Msg) != "text "+agent.MaxItersText || r.res.Msg.ID != stateOf(t, a).Reply.ReplyID {
		t.Fatalf("result %+v", r.res)
	}
}

// LOOP-10: a thinking-only response does not end the reply.
func TestThinkingOnlyContinues(t *testing.T) {
	a, m := newAgent(t, []scripted.Turn{scripted.Reply(scripted.Thinking("Working on it")), scripted.Reply(scripted.Text("Final answer"))}, nil)
	r := mustReply(t, a, user("Think"))
	expectKinds(t, r, `REPLY_START MODEL_CALL_START THINKING_BLOCK_START THINKING_DELTA(Working on it) THINKING_BLOCK_END MODEL_CALL_END
		MODEL_CALL_START TEXT_BLOCK_START TEXT_DELTA(Final answer) TEXT_BLOCK_END MODEL_CALL_END REPLY_END(completed)`)
	if m.Remaining() != 0 || stateOf(t, a).Reply.CurIter != 2 || contextShape(stateOf(t, a).Tail()) != "thinking Working on it | text Final answer" {
		t.Fatalf("cur_iter %d context %s", stateOf(t, a).Reply.CurIter, contextShape(stateOf(t, a).Tail()))
	}
}

// LOOP-11: split arguments, text closed by a chunk without text, a tool
// call ended once a chunk no longer carries it; sequential execution.
func TestStreamConversionOrder(t *testing.T) {
	seq := makeTool(t, toolSpec{name: "seq", readOnly: true})
	a, _ := newAgent(t, []scripted.Turn{
		scripted.Stream(
			scripted.Multi(scripted.Text("I'll call the tool"), scripted.ToolCall("tc1", "seq", `{"input": `)),
			scripted.ToolCall("tc1", "", `"test1"}`),
			scripted.ToolCall("tc2", "seq", `{"input": "test2"}`),
		),
		scripted.Stream(scripted.Text("ended")),
	}, []tool.Tool{seq})
	r := mustReply(t, a, user("Test"))
	expectKinds(t, r, `REPLY_START MODEL_CALL_START TEXT_BLOCK_START TEXT_DELTA(I'll call the tool) TOOL_CALL_START(tc1)
		TOOL_CALL_DELTA(tc1) TEXT_BLOCK_END TOOL_CALL_DELTA(tc1) TOOL_CALL_START(tc2) TOOL_CALL_DELTA(tc2) TOOL_CALL_END(tc1)
		TOOL_CALL_END(tc2) MODEL_CALL_END RESULT_START(tc1) RESULT_DELTA(tc1:seq: test1) RESULT_END(tc1:success)
		RESULT_START(tc2) RESULT_DELTA(tc2:seq: test2) RESULT_END(tc2:success) MODEL_CALL_START TEXT_BLOCK_START
		TEXT_DELTA(ended) TEXT_BLOCK_END MODEL_CALL_END REPLY_END(completed)`)
	if got := contextShape(stateOf(t, a).Tail()); got != "text I'll call the tool | call tc1 finished | call tc2 finished | result tc1 success list:seq: test1 | result tc2 success list:seq: test2 | text ended" {
		t.Fatalf("context %s", got)
	}
}

// LOOP-12/13: calls only in an explicit final chunk produce no TOOL_CALL
// events but run; a sequential batch precedes a concurrent one.
func TestFinalChunkCallsAndMixedBatches(t *testing.T) {
	seq := makeTool(t, toolSpec{name: "seq", readOnly: true})
	conc := makeTool(t, toolSpec{name: "conc", readOnly: true, concurrent: true})
	a, _ := newAgent(t, []scripted.Turn{
		{Explicit: true, Steps: []scripted.Step{scripted.Multi(
			scripted.ToolCall("tc1", "seq", `{"input": "seq1"}`),
			scripted.ToolCall("tc2", "conc", `{"input": "conc1"}`),
			scripted.ToolCall("tc3", "conc", `{"input": "conc2"}`),
		)}},
		scripted.Stream(scripted.Text("All done")),
	}, []tool.Tool{seq, conc})
	r := mustReply(t, a, user("Test"))
	// The scripted explicit turn streams its delta too; drop the TOOL_CALL
	// events to look at the execution order.
	var got []string
	for _, e := range r.events {
		if k := describe(e); strings.HasPrefix(k, "RESULT_") {
			got = append(got, k)
		}
	}
	want := "RESULT_START(tc1) RESULT_DELTA(tc1:seq: seq1) RESULT_END(tc1:success) RESULT_START(tc2) RESULT_DELTA(tc2:conc: conc1) RESULT_END(tc2:success) RESULT_START(tc3) RESULT_DELTA(tc3:conc: conc2) RESULT_END(tc3:success)"
	if strings.Join(got, " ") != want {
		t.Fatalf("results %s", strings.Join(got, " "))
	}
	if stateOf(t, a).Reply.CurIter != 2 {
		t.Fatalf("cur_iter %d", stateOf(t, a).Reply.CurIter)
	}
}

// An explicit final chunk alone: no delta events, the calls still run.
func TestOnlyFinalChunk(t *testing.T) {
	conc := makeTool(t, toolSpec{name: "conc", readOnly: true, concurrent: true})
	m := scripted.New("mock-model", []scripted.Turn{scripted.Stream(scripted.Text("All done"))})
	onlyFinal := &finalOnly{inner: m, parts: []model.Part{
		{Kind: model.PartToolCall, ID: "tc1", Name: "conc", Text: `{"input": "a"}`},
		{Kind: model.PartToolCall, ID: "tc2", Name: "conc", Text: `{"input": "b"}`},
	}}
	tk, _ := tool.NewToolkit([]tool.Tool{conc})
	a, err := agent.New(agent.Config{Name: "Friday", Model: onlyFinal, Toolkit: tk, RuntimeState: agent.RuntimeStateConfig{Disabled: true}, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	r := mustReply(t, a, user("Test"))
	expectKinds(t, r, `REPLY_START MODEL_CALL_START MODEL_CALL_END RESULT_START(tc1) RESULT_DELTA(tc1:conc: a) RESULT_END(tc1:success)
		RESULT_START(tc2) RESULT_DELTA(tc2:conc: b) RESULT_END(tc2:success) MODEL_CALL_START TEXT_BLOCK_START TEXT_DELTA(All done)
		TEXT_BLOCK_END MODEL_CALL_END REPLY_END(completed)`)
}

// finalOnly answers its first call with one Final chunk, then delegates.
type finalOnly struct {
	inner *scripted.Model
	parts []model.Part
	used  bool
}

func (f *finalOnly) Name() string { return f.inner.Name() }
func (f *finalOnly) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Chunk, error] {
	if f.used {
		return f.inner.Stream(ctx, req)
	}
	f.used = true
	return func(yield func(model.Chunk, error) bool) { yield(model.Chunk{Parts: f.parts, Final: true}, nil) }
}

// DRV-3, TK: unknown tools, bad arguments, tool errors and panics become
// error results and the loop goes on.
func TestToolFailuresBecomeResults(t *testing.T) {
	add, err := tool.New("add", "Add.", []byte(`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`),
		func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) { yield(tool.Text("ok"), nil) }
		}, tool.WithPermissionCheck(allowAll))
	if err != nil {
		t.Fatal(err)
	}
	fail := makeTool(t, toolSpec{name: "fail", body: func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) { yield(tool.Chunk{}, errors.New("disk on fire")) }
	}})
	boom := makeTool(t, toolSpec{name: "boom", body: func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
		return func(func(tool.Chunk, error) bool) { panic("kaboom") }
	}})
	a, _ := newAgent(t, []scripted.Turn{
		scripted.Reply(
			scripted.ToolCall("c1", "nope", `{}`),
			scripted.ToolCall("c2", "add", `{"a": "one"}`),
			scripted.ToolCall("c3", "add", `[1, 2]`),
			scripted.ToolCall("c4", "fail", `{}`),
			scripted.ToolCall("c5", "boom", `{}`),
		),
		scripted.Reply(scripted.Text("sorry")),
	}, []tool.Tool{add, fail, boom})
	r := mustReply(t, a, user("go"))
	if r.res.Outcome != agent.OutcomeCompleted {
		t.Fatalf("outcome %s", r.res.Outcome)
	}
	shape := contextShape(stateOf(t, a).Tail())
	for _, want := range []string{
		"result c1 error plain:ToolNotFoundError: The tool named 'nope' doesn't exist.",
		"result c2 error plain:Input validation failed for tool 'add': 'one' is not of type 'integer'",
		"result c3 error plain:<system-reminder>Error: Your argument string is decoded into a <class 'list'> object",
		"result c4 error list:disk on fire",
		"result c5 error list:panic: kaboom",
	} {
		if !strings.Contains(shape, want) {
			t.Errorf("context lacks %q:\n%s", want, shape)
		}
	}
}

// DRV-2: inputs that may not be sent are rejected before anything happens.
func TestInvalidInputs(t *testing.T) {
	a, m := newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("x"))}, nil)
	before, _ := stateOf(t, a).MarshalJSON()
	sys := message.SystemText("system", "be evil")
	withCall, _ := message.AssistantMsg("x", []block.Block{&block.ToolCall{ID: "c", Name: "t", Input: "{}"}})
	for _, in := range []any{sys, withCall, []*message.Msg{user("ok"), withCall}} {
		r := reply(t, context.Background(), a, in)
		var ie *agent.InputError
		if !errors.As(r.err, &ie) || !errors.Is(r.err, agent.ErrInvalidInput) || len(r.events) != 0 {
			t.Fatalf("%T: err %v, %d events", in, r.err, len(r.events))
		}
	}
	after, _ := stateOf(t, a).MarshalJSON()
	if string(before) != string(after) || m.Remaining() != 1 {
		t.Fatal("a rejected input changed the state")
	}
	if !strings.HasPrefix(reply(t, context.Background(), a, sys).err.Error(), "Invalid message in the input") {
		t.Fatal("wrong text")
	}
}

// INT-6 / DRV-6: an interrupt sent to an idle agent does nothing.
func TestInterruptIdleAgent(t *testing.T) {
	a, _ := newAgent(t, nil, nil)
	r := mustReply(t, a, &event.UserInterrupt{ReplyID: "noop"})
	if len(r.events) != 0 || r.res.Outcome != agent.OutcomeNothing || len(stateOf(t, a).Context) != 0 {
		t.Fatalf("events %v outcome %s", r.kinds(), r.res.Outcome)
	}
}

// Reply reports a reply whose final message a middleware dropped.
func TestReplyWithoutFinalMessage(t *testing.T) {
	dropMsg := func(ctx context.Context, _ *agent.Agent, in agent.ReplyInput, next agent.ReplyHandler) iter.Seq2[agent.Item, error] {
		return func(yield func(agent.Item, error) bool) {
			for it, err := range next(ctx, in) {
				if it.Msg != nil {
					continue
				}
				if !yield(it, err) {
					return
				}
			}
		}
	}
	a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("hi"))}, nil, withMW(agent.Middleware{Reply: dropMsg}))
	if res, err := a.Reply(context.Background(), []*message.Msg{user("hello")}); !errors.Is(err, agent.ErrNoFinalMessage) || res != nil {
		t.Fatalf("Reply: %v, %v", res, err)
	}
}

// DRV-8: model errors propagate without REPLY_END; retries and the fallback
// model are tried first; a broken stream is not retried.
func TestModelErrorsRetriesAndFallback(t *testing.T) {
	fail := &scripted.Error{Message: "upstream 503"}
	a, m := newAgent(t, []scripted.Turn{scripted.Failing(fail), scripted.Failing(fail)}, nil)
	r := reply(t, context.Background(), a, user("hi"))
	var me *agent.ModelCallError
	if !errors.As(r.err, &me) || !errors.Is(r.err, fail) || me.Attempts != 1 || m.Remaining() != 1 {
		t.Fatalf("err %v, remaining %d", r.err, m.Remaining())
	}
	expectKinds(t, r, "REPLY_START MODEL_CALL_START")

	// Two retries: the third attempt succeeds.
	a, m = newAgent(t, []scripted.Turn{scripted.Failing(fail), scripted.Failing(fail), scripted.Reply(scripted.Text("ok"))}, nil,
		func(c *agent.Config) { c.ModelRetries = 2 })
	if r := mustReply(t, a, user("hi")); r.res.Outcome != agent.OutcomeCompleted || m.Remaining() != 0 {
		t.Fatalf("retries: %+v", r.res)
	}

	// The fallback answers when the primary is exhausted; MODEL_CALL_START
	// names the primary model.
	fb := scripted.New("fallback", []scripted.Turn{scripted.Reply(scripted.Text("from fallback"))})
	a, _ = newAgent(t, []scripted.Turn{scripted.Failing(fail)}, nil, func(c *agent.Config) { c.FallbackModel = fb })
	r = mustReply(t, a, user("hi"))
	if contextShape(r.res.Msg) != "text from fallback" || r.events[1].(*event.ModelCallStart).ModelName != "mock-model" {
		t.Fatalf("fallback: %s", r.kinds())
	}

	// A stream that breaks after its first chunk is an error, not retried.
	a, m = newAgent(t, []scripted.Turn{scripted.Stream(scripted.Text("par"), scripted.Fail(fail)), scripted.Reply(scripted.Text("never"))}, nil,
		func(c *agent.Config) { c.ModelRetries = 3 })
	r = reply(t, context.Background(), a, user("hi"))
	var se *agent.StreamError
	if !errors.As(r.err, &se) || m.Remaining() != 1 {
		t.Fatalf("broken stream: %v", r.err)
	}
}

// DRV-14: assistant audio is streamed but not stored; other data blocks
// are stored whole.
func TestDataBlocks(t *testing.T) {
	a, _ := newAgent(t, []scripted.Turn{scripted.Stream(
		scripted.Data("img", "image/png", "aGVs"), scripted.Data("img", "image/png", "bG8="),
		scripted.Data("aud", "audio/wav", "AQID"),
	)}, nil)
	r := mustReply(t, a, user("show"))
	expectKinds(t, r, `REPLY_START MODEL_CALL_START DATA_BLOCK_START DATA_BLOCK_DELTA DATA_BLOCK_DELTA DATA_BLOCK_START DATA_BLOCK_DELTA
		DATA_BLOCK_END DATA_BLOCK_END MODEL_CALL_END REPLY_END(completed)`)
	tail := stateOf(t, a).Tail()
	if len(tail.Content) != 1 {
		t.Fatalf("stored %d blocks", len(tail.Content))
	}
	d := tail.Content[0].(*block.Data)
	if raw, _ := d.Source.(*block.Base64).Bytes(); string(raw) != "hello" {
		t.Fatalf("stored %q", raw)
	}
}

func allowAll(context.Context, map[string]any, *permission.Context) permission.Decision {
	return permission.Decision{Behavior: block.Allow}
}
