package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/offload"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
	"github.com/agentscope-go/agentscope/tool/builtin"
)

const summaryFunc = "generate_structured_output"

const summaryInput = `{"task_overview": "Count the files.", "current_state": "Listed /tmp.", "important_discoveries": "None.", "next_steps": "Answer.", "context_to_preserve": "Be brief."}`

const wantSummary = "<system-info>Here is a summary of your previous work\n# Task Overview\nCount the files.\n\n# Current State\nListed /tmp.\n\n# Important Discoveries\nNone.\n\n# Next Steps\nAnswer.\n\n# Context to Preserve\nBe brief.</system-info>"

func withContext(cc agent.ContextConfig) cfgFn {
	return func(c *agent.Config) { c.Context = cc }
}

// longState is a context of about 900 estimated tokens: a user question,
// then a reply holding two tool calls with their results and an answer.
// The second call's input is large and its result small, so a cut by
// size alone would keep the result without its call.
func longState(t testing.TB) *state.AgentState {
	t.Helper()
	st := state.New(nil)
	q := user("Question: " + strings.Repeat("q", 1500))
	c1 := &block.ToolCall{ID: "c1", Name: "lister", Input: `{"input": "a"}`, State: block.CallFinished}
	r1 := &block.ToolResult{ID: "c1", Name: "lister", Output: block.PlainBody(strings.Repeat("r", 1500)), State: block.ResultSuccess}
	c2 := &block.ToolCall{ID: "c2", Name: "lister", Input: `{"input": "` + strings.Repeat("i", 400) + `"}`, State: block.CallFinished}
	r2 := &block.ToolResult{ID: "c2", Name: "lister", Output: block.PlainBody(strings.Repeat("s", 100)), State: block.ResultSuccess}
	ans := block.NewText("done")
	rep, err := message.AssistantMsg("Friday", []block.Block{c1, r1, c2, r2, ans})
	if err != nil {
		t.Fatal(err)
	}
	st.Context = []*message.Msg{q, rep}
	return st
}

// calls decodes the recorded model calls.
func calls(t testing.TB, m *scripted.Model) [][]*message.Msg {
	t.Helper()
	var out [][]*message.Msg
	for _, c := range m.Calls() {
		var msgs []*message.Msg
		if err := json.Unmarshal(c.Messages, &msgs); err != nil {
			t.Fatal(err)
		}
		out = append(out, msgs)
	}
	return out
}

func isSummaryCall(c scripted.Call) bool {
	return strings.Contains(string(c.Tools), `"name":"`+summaryFunc+`"`)
}

// checkPaired fails if a message holds a tool result without its call
// before it in the same message.
func checkPaired(t testing.TB, where string, msgs []*message.Msg) {
	t.Helper()
	for _, m := range msgs {
		seen := map[string]bool{}
		for _, b := range m.Content {
			switch b := b.(type) {
			case *block.ToolCall:
				seen[b.ID] = true
			case *block.ToolResult:
				if !seen[b.ID] {
					t.Fatalf("%s: result %s without its call", where, b.ID)
				}
			}
		}
	}
}

func texts(m *message.Msg) string {
	var out []string
	for _, b := range m.Content {
		switch b := b.(type) {
		case *block.Text:
			out = append(out, b.Text)
		case *block.Hint:
			out = append(out, "hint:"+b.Hint.Text)
		case *block.ToolCall:
			out = append(out, "call:"+b.ID)
		case *block.ToolResult:
			out = append(out, "result:"+b.ID)
		case *block.Data:
			out = append(out, "data")
		}
	}
	return string(m.Role) + "[" + strings.Join(out, "|") + "]"
}

