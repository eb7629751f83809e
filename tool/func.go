package tool

import (
	"context"
	"iter"
)

// Func builds a tool from a typed Go function. The input schema is
// inferred from In (see [InferSchema]) unless [WithSchema] is given; the
// argument object is decoded into In with encoding/json. The result
// becomes one running chunk: a string as text, a Chunk as is, anything
// else as JSON text in Python's json.dumps style (", " and ": "
// separators, non-ASCII kept). Func tools are concurrency-safe by default.
func Func[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error), opts ...Option) (Tool, error) {
	panic("unimplemented")
}

// StreamFunc is the streaming variant of [Func]: each value the function
// yields becomes one chunk, converted as Func converts its result.
func StreamFunc[In, Out any](name, description string, fn func(ctx context.Context, in In) iter.Seq2[Out, error], opts ...Option) (Tool, error) {
	panic("unimplemented")
}
