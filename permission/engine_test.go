package permission_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/permission"
)

const (
	A  = block.Allow
	D  = block.Deny
	K  = block.Ask
	PT = block.Passthrough
)

// generic is the suggestion of a tool without argument patterns (§0.2).
var generic = []block.PermissionRule{{ToolName: "t", Behavior: A, Source: "suggested"}}

// own is what scripted tools put in their own SuggestedRules; the engine
// must replace it on the asks it returns with suggestions.
var own = []block.PermissionRule{{ToolName: "tool-own", Behavior: A, Source: "own"}}

var allModes = []permission.Mode{
	permission.ModeDefault, permission.ModeAcceptEdits, permission.ModeExplore,
	permission.ModeBypass, permission.ModeDontAsk,
}

// Exact texts of §4.4 for tool "t".
const (
	msgDenied    = "Permission to use t has been denied"
	msgRequired  = "Permission required for t"
	msgGranted   = "Permission granted for t"
	msgReadOnly  = "Permission granted for t (read-only invocation)"
	rsnReadOnly  = "Read-only operations are auto-allowed"
	msgExplore   = "Permission denied for t (explore mode is read-only)"
	rsnExplore   = "Explore mode does not allow modifications"
	msgBypass    = "Permission granted for t (bypass mode)"
	rsnBypass    = "Bypass mode allows all operations"
	msgDontAsk   = "Permission denied for t (dont_ask mode - user not available)"
	rsnDontAsk   = "User is not available to answer permission prompts"
	msgConverted = "Permission denied for t (dont_ask mode - ASK converted to DENY, user not available)"
	rsnConverted = "DONT_ASK mode converted ASK to DENY. Original reason: "
)

type engineCase struct {
	name  string
	mode  permission.Mode
	rules []block.PermissionRule
	tool  func() *scripted
	input map[string]any

	want      permission.Decision
	wantCalls int32 // times the tool's own check ran
}

func roTool() *scripted {
	t := newTool("t", K) // its own check would ask: the fast path must not consult it
	t.IsReadOnly = true
	return t
}
func ownTool(b block.Behavior) func() *scripted {
	return func() *scripted { return newTool("t", b) }
}
func safeT() *scripted { return safetyTool("t") }
func prefixTool() *scripted {
	t := newTool("t", K)
	t.prefix = true
	return t
}

func ownDecision(b block.Behavior) permission.Decision {
	return permission.Decision{Behavior: b, Message: "t: own " + string(b), Reason: "scripted", SuggestedRules: own}
}

var safetyAsk = permission.Decision{Behavior: K, Message: "dangerous", Reason: "safety check", BypassImmune: true, SuggestedRules: generic}

