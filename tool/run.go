package tool

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/stamp"
)

// InterruptedText is the result text of a call cut short by cancellation.
const InterruptedText = pycompat.InterruptedToolText

// DefaultGrace is how long [Runner.Run] waits by default for a cancelled
// tool to return.
const DefaultGrace = 100 * time.Millisecond

// Runner executes tool calls. The zero value is ready to use and a Runner
// may be shared by concurrent calls.
type Runner struct {
	// Middlewares wrap every call, first = outermost, outside the tool's
	// own middlewares.
	Middlewares []Middleware
	// Stamp fills chunk ids and block ids/created_at left empty by tools;
	// nil means stamp.Default.
	Stamp stamp.Source
	// Grace is how long Run waits, once the call is cancelled, for the tool
	// to return before abandoning it; 0 means DefaultGrace.
	Grace time.Duration
	// Logger receives panics and abandoned tools; nil means slog.Default().
	Logger *slog.Logger
}

// PanicError is the error a panicking tool or middleware is turned into;
// its text, "panic: {value}", becomes the error result.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

type item struct {
	c   Chunk
	err error
}

// Run executes t with input (through the Runner's middlewares) and streams
// its chunks. It never fails and never panics: a tool or middleware error
// becomes a last error chunk with err.Error() as text, a panic an error
// chunk "panic: {value}", and cancellation of ctx a last interrupted chunk
// with [InterruptedText] (a tool error that arrives once ctx is done is
// reported as the interruption too). Ids and timestamps missing from
// chunks and their blocks are filled from Stamp. External tools are not
// called: their result is an error chunk.
//
// Goroutines: the tool runs on one goroutine owned by Run, which feeds
// chunks to the caller's loop one at a time (the tool is paused until the
// caller asks for the next chunk). Run returns promptly once ctx is done
// or the caller stops iterating: it cancels the tool's context and waits
// up to Grace for the goroutine to exit, so a tool that honours ctx leaves
// nothing behind. A tool that ignores ctx is abandoned after Grace: its
// goroutine finishes on its own, whatever it still produces is discarded,
// and the abandonment is logged.
func (r *Runner) Run(ctx context.Context, t Tool, input map[string]any) iter.Seq[Chunk] {
	return func(yield func(Chunk) bool) {
		src := r.Stamp
		if src == nil {
			src = stamp.Default
		}
		if ctx.Err() != nil {
			yield(stampChunk(InterruptedChunk(), src))
			return
		}
		if t.Flags().External {
			yield(stampChunk(ErrorChunk(externalError(t.Name()).Error()), src))
			return
		}

		runCtx, cancel := context.WithCancel(ctx)
		// items carries the tool's chunks; the producer closes it when it
		// returns, which is how the caller knows the goroutine is gone.
		items := make(chan item)
		go produce(runCtx, chain(t, t.Call, r.Middlewares), input, items)
		defer r.release(t, cancel, items)

		for {
			select {
			case it, ok := <-items:
				switch {
				case !ok && ctx.Err() == nil:
					return
				case ctx.Err() != nil: // the tool may have stopped because of it
					yield(stampChunk(InterruptedChunk(), src))
					return
				case it.err != nil:
					yield(stampChunk(r.errorChunk(ctx, t, it.err), src))
					return
				}
				if !yield(stampChunk(it.c, src)) {
					return
				}
			case <-ctx.Done():
				yield(stampChunk(InterruptedChunk(), src))
				return
			}
		}
	}
}

// produce drives the tool's stream on its own goroutine, handing each
// chunk over an unbuffered channel; it stops at the first error, when the
// call is cancelled (the caller is gone), or when the stream ends, and
// closes items on its way out.
func produce(ctx context.Context, h Handler, input map[string]any, items chan<- item) {
	defer close(items)
	send := func(it item) bool {
		select {
		case items <- it:
			return true
		case <-ctx.Done():
			return false
		}
	}
	defer func() {
		if p := recover(); p != nil {
			send(item{err: &PanicError{Value: p, Stack: debug.Stack()}})
		}
	}()
	for c, err := range h(ctx, input) {
		if !send(item{c: c, err: err}) || err != nil {
			return
		}
	}
}

// release ends a call: it cancels the tool and gives it Grace to return
// (draining, and so discarding, whatever it still manages to send).
func (r *Runner) release(t Tool, cancel context.CancelFunc, items <-chan item) {
	cancel()
	select {
	case _, ok := <-items:
		if !ok {
			return
		}
	default:
	}
	grace := r.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	for {
		select {
		case _, ok := <-items:
			if !ok {
				return
			}
		case <-timer.C:
			r.logger().Warn("tool ignored cancellation; abandoning its goroutine", "tool", t.Name(), "grace", grace)
			return
		}
	}
}

func (r *Runner) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}

func (r *Runner) errorChunk(ctx context.Context, t Tool, err error) Chunk {
	if ctx.Err() != nil {
		return InterruptedChunk()
	}
	var pe *PanicError
	if errors.As(err, &pe) {
		r.logger().Error("tool panicked", "tool", t.Name(), "panic", pe.Value, "stack", string(pe.Stack))
	}
	return ErrorChunk(err.Error())
}

// stampChunk fills the chunk id and its blocks' ids and timestamps.
func stampChunk(c Chunk, src stamp.Source) Chunk {
	if c.ID == "" {
		c.ID = src.NewID()
	}
	for _, b := range c.Content {
		if b != nil {
			block.Fill(b, src)
		}
	}
	return c
}

// Collect runs the call to completion and returns its folded response.
// A chunk that cannot be folded (a *MergeError) ends the call with an
// error chunk carrying the error's text, as in the reference; the same
// pattern serves a caller that also streams the chunks:
//
//	resp := tool.NewResponse(callID, src)
//	for c := range runner.Run(ctx, t, input) {
//		emit(c)
//		if err := resp.Append(c); err != nil {
//			ec := tool.ErrorChunk(err.Error())
//			emit(ec)
//			resp.Append(ec)
//			break
//		}
//	}
func (r *Runner) Collect(ctx context.Context, callID string, t Tool, input map[string]any) *Response {
	resp := NewResponse(callID, r.Stamp)
	for c := range r.Run(ctx, t, input) {
		if err := resp.Append(c); err != nil {
			_ = resp.Append(stampChunk(ErrorChunk(err.Error()), resp.src))
			break
		}
	}
	return resp
}

// Run is Runner{Middlewares: mws}.Run.
func Run(ctx context.Context, t Tool, input map[string]any, mws ...Middleware) iter.Seq[Chunk] {
	r := &Runner{Middlewares: mws}
	return r.Run(ctx, t, input)
}
