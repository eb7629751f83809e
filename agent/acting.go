package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"time"

	"github.com/agentscope-go/agentscope/agent/internal/coop"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/ojson"
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
// the later batches (the loop then parks); an interrupted result ends the
// reply.
func (r *run) acting(calls []*block.ToolCall) (outcome, error) {
	for len(calls) > 0 {
		conc := r.concurrent(calls[0])
		n := 1
		for n < len(calls) && r.concurrent(calls[n]) == conc {
			n++
		}
		batch := calls[:n]
		calls = calls[n:]
		var o outcome
		var err error
		if conc {
			o, err = r.runConcurrent(batch)
		} else {
			o, err = r.runSequential(batch)
		}
		if err != nil || o == stepInterrupted {
			return o, err
		}
		if o == stepParked {
			break
		}
	}
	return stepContinue, nil
}

func (r *run) concurrent(c *block.ToolCall) bool {
	t, found := r.a.toolkit.Lookup(c.Name)
	return !found || t.Flags().ConcurrencySafe
}

// batchOutcome folds the outcomes of a batch's calls.
func batchOutcome(outs []callOutcome) outcome {
	o := stepContinue
	for _, c := range outs {
		switch c {
		case callAsked, callSubmitted:
			if o == stepContinue {
				o = stepParked
			}
		case callInterrupted:
			o = stepInterrupted
		}
	}
	return o
}

// runSequential runs calls one at a time and stops at the first that parks
// or is interrupted; the rest stay pending.
func (r *run) runSequential(calls []*block.ToolCall) (outcome, error) {
	for _, c := range calls {
		out, err := r.executeRecovered(r.ctx, r.ctx, c, &r.out, nil, nil)
		if err != nil {
			if errors.Is(err, errStopped) && c.State == block.CallAllowed {
				// The consumer left while the call ran (its tool is
				// cancelled): as in a concurrent batch, the call is
				// interrupted, so continuing the reply does not run it
				// again. Only the state is left to tell.
				if ierr := r.storeInterrupted(c); ierr != nil {
					return 0, ierr
				}
			}
			return 0, err
		}
		if o := batchOutcome([]callOutcome{out}); o != stepContinue {
			return o, nil
		}
	}
	return stepContinue, nil
}

// storeInterrupted settles c with an interrupted result in the state,
// without events.
func (r *run) storeInterrupted(c *block.ToolCall) error {
	a := r.a
	if err := c.Transition(block.CallFinished); err != nil {
		return err
	}
	res := &block.ToolResult{ID: c.ID, Name: c.Name, Output: block.PlainBody(tool.InterruptedText), State: block.ResultInterrupted}
	block.Fill(res, a.src)
	a.st.AppendContext(a.src, a.name, res)
	return nil
}

// executeRecovered runs one call, turning a panic (a middleware's, a
// permission check's) into an error of the reply rather than crashing the
// caller or a batch worker.
func (r *run) executeRecovered(ctx, toolCtx context.Context, c *block.ToolCall, out *sink, dedup *permission.Batch, w *coop.Worker[Item]) (o callOutcome, err error) {
	defer func() {
		if p := recover(); p != nil {
			o, err = callDone, fmt.Errorf("%w: %v", ErrPanicked, p)
		}
	}()
	return r.execute(ctx, toolCtx, c, out, dedup, w)
}

// runConcurrent runs calls as one batch. Each call runs on its own
// goroutine; their events come out in the order the reference's asyncio
// tasks would produce them, and the batch is always drained completely,
// also when it is cancelled. The rule, and what it needs of the tools
// (nothing but to be plain Go), is in agent/internal/coop's doc.
func (r *run) runConcurrent(calls []*block.ToolCall) (outcome, error) {
	b := coop.New[Item](r.ctx, r.a.preempt)
	var dedup permission.Batch
	outs := make([]callOutcome, len(calls))
	for i, c := range calls {
		b.Go(func(ctx context.Context, w *coop.Worker[Item]) error {
			// The worker's sink never reports a stop: when the consumer
			// stops, Drain cancels the calls and discards their items.
			s := newSink(r.a, func(it Item, _ error) bool { w.Emit(it); return true })
			out, err := r.executeRecovered(ctx, w.ToolContext(), c, s, &dedup, w)
			outs[i] = out
			return err
		})
	}
	var stop error
	err := b.Drain(func(it Item) bool { stop = r.out.put(it); return stop == nil })
	if stop != nil {
		return 0, stop
	}
	if err != nil {
		return 0, fmt.Errorf("One or more tool calls raised an exception: %w", err)
	}
	return batchOutcome(outs), nil
}

