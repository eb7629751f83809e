package agent

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"time"

	"github.com/agentscope-go/agentscope/agent/coop"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

// callOutcome is how one tool call's execution step ended.
type callOutcome uint8

const (
	callDone        callOutcome = iota // finished, or left pending by de-duplication
	callAsked                          // parked: asking the user
	callSubmitted                      // parked: handed to the host
	callInterrupted                    // its result is interrupted
)

// acting runs the executable calls in batches (§3.6): consecutive
// concurrency-safe calls (unknown tools count as safe) run as one
// concurrent batch, the others one by one. A batch that parks a call stops
// the later batches; an interrupted result ends the reply.
func (r *run) acting(calls []*block.ToolCall) (interrupted, ok bool) {
	for len(calls) > 0 {
		conc := r.concurrent(calls[0])
		n := 1
		for n < len(calls) && r.concurrent(calls[n]) == conc {
			n++
		}
		batch := calls[:n]
		calls = calls[n:]
		var parked bool
		if conc {
			parked, interrupted, ok = r.runConcurrent(batch)
		} else {
			parked, interrupted, ok = r.runSequential(batch)
		}
		if !ok || interrupted {
			return interrupted, ok
		}
		if parked {
			break
		}
	}
	return false, true
}

func (r *run) concurrent(c *block.ToolCall) bool {
	t, found := r.a.toolkit.Lookup(c.Name)
	return !found || t.Flags().ConcurrencySafe
}

// runSequential runs calls one at a time and stops at the first that parks
// or is interrupted; the rest stay pending.
func (r *run) runSequential(calls []*block.ToolCall) (parked, interrupted, ok bool) {
	for _, c := range calls {
		out, err := r.executeRecovered(c)
		if err != nil {
			r.fail(err)
			return false, false, false
		}
		if r.stopped {
			return false, false, false
		}
		switch out {
		case callAsked, callSubmitted:
			return true, false, true
		case callInterrupted:
			return false, true, true
		}
	}
	return false, false, true
}

// executeRecovered runs one call of a sequential batch, turning a panic (a
// middleware's, a permission check's) into the error a concurrent batch
// reports for it, rather than crashing the caller.
func (r *run) executeRecovered(c *block.ToolCall) (out callOutcome, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = callDone, fmt.Errorf("%w: %v", coop.ErrPanicked, p)
		}
	}()
	return r.execute(r.ctx, r.ctx, c, r.out, nil, nil)
}

// runConcurrent runs calls as one batch. Each call runs on its own
// goroutine; their events come out in the order the reference's asyncio
// tasks would produce them (see package coop), and the batch is always
// drained completely, also when it is cancelled.
func (r *run) runConcurrent(calls []*block.ToolCall) (parked, interrupted, ok bool) {
	b := coop.New[Item](r.ctx, r.a.preempt)
	var dedup permission.Batch
	outs := make([]callOutcome, len(calls))
	for i, c := range calls {
		b.Go(func(ctx context.Context, w *coop.Worker[Item]) error {
			sink := func(it Item, _ error) bool { w.Emit(it); return true }
			out, err := r.execute(ctx, w.ToolContext(), c, sink, &dedup, w)
			outs[i] = out
			return err
		})
	}
	err := b.Drain(func(it Item) bool {
		if r.stopped || !r.yield(it, nil) {
			r.stopped = true
			return false
		}
		return true
	})
	if err != nil {
		r.fail(fmt.Errorf("One or more tool calls raised an exception: %w", err))
		return false, false, false
	}
	if r.stopped {
		return false, false, false
	}
	for _, o := range outs {
		switch o {
		case callAsked, callSubmitted:
			parked = true
		case callInterrupted:
			interrupted = true
		}
	}
	return parked, interrupted, true
}

// errorResult settles a call with a synthesized result whose output is a
// plain string (§3.7 _handle_error_tool_call).
func (r *run) errorResult(y func(Item, error) bool, c *block.ToolCall, msg string, st block.ToolResultState) bool {
	a := r.a
	if !r.emitTo(y, &event.ToolResultStart{ReplyID: r.replyID, ToolCallID: c.ID, ToolCallName: c.Name}) {
		return false
	}
	res := &block.ToolResult{ID: c.ID, Name: c.Name, Output: block.PlainBody(msg), State: st}
	block.Fill(res, a.src)
	a.st.AppendContext(a.src, a.name, res)
	c.State = block.CallFinished
	if !r.emitTo(y, &event.ToolResultTextDelta{ReplyID: r.replyID, ToolCallID: c.ID, Delta: msg}) {
		return false
	}
	return r.emitTo(y, &event.ToolResultEnd{ReplyID: r.replyID, ToolCallID: c.ID, State: st})
}

