package permission_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/permission"
)

// shell is a tool with its own rule patterns: content "X" covers commands
// starting with X. Embedding Defaults supplies the rest.
type shell struct{ permission.Defaults }

func (shell) MatchRule(content string, input map[string]any) bool {
	cmd, _ := input["command"].(string)
	return strings.HasPrefix(cmd, content)
}

func ExampleEngine_Check() {
	e := permission.NewEngine(permission.NewContext(permission.ModeDefault))
	tool := shell{permission.Defaults{ToolName: "Shell"}}
	ctx := context.Background()

	d := e.Check(ctx, tool, map[string]any{"command": "git status"})
	fmt.Println(d.Behavior, "-", d.Message, "-", d.Reason)

	// The user accepts the suggested rule; the engine learns it.
	for _, r := range d.SuggestedRules {
		e.AddRule(r)
	}
	d = e.Check(ctx, tool, map[string]any{"command": "git push"})
	fmt.Println(d.Behavior, "-", d.Message)

	e.AddRule(block.PermissionRule{ToolName: "Shell", RuleContent: block.Some("rm"), Behavior: block.Deny, Source: "userSettings"})
	d = e.Check(ctx, tool, map[string]any{"command": "rm -rf build"})
	fmt.Println(d.Behavior, "-", d.Message, "-", d.Reason)
	// Output:
	// ask - Permission required for Shell - Mode: default
	// allow - Permission granted for Shell
	// deny - Permission to use Shell has been denied - Rule: rm
}

func ExampleContext_MarshalJSON() {
	pc := permission.NewContext(permission.ModeDontAsk)
	e := permission.NewEngine(pc)
	e.AddRule(block.PermissionRule{ToolName: "echo", Behavior: block.Deny, Source: "userSettings"})

	out, _ := json.Marshal(pc)
	fmt.Println(string(out))

	var back permission.Context
	fmt.Println(json.Unmarshal([]byte(`{"mode":"sometimes"}`), &back))
	// Output:
	// {"mode":"dont_ask","working_directories":{},"allow_rules":{},"deny_rules":{"echo":[{"tool_name":"echo","rule_content":null,"behavior":"deny","source":"userSettings"}]},"ask_rules":{}}
	// permission: unknown mode "sometimes"
}

func ExampleBatch() {
	e := permission.NewEngine(nil)
	tool := permission.Defaults{ToolName: "deploy"}
	var batch permission.Batch // one per concurrent batch
	for _, target := range []string{"staging", "prod"} {
		in := map[string]any{"target": target}
		d := e.Check(context.Background(), tool, in)
		fmt.Println(target, d.Behavior, "surface:", batch.Admit(tool, in, d))
	}
	// Output:
	// staging ask surface: true
	// prod ask surface: false
}

// lines is a tool whose one invocation is several commands, one a line:
// an allow rule (a command prefix) grants it only when every command is
// covered by some rule.
type lines struct{ shell }

func (lines) CoveredBy(allow []block.PermissionRule, input map[string]any) bool {
	cmd, _ := input["command"].(string)
	for _, c := range strings.Split(cmd, "\n") {
		covered := false
		for _, r := range allow {
			covered = covered || strings.HasPrefix(c, r.RuleContent.String)
		}
		if !covered {
			return false
		}
	}
	return true
}

func ExampleComposite() {
	e := permission.NewEngine(permission.NewContext(permission.ModeDefault))
	e.AddRule(block.PermissionRule{ToolName: "Shell", RuleContent: block.Some("git "), Behavior: block.Allow})
	tool := lines{shell{permission.Defaults{ToolName: "Shell"}}}
	for _, cmd := range []string{"git add .\ngit commit", "git add .\nrm -rf ~"} {
		fmt.Printf("%q: %s\n", cmd, e.Check(context.Background(), tool, map[string]any{"command": cmd}).Behavior)
	}
	// Output:
	// "git add .\ngit commit": allow
	// "git add .\nrm -rf ~": ask
}
