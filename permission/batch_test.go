package permission_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"sync"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/permission"
)

const askC = "mock_user_confirm_concurrent_tool"

func suggested(tool string) block.PermissionRule {
	return block.PermissionRule{ToolName: tool, Behavior: block.Allow, Source: "suggested"}
}

// runBatch checks calls in call order within one concurrent batch and
// returns, per call, whether it was surfaced and its decision.
func runBatch(e *permission.Engine, tools []permission.Subject, inputs []map[string]any) ([]bool, []permission.Decision) {
	var b permission.Batch
	surfaced := make([]bool, len(tools))
	ds := make([]permission.Decision, len(tools))
	for i, tool := range tools {
		ds[i] = e.Check(context.Background(), tool, inputs[i])
		surfaced[i] = ds[i].AsksUser() && b.Admit(tool, inputs[i], ds[i])
	}
	return surfaced, ds
}

// HC-3 and HC-4: concurrent calls to the same asking tool surface once;
// confirming without rules re-surfaces the deferred call on the next run,
// confirming with the suggested rule allows it.
func TestBatchSameToolDedupHC3HC4(t *testing.T) {
	tool := permission.Defaults{ToolName: askC}
	calls := []permission.Subject{tool, tool}
	inputs := []map[string]any{{"input": "test1"}, {"input": "test2"}}

	e := permission.NewEngine(nil)
	surfaced, ds := runBatch(e, calls, inputs)
	if !reflect.DeepEqual(surfaced, []bool{true, false}) {
		t.Fatalf("surfaced %v, want only the first", surfaced)
	}
	if !reflect.DeepEqual(ds[0].SuggestedRules, []block.PermissionRule{suggested(askC)}) {
		t.Errorf("suggestions %+v", ds[0].SuggestedRules)
	}

	// HC-3 phase 2: approved without rules; the deferred call is checked
	// again in the next batch and prompts on its own.
	surfaced, _ = runBatch(e, calls[1:], inputs[1:])
	if !surfaced[0] {
		t.Error("deferred call was not surfaced on the next run")
	}

	// HC-4: approved with the suggested rule; the deferred call is allowed.
	e.AddRule(ds[0].SuggestedRules[0])
	d := e.Check(context.Background(), tool, inputs[1])
	if d.Behavior != block.Allow || d.Message != "Permission granted for "+askC {
		t.Errorf("after accepting the rule: %+v", d)
	}
}

// HC-5: different tools each surface.
func TestBatchDifferentToolsHC5(t *testing.T) {
	a := permission.Defaults{ToolName: askC}
	b := permission.Defaults{ToolName: askC + "_b"}
	surfaced, ds := runBatch(permission.NewEngine(nil), []permission.Subject{a, b},
		[]map[string]any{{"input": "test1"}, {"input": "test2"}})
	if !reflect.DeepEqual(surfaced, []bool{true, true}) {
		t.Errorf("surfaced %v", surfaced)
	}
	if ds[1].SuggestedRules[0].ToolName != askC+"_b" {
		t.Errorf("%+v", ds[1])
	}
}

func TestBatchRules(t *testing.T) {
	tool := prefixTool()
	ask := func(cmd string) permission.Decision {
		return permission.Decision{Behavior: block.Ask,
			SuggestedRules: tool.SuggestRules(map[string]any{"cmd": cmd})}
	}
	in := func(cmd string) map[string]any { return map[string]any{"cmd": cmd} }

	var b permission.Batch
	steps := []struct {
		name string
		d    permission.Decision
		cmd  string
		want bool
	}{
		{"first ask surfaces", ask("git status"), "git status", true},
		{"covered by the kept rule", ask("git log"), "git log", false},
		{"not covered", ask("npm i"), "npm i", true},
		{"passthrough is an ask too", permission.Decision{Behavior: block.Passthrough}, "npm x", false},
		{"safety asks are never de-duplicated", permission.Decision{Behavior: block.Ask, BypassImmune: true,
			SuggestedRules: []block.PermissionRule{rule("t", "", block.Allow)}}, "git push", true},
		{"allow is admitted", permission.Decision{Behavior: block.Allow}, "git x", true},
		{"deny is admitted", permission.Decision{Behavior: block.Deny}, "git x", true},
	}
	for _, s := range steps {
		if got := b.Admit(tool, in(s.cmd), s.d); got != s.want {
			t.Errorf("%s: Admit = %v", s.name, got)
		}
	}
	// Only surfaced non-safety asks contribute rules.
	want := []block.PermissionRule{
		{ToolName: "t", RuleContent: block.Some("git"), Behavior: block.Allow, Source: "suggested"},
		{ToolName: "t", RuleContent: block.Some("npm"), Behavior: block.Allow, Source: "suggested"},
	}
	if got := b.Kept(); !reflect.DeepEqual(got, want) {
		t.Errorf("kept %+v", got)
	}
	// A kept rule of another tool never covers.
	other := newTool("u", block.Ask)
	if !b.Admit(other, nil, permission.Decision{Behavior: block.Ask}) {
		t.Error("another tool's ask was de-duplicated")
	}
}

func TestBatchConcurrentAdmit(t *testing.T) {
	tool := permission.Defaults{ToolName: "t"}
	d := permission.Decision{Behavior: block.Ask, SuggestedRules: permission.DefaultSuggestions("t")}
	var b permission.Batch
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			if b.Admit(tool, nil, d) {
				mu.Lock()
				n++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if n != 1 {
		t.Errorf("%d calls surfaced, want exactly 1", n)
	}
}

// The golden trace permission_concurrent_ask_same_tool_dedup: after the
// user approves with the suggested rule, the persisted permission_context
// is exactly what the engine learned.
func TestLearnedRuleMatchesGoldenState(t *testing.T) {
	data, err := os.ReadFile(fixture.Path(t, "conformance", "golden", "permission_concurrent_ask_same_tool_dedup.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Steps []struct {
			State struct {
				PermissionContext json.RawMessage `json:"permission_context"`
			} `json:"state"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	last := doc.Steps[len(doc.Steps)-1].State.PermissionContext

	pc := permission.NewContext(permission.ModeDefault)
	e := permission.NewEngine(pc)
	tool := permission.Defaults{ToolName: "ask_conc"}
	d := e.Check(context.Background(), tool, map[string]any{"text": "1"})
	for _, r := range d.SuggestedRules {
		e.AddRule(r)
	}
	var want bytes.Buffer
	if err := json.Compact(&want, last); err != nil {
		t.Fatal(err)
	}
	if got := e.AppendJSON(nil); !bytes.Equal(got, want.Bytes()) {
		t.Errorf("learned context\n got %s\nwant %s", got, want.Bytes())
	}
	if d := e.Check(context.Background(), tool, map[string]any{"text": "2"}); d.Behavior != block.Allow {
		t.Errorf("second call: %+v", d)
	}
}
