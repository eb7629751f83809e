package tool_test

import (
	"context"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

// Tools plug into the permission engine as subjects with the reference's
// generic-tool policy (§4.4, §4.5).
func TestToolsAsPermissionSubjects(t *testing.T) {
	ctx := context.Background()
	generic := funcTools(t)["add_numbers"]
	ro := must(t)(tool.New("reader", "d", emptySchema, chunks(), tool.ReadOnly()))
	so := must(t)(tool.NewStructuredOutput(nil, nil))
	tk, _ := tool.NewToolkit(nil, tool.Group{Name: "g", Description: "G"})
	meta, _ := tk.Lookup(tool.MetaToolName)

	eng := permission.NewEngine(permission.NewContext(permission.ModeDefault))
	d := eng.Check(ctx, tool.PermissionSubject(generic), map[string]any{"a": 1.0, "b": 2.0})
	if d.Behavior != block.Ask || len(d.SuggestedRules) != 1 || d.SuggestedRules[0].ToolName != "add_numbers" {
		t.Errorf("generic tool in default mode: %+v", d)
	}
	if d := eng.Check(ctx, tool.PermissionSubject(ro), nil); d.Behavior != block.Allow {
		t.Errorf("read-only tool: %+v", d)
	}
	for _, s := range []tool.Tool{so, meta} {
		if d := eng.Check(ctx, tool.PermissionSubject(s), nil); d.Behavior != block.Allow {
			t.Errorf("%s: %+v", s.Name(), d)
		}
	}
	// An accepted suggestion allows the tool from then on.
	eng.AddRule(d.SuggestedRules[0])
	if d := eng.Check(ctx, tool.PermissionSubject(generic), nil); d.Behavior != block.Allow {
		t.Errorf("after the suggested rule: %+v", d)
	}
	explore := permission.NewEngine(permission.NewContext(permission.ModeExplore))
	if d := explore.Check(ctx, tool.PermissionSubject(generic), nil); d.Behavior != block.Deny {
		t.Errorf("explore mode: %+v", d)
	}
}

// A tool without a policy of its own gets the generic defaults for its
// name and read-only flag; one with a policy is judged by it; nil stays
// nil, which the engine denies.
func TestPermissionSubject(t *testing.T) {
	ctx := context.Background()
	eng := permission.NewEngine(permission.NewContext(permission.ModeDefault))

	plain := tool.PermissionSubject(greeter{})
	if plain != (permission.Defaults{ToolName: "greet"}) {
		t.Errorf("plain tool: %#v", plain)
	}
	ro := tool.PermissionSubject(readOnlyGreeter{})
	if ro != (permission.Defaults{ToolName: "greet", IsReadOnly: true}) {
		t.Errorf("read-only flag: %#v", ro)
	}
	if d := eng.Check(ctx, ro, nil); d.Behavior != block.Allow {
		t.Errorf("read-only flag not honoured: %+v", d)
	}

	sh := shellTool{permission.Defaults{ToolName: "Shell"}}
	if s, ok := tool.PermissionSubject(sh).(shellTool); !ok || s != sh {
		t.Errorf("a tool's own policy is replaced: %#v", tool.PermissionSubject(sh))
	}
	if d := eng.Check(ctx, tool.PermissionSubject(sh), map[string]any{"command": "ls"}); d.Behavior != block.Allow {
		t.Errorf("own ReadOnly not used: %+v", d)
	}

	if s := tool.PermissionSubject(nil); s != nil {
		t.Errorf("nil tool: %#v", s)
	}
	if d := eng.Check(ctx, tool.PermissionSubject(nil), nil); d.Behavior != block.Deny {
		t.Errorf("nil subject: %+v", d)
	}
}

type readOnlyGreeter struct{ greeter }

func (readOnlyGreeter) Flags() tool.Flags { return tool.Flags{ReadOnly: true} }
