package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/agent/coop"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/ojson"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/tool"
)

// Defaults of the reference harness.
const (
	defaultAgentName    = "Friday"
	defaultSystemPrompt = "You are a helpful assistant."
	defaultModelName    = "mock-model"
	defaultInputSchema  = `{"type":"object","properties":{"input":{"type":"string"}},"required":[]}`
)

// SpecError reports a scenario the harness cannot build.
type SpecError struct {
	Where string
	Err   error
}

func (e *SpecError) Error() string { return "conformance spec: " + e.Where + ": " + e.Err.Error() }
func (e *SpecError) Unwrap() error { return e.Err }

func specErr(where string, format string, args ...any) error {
	return &SpecError{Where: where, Err: fmt.Errorf(format, args...)}
}

// harness is one scenario's agent and model.
type harness struct {
	agent *agent.Agent
	model *scripted.Model
	name  string
}

// build assembles the agent a scenario describes.
func build(spec *ojson.Object, src stamp.Source) (*harness, error) {
	ac := getObj(spec, "agent")
	name := getStr(ac, "name", defaultAgentName)
	turnsJSON := []byte("[]")
	if v, ok := spec.Get("model_turns"); ok {
		turnsJSON = toJSON(v)
	}
	turns, err := scripted.Parse(turnsJSON)
	if err != nil {
		return nil, &SpecError{Where: "model_turns", Err: err}
	}
	m := scripted.New(getStr(ac, "model_name", defaultModelName), turns, scripted.WithRecording())

	var tools []tool.Tool
	for i, tv := range getArr(spec, "tools") {
		to, ok := tv.(*ojson.Object)
		if !ok {
			return nil, specErr(fmt.Sprintf("tools[%d]", i), "expected an object")
		}
		t, err := scriptedTool(to)
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	tk, err := tool.NewToolkit(tools)
	if err != nil {
		return nil, &SpecError{Where: "tools", Err: err}
	}

	react := agent.DefaultReActConfig()
	if n, ok := getNum(ac, "max_iters"); ok {
		react.MaxIters = int(n)
	}
	if n, ok := getNum(ac, "structured_output_grace_iters"); ok {
		react.StructuredOutputGraceIters = int(n)
	}
	react.StopOnReject = getBool(ac, "stop_on_reject", false)
	react.InterruptionMessage = getStr(ac, "interruption_message", react.InterruptionMessage)
	react.InterruptionReturnsError = getBool(ac, "interruption_raise_cancelled_error", false)

	inj := agent.DefaultInjectionConfig()
	inj.InjectRuntimeState = getBool(ac, "inject_runtime_state", false)
	if io := getObj(ac, "injection"); io != nil {
		inj.Timezone = getStr(io, "timezone", inj.Timezone)
		inj.TimeFormat = getStr(io, "time_format", inj.TimeFormat)
		if n, ok := getNum(io, "time_interval"); ok {
			inj.TimeInterval = n
		}
		if n, ok := getNum(io, "context_buffer_ratio"); ok {
			inj.ContextBufferRatio = n
		}
		inj.Template = getStr(io, "template", inj.Template)
		inj.Source = getStr(io, "injection_source", inj.Source)
		inj.EmitHintEvent = getBool(io, "emit_hint_event", inj.EmitHintEvent)
		if names := getArr(io, "task_tool_names"); names != nil {
			inj.TaskToolNames = nil
			for _, n := range names {
				if s, ok := n.(string); ok {
					inj.TaskToolNames = append(inj.TaskToolNames, s)
				}
			}
		}
		if ef := getObj(io, "extra_fields"); ef != nil {
			for _, k := range ef.Keys {
				inj.ExtraFields = append(inj.ExtraFields, agent.Field{Key: k, Value: pyStr(ef.Vals[k])})
			}
		}
	}
	cc := agent.DefaultContextConfig()
	if co := getObj(ac, "context"); co != nil {
		if n, ok := getNum(co, "trigger_ratio"); ok {
			cc.TriggerRatio = n
		}
		if n, ok := getNum(co, "reserve_ratio"); ok {
			cc.ReserveRatio = n
		}
		if n, ok := getNum(co, "tool_result_limit"); ok {
			cc.ToolResultLimit = int(n)
		}
		if n, ok := getNum(co, "max_image_num"); ok {
			cc.MaxImageNum = int(n)
		}
	}

	var mws []any
	for i, mv := range getArr(spec, "middlewares") {
		mo, ok := mv.(*ojson.Object)
		if !ok {
			return nil, specErr(fmt.Sprintf("middlewares[%d]", i), "expected an object")
		}
		switch kind := getStr(mo, "kind", ""); kind {
		case "swallow_reply_end":
			n, _ := getNum(mo, "count")
			mws = append(mws, &swallowReplyEnd{count: int(n)})
		default:
			return nil, specErr(fmt.Sprintf("middlewares[%d]", i), "unknown middleware kind %q", kind)
		}
	}

	a, err := agent.New(name, m,
		agent.WithSystemPrompt(getStr(ac, "system_prompt", defaultSystemPrompt)),
		agent.WithToolkit(tk),
		agent.WithReAct(react),
		agent.WithInjection(inj),
		agent.WithContextConfig(cc),
		agent.WithMiddleware(mws...),
		agent.WithStamp(src),
		// The harness tools all wait through coop, so preemption only
		// matters for pathological hosts; keep it out of the way.
		agent.WithPreemption(5*time.Second),
		agent.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
	)
	if err != nil {
		return nil, &SpecError{Where: "agent", Err: err}
	}
	if mode := getStr(ac, "permission_mode", ""); mode != "" {
		pm, err := permission.ParseMode(mode)
		if err != nil {
			return nil, &SpecError{Where: "agent.permission_mode", Err: err}
		}
		if err := a.Permissions().SetMode(pm); err != nil {
			return nil, &SpecError{Where: "agent.permission_mode", Err: err}
		}
	}
	for i, rv := range getArr(spec, "permission_rules") {
		var rule block.PermissionRule
		if err := rule.UnmarshalJSON(toJSON(rv)); err != nil {
			return nil, &SpecError{Where: fmt.Sprintf("permission_rules[%d]", i), Err: err}
		}
		a.Permissions().AddRule(rule)
	}
	return &harness{agent: a, model: m, name: name}, nil
}

// pyStr is Python's str() of a JSON value, for injected extra fields.
func pyStr(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case bool:
		if t {
			return "True"
		}
		return "False"
	case nil:
		return "None"
	case json.Number:
		return pyDumps(t, false)
	}
	return pyDumps(v, false)
}

