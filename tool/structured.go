package tool

import (
	"context"
	"encoding/json"
)

// StructuredOutputName is the name of the structured-output tool.
const StructuredOutputName = "GenerateStructuredOutput"

// Result texts of the structured-output tool.
const (
	StructuredOutputDone        = "Structured output generated successfully."
	StructuredOutputNotRequired = "No structured output is required for now."
	structuredOutputFailPrefix  = "ValidationError: Structured output validation failed with error: "
)

// StoreFunc receives a validated structured output (schema defaults
// filled in, extra fields kept); the agent stores it in
// state.reply_context.structured_output.
type StoreFunc func(ctx context.Context, output map[string]any) error

// NewStructuredOutput returns the GenerateStructuredOutput tool for schema
// (§9.6): state-injected, concurrency-safe, read-only, always allowed; its
// input schema is schema with titles removed. A call validates the input
// against schema (Draft 2020-12), fills defaults, hands the output to
// store and answers [StructuredOutputDone]; a validation failure is an
// error result "ValidationError: Structured output validation failed with
// error: $.path: message; …". With an empty schema the tool answers
// [StructuredOutputNotRequired].
func NewStructuredOutput(schema json.RawMessage, store StoreFunc) (Tool, error) {
	panic("unimplemented")
}
