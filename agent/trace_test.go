package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

func tracing(tp trace.TracerProvider, content bool) cfgFn {
	return func(c *agent.Config) { c.TracerProvider, c.TraceContent = tp, content }
}

func newRecorder(t *testing.T) (*tracetest.SpanRecorder, *sdktrace.TracerProvider) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	return sr, tp
}

// attrs is a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

// expectAttrs checks the attributes of s given in want (strings, ints,
// bools or string slices).
func expectAttrs(t *testing.T, s sdktrace.ReadOnlySpan, want map[string]any) {
	t.Helper()
	got := attrs(s)
	for k, w := range want {
		v, ok := got[attribute.Key(k)]
		if !ok {
			t.Errorf("span %q: no attribute %s (has %v)", s.Name(), k, s.Attributes())
			continue
		}
		var g any
		switch w.(type) {
		case string:
			g = v.AsString()
		case int:
			g = int(v.AsInt64())
		case bool:
			g = v.AsBool()
		case []string:
			if !slices.Equal(v.AsStringSlice(), w.([]string)) {
				t.Errorf("span %q: %s = %v, want %v", s.Name(), k, v.AsStringSlice(), w)
			}
			continue
		}
		if g != w {
			t.Errorf("span %q: %s = %v, want %v", s.Name(), k, g, w)
		}
	}
}

func noAttr(t *testing.T, s sdktrace.ReadOnlySpan, keys ...string) {
	t.Helper()
	got := attrs(s)
	for _, k := range keys {
		if _, ok := got[attribute.Key(k)]; ok {
			t.Errorf("span %q has %s: %v", s.Name(), k, got[attribute.Key(k)].Emit())
		}
	}
}

