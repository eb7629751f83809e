package mcp_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/mcp"
	"github.com/agentscope-go/agentscope/tool"
)

// A stdio server gets the minimal environment and what Config.Env names,
// never the parent's secrets: server-everything's get-env reports the
// environment of the real node process.
func TestStdioMinimalEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-secret")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret")
	t.Setenv("AGENTSCOPE_UNNAMED", "not for children")
	t.Setenv("LANG", "C.UTF-8")
	c := connect(t, mcp.Config{
		Name: "everything", Command: "node", Args: []string{everythingJS(t), "stdio"},
		Env: []string{"NAMED_EXTRA=visible", "LANG=en_US.UTF-8"},
	})
	env := getEnv(t, c, "mcp__everything__get-env")
	allowed := []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "NAMED_EXTRA"}
	for k, v := range env {
		if !slices.Contains(allowed, k) || strings.Contains(v, "secret") {
			t.Errorf("the server sees %s=%q", k, v)
		}
	}
	if env["NAMED_EXTRA"] != "visible" || env["LANG"] != "en_US.UTF-8" || env["PATH"] == "" {
		t.Errorf("environment %v lacks the named extras or PATH", env)
	}

	// The command line's way to name one: env(1) in the --mcp SPEC.
	cfg, err := mcp.ParseSpec("ev=env FROM_SPEC=yes node " + everythingJS(t) + " stdio")
	if err != nil {
		t.Fatal(err)
	}
	env = getEnv(t, connect(t, cfg), "mcp__ev__get-env")
	if env["FROM_SPEC"] != "yes" || env["OPENAI_API_KEY"] != "" {
		t.Errorf("through env(1): %v", env)
	}
}

// getEnv calls server-everything's get-env tool named name and decodes
// the environment it reports.
func getEnv(t *testing.T, c *mcp.Client, name string) map[string]string {
	t.Helper()
	var text string
	var state block.ToolResultState
	for ch := range tool.Run(t.Context(), lookup(t, c, name), map[string]any{}) {
		for _, b := range ch.Content {
			if tb, ok := b.(*block.Text); ok {
				text += tb.Text
			}
		}
		state = ch.State
	}
	var env map[string]string
	if err := json.Unmarshal([]byte(text), &env); err != nil || state == block.ResultError {
		t.Fatalf("get-env (%s): %v\n%s", state, err, text)
	}
	return env
}
