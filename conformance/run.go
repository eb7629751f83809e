package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/ojson"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/state"
)

// record replays one golden scenario and returns the document the engine
// produces, shaped like the golden file.
func record(golden *ojson.Object) (*ojson.Object, error) {
	spec := getObj(golden, "spec")
	if spec == nil {
		return nil, specErr("spec", "missing")
	}
	src := stamp.Default
	h, err := build(spec, src)
	if err != nil {
		return nil, err
	}
	doc := obj()
	for _, k := range []string{"scenario", "description", "upstream_version", "spec"} {
		if v, ok := golden.Get(k); ok {
			doc.Set(k, v)
		}
	}
	schemas := getObj(spec, "schemas_json")
	var steps []any
	var events []event.Event
	calls := 0
	for i, iv := range getArr(spec, "inputs") {
		in, ok := iv.(*ojson.Object)
		if !ok {
			return nil, specErr(fmt.Sprintf("inputs[%d]", i), "expected an object")
		}
		step, evs, err := runStep(h, i, in, schemas, src, &calls)
		if err != nil {
			return nil, err
		}
		steps = append(steps, step)
		events = append(events, evs...)
	}
	if steps == nil {
		steps = []any{}
	}
	doc.Set("steps", steps)
	st, err := h.agent.State()
	if err != nil {
		return nil, err
	}
	doc.Set("final_context", contextJSON(st))
	doc.Set("folded_replies", fold(h, events, src))
	doc.Set("unused_model_turns", json.Number(fmt.Sprint(h.model.Remaining())))
	return doc, nil
}

