package tool

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/agentscope-go/agentscope/permission"
)

// Tool is something the model can call: what the agent needs to show it
// to a model, batch it and run it.
//
// Permission behaviour is optional: a tool that also implements
// permission.Policy (ReadOnly, CheckPermissions, MatchRule, SuggestRules)
// is judged by its own policy, any other by the reference's generic-tool
// defaults (see [PermissionSubject]). Tools built with [New], [Func] or
// [StreamFunc] implement it, configured by options such as
// [WithPermissionCheck].
type Tool interface {
	// Name is what the model calls the tool by, and what permission rules
	// are keyed by.
	Name() string
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

// PermissionSubject is what the permission engine judges t by: t itself
// when it implements permission.Policy, else permission.Defaults for t's
// name and read-only flag — the reference's generic tool, which is not
// read-only unless flagged, asks with [permission.FunctionToolMessage],
// matches only rules without content and suggests one tool-level allow
// rule. A nil t gives a nil Subject (which the engine denies).
func PermissionSubject(t Tool) permission.Subject {
	if t == nil {
		return nil
	}
	if s, ok := t.(permission.Subject); ok {
		return s
	}
	return permission.Defaults{ToolName: t.Name(), IsReadOnly: t.Flags().ReadOnly}
}

// Flags are a tool's static properties.
type Flags struct {
	// ConcurrencySafe tools may run in a concurrent batch (and unknown
	// tools are batched as if they were).
	ConcurrencySafe bool
	// ReadOnly tools are allowed by the permission engine's read-only fast
	// path (per invocation through permission.Policy.ReadOnly, which
	// defaults to this flag).
	ReadOnly bool
	// External tools are never called locally: once allowed, the agent
	// hands the call to the host and waits for its result.
	External bool
	// StateInjected tools receive the agent's state through the context
	// (see [WithState]); ignored for external tools.
	StateInjected bool
}
