package permission_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
	"github.com/agentscope-go/agentscope/tool/builtin"
)

type fixtureCase struct {
	Test               string            `json:"test"`
	Mode               string            `json:"mode"`
	WorkingDirectories []string          `json:"working_directories"`
	Rules              []json.RawMessage `json:"rules"`
	Tool               string            `json:"tool"`
	Input              map[string]any    `json:"input"`
	Expect             string            `json:"expect"`

	ReasonContains    strings_ `json:"decision_reason_contains_ci"`
	ReasonNotContains strings_ `json:"decision_reason_not_contains_ci"`
	MessageAny        []string `json:"message_contains_any"`
	SuggestedInclude  []string `json:"suggested_rule_contents_include"`
	SuggestedNonEmpty *bool    `json:"suggested_rules_nonempty"`
}

// strings_ is a fixture field holding one string or a list of them.
type strings_ []string

func (s *strings_) UnmarshalJSON(data []byte) error {
	var one string
	if json.Unmarshal(data, &one) == nil {
		*s = strings_{one}
		return nil
	}
	return json.Unmarshal(data, (*[]string)(s))
}

// builtinSubjects are the built-in tools (package tool/builtin) by name,
// judged through their own permission policies.
func builtinSubjects() map[string]permission.Subject {
	out := map[string]permission.Subject{}
	for _, t := range builtin.Tools(builtin.Config{}) {
		out[t.Name()] = tool.PermissionSubject(t)
	}
	return out
}

var fakeAsk = regexp.MustCompile(`^FakeAskTool\(bypass_immune=(true|false)\)$`)

// fakeAskTool is the fixture's generic tool: not read-only, own check ASK
// with a reason that deliberately avoids the word "safety", so only the
// flag can make it immune.
type fakeAskTool struct {
	permission.Defaults
	immune bool
}

func (f fakeAskTool) CheckPermissions(context.Context, map[string]any, *permission.Context) permission.Decision {
	return permission.Decision{
		Behavior:     block.Ask,
		Message:      "fake tool requires confirmation",
		Reason:       "test-only reason without the s-word",
		BypassImmune: f.immune,
	}
}

func TestFixturePermissionCases(t *testing.T) {
	var file struct {
		Cases []fixtureCase `json:"cases"`
	}
	fixture.Load(t, &file, "spec", "fixtures", "permission_tests.json")

	builtins := builtinSubjects()
	generic, builtinRows := 0, 0
	for i, c := range file.Cases {
		var subject permission.Subject
		if m := fakeAsk.FindStringSubmatch(c.Tool); m != nil {
			generic++
			subject = fakeAskTool{Defaults: permission.Defaults{ToolName: "FakeAskTool"}, immune: m[1] == "true"}
		} else if s, ok := builtins[c.Tool]; ok {
			builtinRows++
			subject = s
		} else {
			t.Errorf("case %d %s: tool %q is neither generic nor a built-in", i, c.Test, c.Tool)
			continue
		}
		t.Run(c.Test, func(t *testing.T) {
			mode, err := permission.ParseMode(c.Mode)
			if err != nil {
				t.Fatal(err)
			}
			pc := permission.NewContext(mode)
			for _, d := range c.WorkingDirectories {
				pc.AddWorkingDirectory(d, "test")
			}
			e := permission.NewEngine(pc)
			for _, raw := range c.Rules {
				var r block.PermissionRule
				if err := json.Unmarshal(raw, &r); err != nil {
					t.Fatal(err)
				}
				e.AddRule(r)
			}
			d := e.Check(context.Background(), subject, c.Input)
			checkExpectation(t, c, d)
		})
	}
	// PE-27…PE-31: the five rows a generic tool can exercise.
	if generic != 5 {
		t.Errorf("ran %d generic rows, want 5", generic)
	}
	// Every other row uses a built-in tool.
	if builtinRows != 123 {
		t.Errorf("ran %d built-in rows, want 123", builtinRows)
	}
}

func checkExpectation(t *testing.T, c fixtureCase, d permission.Decision) {
	t.Helper()
	if !slices.Contains(strings.Split(c.Expect, "|"), string(d.Behavior)) {
		t.Errorf("behavior %q, want %s (decision %+v)", d.Behavior, c.Expect, d)
	}
	reason := strings.ToLower(d.Reason)
	for _, s := range c.ReasonContains {
		if !strings.Contains(reason, strings.ToLower(s)) {
			t.Errorf("reason %q lacks %q", d.Reason, s)
		}
	}
	for _, s := range c.ReasonNotContains {
		if strings.Contains(reason, strings.ToLower(s)) {
			t.Errorf("reason %q contains %q", d.Reason, s)
		}
	}
	if len(c.MessageAny) > 0 && !slices.ContainsFunc(c.MessageAny, func(s string) bool { return strings.Contains(d.Message, s) }) {
		t.Errorf("message %q contains none of %q", d.Message, c.MessageAny)
	}
	for _, want := range c.SuggestedInclude {
		if !slices.ContainsFunc(d.SuggestedRules, func(r block.PermissionRule) bool { return r.RuleContent == block.Some(want) }) {
			t.Errorf("suggested rules %+v lack content %q", d.SuggestedRules, want)
		}
	}
	if c.SuggestedNonEmpty != nil && *c.SuggestedNonEmpty && len(d.SuggestedRules) == 0 {
		t.Errorf("no suggested rules")
	}
}