func engineCases() []engineCase {
	in := map[string]any{"cmd": "x"}
	var cs []engineCase
	add := func(c engineCase) {
		if c.input == nil {
			c.input = in
		}
		cs = append(cs, c)
	}
	for _, m := range allModes {
		// Step 1: a deny rule wins over everything, read-only included.
		add(engineCase{name: "deny rule beats read-only", mode: m, tool: roTool,
			rules: []block.PermissionRule{rule("t", "", A), rule("t", "", K), rule("t", "", D)},
			want:  permission.Decision{Behavior: D, Message: msgDenied, Reason: "Rule: None"}})
		// Step 2: ask rules beat allow rules and the read-only fast path.
		wantAsk := permission.Decision{Behavior: K, Message: msgRequired, Reason: "Rule: None", SuggestedRules: generic}
		if m == permission.ModeDontAsk {
			wantAsk = permission.Decision{Behavior: D, Message: msgConverted, Reason: rsnConverted + "Rule: None", SuggestedRules: generic}
		}
		add(engineCase{name: "ask rule beats allow rule and read-only", mode: m, tool: roTool,
			rules: []block.PermissionRule{rule("t", "", A), rule("t", "", K)}, want: wantAsk})
		// Step 3: read-only fast path, without consulting the tool.
		add(engineCase{name: "read-only fast path", mode: m, tool: roTool,
			want: permission.Decision{Behavior: A, Message: msgReadOnly, Reason: rsnReadOnly}})
		// Rules of other tools never apply.
		add(engineCase{name: "other tool's deny rule ignored", mode: m, tool: roTool,
			rules: []block.PermissionRule{rule("u", "", D)},
			want:  permission.Decision{Behavior: A, Message: msgReadOnly, Reason: rsnReadOnly}})
	}

	// EXPLORE: the read-only verdict settles everything; the tool's own
	// check is never called and allow rules cannot grant a modification.
	for _, b := range []block.Behavior{A, D, K, PT} {
		add(engineCase{name: "explore denies non-read-only, own " + string(b), mode: permission.ModeExplore,
			tool: ownTool(b), rules: []block.PermissionRule{rule("t", "", A)},
			want: permission.Decision{Behavior: D, Message: msgExplore, Reason: rsnExplore}})
	}
	add(engineCase{name: "explore denies a safety ask too", mode: permission.ModeExplore, tool: safeT,
		want: permission.Decision{Behavior: D, Message: msgExplore, Reason: rsnExplore}})

	for _, m := range []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModeBypass, permission.ModeDontAsk} {
		// Step 4: the tool's own ALLOW / DENY come back untouched, even
		// against rules pointing the other way.
		add(engineCase{name: "own allow returned as-is", mode: m, tool: ownTool(A), wantCalls: 1, want: ownDecision(A)})
		add(engineCase{name: "own deny beats allow rule", mode: m, tool: ownTool(D), wantCalls: 1,
			rules: []block.PermissionRule{rule("t", "", A)}, want: ownDecision(D)})

		// Step 5: allow rules settle a non-safety ask or passthrough.
		for _, b := range []block.Behavior{K, PT, ""} {
			add(engineCase{name: fmt.Sprintf("allow rule overrides own %q", b), mode: m, tool: ownTool(b), wantCalls: 1,
				rules: []block.PermissionRule{rule("t", "", A)},
				want:  permission.Decision{Behavior: A, Message: msgGranted, UpdatedInput: in}})
		}
	}

	// Step 4, safety ASK.
	for _, m := range []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits} {
		add(engineCase{name: "safety ask returned with suggestions", mode: m, tool: safeT, wantCalls: 1, want: safetyAsk})
		add(engineCase{name: "allow rule cannot override safety ask", mode: m, tool: safeT, wantCalls: 1,
			rules: []block.PermissionRule{rule("t", "", A)}, want: safetyAsk})
	}
	add(engineCase{name: "dont_ask converts safety ask", mode: permission.ModeDontAsk, tool: safeT, wantCalls: 1,
		rules: []block.PermissionRule{rule("t", "", A)},
		want:  permission.Decision{Behavior: D, Message: msgConverted, Reason: rsnConverted + "safety check", SuggestedRules: generic}})
	add(engineCase{name: "dont_ask conversion of a reason-less safety ask", mode: permission.ModeDontAsk, wantCalls: 1,
		tool: func() *scripted { t := safetyTool("t"); t.own.Reason = ""; return t },
		want: permission.Decision{Behavior: D, Message: msgConverted, Reason: rsnConverted + "None", SuggestedRules: generic}})
	add(engineCase{name: "bypass ignores safety ask", mode: permission.ModeBypass, tool: safeT, wantCalls: 1,
		want: permission.Decision{Behavior: A, Message: msgBypass, Reason: rsnBypass}})
	add(engineCase{name: "bypass ignores safety ask, allow rule", mode: permission.ModeBypass, tool: safeT, wantCalls: 1,
		rules: []block.PermissionRule{rule("t", "", A)},
		want:  permission.Decision{Behavior: A, Message: msgGranted, UpdatedInput: in}})
	add(engineCase{name: "immune flag on a passthrough is no safety ask", mode: permission.ModeDefault, wantCalls: 1,
		tool:  func() *scripted { t := newTool("t", PT); t.own.BypassImmune = true; return t },
		rules: []block.PermissionRule{rule("t", "", A)},
		want:  permission.Decision{Behavior: A, Message: msgGranted, UpdatedInput: in}})

	// Step 6: fallbacks for a non-safety ask / passthrough without rules;
	// the tool's own message is discarded.
	for _, b := range []block.Behavior{K, PT} {
		add(engineCase{name: "default fallback asks, own " + string(b), mode: permission.ModeDefault, tool: ownTool(b), wantCalls: 1,
			want: permission.Decision{Behavior: K, Message: msgRequired, Reason: "Mode: default", SuggestedRules: generic}})
		add(engineCase{name: "accept_edits fallback asks, own " + string(b), mode: permission.ModeAcceptEdits, tool: ownTool(b), wantCalls: 1,
			want: permission.Decision{Behavior: K, Message: msgRequired, Reason: "Mode: accept_edits", SuggestedRules: generic}})
		add(engineCase{name: "bypass fallback allows, own " + string(b), mode: permission.ModeBypass, tool: ownTool(b), wantCalls: 1,
			want: permission.Decision{Behavior: A, Message: msgBypass, Reason: rsnBypass}})
		add(engineCase{name: "dont_ask fallback denies, own " + string(b), mode: permission.ModeDontAsk, tool: ownTool(b), wantCalls: 1,
			want: permission.Decision{Behavior: D, Message: msgDontAsk, Reason: rsnDontAsk}})
	}

	// Rules with content go through the tool's matcher.
	git := map[string]any{"cmd": "git status"}
	npm := map[string]any{"cmd": "npm install"}
	add(engineCase{name: "content allow rule matches", mode: permission.ModeDefault, tool: prefixTool, input: git, wantCalls: 1,
		rules: []block.PermissionRule{rule("t", "git", A)},
		want:  permission.Decision{Behavior: A, Message: msgGranted, UpdatedInput: git}})
	add(engineCase{name: "content allow rule does not match", mode: permission.ModeDefault, tool: prefixTool, input: npm, wantCalls: 1,
		rules: []block.PermissionRule{rule("t", "git", A)},
		want: permission.Decision{Behavior: K, Message: msgRequired, Reason: "Mode: default",
			SuggestedRules: []block.PermissionRule{{ToolName: "t", RuleContent: block.Some("npm"), Behavior: A, Source: "suggested"}}}})
	add(engineCase{name: "first matching deny rule names its content", mode: permission.ModeDefault, tool: prefixTool, input: git,
		rules: []block.PermissionRule{rule("t", "npm", D), rule("t", "git", D), rule("t", "", D)},
		want:  permission.Decision{Behavior: D, Message: msgDenied, Reason: "Rule: git"}})
	add(engineCase{name: "generic tool: content rules never match", mode: permission.ModeDefault, tool: ownTool(K), wantCalls: 1,
		rules: []block.PermissionRule{rule("t", "x", A), rule("t", "x", D), rule("t", "x", K)},
		want:  permission.Decision{Behavior: K, Message: msgRequired, Reason: "Mode: default", SuggestedRules: generic}})
	return cs
}

