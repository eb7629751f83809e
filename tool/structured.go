package tool

import (
	"context"
	"encoding/json"
	"iter"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
	"github.com/agentscope-go/agentscope/internal/pycompat/pyschema"
	"github.com/agentscope-go/agentscope/permission"
)

// StructuredOutputName is the name of the structured-output tool.
const StructuredOutputName = pycompat.StructuredOutputName

// Result texts of the structured-output tool.
const (
	StructuredOutputDone        = pycompat.StructuredOutputDone
	StructuredOutputNotRequired = pycompat.StructuredOutputNotRequired
)

// StructuredOutputDescription is the structured-output tool's description.
const StructuredOutputDescription = pycompat.StructuredOutputDescription

// StoreFunc receives a validated structured output (schema defaults
// filled in, extra fields kept); the agent stores it in
// state.reply_context.structured_output. A returned error becomes the
// error result.
type StoreFunc func(ctx context.Context, output map[string]any) error

// NewStructuredOutput returns the GenerateStructuredOutput tool for schema
// (§9.6): state-injected, concurrency-safe, read-only, always allowed; its
// input schema is schema with titles removed. A call fills schema defaults
// into a copy of the input, validates it against schema (Draft 2020-12),
// hands it to store and answers [StructuredOutputDone]; a validation
// failure is an error result "ValidationError: Structured output
// validation failed with error: $.path: message; …". With an empty schema
// the tool answers [StructuredOutputNotRequired] and store is not called.
func NewStructuredOutput(schema json.RawMessage, store StoreFunc) (Tool, error) {
	so := &structuredOutput{store: store}
	if len(schema) == 0 {
		so.params = json.RawMessage(`{"type":"object","properties":{}}`)
		return so, nil
	}
	v, err := NewValidator(StructuredOutputName, schema)
	if err != nil {
		return nil, err
	}
	so.v = v
	so.params = pyjsonStrip(v)
	return so, nil
}

type structuredOutput struct {
	v      *Validator // nil: no structured output required
	params json.RawMessage
	store  StoreFunc
}

func (s *structuredOutput) Name() string                 { return StructuredOutputName }
func (s *structuredOutput) Description() string          { return StructuredOutputDescription }
func (s *structuredOutput) InputSchema() json.RawMessage { return s.params }
func (s *structuredOutput) Flags() Flags {
	return Flags{ConcurrencySafe: true, ReadOnly: true, StateInjected: true}
}
func (s *structuredOutput) ReadOnly(map[string]any) bool { return true }
func (s *structuredOutput) MatchRule(content string, _ map[string]any) bool {
	return content == ""
}
func (s *structuredOutput) SuggestRules(map[string]any) []block.PermissionRule {
	return permission.DefaultSuggestions(StructuredOutputName)
}

func (s *structuredOutput) CheckPermissions(context.Context, map[string]any, *permission.Context) permission.Decision {
	return permission.Decision{Behavior: block.Allow, Message: pycompat.StructuredOutputAllowed}
}

func (s *structuredOutput) Call(ctx context.Context, input map[string]any) iter.Seq2[Chunk, error] {
	return func(yield func(Chunk, error) bool) {
		if s.v == nil {
			yield(successText(StructuredOutputNotRequired), nil)
			return
		}
		filled := pyjson.FromAny(input)
		if filled.Kind != pyjson.Object {
			filled = pyjson.Value{Kind: pyjson.Object}
		}
		pyschema.FillDefaults(s.v.tree, &filled)
		// Numbers stay literals: an integer field must not come back as 3.0.
		output, _ := filled.JSONAny().(map[string]any)
		if output == nil {
			output = map[string]any{}
		}
		if err := s.v.compiled.Validate(output); err != nil {
			details := pyschema.All(s.v.tree, filled)
			parts := make([]string, len(details))
			for i, d := range details {
				parts[i] = d.Path + ": " + d.Message
			}
			msg := strings.Join(parts, "; ")
			if msg == "" {
				msg = "$: " + fallbackMessage(err)
			}
			yield(ErrorChunk(pycompat.StructuredOutputFailed(msg)), nil)
			return
		}
		if s.store != nil {
			if err := s.store(ctx, output); err != nil {
				yield(Chunk{}, err)
				return
			}
		}
		yield(successText(StructuredOutputDone), nil)
	}
}

func successText(s string) Chunk {
	c := Text(s)
	c.State = block.ResultSuccess
	return c
}
