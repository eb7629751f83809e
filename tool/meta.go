package tool

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
	"github.com/agentscope-go/agentscope/permission"
)

// MetaToolName is the name of the meta tool that switches groups.
const MetaToolName = pycompat.MetaToolName

// MetaToolDescription is reset_tools' description.
const MetaToolDescription = pycompat.MetaToolDescription

// ErrNoGroupState is the error result of reset_tools called without an
// agent state implementing GroupState in its context.
var ErrNoGroupState = errors.New(pycompat.MetaToolNoState)

// rebuildMeta recomputes reset_tools for the current groups; the caller
// holds the write lock (or owns tk exclusively).
func (tk *Toolkit) rebuildMeta() {
	if len(tk.groups) < 2 {
		tk.meta = nil
		return
	}
	props := obj()
	for _, g := range tk.groups[1:] {
		p := obj()
		p.Set("default", pyjson.Value{Kind: pyjson.Bool})
		p.Set("description", str(g.description))
		p.Set("type", str("boolean"))
		props.Set(g.name, p)
	}
	schema := obj()
	schema.Set("properties", props)
	schema.Set("type", str("object"))
	m := &metaTool{tk: tk, schema: pyjson.AppendJSON(nil, schema)}
	e, err := newEntry(m, BasicGroup)
	if err != nil {
		panic("tool: reset_tools schema does not compile: " + err.Error()) // built here, cannot happen
	}
	tk.meta = e
}

// metaTool is reset_tools.
type metaTool struct {
	tk     *Toolkit
	schema json.RawMessage
}

func (m *metaTool) Name() string                 { return MetaToolName }
func (m *metaTool) Description() string          { return MetaToolDescription }
func (m *metaTool) InputSchema() json.RawMessage { return m.schema }
func (m *metaTool) Flags() Flags                 { return Flags{ConcurrencySafe: true, StateInjected: true} }
func (m *metaTool) ReadOnly(map[string]any) bool { return false }
func (m *metaTool) MatchRule(content string, _ map[string]any) bool {
	return content == ""
}
func (m *metaTool) SuggestRules(map[string]any) []block.PermissionRule {
	return permission.DefaultSuggestions(MetaToolName)
}

func (m *metaTool) CheckPermissions(context.Context, map[string]any, *permission.Context) permission.Decision {
	return permission.Decision{Behavior: block.Allow, Message: pycompat.MetaToolAllowed}
}

func (m *metaTool) Call(ctx context.Context, input map[string]any) iter.Seq2[Chunk, error] {
	return func(yield func(Chunk, error) bool) {
		gs, ok := StateFrom(ctx).(GroupState)
		if !ok {
			yield(Chunk{}, ErrNoGroupState)
			return
		}
		activated, text, err := m.tk.ResetGroups(input)
		if err != nil {
			yield(Chunk{}, err)
			return
		}
		gs.SetActivatedGroups(activated)
		yield(Text(text), nil)
	}
}

// ResetGroups applies a reset_tools input: the groups set to true become
// the activated set (in group order), everything else is deactivated. It
// returns the new set and the result text; a non-boolean value or an
// unknown group name is an error whose text is the error result.
func (tk *Toolkit) ResetGroups(input map[string]any) (activated []string, text string, err error) {
	keys := make([]string, 0, len(input))
	for k := range input {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var unknown []string
	for _, k := range keys {
		if _, ok := input[k].(bool); !ok {
			return nil, "", errors.New(pycompat.MetaToolNotBool(k, pyjson.FromAny(input[k]).TypeName()))
		}
	}
	tk.mu.RLock()
	defer tk.mu.RUnlock()
	var names []string
	for _, k := range keys {
		if k == BasicGroup || tk.group(k) == nil {
			unknown = append(unknown, k)
		}
	}
	for _, g := range tk.groups[1:] {
		names = append(names, g.name)
	}
	if len(unknown) > 0 {
		return nil, "", errors.New(pycompat.MetaToolUnknownGroups(unknown, names))
	}
	var groups []*group
	for _, g := range tk.groups[1:] {
		if on, _ := input[g.name].(bool); on {
			activated = append(activated, g.name)
			groups = append(groups, g)
		}
	}
	return activated, renderActivation(groups), nil
}

// renderActivation renders the reference's default meta-tool response
// template.
func renderActivation(groups []*group) string {
	gs := make([]pycompat.GroupInstructions, len(groups))
	for i, g := range groups {
		gs[i] = pycompat.GroupInstructions{Name: g.name, Instructions: g.instructions}
	}
	return pycompat.MetaToolActivated(gs)
}