// tree renders spans as "name(child, child)" per root, children in start
// order.
func tree(spans []sdktrace.ReadOnlySpan) string {
	slices.SortStableFunc(spans, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	var out []string
	for _, root := range spans {
		if root.Parent().IsValid() {
			continue
		}
		var kids []string
		for _, s := range spans {
			if s.Parent().SpanID() == root.SpanContext().SpanID() {
				kids = append(kids, s.Name())
			}
		}
		out = append(out, root.Name()+"("+strings.Join(kids, ", ")+")")
	}
	return strings.Join(out, " ")
}

func byName(t *testing.T, spans []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	for _, s := range spans {
		if s.Name() == name {
			return s
		}
	}
	t.Fatalf("no span %q among %s", name, tree(spans))
	return nil
}

// A reply with two tool calls, the second asking for confirmation: the
// reply's span ends parked; the resume is a second reply span with the
// same reply id, holding the approved call and the final model call.
func TestTraceParkedReply(t *testing.T) {
	sr, tp := newRecorder(t)
	echo := makeTool(t, toolSpec{name: "echo"})
	ask := makeTool(t, toolSpec{name: "ask", perm: block.Ask})
	turns := []scripted.Turn{
		scripted.Stream(scripted.Multi(
			scripted.ToolCall("c1", "echo", `{"input": "one"}`),
			scripted.ToolCall("c2", "ask", `{"input": "two"}`),
		).WithUsage(12, 7)),
		scripted.Stream(scripted.Text("done").WithUsage(30, 2)),
	}
	a, _ := newAgent(t, turns, []tool.Tool{echo, ask}, tracing(tp, false))
	r := mustReply(t, a, user("go"))
	if r.res.Outcome != agent.OutcomeAwaitingConfirmation {
		t.Fatalf("outcome %s", r.res.Outcome)
	}
	first := sr.Ended()
	if got, want := tree(first), "invoke_agent Friday(chat mock-model, execute_tool echo)"; got != want {
		t.Fatalf("parked reply spans %s, want %s", got, want)
	}
	replyID := r.res.ReplyID
	reply := byName(t, first, "invoke_agent Friday")
	if reply.SpanKind() != trace.SpanKindInternal {
		t.Errorf("reply span kind %s", reply.SpanKind())
	}
	expectAttrs(t, reply, map[string]any{
		"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "Friday", "gen_ai.request.model": "mock-model",
		"agentscope.reply.id": replyID, "agentscope.reply.outcome": "awaiting_confirmation",
		"agentscope.reply.parked": true, "agentscope.reply.pending_tool_calls": []string{"c2"},
	})
	noAttr(t, reply, "agentscope.reply.resumed", "error.type")
	chat := byName(t, first, "chat mock-model")
	if chat.SpanKind() != trace.SpanKindClient {
		t.Errorf("chat span kind %s", chat.SpanKind())
	}
	expectAttrs(t, chat, map[string]any{
		"gen_ai.operation.name": "chat", "gen_ai.request.model": "mock-model",
		"gen_ai.usage.input_tokens": 12, "gen_ai.usage.output_tokens": 7,
		"gen_ai.response.finish_reasons": []string{"tool_calls"},
	})
	noAttr(t, chat, "gen_ai.input.messages", "gen_ai.output.messages")
	echoSpan := byName(t, first, "execute_tool echo")
	expectAttrs(t, echoSpan, map[string]any{
		"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "echo", "gen_ai.tool.call.id": "c1",
		"agentscope.tool.result.state": "success",
	})
	noAttr(t, echoSpan, "gen_ai.tool.call.arguments", "gen_ai.tool.call.result")
	if echoSpan.Status().Code == codes.Error {
		t.Error("a successful tool call's span is an error")
	}

	r = mustReply(t, a, confirm(t, a, true, nil, "c2"))
	if r.res.Outcome != agent.OutcomeCompleted || r.res.ReplyID != replyID {
		t.Fatalf("resumed %s %s", r.res.Outcome, r.res.ReplyID)
	}
	second := sr.Ended()[len(first):]
	if got, want := tree(second), "invoke_agent Friday(execute_tool ask, chat mock-model)"; got != want {
		t.Fatalf("resumed reply spans %s, want %s", got, want)
	}
	resumed := byName(t, second, "invoke_agent Friday")
	if resumed.SpanContext().TraceID() == reply.SpanContext().TraceID() {
		t.Error("the resume shares the parked reply's trace: it is a new reply span")
	}
	expectAttrs(t, resumed, map[string]any{
		"agentscope.reply.id": replyID, "agentscope.reply.resumed": true, "agentscope.reply.outcome": "completed",
	})
	noAttr(t, resumed, "agentscope.reply.parked")
	expectAttrs(t, byName(t, second, "execute_tool ask"), map[string]any{"gen_ai.tool.call.id": "c2", "agentscope.tool.result.state": "success"})
	expectAttrs(t, byName(t, second, "chat mock-model"), map[string]any{
		"gen_ai.response.finish_reasons": []string{"stop"}, "gen_ai.usage.input_tokens": 30, "gen_ai.usage.output_tokens": 2,
	})
}

// With TraceContent the spans carry the messages, arguments and results.
func TestTraceContent(t *testing.T) {
	sr, tp := newRecorder(t)
	echo := makeTool(t, toolSpec{name: "echo"})
	turns := []scripted.Turn{toolTurn([3]string{"c1", "echo", `{"input": "secret"}`}), finalTurn}
	a, _ := newAgent(t, turns, []tool.Tool{echo}, tracing(tp, true))
	mustReply(t, a, user("tell me"))
	spans := sr.Ended()
	var chats []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Name() == "chat mock-model" {
			chats = append(chats, s)
		}
	}
	if len(chats) != 2 {
		t.Fatalf("%d chat spans: %s", len(chats), tree(spans))
	}
	var in []struct {
		Role  string
		Parts []map[string]any
	}
	raw := attrs(chats[0])["gen_ai.input.messages"].AsString()
	if err := json.Unmarshal([]byte(raw), &in); err != nil {
		t.Fatalf("input messages %q: %v", raw, err)
	}
	if len(in) != 2 || in[0].Role != "system" || in[1].Role != "user" || in[1].Parts[0]["content"] != "tell me" {
		t.Fatalf("input messages %s", raw)
	}
	out := attrs(chats[0])["gen_ai.output.messages"].AsString()
	if !strings.Contains(out, `"type":"tool_call","id":"c1","name":"echo"`) {
		t.Fatalf("output messages %s", out)
	}
	// The second call sees the tool's result.
	if raw := attrs(chats[1])["gen_ai.input.messages"].AsString(); !strings.Contains(raw, `"type":"tool_call_response","id":"c1"`) {
		t.Fatalf("second input messages %s", raw)
	}
	s := byName(t, spans, "execute_tool echo")
	expectAttrs(t, s, map[string]any{"gen_ai.tool.call.arguments": `{"input": "secret"}`})
	if res := attrs(s)["gen_ai.tool.call.result"].AsString(); !strings.Contains(res, "echo: secret") {
		t.Fatalf("tool result attribute %q", res)
	}
}

// A model call that fails every attempt: one chat span per attempt, each
// an error with the model error's class, and the reply span fails too.
func TestTraceModelError(t *testing.T) {
	sr, tp := newRecorder(t)
	fail := &model.Error{Type: event.ErrRateLimit, Message: "slow down"}
	turns := []scripted.Turn{scripted.Failing(fail), scripted.Failing(fail)}
	a, _ := newAgent(t, turns, nil, tracing(tp, false), func(c *agent.Config) { c.ModelRetries = 1 })
	r := reply(t, t.Context(), a, user("go"))
	var mce *agent.ModelCallError
	if !errors.As(r.err, &mce) {
		t.Fatalf("reply error %v", r.err)
	}
	spans := sr.Ended()
	if got, want := tree(spans), "invoke_agent Friday(chat mock-model, chat mock-model)"; got != want {
		t.Fatalf("spans %s, want %s", got, want)
	}
	for _, s := range spans {
		if s.Status().Code != codes.Error {
			t.Errorf("span %q status %v", s.Name(), s.Status())
		}
		expectAttrs(t, s, map[string]any{"error.type": string(event.ErrRateLimit)})
	}
}

