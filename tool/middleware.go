package tool

import (
	"context"
	"iter"
)

// Handler continues a middleware chain with exactly the input it is given
// (unlike agent middleware, nothing is merged with the original input).
type Handler func(ctx context.Context, input map[string]any) iter.Seq2[Chunk, error]

// Middleware wraps one tool invocation (the reference's
// ToolMiddlewareBase.on_tool_call). It may change the input, transform,
// drop or add chunks, short-circuit without calling next, or fail. In a
// list, the first middleware is the outermost layer.
type Middleware func(ctx context.Context, t Tool, input map[string]any, next Handler) iter.Seq2[Chunk, error]

// Chain composes middlewares around t.Call, first = outermost.
func Chain(t Tool, mws ...Middleware) Handler {
	return chain(t, t.Call, mws)
}

func chain(t Tool, inner Handler, mws []Middleware) Handler {
	h := inner
	for i := len(mws) - 1; i >= 0; i-- {
		mw, next := mws[i], h
		h = func(ctx context.Context, input map[string]any) iter.Seq2[Chunk, error] {
			return mw(ctx, t, input, next)
		}
	}
	return h
}