// A long conversation crosses the threshold: the context is compressed
// once, before the reply's first reasoning step; the cut keeps the second
// call with its result (both compressed); the summary is stored; the next
// model call sees the summary and the reserved tail; the reply goes on
// without compressing again.
func TestCompressionCrossesThresholdOnce(t *testing.T) {
	turns := []scripted.Turn{
		scripted.Stream(scripted.ToolCall("sum1", summaryFunc, summaryInput)),
		scripted.Stream(scripted.ToolCall("c3", "lister", `{"input": "b"}`)),
		scripted.Stream(scripted.Text("There are 3 files.")),
	}
	lister := makeTool(t, toolSpec{name: "lister"})
	a, m := newAgent(t, turns, []tool.Tool{lister}, withState(longState(t)),
		withContext(agent.ContextConfig{ContextSize: 1000}))
	r := mustReply(t, a, user("next"))
	if r.res.Outcome != agent.OutcomeCompleted {
		t.Fatalf("outcome %v: %s", r.res.Outcome, r.kinds())
	}
	// No event announces the compression, as in the reference.
	expectKinds(t, r, `REPLY_START MODEL_CALL_START TOOL_CALL_START(c3) TOOL_CALL_DELTA(c3) TOOL_CALL_END(c3) MODEL_CALL_END
		RESULT_START(c3) RESULT_DELTA(c3:lister: b) RESULT_END(c3:success)
		MODEL_CALL_START TEXT_BLOCK_START TEXT_DELTA(There are 3 files.) TEXT_BLOCK_END MODEL_CALL_END REPLY_END(completed)`)

	rec := m.Calls()
	if len(rec) != 3 || !isSummaryCall(rec[0]) || isSummaryCall(rec[1]) || isSummaryCall(rec[2]) {
		t.Fatalf("want one summary call first, then two reasoning calls; got %d calls", len(rec))
	}
	if got := string(rec[0].ToolChoice); !strings.Contains(got, `"mode":"`+summaryFunc+`"`) {
		t.Fatalf("summary call's tool choice %s", got)
	}
	msgs := calls(t, m)
	// The summary request: system, the compressed messages, the
	// compression prompt with the structured-output instruction.
	sum := msgs[0]
	var shape []string
	for _, x := range sum {
		shape = append(shape, texts(x))
	}
	if len(sum) != 4 || sum[0].Role != event.RoleSystem ||
		texts(sum[2]) != "assistant[call:c1|result:c1|call:c2|result:c2]" ||
		!strings.HasPrefix(texts(sum[3]), "user[<system-hint>You have been working on the task") ||
		!strings.Contains(texts(sum[3]), "|<system-reminder>Now you **MUST** call the tool named 'generate_structured_output'") {
		t.Fatalf("summary request:\n%s", strings.Join(shape, "\n"))
	}
	checkPaired(t, "summary request", sum)

	// The next model call: system, the summary, the reserved tail, the
	// new input.
	next := msgs[1]
	shape = shape[:0]
	for _, x := range next {
		shape = append(shape, texts(x))
	}
	want := []string{"system[You are a helpful assistant.]", "user[" + wantSummary + "]", "assistant[done]", "user[next]"}
	if strings.Join(shape, "\n") != strings.Join(want, "\n") {
		t.Fatalf("next model call:\n%s\nwant:\n%s", strings.Join(shape, "\n"), strings.Join(want, "\n"))
	}

	st := stateOf(t, a)
	if !st.Summary.Plain || st.Summary.Text != wantSummary {
		t.Fatalf("summary %+v", st.Summary)
	}
	if len(st.Context) != 3 || texts(st.Context[0]) != "assistant[done]" || texts(st.Context[1]) != "user[next]" {
		var got []string
		for _, x := range st.Context {
			got = append(got, texts(x))
		}
		t.Fatalf("context after compression:\n%s", strings.Join(got, "\n"))
	}
	checkPaired(t, "state", st.Context)
}

// A summary call that fails takes the fallback: without an earlier
// summary, the truncation notice; with one, the earlier summary is kept.
// Either way the old messages are dropped and the reply goes on.
func TestCompressionSummaryFailureFallback(t *testing.T) {
	for _, prev := range []string{"", "An earlier summary."} {
		// The summary request (about 1100 tokens) overflows the window:
		// after the failure the oldest message is dropped and the call
		// tried once more.
		turns := []scripted.Turn{
			scripted.Failing(&scripted.Error{Message: "summary model down"}),
			scripted.Failing(&scripted.Error{Message: "summary model still down"}),
			scripted.Stream(scripted.Text("ok")),
		}
		st := longState(t)
		st.Summary = block.PlainBody(prev)
		a, m := newAgent(t, turns, nil, withState(st), withContext(agent.ContextConfig{ContextSize: 1000}))
		r := mustReply(t, a, user("next"))
		if r.res.Outcome != agent.OutcomeCompleted {
			t.Fatalf("outcome %v", r.res.Outcome)
		}
		want := prev
		if prev == "" {
			want = "<system-info>Some earlier messages were truncated for limited context.</system-info>"
		}
		got := stateOf(t, a)
		if got.Summary.Text != want || texts(got.Context[0]) != "assistant[done]" {
			t.Fatalf("prev %q: summary %q, context[0] %s", prev, got.Summary.Text, texts(got.Context[0]))
		}
		msgs := calls(t, m)
		if len(msgs) != 3 || len(msgs[1]) >= len(msgs[0]) || texts(msgs[2][1]) != "user["+want+"]" {
			t.Fatalf("prev %q: %d calls; the model call after the fallback sees %s", prev, len(msgs), texts(msgs[len(msgs)-1][1]))
		}
	}
}

