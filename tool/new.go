package tool

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/agentscope-go/agentscope/permission"
)

// CallFunc is a tool body working on the parsed argument object.
type CallFunc func(ctx context.Context, input map[string]any) iter.Seq2[Chunk, error]

// Option configures a tool built by [New], [Func] or [StreamFunc].
type Option func(*config)

type config struct {
	flags       Flags
	middlewares []Middleware
	check       func(ctx context.Context, input map[string]any, pc *permission.Context) permission.Decision
	readOnly    func(input map[string]any) bool
	match       func(ruleContent string, input map[string]any) bool
	suggest     func(input map[string]any) []permission.Rule
	schema      json.RawMessage
}

// ConcurrencySafe sets the concurrency-safe flag (Func tools default to
// true, like the reference's function tools; New defaults to false).
func ConcurrencySafe(v bool) Option { return func(c *config) { c.flags.ConcurrencySafe = v } }

// ReadOnly marks the tool read-only.
func ReadOnly() Option { return func(c *config) { c.flags.ReadOnly = true } }

// External marks the tool as executed by the host, never locally.
func External() Option { return func(c *config) { c.flags.External = true } }

// StateInjected asks the agent to pass its state (see [StateFrom]).
func StateInjected() Option { return func(c *config) { c.flags.StateInjected = true } }

// WithMiddleware adds tool-level middlewares (first = outermost), applied
// inside Call around the body.
func WithMiddleware(mws ...Middleware) Option {
	return func(c *config) { c.middlewares = append(c.middlewares, mws...) }
}

// WithPermissionCheck replaces the tool's own permission policy (default:
// a non-safety ASK, like the reference's function tools).
func WithPermissionCheck(f func(ctx context.Context, input map[string]any, pc *permission.Context) permission.Decision) Option {
	return func(c *config) { c.check = f }
}

// WithReadOnlyCheck decides read-only-ness per invocation (default: the
// ReadOnly flag).
func WithReadOnlyCheck(f func(input map[string]any) bool) Option {
	return func(c *config) { c.readOnly = f }
}

// WithRuleMatcher decides whether a rule with content covers an invocation
// (default: never).
func WithRuleMatcher(f func(ruleContent string, input map[string]any) bool) Option {
	return func(c *config) { c.match = f }
}

// WithSuggestions replaces the suggested rules (default: one tool-level
// allow rule).
func WithSuggestions(f func(input map[string]any) []permission.Rule) Option {
	return func(c *config) { c.suggest = f }
}

// WithSchema overrides the schema a [Func] would infer (the reference's
// explicit input_schema). It must be an object schema.
func WithSchema(schema json.RawMessage) Option { return func(c *config) { c.schema = schema } }

// New builds a tool from a raw JSON Schema and a body. The schema must be
// an object schema ({"type":"object","properties":{…}}) and a valid JSON
// Schema, else a *SchemaError.
func New(name, description string, schema json.RawMessage, call CallFunc, opts ...Option) (Tool, error) {
	panic("unimplemented")
}
