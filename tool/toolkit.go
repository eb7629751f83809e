package tool

import (
	"sync"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/model"
)

// BasicGroup is the reserved group that is always active.
const BasicGroup = "basic"

// Group is a named set of tools the model can switch on and off with the
// reset_tools meta tool.
type Group struct {
	Name string
	// Description is shown as the group's reset_tools parameter
	// description; required for every group but "basic".
	Description string
	// Instructions are returned by reset_tools when the group is activated.
	Instructions string
	Tools        []Tool
}

// Toolkit holds tools in groups. Reads (Schemas, Lookup, Available,
// Prepare, Tools) are safe concurrently with each other and with changes.
// The toolkit keeps no activation state: callers pass the activated group
// names (from AgentState.tool_context.activated_groups) to each call.
type Toolkit struct {
	mu     sync.RWMutex
	groups []*group // "basic" first
}

type group struct {
	Group
	entries []*entry
}

type entry struct {
	tool   Tool
	params []byte // input schema with titles stripped
	v      *Validator
}

// NewToolkit returns a toolkit whose "basic" group holds tools, followed
// by groups in order. Tool names are not checked across groups (a later
// one wins, as in the reference).
func NewToolkit(tools []Tool, groups ...Group) (*Toolkit, error) { panic("unimplemented") }

// AddGroup appends a group; *ErrDuplicateGroup if the name exists,
// ErrReservedGroup for "basic", an error if Description is empty.
func (tk *Toolkit) AddGroup(g Group) error { panic("unimplemented") }

// RemoveGroup drops a non-basic group and its tools.
func (tk *Toolkit) RemoveGroup(name string) error { panic("unimplemented") }

// Add puts tools into a group ("" = basic), replacing same-name tools of
// that group in place. ErrUnknownGroup if the group does not exist; a
// *SchemaError if a tool's schema is unusable (nothing is added then).
func (tk *Toolkit) Add(groupName string, tools ...Tool) error { panic("unimplemented") }

// Remove removes the named tools from every group.
func (tk *Toolkit) Remove(names ...string) { panic("unimplemented") }

// Clear drops every tool and group (basic becomes empty).
func (tk *Toolkit) Clear() { panic("unimplemented") }

// GroupNames returns the group names in order, "basic" first.
func (tk *Toolkit) GroupNames() []string { panic("unimplemented") }

// Lookup finds a tool by name in any group, active or not (used to batch
// calls by their concurrency flag).
func (tk *Toolkit) Lookup(name string) (Tool, bool) { panic("unimplemented") }

// Available returns the tool if it is in "basic" or an activated group,
// else a *GroupInactiveError or *NotFoundError (the reference's
// check_tool_available, run before executing a call).
func (tk *Toolkit) Available(name string, activated []string) (Tool, error) {
	panic("unimplemented")
}

// Tools returns the tools the model sees, in the reference's order: the
// reset_tools meta tool if any non-basic group exists, then the tools of
// "basic" and the activated groups in group order (a later duplicate name
// replaces the earlier tool at the earlier position).
func (tk *Toolkit) Tools(activated []string) []Tool { panic("unimplemented") }

// Schemas returns the model-facing schemas of Tools(activated), with
// "title" keys stripped from the parameters.
func (tk *Toolkit) Schemas(activated []string) []model.ToolSchema { panic("unimplemented") }

// Prepare resolves, parses and validates a call for execution (§3.7 step
// 1): Available, then [ParseInput] on call.Input, then schema validation.
// Every error it returns is model-facing (errors.Is(err, ErrModelFacing))
// and its Error() is the exact text of the error tool result.
func (tk *Toolkit) Prepare(call *block.ToolCall, activated []string) (Tool, map[string]any, error) {
	panic("unimplemented")
}

// ResetGroups applies a reset_tools input: the groups set to true become
// the activated set (in group order), everything else is deactivated. It
// returns the new set and the result text; an unknown group name or a
// non-boolean value is an error whose text is the error result.
func (tk *Toolkit) ResetGroups(input map[string]any) (activated []string, text string, err error) {
	panic("unimplemented")
}