// A response without a valid summary moves on to the next strategy, as
// the reference's generate_structured_output does: forced, auto, none.
func TestCompressionStructuredStrategies(t *testing.T) {
	turns := []scripted.Turn{
		scripted.Stream(scripted.Text("I'd rather talk.")),
		scripted.Stream(scripted.ToolCall("bad", summaryFunc, `{"task_overview": "only this"}`)),
		scripted.Stream(scripted.ToolCall("good", summaryFunc, summaryInput)),
		scripted.Stream(scripted.Text("ok")),
	}
	a, m := newAgent(t, turns, nil, withState(longState(t)), withContext(agent.ContextConfig{ContextSize: 1000}))
	mustReply(t, a, user("next"))
	rec := m.Calls()
	var choices []string
	for _, c := range rec[:3] {
		choices = append(choices, string(c.ToolChoice))
	}
	if len(rec) != 4 || !strings.Contains(choices[0], summaryFunc) || !strings.Contains(choices[1], `"auto"`) || choices[2] != "null" {
		t.Fatalf("%d calls, tool choices %v", len(rec), choices)
	}
	if got := stateOf(t, a).Summary.Text; got != wantSummary {
		t.Fatalf("summary %q", got)
	}
}

// cancelOnSummary cancels the reply when the summary call starts and
// blocks until the cancellation arrives; other calls go to the script.
type cancelOnSummary struct {
	*scripted.Model
	cancel context.CancelFunc
}

func (c cancelOnSummary) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Chunk, error] {
	if len(req.Tools) == 1 && req.Tools[0].Name == summaryFunc {
		return func(yield func(model.Chunk, error) bool) {
			c.cancel()
			<-ctx.Done()
			yield(model.Chunk{}, ctx.Err())
		}
	}
	return c.Model.Stream(ctx, req)
}

