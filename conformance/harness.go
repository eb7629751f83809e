package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/ojson"
	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/tool"
	"github.com/agentscope-go/agentscope/tool/builtin"
)

// Defaults of the reference harness.
const (
	defaultAgentName    = "Friday"
	defaultSystemPrompt = "You are a helpful assistant."
	defaultModelName    = "mock-model"
	defaultInputSchema  = `{"type":"object","properties":{"input":{"type":"string"}},"required":[]}`
	// defaultContextSize is the runner contract's: the reference
	// MockModel's 1000 would compress every scenario.
	defaultContextSize = 100000
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
		// A tool named by its library name (a string, or {"ref": name})
		// is a built-in tool.
		if t, ok, err := libraryTool(tv); ok || err != nil {
			if err != nil {
				return nil, specErr(fmt.Sprintf("tools[%d]", i), "%v", err)
			}
			tools = append(tools, t)
			continue
		}
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

	cfg := agent.Config{
		Name:                     name,
		Model:                    m,
		SystemPrompt:             getStr(ac, "system_prompt", defaultSystemPrompt),
		Toolkit:                  tk,
		InterruptionMessage:      getStr(ac, "interruption_message", ""),
		InterruptionReturnsError: getBool(ac, "interruption_raise_cancelled_error", false),
		Stamp:                    src,
		// The period after which a tool that has not produced its next
		// chunk counts as awaiting (see await).
		Preemption: preemption,
		Logger:     slog.New(slog.DiscardHandler),
	}
	// stop_on_reject has no effect in the reference either: it is
	// accepted and ignored.
	cfg.Context.ContextSize = defaultContextSize
	if n, ok := getNum(ac, "context_size"); ok {
		cfg.Context.ContextSize = int(n)
	}
	if co := getObj(ac, "context"); co != nil {
		cc := &cfg.Context
		cc.TriggerRatio, _ = getNum(co, "trigger_ratio")
		cc.ReserveRatio, _ = getNum(co, "reserve_ratio")
		cc.CompressionPrompt = getStr(co, "compression_prompt", "")
		cc.SummaryTemplate = getStr(co, "summary_template", "")
		if so := getObj(co, "summary_schema"); so != nil {
			cc.SummarySchema = toJSON(so)
		}
		if n, ok := getNum(co, "tool_result_limit"); ok {
			cc.ToolResultLimit = int(n)
		}
		if n, ok := getNum(co, "max_image_num"); ok {
			cc.MaxImages = int(n)
			if n == 0 {
				cc.MaxImages = -1 // the reference's 0: no image kept
			}
		}
	}
	if n, ok := getNum(ac, "max_iters"); ok {
		cfg.MaxIters = int(n)
	}
	if n, ok := getNum(ac, "structured_output_grace_iters"); ok {
		cfg.StructuredOutputGraceIters = int(n)
	}
	rs := &cfg.RuntimeState
	rs.Disabled = !getBool(ac, "inject_runtime_state", false)
	if io := getObj(ac, "injection"); io != nil {
		rs.Timezone = getStr(io, "timezone", "")
		rs.TimeFormat = getStr(io, "time_format", "")
		if n, ok := getNum(io, "time_interval"); ok {
			// Hours in the reference; 0 there means "always due".
			rs.TimeInterval = time.Duration(n * float64(time.Hour))
			if rs.TimeInterval == 0 {
				rs.TimeInterval = -1
			}
		}
		rs.Template = getStr(io, "template", "")
		rs.Source = getStr(io, "injection_source", "")
		rs.NoHintEvent = !getBool(io, "emit_hint_event", true)
		if n, ok := getNum(io, "context_buffer_ratio"); ok {
			rs.ContextBufferRatio = n
			if n == 0 {
				rs.ContextBufferRatio = -1 // the reference's 0
			}
		}
		if names := getArr(io, "task_tool_names"); names != nil {
			rs.TaskToolNames = []string{}
			for _, n := range names {
				if s, ok := n.(string); ok {
					rs.TaskToolNames = append(rs.TaskToolNames, s)
				}
			}
		}
		if ef := getObj(io, "extra_fields"); ef != nil {
			for _, k := range ef.Keys {
				rs.ExtraFields = append(rs.ExtraFields, agent.Field{Key: k, Value: pyStr(ef.Vals[k])})
			}
		}
	}

	for i, mv := range getArr(spec, "middlewares") {
		mo, ok := mv.(*ojson.Object)
		if !ok {
			return nil, specErr(fmt.Sprintf("middlewares[%d]", i), "expected an object")
		}
		switch kind := getStr(mo, "kind", ""); kind {
		case "swallow_reply_end":
			n, _ := getNum(mo, "count")
			s := &swallowReplyEnd{count: int(n)}
			cfg.Middleware = append(cfg.Middleware, agent.Middleware{Name: kind, Reply: s.onReply})
		default:
			return nil, specErr(fmt.Sprintf("middlewares[%d]", i), "unknown middleware kind %q", kind)
		}
	}

	a, err := agent.New(cfg)
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

// pyDumps is the reference's json.dumps(v, sort_keys=sortKeys), written by
// the engine's own json.dumps writer so that the two cannot differ.
func pyDumps(v any, sortKeys bool) string {
	return pyjson.Dumps(pyjson.FromAny(v), pyjson.DumpOptions{EnsureASCII: true, SortKeys: sortKeys})
}

// pyStr is Python's str() of a JSON value, for injected extra fields.
func pyStr(v any) string { return pyjson.Str(pyjson.FromAny(v)) }

// scriptedTool builds one tool of the harness (§ "Scripted tools").
// libraryTool resolves a tool given by library name: a string, or an
// object whose "ref" names the tool (overrides are not supported for
// built-in tools). ok is false for an inline scripted tool.
func libraryTool(v any) (t tool.Tool, ok bool, err error) {
	name, isName := v.(string)
	if o, isObj := v.(*ojson.Object); isObj {
		ref, hasRef := o.Get("ref")
		if !hasRef {
			return nil, false, nil
		}
		if name, isName = ref.(string); !isName {
			return nil, true, fmt.Errorf("ref must be a tool name")
		}
		if len(o.Keys) > 1 {
			return nil, true, fmt.Errorf("built-in tool %q takes no overrides", name)
		}
	}
	if !isName {
		return nil, false, nil
	}
	for _, b := range builtin.Tools(builtin.Config{}) {
		if b.Name() == name {
			return b, true, nil
		}
	}
	return nil, true, fmt.Errorf("no tool named %q in the library (built-in tools: %s)", name, strings.Join(builtin.Names, ", "))
}

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
				if err := await(ctx, d); err != nil {
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
						if err := await(ctx, s.pause); err != nil {
							yield(tool.Chunk{}, err)
							return
						}
						continue
					}
					if emitted && between {
						// asyncio.sleep(0): a suspension point that does
						// not wait.
						agent.Yield(ctx)
						if err := ctx.Err(); err != nil {
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

// preemption is the harness agents' preemption period: a tool of a
// concurrent batch that has not produced its next chunk (or returned)
// after this long counts as awaiting, and its siblings run. It is longer
// than the engine's default (20ms) because the traces' order must not
// depend on machine load: on 2 loaded cores under -race a goroutine that
// runs straight through can go unscheduled for more than 20ms, which the
// engine reads as an await (measured: 3 of 8 runs reordered a batch at
// 20ms with six busy loops beside the test, none of 8 at 50ms).
const preemption = 50 * time.Millisecond

// minAwait is the shortest wait the harness's tools make for an await of
// the reference's tools. The engine sees a plain Go tool await only by its
// silence, which must clearly outlast the preemption period; so a short
// sleep is played as a wait of minAwait (asyncio.sleep(0) is agent.Yield,
// which waits for nothing).
const minAwait = 5 * preemption

// await plays a reference tool's `await asyncio.sleep(d)` in plain Go: a
// wait of at least minAwait that ends early, with ctx's error, when ctx is
// done (a cancellation already pending is reported at once).
func await(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t := time.NewTimer(max(d, minAwait))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// toolFailure is the error a scripted "error" tool raises.
type toolFailure struct{ msg string }

func (e *toolFailure) Error() string { return e.msg }

// swallowReplyEnd drops the first count REPLY_END events of a reply.
type swallowReplyEnd struct {
	count, dropped int
}

func (s *swallowReplyEnd) onReply(ctx context.Context, _ *agent.Agent, in agent.ReplyInput, next agent.ReplyHandler) iter.Seq2[agent.Item, error] {
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
