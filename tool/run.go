package tool

import (
	"context"
	"iter"
	"time"

	"github.com/agentscope-go/agentscope/stamp"
)

// InterruptedText is the result text of a call cut short by cancellation.
const InterruptedText = "<system-reminder>The tool call has been interrupted by the user.</system-reminder>"

// Runner executes tool calls. The zero value is ready to use.
type Runner struct {
	// Middlewares wrap every call, first = outermost, outside the tool's
	// own middlewares.
	Middlewares []Middleware
	// Stamp fills chunk ids and block ids/created_at left empty by tools;
	// nil means stamp.Default.
	Stamp stamp.Source
	// Grace is how long Run waits, after ctx is done, for the tool to
	// return before abandoning it (default 100ms). A tool that honours ctx
	// exits well within it, so no goroutine of Run outlives the call.
	Grace time.Duration
}

// Run executes t with input and streams its chunks. It never fails and
// never panics: a tool (or middleware) error becomes a last error chunk
// with err.Error() as text, a panic an error chunk describing it, and
// cancellation of ctx a last interrupted chunk with [InterruptedText].
//
// The tool runs on a goroutine owned by Run. Run returns promptly once ctx
// is done: it waits up to Grace for the tool to stop, then abandons it; an
// abandoned goroutine is left to finish on its own, and whatever it still
// produces is discarded. Stopping the iteration early (break) cancels the
// tool the same way.
func (r *Runner) Run(ctx context.Context, t Tool, input map[string]any) iter.Seq[Chunk] {
	panic("unimplemented")
}

// Collect runs the call to completion and returns its folded response
// (a chunk that cannot be folded becomes an error chunk, as in the
// reference).
func (r *Runner) Collect(ctx context.Context, callID string, t Tool, input map[string]any) *Response {
	panic("unimplemented")
}

// Run is Runner{Middlewares: mws}.Run.
func Run(ctx context.Context, t Tool, input map[string]any, mws ...Middleware) iter.Seq[Chunk] {
	r := Runner{Middlewares: mws}
	return r.Run(ctx, t, input)
}
