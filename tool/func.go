package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"reflect"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
)

// Func builds a tool from a typed Go function. The input schema is
// inferred from In (see [InferSchema]) unless [WithSchema] is given; the
// argument object is decoded into In with encoding/json. The result
// becomes one running chunk: a string as text, a Chunk as is, a
// block.Block or []block.Block as content, anything else as JSON text in
// Python's json.dumps style (", " and ": " separators, non-ASCII kept), as
// the reference's function tools do. Func tools are concurrency-safe by
// default.
func Func[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error), opts ...Option) (Tool, error) {
	if fn == nil {
		return nil, &SchemaError{Tool: name, Err: ErrNoBody}
	}
	cfg, schema, err := funcConfig[In](name, opts)
	if err != nil {
		return nil, err
	}
	dec := newDecoder(reflect.TypeFor[In]())
	body := func(ctx context.Context, input map[string]any) iter.Seq2[Chunk, error] {
		return func(yield func(Chunk, error) bool) {
			in, err := decodeInput[In](dec, input)
			if err != nil {
				yield(Chunk{}, err)
				return
			}
			out, err := fn(ctx, in)
			if err != nil {
				yield(Chunk{}, err)
				return
			}
			c, err := toChunk(out)
			yield(c, err)
		}
	}
	return asTool(newSpec(name, description, schema, body, cfg))
}

// StreamFunc is the streaming variant of [Func]: each value the function
// yields becomes one chunk, converted as Func converts its result; an
// error ends the stream.
func StreamFunc[In, Out any](name, description string, fn func(ctx context.Context, in In) iter.Seq2[Out, error], opts ...Option) (Tool, error) {
	if fn == nil {
		return nil, &SchemaError{Tool: name, Err: ErrNoBody}
	}
	cfg, schema, err := funcConfig[In](name, opts)
	if err != nil {
		return nil, err
	}
	dec := newDecoder(reflect.TypeFor[In]())
	body := func(ctx context.Context, input map[string]any) iter.Seq2[Chunk, error] {
		return func(yield func(Chunk, error) bool) {
			in, err := decodeInput[In](dec, input)
			if err != nil {
				yield(Chunk{}, err)
				return
			}
			for out, err := range fn(ctx, in) {
				if err != nil {
					yield(Chunk{}, err)
					return
				}
				c, err := toChunk(out)
				if !yield(c, err) || err != nil {
					return
				}
			}
		}
	}
	return asTool(newSpec(name, description, schema, body, cfg))
}

func funcConfig[In any](name string, opts []Option) (config, json.RawMessage, error) {
	cfg := config{flags: Flags{ConcurrencySafe: true}}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.schema != nil {
		return cfg, cfg.schema, nil
	}
	schema, err := InferSchema(reflect.TypeFor[In]())
	if err != nil {
		return cfg, nil, &SchemaError{Tool: name, Err: err}
	}
	return cfg, schema, nil
}

// decodeInput turns the argument object into In. A map[string]any input
// type takes the object as is.
func decodeInput[In any](dec decoder, input map[string]any) (In, error) {
	var in In
	if m, ok := any(&in).(*map[string]any); ok {
		*m = input
		return in, nil
	}
	err := dec.decode(input, &in)
	return in, err
}

// toChunk converts a function result the way the reference's function
// tool adapter does.
func toChunk(out any) (Chunk, error) {
	switch v := out.(type) {
	case string:
		return Text(v), nil
	case Chunk:
		return v, nil
	case *Chunk:
		if v != nil {
			return *v, nil
		}
	case block.Block:
		return Chunk{Content: []block.Block{v}}, nil
	case []block.Block:
		return Chunk{Content: v}, nil
	}
	text, err := pythonJSON(out)
	if err != nil {
		return Chunk{}, err
	}
	return Text(text), nil
}

// pythonJSON renders v like json.dumps(v, ensure_ascii=False).
func pythonJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("tool result is not JSON-serializable: %w", err)
	}
	tree, err := pyjson.Parse(string(bytes.TrimRight(buf.Bytes(), "\n")))
	if err != nil {
		return "", fmt.Errorf("tool result is not JSON-serializable: %w", err)
	}
	return pyjson.Dumps(tree, pyjson.DumpOptions{}), nil
}