// execute is one call's lifecycle (§3.7): resolve and validate, check
// permission, then ask, deny, hand to the host or run it. ctx is the
// call's context; toolCtx the one the tool runs under (a batch's worker
// context lets the tool pass its turn while it waits). dedup and w are set
// in a concurrent batch.
func (r *run) execute(ctx, toolCtx context.Context, c *block.ToolCall, y func(Item, error) bool, dedup *permission.Batch, w *coop.Worker[Item]) (callOutcome, error) {
	a := r.a
	t, input, err := a.toolkit.Prepare(c, a.st.Tools.ActivatedGroups)
	if err != nil {
		r.errorResult(y, c, err.Error(), block.ResultError)
		return callDone, nil
	}
	d, err := r.checkPermission(ctx, c, t, input)
	if err != nil {
		return callDone, err
	}
	switch d.Behavior {
	case block.Ask, block.Passthrough:
		if dedup != nil && !dedup.Admit(t, input, d) {
			// Covered by a rule surfaced earlier in this batch: stays
			// pending and is checked again on the next run.
			return callDone, nil
		}
		c.State = block.CallAsking
		c.SuggestedRules = append([]block.PermissionRule{}, d.SuggestedRules...)
		r.emitTo(y, &event.RequireUserConfirm{ReplyID: r.replyID, ToolCalls: []*block.ToolCall{c.CloneBlock().(*block.ToolCall)}})
		return callAsked, nil
	case block.Deny:
		r.errorResult(y, c, d.Message, block.ResultDenied)
		return callDone, nil
	case block.Allow:
	default:
		return callDone, fmt.Errorf("Invalid permission decision behavior: %s", d.Behavior)
	}
	c.State = block.CallAllowed
	if !r.emitTo(y, &event.ToolResultStart{ReplyID: r.replyID, ToolCallID: c.ID, ToolCallName: c.Name}) {
		return callDone, nil
	}
	if t.Flags().External {
		c.State = block.CallSubmitted
		r.emitTo(y, &event.RequireExternalExecution{ReplyID: r.replyID, ToolCalls: []*block.ToolCall{c.CloneBlock().(*block.ToolCall)}})
		return callSubmitted, nil
	}
	return r.runTool(toolCtx, c, t, input, y, w)
}

// checkPermission runs the on_check_permission chain around the engine. A
// call the user approved skips the engine.
func (r *run) checkPermission(ctx context.Context, c *block.ToolCall, t tool.Tool, input map[string]any) (permission.Decision, error) {
	a := r.a
	approved := c.State == block.CallAllowed
	if len(a.mws.permission) == 0 {
		if approved {
			return permission.UserConfirmed(), nil
		}
		return a.engine.Check(ctx, t, input), nil
	}
	h := a.permissionChain(func(ctx context.Context, in PermissionInput) (permission.Decision, error) {
		if approved {
			return permission.UserConfirmed(), nil
		}
		return a.engine.Check(ctx, in.Tool, in.Input), nil
	})
	return h(ctx, PermissionInput{ToolCall: c.CloneBlock().(*block.ToolCall), Tool: t, Input: cloneMap(input)})
}

// lockstepTool keeps a tool's stream in step with its batch worker (see
// coop.Lockstep).
type lockstepTool struct{ tool.Tool }

func (l lockstepTool) Call(ctx context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
	return coop.Lockstep(ctx, l.Tool.Call(ctx, input))
}

// runTool executes an allowed local call through the on_acting chain,
// streams its chunks as events and stores its folded result.
func (r *run) runTool(ctx context.Context, c *block.ToolCall, t tool.Tool, input map[string]any, y func(Item, error) bool, w *coop.Worker[Item]) (callOutcome, error) {
	a := r.a
	if w != nil {
		t = lockstepTool{t}
	} else if ctx.Done() != nil {
		// A cancellation lands where the tool waits (or shortly after it
		// was requested, for a tool that blocks without telling), not before
		// a tool that runs straight through; in a batch the batch does this.
		var stop context.CancelFunc
		ctx, stop = coop.DeferCancel(ctx, a.preemptPeriod())
		defer stop()
	}
	if t.Flags().StateInjected {
		ctx = tool.WithState(ctx, a.st)
	}
	inner := func(ctx context.Context, in ActingInput) iter.Seq[tool.Chunk] {
		return a.runner.Run(ctx, in.Tool, in.Input)
	}
	h := inner
	if len(a.mws.acting) > 0 {
		h = a.actingChain(inner)
	}
	resp := tool.NewResponse(c.ID, a.src)
	if w != nil {
		w.EnterTool()
	}
	for chunk := range h(ctx, ActingInput{ToolCall: c, Tool: t, Input: input}) {
		if w != nil && !w.LeaveTool() {
			return callDone, nil
		}
		foldErr := resp.Append(chunk)
		for _, b := range chunk.Content {
			if !r.blockEvent(y, c.ID, b) {
				return callDone, nil
			}
		}
		if foldErr != nil {
			// A chunk that cannot be folded ends the call with an error
			// chunk, as in the reference (where the toolkit reports the
			// exception and stops reading the tool).
			ec := tool.ErrorChunk(foldErr.Error())
			_ = resp.Append(ec)
			if !r.outputEvents(y, c.ID, block.BlocksBody(ec.Content...)) {
				return callDone, nil
			}
			break
		}
		if w != nil {
			w.EnterTool()
		}
	}
	if w != nil && !w.LeaveTool() {
		return callDone, nil
	}
	res := resp.Result(c.Name)
	block.Fill(res, a.src)
	a.st.AppendContext(a.src, a.name, res)
	c.State = block.CallFinished
	end := &event.ToolResultEnd{ReplyID: r.replyID, ToolCallID: c.ID, State: res.State}
	end.Metadata = maps.Clone(res.Metadata)
	r.emitTo(y, end)
	if res.State == block.ResultInterrupted {
		return callInterrupted, nil
	}
	return callDone, nil
}

func (a *Agent) preemptPeriod() time.Duration {
	if a.preempt > 0 {
		return a.preempt
	}
	return coop.DefaultPreempt
}
