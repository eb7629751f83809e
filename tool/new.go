package tool

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"

	"github.com/agentscope-go/agentscope/block"
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
	suggest     func(input map[string]any) []block.PermissionRule
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
func WithSuggestions(f func(input map[string]any) []block.PermissionRule) Option {
	return func(c *config) { c.suggest = f }
}

// WithSchema overrides the schema a [Func] would infer (the reference's
// explicit input_schema). It must be an object schema.
func WithSchema(schema json.RawMessage) Option { return func(c *config) { c.schema = schema } }

// ErrNoBody is returned by New for a nil body on a tool that is not
// external.
var ErrNoBody = errors.New("tool has no body")

// New builds a tool from a raw JSON Schema and a body. The schema must be
// an object schema ({"type":"object","properties":{…}}) and a valid JSON
// Schema, else a *SchemaError. An external tool may have a nil body.
func New(name, description string, schema json.RawMessage, call CallFunc, opts ...Option) (Tool, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.schema != nil {
		schema = cfg.schema
	}
	return asTool(newSpec(name, description, schema, call, cfg))
}

// asTool keeps a failed construction from returning an interface holding a
// nil *spec (which would compare != nil).
func asTool(s *spec, err error) (Tool, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

func newSpec(name, description string, schema json.RawMessage, call CallFunc, cfg config) (*spec, error) {
	if call == nil && !cfg.flags.External {
		return nil, &SchemaError{Tool: name, Err: ErrNoBody}
	}
	if _, err := NewValidator(name, schema); err != nil {
		return nil, err
	}
	return &spec{
		name:        name,
		description: description,
		schema:      slices.Clip(append(json.RawMessage(nil), schema...)),
		cfg:         cfg,
		body:        call,
	}, nil
}

// spec is the Tool built by New, Func and StreamFunc.
type spec struct {
	name, description string
	schema            json.RawMessage
	cfg               config
	body              CallFunc
}

func (s *spec) Name() string                 { return s.name }
func (s *spec) Description() string          { return s.description }
func (s *spec) InputSchema() json.RawMessage { return s.schema }
func (s *spec) Flags() Flags                 { return s.cfg.flags }

func (s *spec) defaults() permission.Defaults {
	return permission.Defaults{ToolName: s.name, IsReadOnly: s.cfg.flags.ReadOnly}
}

func (s *spec) ReadOnly(input map[string]any) bool {
	if s.cfg.readOnly != nil {
		return s.cfg.readOnly(input)
	}
	return s.defaults().ReadOnly(input)
}

func (s *spec) CheckPermissions(ctx context.Context, input map[string]any, pc *permission.Context) permission.Decision {
	if s.cfg.check != nil {
		return s.cfg.check(ctx, input, pc)
	}
	return s.defaults().CheckPermissions(ctx, input, pc)
}

func (s *spec) MatchRule(ruleContent string, input map[string]any) bool {
	if s.cfg.match != nil {
		return s.cfg.match(ruleContent, input)
	}
	return s.defaults().MatchRule(ruleContent, input)
}

func (s *spec) SuggestRules(input map[string]any) []block.PermissionRule {
	if s.cfg.suggest != nil {
		return s.cfg.suggest(input)
	}
	return s.defaults().SuggestRules(input)
}

func (s *spec) Call(ctx context.Context, input map[string]any) iter.Seq2[Chunk, error] {
	if s.cfg.flags.External {
		return fail(externalError(s.name))
	}
	if len(s.cfg.middlewares) == 0 {
		return s.body(ctx, input)
	}
	return chain(s, Handler(s.body), s.cfg.middlewares)(ctx, input)
}

// externalError is the reference's RuntimeError text for calling an
// external tool.
func externalError(name string) error {
	return &externalCallError{name: name}
}

type externalCallError struct{ name string }

func (e *externalCallError) Error() string {
	return e.name + " is an external tool and should not be called directly"
}

func (e *externalCallError) Is(target error) bool { return target == ErrExternal }

// fail is a stream that fails at once.
func fail(err error) iter.Seq2[Chunk, error] {
	return func(yield func(Chunk, error) bool) { yield(Chunk{}, err) }
}