// A denied call still has its span, an error of type tool_denied.
func TestTraceDeniedTool(t *testing.T) {
	sr, tp := newRecorder(t)
	deny := makeTool(t, toolSpec{name: "nope", perm: block.Deny})
	a, _ := newAgent(t, []scripted.Turn{toolTurn([3]string{"c1", "nope", `{"input": "x"}`}), finalTurn}, []tool.Tool{deny}, tracing(tp, false))
	mustReply(t, a, user("go"))
	s := byName(t, sr.Ended(), "execute_tool nope")
	expectAttrs(t, s, map[string]any{"error.type": "tool_denied", "agentscope.tool.result.state": "denied"})
	if s.Status().Code != codes.Error {
		t.Errorf("status %v", s.Status())
	}
}

// The calls of a concurrent batch run on their own goroutines; each has
// its span under the reply's.
func TestTraceConcurrentBatch(t *testing.T) {
	sr, tp := newRecorder(t)
	a1 := makeTool(t, toolSpec{name: "one", concurrent: true})
	a2 := makeTool(t, toolSpec{name: "two", concurrent: true})
	turns := []scripted.Turn{toolTurn([3]string{"c1", "one", `{"input": "1"}`}, [3]string{"c2", "two", `{"input": "2"}`}), finalTurn}
	a, _ := newAgent(t, turns, []tool.Tool{a1, a2}, tracing(tp, false))
	mustReply(t, a, user("go"))
	spans := sr.Ended()
	reply := byName(t, spans, "invoke_agent Friday")
	for _, name := range []string{"execute_tool one", "execute_tool two"} {
		s := byName(t, spans, name)
		if s.Parent().SpanID() != reply.SpanContext().SpanID() {
			t.Errorf("%s is not under the reply span", name)
		}
		expectAttrs(t, s, map[string]any{"agentscope.tool.result.state": "success"})
	}
	if n := len(spans); n != 5 {
		t.Fatalf("%d spans: %s", n, tree(spans))
	}
}

// BenchmarkW2Traced is W2 with every span recorded (by an SDK provider
// with no exporter): the cost of tracing when it is on.
func BenchmarkW2Traced(b *testing.B) {
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	m := scripted.New("mock-model", []scripted.Turn{toolTurn10(), textTurn(100)})
	tk, err := tool.NewToolkit([]tool.Tool{benchEcho(b)})
	if err != nil {
		b.Fatal(err)
	}
	st := state.New(stamp.Default)
	a, err := agent.New(agent.Config{
		Name: "Friday", Model: m, SystemPrompt: "You are a helpful assistant.", Toolkit: tk, State: st,
		RuntimeState: agent.RuntimeStateConfig{Disabled: true}, Logger: quietLog, TracerProvider: tp,
	})
	if err != nil {
		b.Fatal(err)
	}
	in := []*message.Msg{user("go")}
	b.ReportAllocs()
	for b.Loop() {
		m.Rewind()
		st.Context = st.Context[:0]
		for _, err := range a.Stream(context.Background(), in) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// A compression's summary call is a chat span of its own, marked
// agentscope.model.purpose=compression, before the reasoning steps'.
func TestTraceCompression(t *testing.T) {
	sr, tp := newRecorder(t)
	turns := []scripted.Turn{
		scripted.Stream(scripted.ToolCall("sum1", summaryFunc, summaryInput).WithUsage(900, 40)),
		scripted.Stream(scripted.Text("There are 3 files.")),
	}
	a, _ := newAgent(t, turns, []tool.Tool{makeTool(t, toolSpec{name: "lister"})}, withState(longState(t)),
		withContext(agent.ContextConfig{ContextSize: 1000}), tracing(tp, false))
	mustReply(t, a, user("next"))
	spans := sr.Ended()
	if got, want := tree(spans), "invoke_agent Friday(chat mock-model, chat mock-model)"; got != want {
		t.Fatalf("spans %s, want %s", got, want)
	}
	slices.SortStableFunc(spans, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	expectAttrs(t, spans[1], map[string]any{"agentscope.model.purpose": "compression", "gen_ai.usage.input_tokens": 900,
		"gen_ai.response.finish_reasons": []string{"tool_calls"}})
	noAttr(t, spans[2], "agentscope.model.purpose")
}