// A cancellation during the summary call interrupts the reply and leaves
// the context and the summary as they were.
func TestCompressionCancelledKeepsState(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := longState(t)
	st.Summary = block.PlainBody("An earlier summary.")
	before := st.Clone()
	m := cancelOnSummary{scripted.New("mock-model", nil), cancel}
	a, err := agent.New(agent.Config{
		Name: "Friday", Model: m, SystemPrompt: "You are a helpful assistant.", State: st,
		RuntimeState: agent.RuntimeStateConfig{Disabled: true}, Logger: quietLog,
		Context: agent.ContextConfig{ContextSize: 1000},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := reply(t, ctx, a, user("next"))
	if r.err != nil || r.res.Outcome != agent.OutcomeInterrupted {
		t.Fatalf("err %v, outcome %v: %s", r.err, r.res.Outcome, r.kinds())
	}
	expectKinds(t, r, "REPLY_START REPLY_END(interrupted)")
	after := stateOf(t, a)
	if after.Summary.Text != before.Summary.Text {
		t.Fatalf("summary changed to %q", after.Summary.Text)
	}
	if len(after.Context) != len(before.Context)+1 {
		t.Fatalf("context has %d messages, want the %d it had plus the input", len(after.Context), len(before.Context))
	}
	for i, m := range before.Context {
		if got, want := string(after.Context[i].AppendJSON(nil)), string(m.AppendJSON(nil)); got != want {
			t.Fatalf("message %d changed:\n got %s\nwant %s", i, got, want)
		}
	}
	if texts(after.Context[2]) != "user[next]" {
		t.Fatalf("last message %s", texts(after.Context[2]))
	}
}

// A compression middleware wraps the compression (MW-15, MW-16, MW-17):
// it sees the agent's configuration, may replace the instructions (which
// the summary request then carries) and may skip the compression.
func TestCompressMiddleware(t *testing.T) {
	var seen []agent.CompressInput
	instr := block.NewHint("Keep only unresolved requirements.", `{"label": "middleware"}`)
	replace := agent.Middleware{Name: "replace", CompressContext: func(ctx context.Context, _ *agent.Agent, in agent.CompressInput, next agent.CompressHandler) error {
		seen = append(seen, in)
		in.Instructions = instr
		return next(ctx, in)
	}}
	turns := []scripted.Turn{scripted.Stream(scripted.ToolCall("s", summaryFunc, summaryInput)), scripted.Stream(scripted.Text("ok"))}
	a, m := newAgent(t, turns, nil, withState(longState(t)), withContext(agent.ContextConfig{ContextSize: 1000}), withMW(replace))
	mustReply(t, a, user("next"))
	if len(seen) != 1 || seen[0].Config.ContextSize != 1000 || seen[0].Config.TriggerRatio != 0.8 || seen[0].Instructions != nil {
		t.Fatalf("middleware saw %+v", seen)
	}
	sum := calls(t, m)[0]
	if got := texts(sum[len(sum)-2]); got != "assistant[hint:Keep only unresolved requirements.]" {
		t.Fatalf("instructions in the summary request: %s", got)
	}

	skip := agent.Middleware{Name: "skip", CompressContext: func(context.Context, *agent.Agent, agent.CompressInput, agent.CompressHandler) error {
		return nil
	}}
	a, m = newAgent(t, []scripted.Turn{scripted.Stream(scripted.Text("ok"))}, nil, withState(longState(t)),
		withContext(agent.ContextConfig{ContextSize: 1000}), withMW(skip))
	mustReply(t, a, user("next"))
	if st := stateOf(t, a); len(m.Calls()) != 1 || st.Summary.Text != "" || len(st.Context) != 4 {
		t.Fatalf("skipped compression still ran: %d calls, summary %q, %d messages", len(m.Calls()), st.Summary.Text, len(st.Context))
	}
}

// A system prompt alone past the threshold cannot be compressed: the
// reply fails with the reference's message.
func TestCompressionSystemPromptTooLong(t *testing.T) {
	a, _ := newAgent(t, nil, nil, func(c *agent.Config) {
		c.SystemPrompt = strings.Repeat("p", 4000)
		c.Context = agent.ContextConfig{ContextSize: 1000}
	})
	r := reply(t, context.Background(), a, []*message.Msg{})
	if !errors.Is(r.err, agent.ErrContextOverflow) {
		t.Fatalf("err %v", r.err)
	}
	if !strings.Contains(r.err.Error(), "The system prompt exceed(s) the compression threshold (800.0 tokens), cannot be compressed.") {
		t.Fatalf("message %q", r.err)
	}
}

// bigTool returns n numbered lines.
func bigTool(t testing.TB, n int) tool.Tool {
	return makeTool(t, toolSpec{name: "dump", body: func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) {
			var b strings.Builder
			for i := range n {
				fmt.Fprintf(&b, "line %04d\n", i)
			}
			yield(tool.Text(b.String()), nil)
		}
	}})
}