func TestEngineCheckPerModeOrder(t *testing.T) {
	for _, c := range engineCases() {
		t.Run(string(c.mode)+"/"+c.name, func(t *testing.T) {
			e := engineWith(c.mode, c.rules...)
			tool := c.tool()
			got := e.Check(context.Background(), tool, c.input)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("decision\n got %+v\nwant %+v", got, c.want)
			}
			if n := tool.calls.Load(); n != c.wantCalls {
				t.Errorf("tool's own check ran %d times, want %d", n, c.wantCalls)
			}
			if c.mode == permission.ModeDontAsk && got.Behavior == K {
				t.Error("DONT_ASK returned ASK")
			}
		})
	}
}

// The generic tools of the scenario catalogue (§0.7) in DEFAULT mode.
func TestGenericToolsInDefaultMode(t *testing.T) {
	e := permission.NewEngine(nil)
	in := map[string]any{"input": "test1"}

	seq := permission.Defaults{ToolName: "mock_sequential_tool", IsReadOnly: true}
	if d := e.Check(context.Background(), seq, in); d.Behavior != A {
		t.Errorf("read-only tool: %+v", d)
	}
	ask := permission.Defaults{ToolName: "mock_user_confirm_sequential_tool"}
	d := e.Check(context.Background(), ask, in)
	want := permission.Decision{
		Behavior: K, Message: "Permission required for mock_user_confirm_sequential_tool", Reason: "Mode: default",
		SuggestedRules: []block.PermissionRule{{ToolName: "mock_user_confirm_sequential_tool", Behavior: A, Source: "suggested"}},
	}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("ask tool\n got %+v\nwant %+v", d, want)
	}
	if !d.AsksUser() || d.SafetyAsk() {
		t.Errorf("AsksUser %v SafetyAsk %v", d.AsksUser(), d.SafetyAsk())
	}
	// The default tool's own check is the function-tool ASK.
	own := ask.CheckPermissions(context.Background(), in, e.Context())
	if own.Behavior != K || own.Message != permission.FunctionToolMessage || own.BypassImmune {
		t.Errorf("Defaults.CheckPermissions = %+v", own)
	}
}