// scriptedTool builds one tool of the harness (§ "Scripted tools").
func scriptedTool(to *ojson.Object) (tool.Tool, error) {
	name := getStr(to, "name", "")
	if name == "" {
		return nil, specErr("tools", "a tool needs a name")
	}
	desc := getStr(to, "description", "Scripted tool '"+name+"'.")
	schema := json.RawMessage(defaultInputSchema)
	if s, ok := to.Get("input_schema"); ok && s != nil {
		schema = toJSON(s)
	}
	beh := getObj(to, "behavior")
	kind := getStr(beh, "kind", "echo")
	perm := block.Behavior(getStr(to, "permission", "allow"))
	msg := getStr(to, "permission_message", name+": scripted "+string(perm))
	immune := getBool(to, "bypass_immune", false)

	opts := []tool.Option{
		tool.ConcurrencySafe(getBool(to, "concurrency_safe", false)),
		tool.WithPermissionCheck(func(context.Context, map[string]any, *permission.Context) permission.Decision {
			return permission.Decision{Behavior: perm, Message: msg, Reason: "scripted", BypassImmune: immune}
		}),
	}
	if getBool(to, "read_only", false) {
		opts = append(opts, tool.ReadOnly())
	}
	external := getBool(to, "external", false)
	if external {
		opts = append(opts, tool.External())
	}
	var body tool.CallFunc
	if !external {
		var err error
		if body, err = behavior(name, kind, beh); err != nil {
			return nil, err
		}
	}
	t, err := tool.New(name, desc, schema, body, opts...)
	if err != nil {
		return nil, &SpecError{Where: "tools." + name, Err: err}
	}
	return t, nil
}