// A tool result past the limit is cut in the context, with the
// reference's reminder naming the file the offloader wrote; the events
// carry it whole; the model reads the rest back with the built-in Read.
func TestToolResultTruncationAndOffload(t *testing.T) {
	dir := t.TempDir()
	st := state.New(nil)
	st.Permission.AddWorkingDirectory(dir, "test")
	path := filepath.Join(dir, "sessions", st.SessionID, "tool_result-d1.txt")
	turns := []scripted.Turn{
		scripted.Stream(scripted.ToolCall("d1", "dump", `{}`)),
		scripted.Stream(scripted.ToolCall("r1", "Read", fmt.Sprintf(`{"file_path": %q}`, path))),
		scripted.Stream(scripted.Text("read it")),
	}
	read := builtin.NewRead(builtin.Config{Dir: dir})
	// 1000 lines of 10 bytes: 2500 estimated tokens, against a limit of
	// 2000; the Read of the 200 lines cut stays under it.
	a, _ := newAgent(t, turns, []tool.Tool{bigTool(t, 1000), read}, withState(st),
		withContext(agent.ContextConfig{ToolResultLimit: 2000, Offloader: offload.Dir{Root: dir}}))
	r := mustReply(t, a, user("dump it"))
	var streamed strings.Builder
	for _, e := range r.events {
		if d, ok := e.(*event.ToolResultTextDelta); ok && d.ToolCallID == "d1" {
			streamed.WriteString(d.Delta)
		}
	}
	if !strings.Contains(streamed.String(), "line 0999\n") {
		t.Fatal("the events lost the end of the result")
	}

	got := stateOf(t, a)
	res, ok := got.Tail().Find(block.KindToolResult, "d1").(*block.ToolResult)
	if !ok {
		t.Fatal("no stored result")
	}
	text, _ := message.BlocksOf[*block.Text](&message.Msg{Content: res.Output.Blocks})[0], 0
	// 2000 of the 2500 tokens are kept: 8000 of the 10000 characters.
	wantKept := streamed.String()[:8000]
	wantReminder := "\n<<<TRUNCATED>>>\n<system-reminder>The remaining content has been omitted for limited context. You can refer to the file in '" + path + "' for the truncated content if needed.</system-reminder>"
	if len(res.Output.Blocks) != 1 || text.Text != wantKept+wantReminder {
		t.Fatalf("stored result %q", text.Text)
	}
	saved, err := os.ReadFile(path)
	if err != nil || string(saved) != streamed.String()[8000:] {
		t.Fatalf("offloaded file %q, %v", saved, err)
	}
	readRes, ok := got.Tail().Find(block.KindToolResult, "r1").(*block.ToolResult)
	if !ok || readRes.State != block.ResultSuccess {
		t.Fatalf("Read result %+v", readRes)
	}
	var all strings.Builder
	if readRes.Output.Plain {
		all.WriteString(readRes.Output.Text)
	}
	for _, b := range readRes.Output.Blocks {
		if t, ok := b.(*block.Text); ok {
			all.WriteString(t.Text)
		}
	}
	if !strings.Contains(all.String(), "line 0999") || !strings.Contains(all.String(), "line 0800") || strings.Contains(all.String(), "TRUNCATED") {
		t.Fatalf("Read did not return the offloaded rest: %q", all.String())
	}

	// Without an offloader the reminder names no file.
	a, _ = newAgent(t, []scripted.Turn{scripted.Stream(scripted.ToolCall("d1", "dump", `{}`)), scripted.Stream(scripted.Text("ok"))},
		[]tool.Tool{bigTool(t, 100)}, withContext(agent.ContextConfig{ToolResultLimit: 100}))
	mustReply(t, a, user("dump it"))
	res = stateOf(t, a).Tail().Find(block.KindToolResult, "d1").(*block.ToolResult)
	var first40 strings.Builder
	for i := range 40 {
		fmt.Fprintf(&first40, "line %04d\n", i)
	}
	if got := res.Output.Blocks[0].(*block.Text).Text; got != first40.String()+"\n<<<TRUNCATED>>>\n<system-reminder>The remaining content has been omitted for limited context.</system-reminder>" {
		t.Fatalf("stored result without offloader %q", got)
	}
}

// A result under the limit is stored as it is.
func TestToolResultUnderLimitUntouched(t *testing.T) {
	a, _ := newAgent(t, []scripted.Turn{scripted.Stream(scripted.ToolCall("d1", "dump", `{}`)), scripted.Stream(scripted.Text("ok"))},
		[]tool.Tool{bigTool(t, 10)}, withContext(agent.ContextConfig{ToolResultLimit: 100}))
	mustReply(t, a, user("dump it"))
	res := stateOf(t, a).Tail().Find(block.KindToolResult, "d1").(*block.ToolResult)
	if strings.Contains(fmt.Sprint(res.Output), "TRUNCATED") {
		t.Fatalf("cut a result under the limit: %+v", res.Output)
	}
}

const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

