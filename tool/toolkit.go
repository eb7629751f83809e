package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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

// Toolkit holds tools in groups. All methods are safe for concurrent use.
//
// The toolkit keeps no activation state: callers pass the activated group
// names (AgentState.tool_context.activated_groups) to each call, and the
// reset_tools meta tool writes the new set through the [GroupState] found
// in its context (see [WithState]).
//
// A tool's InputSchema is read and compiled once, when it is added.
type Toolkit struct {
	mu     sync.RWMutex
	groups []*group // "basic" first
	meta   *entry   // reset_tools, rebuilt when the groups change
}

type group struct {
	name, description, instructions string
	entries                         []*entry
}

type entry struct {
	tool   Tool
	group  string
	params json.RawMessage // input schema with titles stripped
	v      *Validator
}

func newEntry(t Tool, groupName string) (*entry, error) {
	schema := t.InputSchema()
	v, err := NewValidator(t.Name(), schema)
	if err != nil {
		return nil, err
	}
	return &entry{tool: t, group: groupName, params: pyjsonStrip(v), v: v}, nil
}

// ErrGroupDescription is returned for a non-basic group without a
// description.
var ErrGroupDescription = errors.New("tool group needs a description")

// NewToolkit returns a toolkit whose "basic" group holds tools, followed
// by groups in order.
func NewToolkit(tools []Tool, groups ...Group) (*Toolkit, error) {
	tk := &Toolkit{groups: []*group{{name: BasicGroup}}}
	if err := tk.addTo(tk.groups[0], tools); err != nil {
		return nil, err
	}
	for _, g := range groups {
		if err := tk.addGroup(g); err != nil {
			return nil, err
		}
	}
	tk.rebuildMeta()
	return tk, nil
}

// Clone returns a toolkit with tk's groups and tools that changes (Add,
// Remove, groups) made to either leave the other as it is. The tools and
// their compiled schemas are shared, so a clone costs a few slices, not a
// compilation: agents made from one configuration take a clone each,
// since a run mounts tools of its own into its toolkit (the reply's
// structured-output tool, an MCP server's tools) that no other run may
// see.
func (tk *Toolkit) Clone() *Toolkit {
	tk.mu.RLock()
	defer tk.mu.RUnlock()
	c := &Toolkit{groups: make([]*group, len(tk.groups))}
	for i, g := range tk.groups {
		// An entry is never written once made (Add and Remove write new
		// slices), so the clone's slice may hold the same ones.
		ng := *g
		ng.entries = slices.Clone(g.entries)
		c.groups[i] = &ng
	}
	// reset_tools answers for its own toolkit's groups.
	c.rebuildMeta()
	return c
}

// AddGroup appends a group (with its tools): ErrDuplicateGroup if the name
// exists, ErrReservedGroup for "basic", ErrGroupDescription without a
// description, a *SchemaError for a tool with an unusable schema.
func (tk *Toolkit) AddGroup(g Group) error {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if err := tk.addGroup(g); err != nil {
		return err
	}
	tk.rebuildMeta()
	return nil
}

func (tk *Toolkit) addGroup(g Group) error {
	switch {
	case g.Name == BasicGroup:
		return fmt.Errorf("%w: %q", ErrReservedGroup, g.Name)
	case tk.group(g.Name) != nil:
		return fmt.Errorf("%w: %q", ErrDuplicateGroup, g.Name)
	case g.Description == "":
		return fmt.Errorf("%w: %q", ErrGroupDescription, g.Name)
	}
	ng := &group{name: g.Name, description: g.Description, instructions: g.Instructions}
	if err := tk.addTo(ng, g.Tools); err != nil {
		return err
	}
	tk.groups = append(tk.groups, ng)
	return nil
}

// RemoveGroup drops a non-basic group and its tools; removing a group that
// does not exist is not an error.
func (tk *Toolkit) RemoveGroup(name string) error {
	if name == BasicGroup {
		return fmt.Errorf("%w: the %q group cannot be removed", ErrReservedGroup, name)
	}
	tk.mu.Lock()
	defer tk.mu.Unlock()
	tk.groups = slices.DeleteFunc(tk.groups, func(g *group) bool { return g.name == name })
	tk.rebuildMeta()
	return nil
}

// Add puts tools into a group ("" = basic), replacing same-name tools of
// that group in place. ErrUnknownGroup if the group does not exist; a
// *SchemaError if a tool's schema is unusable (nothing is added then).
func (tk *Toolkit) Add(groupName string, tools ...Tool) error {
	if groupName == "" {
		groupName = BasicGroup
	}
	tk.mu.Lock()
	defer tk.mu.Unlock()
	g := tk.group(groupName)
	if g == nil {
		return fmt.Errorf("%w: %q", ErrUnknownGroup, groupName)
	}
	return tk.addTo(g, tools)
}

// addTo validates every tool first so a bad one adds nothing.
func (tk *Toolkit) addTo(g *group, tools []Tool) error {
	entries := make([]*entry, 0, len(tools))
	for _, t := range tools {
		if t == nil {
			return &SchemaError{Tool: "<nil>", Err: errors.New("nil tool")}
		}
		e, err := newEntry(t, g.name)
		if err != nil {
			return err
		}
		entries = append(entries, e)
	}
	list := slices.Clone(g.entries)
	for _, e := range entries {
		if i := slices.IndexFunc(list, func(x *entry) bool { return x.tool.Name() == e.tool.Name() }); i >= 0 {
			list[i] = e
		} else {
			list = append(list, e)
		}
	}
	g.entries = list
	return nil
}