// errorResult settles a call with a synthesized result whose output is a
// plain string (§3.7 _handle_error_tool_call).
func (r *run) errorResult(out *sink, c *block.ToolCall, msg string, st block.ToolResultState) error {
	a := r.a
	if err := out.emit(&event.ToolResultStart{ReplyID: r.replyID, ToolCallID: c.ID, ToolCallName: c.Name}); err != nil {
		return err
	}
	res := &block.ToolResult{ID: c.ID, Name: c.Name, Output: block.PlainBody(msg), State: st}
	block.Fill(res, a.src)
	a.st.AppendContext(a.src, a.name, res)
	if err := c.Transition(block.CallFinished); err != nil {
		return err
	}
	if err := out.emit(&event.ToolResultTextDelta{ReplyID: r.replyID, ToolCallID: c.ID, Delta: msg}); err != nil {
		return err
	}
	return out.emit(&event.ToolResultEnd{ReplyID: r.replyID, ToolCallID: c.ID, State: st})
}

// execute is one call's lifecycle (§3.7): resolve and validate, check
// permission, then ask, deny, hand to the host or run it. ctx is the
// call's context; toolCtx the one the tool runs under (in a batch, the
// worker's, which keeps the tool in step with its worker). dedup and w are
// set in a concurrent batch.
func (r *run) execute(ctx, toolCtx context.Context, c *block.ToolCall, out *sink, dedup *permission.Batch, w *coop.Worker[Item]) (callOutcome, error) {
	a := r.a
	t, input, err := a.toolkit.Prepare(c, a.st.Tools.ActivatedGroups)
	if err != nil {
		return callDone, r.errorResult(out, c, err.Error(), block.ResultError)
	}
	d, err := r.checkPermission(ctx, c, t, input)
	if err != nil {
		return callDone, err
	}
	switch d.Behavior {
	case block.Ask, block.Passthrough:
		if dedup != nil && !dedup.Admit(tool.PermissionSubject(t), input, d) {
			// Covered by a rule surfaced earlier in this batch: stays
			// pending and is checked again on the next run.
			return callDone, nil
		}
		if err := c.Transition(block.CallAsking); err != nil {
			return callDone, err
		}
		c.SuggestedRules = append([]block.PermissionRule{}, d.SuggestedRules...)
		return callAsked, out.emit(&event.RequireUserConfirm{ReplyID: r.replyID, ToolCalls: []*block.ToolCall{c.CloneBlock().(*block.ToolCall)}})
	case block.Deny:
		return callDone, r.errorResult(out, c, d.Message, block.ResultDenied)
	case block.Allow:
	default:
		return callDone, fmt.Errorf("Invalid permission decision behavior: %s", d.Behavior)
	}
	if err := c.Transition(block.CallAllowed); err != nil {
		return callDone, err
	}
	if err := out.emit(&event.ToolResultStart{ReplyID: r.replyID, ToolCallID: c.ID, ToolCallName: c.Name}); err != nil {
		return callDone, err
	}
	if t.Flags().External {
		if err := c.Transition(block.CallSubmitted); err != nil {
			return callDone, err
		}
		return callSubmitted, out.emit(&event.RequireExternalExecution{ReplyID: r.replyID, ToolCalls: []*block.ToolCall{c.CloneBlock().(*block.ToolCall)}})
	}
	if ctx.Err() != nil {
		// No tool starts once the cancellation is visible (toolCtx would
		// let it run until it waits): its result is the interruption.
		toolCtx = ctx
	} else if r.ctx.Err() != nil {
		// In a batch, ctx is the worker's, cancelled only when the
		// consumer next holds the turn; a sibling queued before it must
		// not start its tool meanwhile.
		toolCtx = r.ctx
	}
	return r.runTool(toolCtx, c, t, input, out, w)
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
		return a.engine.Check(ctx, tool.PermissionSubject(t), input), nil
	}
	h := a.permissionChain(func(ctx context.Context, in PermissionInput) (permission.Decision, error) {
		if approved {
			return permission.UserConfirmed(), nil
		}
		return a.engine.Check(ctx, tool.PermissionSubject(in.Tool), in.Input), nil
	})
	return h(ctx, PermissionInput{ToolCall: c.CloneBlock().(*block.ToolCall), Tool: t, Input: ojson.CloneMap(input)})
}

