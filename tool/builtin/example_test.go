package builtin_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
	"github.com/agentscope-go/agentscope/tool/builtin"
)

// An agent in accept_edits mode reads a file and edits it: Read is
// read-only, and Edit is allowed because the file lies in a working
// directory. Edit works on what Read cached in the agent's state.
func ExampleTools() {
	dir, _ := os.MkdirTemp("", "builtin-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "greeting.txt")
	os.WriteFile(path, []byte("hello world\n"), 0o644)

	tk, _ := tool.NewToolkit(builtin.Tools(builtin.Config{Dir: dir}))
	st := state.New(nil)
	st.Permission.Mode = permission.ModeAcceptEdits
	st.Permission.AddWorkingDirectory(dir, "example")
	m := scripted.New("demo-model", []scripted.Turn{
		scripted.Stream(scripted.ToolCall("call_1", "Read", fmt.Sprintf(`{"file_path": %q}`, path))),
		scripted.Stream(scripted.ToolCall("call_2", "Edit", fmt.Sprintf(`{"file_path": %q, "old_string": "world", "new_string": "there"}`, path))),
		scripted.Stream(scripted.Text("Done.")),
	})
	a, _ := agent.New(agent.Config{Name: "Friday", Model: m, Toolkit: tk, State: st, RuntimeState: agent.RuntimeStateConfig{Disabled: true}})
	for e, err := range a.Stream(context.Background(), []*message.Msg{message.UserText("user", "Greet there.")}) {
		if err != nil {
			panic(err)
		}
		if d, ok := e.(*event.ToolResultTextDelta); ok {
			fmt.Printf("%s: %s\n", d.ToolCallID, strings.ReplaceAll(d.Delta, dir, "<dir>"))
		}
	}
	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	// Output:
	// call_1:      1	hello world
	// call_2: Successfully replaced 1 occurrence in <dir>/greeting.txt
	// hello there
}

// Reads of one batch run concurrently and share the state's cache; run
// with -race.
func ExampleNewRead_concurrentBatch() {
	dir, _ := os.MkdirTemp("", "builtin-example")
	defer os.RemoveAll(dir)
	var calls []scripted.Step
	for i := range 4 {
		p := filepath.Join(dir, fmt.Sprintf("f%d.txt", i))
		os.WriteFile(p, []byte(fmt.Sprintf("file %d\n", i)), 0o644)
		calls = append(calls, scripted.ToolCall(fmt.Sprintf("call_%d", i), "Read", fmt.Sprintf(`{"file_path": %q}`, p)))
	}
	tk, _ := tool.NewToolkit(builtin.Tools(builtin.Config{Dir: dir}))
	st := state.New(nil)
	m := scripted.New("demo-model", []scripted.Turn{scripted.Stream(calls...), scripted.Stream(scripted.Text("Read them."))})
	a, _ := agent.New(agent.Config{Name: "Friday", Model: m, Toolkit: tk, State: st, RuntimeState: agent.RuntimeStateConfig{Disabled: true}})
	res, err := a.Reply(context.Background(), []*message.Msg{message.UserText("user", "Read all.")})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Outcome, len(st.Tools.ReadFileCache), "files cached")
	// Output:
	// completed 4 files cached
}

// The Bash tool's own permission check on a few commands: read-only lines
// are allowed, constructs it cannot analyse ask for a confirmation that no
// allow rule can silence, and the rest is left to rules and the mode.
func ExampleBashDecision() {
	pc := permission.NewContext(permission.ModeDefault)
	for _, cmd := range []string{"git status && ls -la", "ls $(rm -rf /)", "rm -rf build", "npm install"} {
		d := builtin.BashDecision(cmd, pc, builtin.Config{})
		fmt.Printf("%-22s %-11s immune=%-5v %s\n", cmd, d.Behavior, d.BypassImmune, d.Reason)
	}
	// Output:
	// git status && ls -la   allow       immune=false Read-only command is allowed
	// ls $(rm -rf /)         ask         immune=true  Safety check: command contains dynamic expansion that cannot be statically analyzed
	// rm -rf build           ask         immune=true  Safety check: dangerous command pattern detected
	// npm install            passthrough immune=false
}

// A command line is read-only only when every statement of it is: a
// newline, an assignment prefix or an unknown flag is enough to ask.
func ExampleReadOnlyCommand() {
	for _, cmd := range []string{
		"git log --oneline -5 | grep fix",
		"ls\nrm -rf build",
		"LD_PRELOAD=/tmp/x.so ls",
		"git diff --output=/tmp/x",
		"find . -name '*.go' -exec rm {} +",
	} {
		fmt.Printf("%-36q %v\n", cmd, builtin.ReadOnlyCommand(cmd, builtin.Config{}))
	}
	// Output:
	// "git log --oneline -5 | grep fix"    true
	// "ls\nrm -rf build"                   false
	// "LD_PRELOAD=/tmp/x.so ls"            false
	// "git diff --output=/tmp/x"           false
	// "find . -name '*.go' -exec rm {} +"  false
}

// The rules a confirmation suggests are never wider than the call: a safe
// prefix for a plain subcommand, the command exactly otherwise, nothing
// for a line that cannot be analysed.
func ExampleBash_SuggestRules() {
	b := builtin.NewBash(builtin.Config{})
	for _, cmd := range []string{"git commit -m 'fix' && npm test", "rm -rf build", "ls $(cat list)"} {
		var contents []string
		for _, r := range b.SuggestRules(map[string]any{"command": cmd}) {
			contents = append(contents, r.RuleContent.String)
		}
		fmt.Printf("%s → %q\n", cmd, contents)
	}
	// Output:
	// git commit -m 'fix' && npm test → ["git commit:*" "npm test"]
	// rm -rf build → ["rm -rf build"]
	// ls $(cat list) → []
}
