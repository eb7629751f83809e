package tool

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/agentscope-go/agentscope/permission"
)

// Tool is something the model can call.
//
// The permission-facing methods (Name, ReadOnly, CheckPermissions,
// MatchRule, SuggestRules) come from permission.Subject; embed
// permission.Defaults (or build the tool with [New] / [Func], which do) to
// get the reference's generic-tool policy.
type Tool interface {
	permission.Subject
	// Description is shown to the model with the schema.
	Description() string
	// InputSchema is the JSON Schema of the arguments: an object schema
	// ({"type":"object","properties":{…}}). The Toolkit strips "title" keys
	// before showing it to a model; the schema itself is kept as given.
	InputSchema() json.RawMessage
	// Flags are the static properties the agent batches and routes by.
	Flags() Flags
	// Call runs the tool. input is the parsed argument object (already
	// validated when it came through Toolkit.Prepare); it belongs to the
	// tool for the duration of the call. Chunks are incremental (see
	// [Response] for how they fold) and belong to the consumer once
	// yielded. A returned error becomes an error result whose text is
	// err.Error(). Call must honour ctx; [Run] protects the agent from tools
	// that do not.
	Call(ctx context.Context, input map[string]any) iter.Seq2[Chunk, error]
}

// Flags are a tool's static properties.
type Flags struct {
	// ConcurrencySafe tools may run in a concurrent batch (and unknown
	// tools are batched as if they were).
	ConcurrencySafe bool
	// ReadOnly tools are allowed by the permission engine's read-only fast
	// path (per invocation through permission.Subject.ReadOnly, which
	// defaults to this flag).
	ReadOnly bool
	// External tools are never called locally: once allowed, the agent
	// hands the call to the host and waits for its result.
	External bool
	// StateInjected tools receive the agent's state through the context
	// (see [WithState]); ignored for external tools.
	StateInjected bool
}