// lockstepTool keeps a tool's stream in step with its batch worker (see
// coop.Lockstep).
type lockstepTool struct{ tool.Tool }

func (l lockstepTool) Call(ctx context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
	return coop.Lockstep(ctx, l.Tool.Call(ctx, input))
}

// runTool executes an allowed local call through the on_acting chain,
// streams its chunks as events and stores its folded result.
func (r *run) runTool(ctx context.Context, c *block.ToolCall, t tool.Tool, input map[string]any, out *sink, w *coop.Worker[Item]) (callOutcome, error) {
	a := r.a
	if w == nil && ctx.Done() != nil && ctx.Err() == nil {
		// A cancellation lands one preemption period after it was
		// requested, not before a tool that runs straight through (the
		// reference's lands at the tool's next await); in a batch the batch
		// does this.
		var stop context.CancelFunc
		ctx, stop = coop.DeferCancel(ctx, a.preemptPeriod())
		defer stop()
	}
	if t.Flags().StateInjected {
		ctx = tool.WithState(ctx, a.st)
	}
	// closed: the batch was closed while the worker waited for its tool;
	// the worker must not emit any more.
	closed := false
	inner := func(ctx context.Context, in ActingInput) iter.Seq[tool.Chunk] {
		if w == nil {
			return a.runner.Run(ctx, in.Tool, in.Input)
		}
		// Wrapped only here, so middlewares see the tool itself (its
		// optional interfaces included). Only the pulls of the tool's
		// chunks are bracketed as waiting for the tool: the middlewares'
		// own code runs while the call holds the turn, so it may read the
		// state its siblings write.
		seq := a.runner.Run(ctx, lockstepTool{in.Tool}, in.Input)
		return func(yield func(tool.Chunk) bool) {
			if closed {
				return
			}
			w.EnterTool()
			for chunk := range seq {
				if !w.LeaveTool() {
					closed = true
					return
				}
				if !yield(chunk) {
					return
				}
				w.EnterTool()
			}
			if !w.LeaveTool() {
				closed = true
			}
		}
	}
	h := inner
	if len(a.mws.acting) > 0 {
		h = a.actingChain(inner)
	}
	resp := tool.NewResponse(c.ID, a.src)
	for chunk := range h(ctx, ActingInput{ToolCall: c, Tool: t, Input: input}) {
		if closed {
			return callDone, nil
		}
		foldErr := resp.Append(chunk)
		for _, b := range chunk.Content {
			if err := r.blockEvent(out, c.ID, b); err != nil {
				return callDone, err
			}
		}
		if foldErr != nil {
			// A chunk that cannot be folded ends the call with an error
			// chunk, as in the reference (where the toolkit reports the
			// exception and stops reading the tool).
			ec := tool.ErrorChunk(foldErr.Error())
			_ = resp.Append(ec)
			if err := r.outputEvents(out, c.ID, block.BlocksBody(ec.Content...)); err != nil {
				return callDone, err
			}
			break
		}
	}
	if closed {
		return callDone, nil
	}
	res := resp.Result(c.Name)
	block.Fill(res, a.src)
	end := &event.ToolResultEnd{ReplyID: r.replyID, ToolCallID: c.ID, State: res.State}
	end.Metadata = maps.Clone(res.Metadata)
	// The result is complete: cutting and offloading it is not abandoned
	// half-way for a cancellation.
	stored, err := r.truncateResult(context.WithoutCancel(ctx), res)
	if err != nil {
		return callDone, err
	}
	a.st.AppendContext(a.src, a.name, stored)
	if err := c.Transition(block.CallFinished); err != nil {
		return callDone, err
	}
	if err := out.emit(end); err != nil {
		return callDone, err
	}
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