// The oldest images beyond the limit are replaced before the model call:
// in a user message by a text block, at the top of an assistant message
// by a hint; a URL image names its URL, an offloaded one its file.
func TestImageEviction(t *testing.T) {
	dir := t.TempDir()
	st := state.New(nil)
	u, _ := block.NewURL("image/png", "https://example.com/a.png")
	urlImg := &block.Data{Source: u, Name: block.Some("a.png")}
	q, err := message.UserMsg("user", []block.Block{block.NewText("look"), urlImg})
	if err != nil {
		t.Fatal(err)
	}
	b64 := &block.Data{Source: block.NewBase64("image/png", png)}
	nested := &block.ToolResult{ID: "c1", Name: "shot", Output: block.BlocksBody(&block.Data{Source: block.NewBase64("image/png", png)}), State: block.ResultSuccess}
	call := &block.ToolCall{ID: "c1", Name: "shot", Input: "{}", State: block.CallFinished}
	rep, err := message.AssistantMsg("Friday", []block.Block{b64, call, nested, block.NewText("seen")})
	if err != nil {
		t.Fatal(err)
	}
	st.Context = []*message.Msg{q, rep}
	a, m := newAgent(t, []scripted.Turn{scripted.Stream(scripted.Text("ok"))}, nil, withState(st),
		withContext(agent.ContextConfig{MaxImages: 1, Offloader: offload.Dir{Root: dir}}))
	mustReply(t, a, user("and now?"))
	got := stateOf(t, a)
	if s := texts(got.Context[0]); s != "user[look|<system-reminder>The image named 'a.png' is offloaded into https://example.com/a.png, you can refer to it when needed.</system-reminder>]" {
		t.Fatalf("user message %s", s)
	}
	h, ok := got.Context[1].Content[0].(*block.Hint)
	if !ok || !strings.HasPrefix(h.Hint.Text, "<system-reminder>The image is offloaded into file://") {
		t.Fatalf("assistant image replaced by %s", texts(got.Context[1]))
	}
	file := strings.TrimPrefix(strings.Split(h.Hint.Text, " ")[5], "file://")
	file = strings.TrimSuffix(file, ",")
	if data, err := os.ReadFile(file); err != nil || len(data) == 0 {
		t.Fatalf("offloaded image %s: %v", file, err)
	}
	// The newest image, inside the tool result, stays.
	if _, ok := got.Context[1].Content[2].(*block.ToolResult).Output.Blocks[0].(*block.Data); !ok {
		t.Fatal("the newest image was evicted")
	}
	if s := texts(calls(t, m)[0][1]); !strings.Contains(s, "is offloaded into https://example.com/a.png") {
		t.Fatalf("the model saw %s", s)
	}

	// MaxImages < 0 keeps none; without an offloader a base64 image is
	// removed.
	st2 := state.New(nil)
	rep2, _ := message.AssistantMsg("Friday", []block.Block{&block.Data{Source: block.NewBase64("image/png", png)}, block.NewText("x")})
	st2.Context = []*message.Msg{rep2}
	a, _ = newAgent(t, []scripted.Turn{scripted.Stream(scripted.Text("ok"))}, nil, withState(st2), withContext(agent.ContextConfig{MaxImages: -1}))
	mustReply(t, a, user("hi"))
	if s := texts(stateOf(t, a).Context[0]); s != "assistant[hint:<system-reminder>The image is removed to free up context space.</system-reminder>|x]" {
		t.Fatalf("removed image %s", s)
	}
}

// fixedCounter counts every input as n tokens.
type fixedCounter int

func (f fixedCounter) CountTokens(context.Context, []*message.Msg, []model.ToolSchema) (int, error) {
	return int(f), nil
}

// INJ-9, INJ-10: at a reply's first step the runtime state reports the
// context length once it passes (trigger − buffer) × size, strictly.
func TestContextLengthInjection(t *testing.T) {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		tokens int
		want   bool
	}{{700, true}, {600, false}} {
		a, _ := newAgent(t, []scripted.Turn{scripted.Stream(scripted.Text("ok"))}, nil,
			runtimeState(agent.RuntimeStateConfig{}, func() time.Time { return now }),
			withContext(agent.ContextConfig{ContextSize: 1000, TokenCounter: fixedCounter(tc.tokens)}))
		h := hints(mustReply(t, a, user("Hi")))
		field := "\n<context-length>Your current context contains 700 tokens. When reaching 800 tokens, your context will be compressed.</context-length>"
		if len(h) != 1 || strings.Contains(h[0], field) != tc.want {
			t.Fatalf("%d tokens: hints %q", tc.tokens, h)
		}
	}
}