// runStep feeds one input and records what happened.
func runStep(h *harness, index int, in *ojson.Object, schemas *ojson.Object, src stamp.Source, calls *int) (*ojson.Object, []event.Event, error) {
	where := fmt.Sprintf("inputs[%d]", index)
	before, err := h.agent.State()
	if err != nil {
		return nil, nil, err
	}
	input, inputJSON, err := buildInput(before, in, src, where)
	if err != nil {
		return nil, nil, err
	}
	var opts []agent.ReplyOption
	if name := getStr(in, "structured_schema", ""); name != "" {
		s, ok := schemas.Get(name)
		if !ok {
			return nil, nil, specErr(where, "unknown schema %q", name)
		}
		opts = append(opts, agent.WithStructuredSchema(toJSON(s)))
	}
	var res agent.Result
	opts = append(opts, agent.WithResult(&res))
	cancelAfter := -1
	if n, ok := getNum(in, "cancel_after_event"); ok {
		cancelAfter = int(n)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream := []any{}
	var events []event.Event
	var runErr error
	seen, requested := 0, false
	itemsBefore := 0
	for e, err := range input.stream(ctx, h.agent, opts...) {
		if err != nil {
			runErr = err
			break
		}
		data := event.Marshal(e)
		stream = append(stream, obj("event", mustParse(data)))
		// Fold from the JSON the consumer saw, not from the live object.
		if de, err := event.Decode(data); err == nil {
			events = append(events, de)
		}
		seen++
		if seen == cancelAfter && !requested {
			requested = true
			itemsBefore = len(stream)
			cancel()
		}
	}
	if res.Msg != nil {
		stream = append(stream, obj("msg", mustParse(res.Msg.AppendJSON(nil))))
	}

	outcome := obj("status", "completed")
	if runErr != nil {
		typ, msg := errorName(runErr)
		outcome = obj("status", "raised", "error", obj("type", typ, "message", msg))
	} else if requested {
		outcome.Set("cancel", obj("requested_after_event", json.Number(fmt.Sprint(cancelAfter)), "items_before_cancel", json.Number(fmt.Sprint(itemsBefore))))
	}

	var mcalls []any
	recorded := h.model.Calls()
	for ; *calls < len(recorded); *calls++ {
		c := recorded[*calls]
		mcalls = append(mcalls, obj(
			"index", json.Number(fmt.Sprint(*calls)),
			"tool_choice", mustParse(c.ToolChoice),
			"tools", mustParse(c.Tools),
			"messages", mustParse(c.Messages),
		))
	}
	if mcalls == nil {
		mcalls = []any{}
	}
	st, err := h.agent.State()
	if err != nil {
		return nil, nil, err
	}
	state := obj(
		"reply_context", mustParse(st.Reply.AppendJSON(nil)),
		"permission_context", mustParse(st.Permission.AppendJSON(nil)),
	)
	step := obj("index", json.Number(fmt.Sprint(index)), "input", in)
	if getStr(in, "kind", "") != "none" {
		// The golden layout omits input_object for a none input (there is
		// no object), rather than writing null.
		step.Set("input_object", inputJSON)
	}
	step.Set("stream", stream)
	step.Set("outcome", outcome)
	step.Set("model_calls", mcalls)
	step.Set("context", contextJSON(st))
	step.Set("state", state)
	return step, events, nil
}

// errorName maps an engine error to the reference's exception class and
// message.
func errorName(err error) (string, string) {
	var ie *agent.InputError
	if errors.As(err, &ie) {
		return "ValueError", ie.Msg
	}
	var me *agent.ModelCallError
	if errors.As(err, &me) {
		return "RuntimeError", me.Err.Error()
	}
	var se *agent.StreamError
	if errors.As(err, &se) {
		return "RuntimeError", se.Err.Error()
	}
	if errors.Is(err, context.Canceled) {
		// interruption_raise_cancelled_error: the reference re-raises the
		// task's cancellation.
		return "CancelledError", ""
	}
	return "RuntimeError", err.Error()
}

func contextJSON(st *state.AgentState) []any {
	out := []any{}
	for _, m := range st.Context {
		out = append(out, mustParse(m.AppendJSON(nil)))
	}
	return out
}

// stepInput is one scenario input, for the agent entry point it calls.
type stepInput struct {
	msgs      []*message.Msg
	confirm   *event.UserConfirmResult
	external  *event.ExternalExecutionResult
	interrupt bool
}

func (in stepInput) stream(ctx context.Context, a *agent.Agent, opts ...agent.ReplyOption) iter.Seq2[event.Event, error] {
	switch {
	case in.confirm != nil:
		return a.Confirm(ctx, in.confirm, opts...)
	case in.external != nil:
		return a.DeliverExternal(ctx, in.external, opts...)
	case in.interrupt:
		return a.Interrupt(ctx, opts...)
	}
	return a.Stream(ctx, in.msgs, opts...)
}

// buildInput turns a scenario input into the agent's input and its JSON.
func buildInput(st *state.AgentState, in *ojson.Object, src stamp.Source, where string) (stepInput, any, error) {
	switch kind := getStr(in, "kind", ""); kind {
	case "user":
		m := message.UserText("user", getStr(in, "text", ""), message.WithStamp(src))
		return stepInput{msgs: []*message.Msg{m}}, mustParse(m.AppendJSON(nil)), nil
	case "user_list":
		var msgs []*message.Msg
		js := []any{}
		for _, t := range getArr(in, "texts") {
			s, _ := t.(string)
			m := message.UserText("user", s, message.WithStamp(src))
			msgs = append(msgs, m)
			js = append(js, mustParse(m.AppendJSON(nil)))
		}
		return stepInput{msgs: msgs}, js, nil
	case "none":
		return stepInput{}, nil, nil
	case "interrupt":
		// The agent never reads the event's fields; it is built for the
		// record only.
		e := &event.UserInterrupt{ReplyID: st.Reply.ReplyID}
		event.Stamp(e, src)
		return stepInput{interrupt: true}, mustParse(event.Marshal(e)), nil
	case "confirm":
		e := &event.UserConfirmResult{ReplyID: st.Reply.ReplyID}
		for i, rv := range getArr(in, "results") {
			ro, ok := rv.(*ojson.Object)
			if !ok {
				return stepInput{}, nil, specErr(where, "results[%d]: expected an object", i)
			}
			id := getStr(ro, "tool_call_id", "")
			call := findCall(st, id)
			name, input := getStr(ro, "edited_name", ""), ""
			var rules []block.PermissionRule
			if call != nil {
				if name == "" {
					name = call.Name
				}
				input = call.Input
			}
			if ei, ok := ro.Get("edited_input"); ok {
				input = pyDumps(ei, false)
			}
			switch rv, _ := ro.Get("rules"); r := rv.(type) {
			case string:
				if r != "suggested" {
					return stepInput{}, nil, specErr(where, "results[%d]: unknown rules %q", i, r)
				}
				rules = []block.PermissionRule{}
				if call != nil {
					rules = append(rules, call.SuggestedRules...)
				}
			case []any:
				rules = []block.PermissionRule{}
				for j, x := range r {
					var pr block.PermissionRule
					if err := pr.UnmarshalJSON(toJSON(x)); err != nil {
						return stepInput{}, nil, specErr(where, "results[%d].rules[%d]: %v", i, j, err)
					}
					rules = append(rules, pr)
				}
			}
			tc := &block.ToolCall{ID: id, Name: name, Input: input, State: block.CallPending, SuggestedRules: []block.PermissionRule{}}
			block.Fill(tc, src)
			e.ConfirmResults = append(e.ConfirmResults, event.ConfirmResult{Confirmed: getBool(ro, "approve", false), ToolCall: tc, Rules: rules})
		}
		event.Stamp(e, src)
		return stepInput{confirm: e}, mustParse(event.Marshal(e)), nil
	case "external_result":
		e := &event.ExternalExecutionResult{ReplyID: st.Reply.ReplyID}
		for i, rv := range getArr(in, "results") {
			ro, ok := rv.(*ojson.Object)
			if !ok {
				return stepInput{}, nil, specErr(where, "results[%d]: expected an object", i)
			}
			id := getStr(ro, "tool_call_id", "")
			name := ""
			if call := findCall(st, id); call != nil {
				name = call.Name
			}
			res := &block.ToolResult{ID: id, Name: name, State: block.ToolResultState(getStr(ro, "state", string(block.ResultSuccess)))}
			switch out, _ := ro.Get("output"); o := out.(type) {
			case string:
				res.Output = block.PlainBody(o)
			case []any:
				var bs []block.Block
				for j, bv := range o {
					bo, _ := bv.(*ojson.Object)
					if t, ok := bo.Get("text"); ok {
						s, _ := t.(string)
						bs = append(bs, block.NewText(s))
						continue
					}
					if d := getObj(bo, "data"); d != nil {
						if u := getStr(d, "url", ""); u != "" {
							bs = append(bs, block.NewData(&block.URL{URL: u, MediaType: getStr(d, "media_type", "")}))
						} else {
							bs = append(bs, block.NewData(block.NewBase64(getStr(d, "media_type", ""), getStr(d, "data", ""))))
						}
						continue
					}
					return stepInput{}, nil, specErr(where, "results[%d].output[%d]: expected {text} or {data}", i, j)
				}
				res.Output = block.BlocksBody(bs...)
			default:
				res.Output = block.PlainBody("")
			}
			if md := getObj(ro, "metadata"); md != nil {
				m := map[string]any{}
				if err := json.Unmarshal(toJSON(md), &m); err == nil {
					res.Metadata = m
				}
			}
			block.Fill(res, src)
			e.ExecutionResults = append(e.ExecutionResults, res)
		}
		event.Stamp(e, src)
		return stepInput{external: e}, mustParse(event.Marshal(e)), nil
	default:
		return stepInput{}, nil, specErr(where, "unknown input kind %q", kind)
	}
}

// findCall finds a tool call by id in the context, newest message first.
func findCall(st *state.AgentState, id string) *block.ToolCall {
	ctx := st.Context
	for i := len(ctx) - 1; i >= 0; i-- {
		if c, ok := ctx[i].Find(block.KindToolCall, id).(*block.ToolCall); ok {
			return c
		}
	}
	return nil
}

// fold rebuilds every reply from its events with Msg.AppendEvent.
func fold(h *harness, events []event.Event, src stamp.Source) []any {
	var order []string
	msgs := map[string]*message.Msg{}
	for _, e := range events {
		rid, ok := event.ReplyIDOf(e)
		if !ok {
			continue
		}
		m := msgs[rid]
		if m == nil {
			m, _ = message.AssistantMsg(h.name, nil, message.WithID(rid), message.WithStamp(src))
			msgs[rid] = m
			order = append(order, rid)
		}
		_ = m.AppendEvent(e) // the reference logs and skips what it cannot apply
	}
	out := []any{}
	for _, rid := range order {
		out = append(out, obj("reply_id", rid, "msg", mustParse(msgs[rid].AppendJSON(nil))))
	}
	return out
}