func TestAddRule(t *testing.T) {
	pc := permission.NewContext(permission.ModeDefault)
	e := permission.NewEngine(pc)
	r := block.PermissionRule{ToolName: "t", Behavior: A, Source: "suggested"}
	if !e.AddRule(r) || !e.AddRule(r) {
		t.Fatal("allow rule not kept")
	}
	if e.AddRule(block.PermissionRule{ToolName: "t", Behavior: PT, Source: "x"}) {
		t.Error("passthrough rule kept")
	}
	if e.AddRule(block.PermissionRule{ToolName: "t", Behavior: "maybe", Source: "x"}) {
		t.Error("unknown behavior kept")
	}
	e.AddRule(rule("t", "", D))
	e.AddRule(rule("u", "", K))

	// No de-duplication, and the caller's Context holds the learned rules.
	if got := pc.AllowRules["t"]; !reflect.DeepEqual(got, []block.PermissionRule{r, r}) {
		t.Errorf("allow rules in the caller's context: %+v", got)
	}
	if got := e.Rules(D, "t"); !reflect.DeepEqual(got, []block.PermissionRule{rule("t", "", D)}) {
		t.Errorf("deny rules: %+v", got)
	}
	if got := e.Rules(K, "u"); len(got) != 1 {
		t.Errorf("ask rules: %+v", got)
	}
	if got := e.Rules(PT, "t"); got != nil {
		t.Errorf("passthrough rules: %+v", got)
	}
	// Rules hands out a copy.
	cp := e.Rules(A, "t")
	cp[0].Source = "changed"
	if pc.AllowRules["t"][0].Source != "suggested" {
		t.Error("Rules returned the engine's own slice")
	}
	// A learned rule changes the next decision (§5.2).
	if d := e.Check(context.Background(), permission.Defaults{ToolName: "t"}, nil); d.Behavior != D {
		t.Errorf("after deny rule: %+v", d)
	}
}

func TestSetMode(t *testing.T) {
	e := permission.NewEngine(nil)
	err := e.SetMode("yolo")
	var me *permission.ModeError
	if !errors.As(err, &me) || me.Mode != "yolo" {
		t.Fatalf("SetMode(yolo) = %v", err)
	}
	if e.Mode() != permission.ModeDefault {
		t.Errorf("mode changed to %q by a failed SetMode", e.Mode())
	}
	if err := e.SetMode(permission.ModeBypass); err != nil {
		t.Fatal(err)
	}
	if d := e.Check(context.Background(), permission.Defaults{ToolName: "t"}, nil); d.Message != msgBypass {
		t.Errorf("after SetMode(bypass): %+v", d)
	}
}

