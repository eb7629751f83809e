package permission_test

import (
	"context"
	"strings"
	"sync/atomic"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/permission"
)

// scripted is a generic tool whose own check returns a fixed decision. It
// counts how often the engine consulted the check, and matches rule content
// as a prefix of input["cmd"] so content rules can be exercised without the
// built-in tools.
type scripted struct {
	permission.Defaults
	own    permission.Decision
	calls  atomic.Int32
	prefix bool
}

func (s *scripted) CheckPermissions(context.Context, map[string]any, *permission.Context) permission.Decision {
	s.calls.Add(1)
	d := s.own
	d.SuggestedRules = []block.PermissionRule{{ToolName: "tool-own", Behavior: block.Allow, Source: "own"}}
	return d
}

func (s *scripted) MatchRule(content string, input map[string]any) bool {
	if !s.prefix {
		return s.Defaults.MatchRule(content, input)
	}
	cmd, _ := input["cmd"].(string)
	return strings.HasPrefix(cmd, content)
}

func (s *scripted) SuggestRules(input map[string]any) []block.PermissionRule {
	if !s.prefix {
		return s.Defaults.SuggestRules(input)
	}
	cmd, _ := input["cmd"].(string)
	word, _, _ := strings.Cut(cmd, " ")
	return []block.PermissionRule{{ToolName: s.ToolName, RuleContent: block.Some(word), Behavior: block.Allow, Source: permission.SourceSuggested}}
}

func newTool(name string, own block.Behavior) *scripted {
	return &scripted{
		Defaults: permission.Defaults{ToolName: name},
		own:      permission.Decision{Behavior: own, Message: name + ": own " + string(own), Reason: "scripted"},
	}
}

func safetyTool(name string) *scripted {
	t := newTool(name, block.Ask)
	t.own.BypassImmune = true
	t.own.Message = "dangerous"
	t.own.Reason = "safety check"
	return t
}

func rule(tool, content string, b block.Behavior) block.PermissionRule {
	r := block.PermissionRule{ToolName: tool, Behavior: b, Source: "test"}
	if content != "" { // "" stands for null here
		r.RuleContent = block.Some(content)
	}
	return r
}

func engineWith(mode permission.Mode, rules ...block.PermissionRule) *permission.Engine {
	e := permission.NewEngine(permission.NewContext(mode))
	for _, r := range rules {
		e.AddRule(r)
	}
	return e
}