// Remove removes the named tools from every group.
func (tk *Toolkit) Remove(names ...string) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	for _, g := range tk.groups {
		g.entries = slices.DeleteFunc(slices.Clone(g.entries), func(e *entry) bool {
			return slices.Contains(names, e.tool.Name())
		})
	}
}

// Clear drops every tool and group (basic stays, empty).
func (tk *Toolkit) Clear() {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	tk.groups = []*group{{name: BasicGroup}}
	tk.rebuildMeta()
}

// GroupNames returns the group names in order, "basic" first.
func (tk *Toolkit) GroupNames() []string {
	tk.mu.RLock()
	defer tk.mu.RUnlock()
	out := make([]string, len(tk.groups))
	for i, g := range tk.groups {
		out[i] = g.name
	}
	return out
}

func (tk *Toolkit) group(name string) *group {
	for _, g := range tk.groups {
		if g.name == name {
			return g
		}
	}
	return nil
}

// Lookup finds a tool by name in any group, active or not (the last one
// in group order when several groups hold the name), or the reset_tools
// meta tool. It serves batching by the concurrency flag.
func (tk *Toolkit) Lookup(name string) (Tool, bool) {
	tk.mu.RLock()
	defer tk.mu.RUnlock()
	var found Tool
	for _, g := range tk.groups {
		for _, e := range g.entries {
			if e.tool.Name() == name {
				found = e.tool
			}
		}
	}
	if found == nil && tk.meta != nil && name == MetaToolName {
		found = tk.meta.tool
	}
	return found, found != nil
}

// Available returns the tool if it is in "basic" or an activated group (or
// is the reset_tools meta tool), else a *GroupInactiveError or
// *NotFoundError (the reference's check_tool_available, run before
// executing a call).
func (tk *Toolkit) Available(name string, activated []string) (Tool, error) {
	tk.mu.RLock()
	defer tk.mu.RUnlock()
	e, err := tk.available(name, activated)
	if err != nil {
		return nil, err
	}
	return e.tool, nil
}

func (tk *Toolkit) available(name string, activated []string) (*entry, error) {
	// Same answer as searching active(activated), without building it: the
	// last active entry of that name wins.
	var found *entry
	if tk.meta != nil && name == MetaToolName {
		found = tk.meta
	}
	var inactive string
	for _, g := range tk.groups {
		on := g.name == BasicGroup || slices.Contains(activated, g.name)
		for _, e := range g.entries {
			if e.tool.Name() != name {
				continue
			}
			if on {
				found = e
			} else if inactive == "" {
				inactive = g.name
			}
		}
	}
	switch {
	case found != nil:
		return found, nil
	case inactive != "":
		return nil, &GroupInactiveError{Name: name, Group: inactive}
	}
	return nil, &NotFoundError{Name: name}
}

// active lists the entries the model sees, in the reference's order.
func (tk *Toolkit) active(activated []string) []*entry {
	var out []*entry
	if tk.meta != nil {
		out = append(out, tk.meta)
	}
	for _, g := range tk.groups {
		if g.name != BasicGroup && !slices.Contains(activated, g.name) {
			continue
		}
		for _, e := range g.entries {
			// A later duplicate replaces the earlier tool at its position.
			if i := slices.IndexFunc(out, func(x *entry) bool { return x.tool.Name() == e.tool.Name() }); i >= 0 {
				out[i] = e
				continue
			}
			out = append(out, e)
		}
	}
	return out
}

// Tools returns the tools the model sees, in the reference's order: the
// reset_tools meta tool if any non-basic group exists, then the tools of
// "basic" and the activated groups in group order (a later duplicate name
// replaces the earlier tool at the earlier position).
func (tk *Toolkit) Tools(activated []string) []Tool {
	tk.mu.RLock()
	defer tk.mu.RUnlock()
	es := tk.active(activated)
	out := make([]Tool, len(es))
	for i, e := range es {
		out[i] = e.tool
	}
	return out
}

// Schemas returns the model-facing schemas of Tools(activated), with
// "title" keys stripped from the parameters. The Parameters slices are
// shared and must not be modified.
func (tk *Toolkit) Schemas(activated []string) []model.ToolSchema {
	tk.mu.RLock()
	defer tk.mu.RUnlock()
	es := tk.active(activated)
	out := make([]model.ToolSchema, len(es))
	for i, e := range es {
		out[i] = model.ToolSchema{Name: e.tool.Name(), Description: e.tool.Description(), Parameters: e.params}
	}
	return out
}

// Prepare resolves, parses and validates a call for execution (§3.7 step
// 1): Available, then [ParseInput] on call.Input, then validation against
// the tool's input schema. Every error it returns is model-facing
// (errors.Is(err, ErrModelFacing)) and its Error() is the exact text of
// the error tool result.
func (tk *Toolkit) Prepare(call *block.ToolCall, activated []string) (Tool, map[string]any, error) {
	if call == nil {
		return nil, nil, &NotFoundError{}
	}
	tk.mu.RLock()
	e, err := tk.available(call.Name, activated)
	tk.mu.RUnlock()
	if err != nil {
		return nil, nil, err
	}
	tree, err := parseInput(call.Input)
	if err != nil {
		return nil, nil, err
	}
	input, _ := tree.Any().(map[string]any)
	if input == nil {
		input = map[string]any{}
	}
	if err := e.v.validate(input, &tree); err != nil {
		return nil, nil, err
	}
	return e.tool, input, nil
}