func TestZeroContextIsDefaultMode(t *testing.T) {
	e := permission.NewEngine(&permission.Context{})
	if e.Mode() != permission.ModeDefault {
		t.Errorf("mode %q", e.Mode())
	}
	d := e.Check(context.Background(), permission.Defaults{ToolName: "t"}, nil)
	if d.Behavior != K || d.Reason != "Mode: default" {
		t.Errorf("%+v", d)
	}
	e.AddRule(rule("t", "", A)) // nil maps are created on demand
	if d := e.Check(context.Background(), permission.Defaults{ToolName: "t"}, nil); d.Behavior != A {
		t.Errorf("%+v", d)
	}
}

func TestCheckFailsClosed(t *testing.T) {
	e := permission.NewEngine(&permission.Context{Mode: "yolo"})
	d := e.Check(context.Background(), permission.Defaults{ToolName: "t", IsReadOnly: true}, nil)
	if d.Behavior != D || d.Message != "Unknown permission mode: yolo" {
		t.Errorf("unknown mode: %+v", d)
	}
	if d := permission.NewEngine(nil).Check(context.Background(), nil, nil); d.Behavior != D {
		t.Errorf("nil subject: %+v", d)
	}
}

func TestUserConfirmed(t *testing.T) {
	d := permission.UserConfirmed()
	if d.Behavior != A || d.Message != "Already allowed by user confirmation." {
		t.Errorf("%+v", d)
	}
}

func TestCovers(t *testing.T) {
	tool := prefixTool()
	in := map[string]any{"cmd": "git push"}
	for _, c := range []struct {
		r    block.PermissionRule
		want bool
	}{
		{rule("t", "", A), true},
		{rule("t", "git", A), true},
		{rule("t", "npm", A), false},
		{rule("u", "", A), false}, // another tool's rule
	} {
		if got := permission.Covers(c.r, tool, in); got != c.want {
			t.Errorf("Covers(%+v) = %v", c.r, got)
		}
	}
}

// Checks of a concurrent batch run in parallel with rule learning and
// persistence; run under -race.
func TestEngineConcurrentUse(t *testing.T) {
	e := permission.NewEngine(nil)
	tool := permission.Defaults{ToolName: "t"}
	var wg sync.WaitGroup
	const n = 50
	for i := range n {
		wg.Add(3)
		go func() {
			defer wg.Done()
			d := e.Check(context.Background(), tool, map[string]any{"i": i})
			if d.Behavior != K && d.Behavior != A {
				t.Errorf("unexpected %+v", d)
			}
		}()
		go func() {
			defer wg.Done()
			e.AddRule(block.PermissionRule{ToolName: fmt.Sprint("tool", i), Behavior: A, Source: "x"})
		}()
		go func() {
			defer wg.Done()
			if _, err := e.Snapshot().MarshalJSON(); err != nil {
				t.Error(err)
			}
			_ = e.AppendJSON(nil)
		}()
	}
	wg.Wait()
	if got := len(e.Snapshot().AllowRules); got != n {
		t.Errorf("%d tools with rules, want %d", got, n)
	}
}

// strict matches no rule content at all.
type strict struct{ permission.Defaults }

func (strict) MatchRule(string, map[string]any) bool { return false }

// A tool-level rule (null content) applies whatever the tool's matcher says
// (§4.3); content rules are left to the matcher.
func TestNullContentRuleNeedsNoMatcher(t *testing.T) {
	tool := strict{permission.Defaults{ToolName: "t"}}
	e := engineWith(permission.ModeDefault, rule("t", "x", D), rule("t", "", A))
	d := e.Check(context.Background(), tool, nil)
	if d.Behavior != A || d.Message != msgGranted {
		t.Errorf("%+v", d)
	}
	if !permission.Covers(rule("t", "", A), tool, nil) || permission.Covers(rule("t", "x", A), tool, nil) {
		t.Error("Covers ignores the null-content rule")
	}
}