func seconds(o *ojson.Object, key string, def float64) time.Duration {
	n, ok := getNum(o, key)
	if !ok {
		n = def
	}
	return time.Duration(n * float64(time.Second))
}

// behavior returns the body of a scripted tool.
func behavior(name, kind string, beh *ojson.Object) (tool.CallFunc, error) {
	switch kind {
	case "echo":
		prefix := getStr(beh, "prefix", "")
		return func(_ context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) {
				yield(tool.Text(prefix+pyDumps(input, true)), nil)
			}
		}, nil
	case "text":
		text := getStr(beh, "text", "")
		st := block.ToolResultState(getStr(beh, "state", ""))
		if st == block.ResultRunning {
			st = ""
		}
		return func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) {
				c := tool.Text(text)
				c.State = st
				yield(c, nil)
			}
		}, nil
	case "error":
		msg := getStr(beh, "message", "scripted tool failure")
		return func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) { yield(tool.Chunk{}, &toolFailure{msg}) }
		}, nil
	case "sleep":
		d := seconds(beh, "seconds", 0)
		text := getStr(beh, "text", "slept")
		return func(ctx context.Context, _ map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) {
				if err := coop.Sleep(ctx, d); err != nil {
					yield(tool.Chunk{}, err)
					return
				}
				yield(tool.Text(text), nil)
			}
		}, nil
	case "stream":
		between := getBool(beh, "yield_between", false)
		type step struct {
			chunk tool.Chunk
			pause time.Duration
			isP   bool
		}
		var steps []step
		for i, cv := range getArr(beh, "chunks") {
			switch c := cv.(type) {
			case string:
				steps = append(steps, step{chunk: tool.Chunk{Content: []block.Block{&block.Text{ID: name + "-text", Text: c}}}})
			case *ojson.Object:
				if _, ok := c.Get("pause"); ok {
					steps = append(steps, step{pause: seconds(c, "pause", 0), isP: true})
					continue
				}
				data, url := getStr(c, "data", ""), getStr(c, "url", "")
				mt := getStr(c, "media_type", "")
				d := &block.Data{ID: getStr(c, "id", name+"-data")}
				if n, ok := c.Vals["name"].(string); ok {
					d.Name = block.Some(n)
				}
				if url != "" {
					d.Source = &block.URL{URL: url, MediaType: mt}
				} else {
					d.Source = block.NewBase64(mt, data)
				}
				steps = append(steps, step{chunk: tool.Chunk{Content: []block.Block{d}}})
			default:
				return nil, specErr("tools."+name, "stream chunk %d: expected a string or an object", i)
			}
		}
		return func(ctx context.Context, _ map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) {
				emitted := false
				for _, s := range steps {
					if s.isP {
						if err := coop.Sleep(ctx, s.pause); err != nil {
							yield(tool.Chunk{}, err)
							return
						}
						continue
					}
					if emitted && between {
						if err := coop.Sleep(ctx, 0); err != nil {
							yield(tool.Chunk{}, err)
							return
						}
					}
					c := s.chunk
					c.Content = []block.Block{c.Content[0].CloneBlock()}
					if !yield(c, nil) {
						return
					}
					emitted = true
				}
			}
		}, nil
	}
	return nil, specErr("tools."+name, "unknown behavior %q", kind)
}

// toolFailure is the error a scripted "error" tool raises.
type toolFailure struct{ msg string }

func (e *toolFailure) Error() string { return e.msg }

// swallowReplyEnd drops the first count REPLY_END events of a reply.
type swallowReplyEnd struct {
	count, dropped int
}

func (s *swallowReplyEnd) OnReply(ctx context.Context, _ *agent.Agent, in agent.ReplyInput, next agent.ReplyHandler) iter.Seq2[agent.Item, error] {
	return func(yield func(agent.Item, error) bool) {
		for it, err := range next(ctx, in) {
			if err == nil {
				if _, ok := it.Event.(*event.ReplyEnd); ok && s.dropped < s.count {
					s.dropped++
					continue
				}
			}
			if !yield(it, err) {
				return
			}
		}
	}
}