// The estimate is the reference's: UTF-8 bytes / 4, rounded half up, over
// the texts, thinking, hints, tool inputs and results, plus the tools as
// json.dumps writes them, and 2000 per data block.
func TestEstimator(t *testing.T) {
	var e agent.Estimator
	ctx := context.Background()
	count := func(msgs []*message.Msg, tools []model.ToolSchema) int {
		n, err := e.CountTokens(ctx, msgs, tools)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count([]*message.Msg{user("abcdef")}, nil); n != 2 { // 6/4 = 1.5 → 2
		t.Fatalf("6 bytes: %d", n)
	}
	if n := count([]*message.Msg{user("héllo")}, nil); n != 2 { // 6 UTF-8 bytes
		t.Fatalf("héllo: %d", n)
	}
	img := &block.Data{Source: block.NewBase64("image/png", png)}
	call := &block.ToolCall{ID: "c", Name: "a-long-name-not-counted", Input: `{"x": 1}`}
	res := &block.ToolResult{ID: "c", Name: "n", Output: block.BlocksBody(block.NewText("abcd"), &block.Data{Source: block.NewBase64("image/png", png)})}
	rep, _ := message.AssistantMsg("Friday", []block.Block{img, call, res, &block.Thinking{Thinking: "hmm."}, block.NewHint("hint", "")})
	// 8 + 4 + 4 + 4 = 20 bytes → 5, plus two data blocks.
	if n := count([]*message.Msg{rep}, nil); n != 4005 {
		t.Fatalf("mixed: %d", n)
	}
	// Python: len(json.dumps([{"type": "function", "function": {"name":
	// "t", "description": "d", "parameters": {"type": "object",
	// "properties": {}}}}], ensure_ascii=False).encode()) == 121.
	tools := []model.ToolSchema{{Name: "t", Description: "d", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}
	if n := count(nil, tools); n != 30 { // 121/4 = 30.25 → 30
		t.Fatalf("tools: %d", n)
	}
	tools[0].Description = "dé"
	if n := count(nil, tools); n != 31 { // 123 bytes → 30.75 → 31: the cache saw the change
		t.Fatalf("changed tools: %d", n)
	}
	tools[0].Description = "déscription"
	if n := count(nil, tools); n != 33 { // 132 bytes → 33
		t.Fatalf("changed tools: %d", n)
	}
}

// Invalid context configurations are rejected by New.
func TestContextConfigErrors(t *testing.T) {
	for name, cc := range map[string]agent.ContextConfig{
		"reserve above trigger": {TriggerRatio: 0.3, ReserveRatio: 0.4},
		"trigger above 0.9":     {TriggerRatio: 0.95},
		"negative limit":        {ToolResultLimit: -1},
		"schema not an object":  {SummarySchema: json.RawMessage(`[1]`)},
	} {
		_, err := agent.New(agent.Config{Name: "x", Model: scripted.New("m", nil), Context: cc})
		if !errors.Is(err, agent.ErrConfig) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The buffer must leave the context length reported before the
	// compression.
	_, err := agent.New(agent.Config{Name: "x", Model: scripted.New("m", nil), Context: agent.ContextConfig{TriggerRatio: 0.2, ReserveRatio: 0.1}})
	if !errors.Is(err, agent.ErrConfig) {
		t.Errorf("buffer 0.2 with trigger 0.2: %v", err)
	}
}

// With an offloader the compressed messages are saved and the summary
// says where; a fallback that keeps the summary does not repeat it.
func TestCompressionOffloadsContext(t *testing.T) {
	dir := t.TempDir()
	st := longState(t)
	path := filepath.Join(dir, "sessions", st.SessionID, "context.jsonl")
	reminder := "\n<system-reminder>The compressed context is offloaded to '" + path + "', you can refer to it when needed.</system-reminder>"
	turns := []scripted.Turn{scripted.Stream(scripted.ToolCall("s", summaryFunc, summaryInput)), scripted.Stream(scripted.Text("ok"))}
	cc := agent.ContextConfig{ContextSize: 1000, Offloader: offload.Dir{Root: dir}}
	a, _ := newAgent(t, turns, nil, withState(st), withContext(cc))
	mustReply(t, a, user("next"))
	got := stateOf(t, a)
	if got.Summary.Text != wantSummary+reminder {
		t.Fatalf("summary %q", got.Summary.Text)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "Question: qqq") || !strings.Contains(lines[1], `"id":"c2"`) {
		t.Fatalf("offloaded %d lines:\n%s", len(lines), data)
	}

	// Grow the context past the threshold again; the summary call fails.
	got.Context = append(longState(t).Context, got.Context...)
	a, _ = newAgent(t, []scripted.Turn{
		scripted.Failing(&scripted.Error{Message: "down"}), scripted.Failing(&scripted.Error{Message: "down"}),
		scripted.Stream(scripted.Text("ok")),
	}, nil, withState(got), withContext(cc))
	mustReply(t, a, user("again"))
	if s := stateOf(t, a).Summary.Text; s != wantSummary+reminder {
		t.Fatalf("summary after the fallback %q", s)
	}
}

// MW-15, MW-18: Agent.CompressContext runs the hooks as an onion, each
// seeing the caller's instructions; the summary request carries them.
func TestCompressContextEntryPoint(t *testing.T) {
	lb := &logbook{}
	var seen []*block.Hint
	mw := func(name string) agent.Middleware {
		return agent.Middleware{Name: name, CompressContext: func(ctx context.Context, _ *agent.Agent, in agent.CompressInput, next agent.CompressHandler) error {
			lb.add(name + "_pre")
			seen = append(seen, in.Instructions)
			if agent.ReplyState(ctx) == nil {
				t.Error("no state for the hook")
			}
			err := next(ctx, in)
			lb.add(name + "_post")
			return err
		}}
	}
	turns := []scripted.Turn{scripted.Stream(scripted.ToolCall("s", summaryFunc, summaryInput))}
	a, m := newAgent(t, turns, nil, withState(longState(t)), withMW(mw("mw1"), mw("mw2")))
	instr := block.NewHint("Keep user requirements while compressing.", "user")
	if err := a.CompressContext(context.Background(), &agent.ContextConfig{ContextSize: 1000}, instr); err != nil {
		t.Fatal(err)
	}
	if got := lb.String(); got != "mw1_pre, mw2_pre, mw2_post, mw1_post" || len(seen) != 2 || seen[0] != instr || seen[1] != instr {
		t.Fatalf("log %s, instructions %v", got, seen)
	}
	sum := calls(t, m)[0]
	if got := texts(sum[len(sum)-2]); got != "assistant[hint:Keep user requirements while compressing.]" {
		t.Fatalf("instructions in the request: %s", got)
	}
	if st := stateOf(t, a); st.Summary.Text != wantSummary {
		t.Fatalf("summary %q", st.Summary.Text)
	}
	// Under the threshold (the agent's own window, 32768) nothing happens.
	if err := a.CompressContext(context.Background(), nil, nil); err != nil || len(m.Calls()) != 1 {
		t.Fatalf("%v, %d calls", err, len(m.Calls()))
	}
}

type failingCounter struct{}

var errCounter = errors.New("tokenizer unavailable")

func (failingCounter) CountTokens(context.Context, []*message.Msg, []model.ToolSchema) (int, error) {
	return 0, errCounter
}

// A token counter that fails ends the reply with its error (the
// reference's count_tokens raises): nothing is compressed or guessed.
func TestTokenCounterError(t *testing.T) {
	a, m := newAgent(t, []scripted.Turn{scripted.Stream(scripted.Text("ok"))}, nil, withState(longState(t)),
		withContext(agent.ContextConfig{TokenCounter: failingCounter{}}))
	r := reply(t, context.Background(), a, user("next"))
	if !errors.Is(r.err, errCounter) || len(m.Calls()) != 0 {
		t.Fatalf("err %v, %d model calls", r.err, len(m.Calls()))
	}
	if st := stateOf(t, a); len(st.Context) != 3 || st.Summary.Text != "" {
		t.Fatalf("state changed: %d messages, summary %q", len(st.Context), st.Summary.Text)
	}
}

// The answer a reply's last step adds to its message, after the step's
// count, is counted at the next reply: there the message is no longer
// the tail, and a count remembered from while it was must not stand for
// it. The answer alone is over the threshold, so the next reply's first
// step compresses.
func TestCompressionCountsLastAnswerOfPreviousReply(t *testing.T) {
	turns := []scripted.Turn{
		scripted.Stream(scripted.ToolCall("c1", "lister", `{"input": "a"}`)),
		scripted.Stream(scripted.Text(strings.Repeat("long answer ", 500))),
		scripted.Stream(scripted.ToolCall("sum1", summaryFunc, summaryInput)),
		scripted.Stream(scripted.Text("ok")),
	}
	lister := makeTool(t, toolSpec{name: "lister"})
	a, m := newAgent(t, turns, []tool.Tool{lister}, withContext(agent.ContextConfig{ContextSize: 1000}))
	if r := mustReply(t, a, user("first")); r.res.Outcome != agent.OutcomeCompleted {
		t.Fatalf("first reply: outcome %v: %s", r.res.Outcome, r.kinds())
	}
	if n := len(m.Calls()); n != 2 {
		t.Fatalf("first reply: %d model calls, want 2 (no compression)", n)
	}
	if r := mustReply(t, a, user("next")); r.res.Outcome != agent.OutcomeCompleted {
		t.Fatalf("second reply: outcome %v: %s", r.res.Outcome, r.kinds())
	}
	rec := m.Calls()
	if len(rec) != 4 || !isSummaryCall(rec[2]) || isSummaryCall(rec[3]) {
		t.Fatalf("second reply: want a summary call, then the reasoning call; got %d calls in all (third a summary call: %v)",
			len(rec), len(rec) > 2 && isSummaryCall(rec[2]))
	}
}
