package tool

import (
	"context"
	"encoding/json"
	"iter"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool/internal/pyjson"
	"github.com/agentscope-go/agentscope/tool/internal/pyschema"
)

// StructuredOutputName is the name of the structured-output tool.
const StructuredOutputName = "GenerateStructuredOutput"

// Result texts of the structured-output tool.
const (
	StructuredOutputDone        = "Structured output generated successfully."
	StructuredOutputNotRequired = "No structured output is required for now."
	structuredOutputFailPrefix  = "ValidationError: Structured output validation failed with error: "
)

// StructuredOutputDescription is the structured-output tool's description.
const StructuredOutputDescription = "Generate the required structured output by this tool.\n\n" +
	"This tool is equipped only when you're required to generate structured output.\n" +
	"The input schema represents the required structured output.\n" +
	"When you are ready to generate a structured output, call this tool with the\n" +
	"structured output as input.\n" +
	"When you're equipped this tool, you MUST end your response with calling this\n" +
	"tool. Once this tool is called, your current response is finished and the\n" +
	"structured output is sent to the user.\n\n" +
	"# When to Use This Tool\n" +
	"- When you collect enough resources and information.\n"

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
	return permission.Decision{Behavior: block.Allow, Message: StructuredOutputName + " is always allowed."}
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
			yield(ErrorChunk(structuredOutputFailPrefix+msg), nil)
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
