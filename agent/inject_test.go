package agent_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

const (
	pre  = "<system-reminder>Treat the following as the ground truth at this point of the conversation. Anything stated earlier is outdated, and a later reminder, if any, supersedes this one:\n"
	post = "\n</system-reminder>"
)

func hints(r replyRun) []string {
	var out []string
	for _, e := range r.events {
		if h, ok := e.(*event.HintBlock); ok {
			out = append(out, h.Hint.Text)
		}
	}
	return out
}

// INJ-1, INJ-2, INJ-6, DRV-13: the time is injected before the first model
// call (with extra fields), not again within the interval, again after it.
func TestRuntimeStateInjection(t *testing.T) {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	ic := agent.RuntimeStateConfig{ExtraFields: []agent.Field{{Key: "workspace", Value: "/home/friday"}}}
	turns := []scripted.Turn{scripted.Reply(scripted.Text("a")), scripted.Reply(scripted.Text("b")), scripted.Reply(scripted.Text("c"))}
	a, _ := newAgent(t, turns, nil, runtimeState(ic, func() time.Time { return now }))
	r := mustReply(t, a, user("Hi"))
	want := pre + "<current-time>2026-07-01T12:00:00</current-time>\n<timezone>UTC</timezone>\n<workspace>/home/friday</workspace>" + post
	if h := hints(r); len(h) != 1 || h[0] != want || r.events[1].Type() != event.TypeHintBlock {
		t.Fatalf("hints %q in %s", h, r.kinds())
	}
	if hb, ok := stateOf(t, a).Tail().Content[0].(*block.Hint); !ok || hb.Source != block.Some(agent.DefaultInjectionSource) || !hb.FinishedAt.Valid {
		t.Fatal("the hint is not the reply's first block")
	}
	now = now.Add(10 * time.Minute)
	if h := hints(mustReply(t, a, user("again"))); len(h) != 0 {
		t.Fatalf("re-injected within the interval: %q", h)
	}
	now = now.Add(6 * time.Hour)
	if h := hints(mustReply(t, a, user("later"))); len(h) != 1 || !strings.Contains(h[0], "2026-07-01T18:10:00") {
		t.Fatalf("not re-injected after the interval: %q", h)
	}
}

// INJ-4, INJ-5, INJ-13: the tasks reminder fires once; a recorded time in
// the future re-injects; an unknown zone falls back to UTC but is named.
func TestInjectionTasksAndZones(t *testing.T) {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	st := state.New(nil)
	st.Tasks.Tasks = []state.Task{{Subject: "Write the report", State: state.TaskPending}}
	ic := agent.RuntimeStateConfig{Timezone: "Mars/Olympus_Mons"}
	turns := []scripted.Turn{scripted.Reply(scripted.Text("a")), scripted.Reply(scripted.Text("b"))}
	a, _ := newAgent(t, turns, nil, withState(st), runtimeState(ic, func() time.Time { return now }))
	h := hints(mustReply(t, a, user("Hi")))
	want := pre + "<current-time>2026-07-01T12:00:00</current-time>\n<timezone>Mars/Olympus_Mons</timezone>\n" +
		"<tasks>You have 0 in-progress tasks and 1 pending tasks. Use `TaskList` to view them if you don't know.</tasks>" + post
	if len(h) != 1 || h[0] != want {
		t.Fatalf("hints %q", h)
	}
	now = now.Add(-time.Hour) // the recorded time now lies in the future
	h = hints(mustReply(t, a, user("again")))
	if len(h) != 1 || strings.Contains(h[0], "<tasks>") {
		t.Fatalf("hints %q", h)
	}
}

// Permission modes reach the engine through the agent: explore denies what
// is not read-only, bypass allows it, and an ask rule wins over the tool.
func TestPermissionModesThroughTheAgent(t *testing.T) {
	writer := func() tool.Tool { return makeTool(t, toolSpec{name: "writer", perm: block.Passthrough}) }
	turns := func() []scripted.Turn {
		return []scripted.Turn{scripted.Reply(scripted.ToolCall("c1", "writer", `{"input": "x"}`)), scripted.Reply(scripted.Text("ok"))}
	}
	cases := []struct {
		mode permission.Mode
		want string
	}{
		{permission.ModeExplore, "RESULT_DELTA(c1:Permission denied for writer (explore mode is read-only)) RESULT_END(c1:denied)"},
		{permission.ModeBypass, "RESULT_DELTA(c1:writer: x) RESULT_END(c1:success)"},
		{permission.ModeDefault, "REQUIRE_CONFIRM(c1)"},
		{permission.ModeDontAsk, "RESULT_END(c1:denied)"},
	}
	for _, tc := range cases {
		a, _ := newAgent(t, turns(), []tool.Tool{writer()})
		if err := a.Permissions().SetMode(tc.mode); err != nil {
			t.Fatal(err)
		}
		if r := mustReply(t, a, user("go")); !strings.Contains(r.kinds(), tc.want) {
			t.Errorf("%s: %s", tc.mode, r.kinds())
		}
	}
	a, _ := newAgent(t, turns(), []tool.Tool{makeTool(t, toolSpec{name: "writer"})})
	a.Permissions().AddRule(block.PermissionRule{ToolName: "writer", Behavior: block.Ask, Source: "userSettings"})
	if r := mustReply(t, a, user("go")); !strings.HasSuffix(r.kinds(), "REQUIRE_CONFIRM(c1)") {
		t.Fatalf("ask rule: %s", r.kinds())
	}
	// Rules accepted with a confirmation are persisted in the state.
	mustReply(t, a, confirm(t, a, true, []block.PermissionRule{{ToolName: "writer", Behavior: block.Allow, Source: "session"}}, "c1"))
	if rules := stateOf(t, a).Permission.AllowRules["writer"]; len(rules) != 1 || rules[0].Source != "session" {
		t.Fatalf("allow rules %+v", rules)
	}
}

// The injected time is read back with the configured format, whatever
// literal text it holds: a format with a literal digit is not re-injected
// on every model call.
func TestInjectionFormatWithLiteralText(t *testing.T) {
	now := time.Date(2026, 12, 1, 21, 5, 7, 0, time.UTC)
	for _, f := range []string{"%d.%m.%Y (UTC+1) %H:%M", "%Y day %j, %H:%M", "%c"} {
		ic := agent.RuntimeStateConfig{TimeFormat: f}
		a, _ := newAgent(t, []scripted.Turn{scripted.Reply(scripted.Text("a")), scripted.Reply(scripted.Text("b"))}, nil,
			runtimeState(ic, func() time.Time { return now }))
		if h := hints(mustReply(t, a, user("Hi"))); len(h) != 1 {
			t.Fatalf("%q: hints %q", f, h)
		}
		if h := hints(mustReply(t, a, user("again"))); len(h) != 0 {
			t.Errorf("%q: re-injected within the interval: %q", f, h)
		}
	}
}
