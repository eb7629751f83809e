package mcp_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/agentscope-go/agentscope/mcp"
)

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct {
		spec, name, cmd, url string
		args                 []string
	}{
		{spec: "npx -y @scope/server arg", cmd: "npx", args: []string{"-y", "@scope/server", "arg"}},
		{spec: "fs=npx -y @modelcontextprotocol/server-filesystem '/tmp/my dir'", name: "fs", cmd: "npx", args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp/my dir"}},
		{spec: `node "a b.js" c\ d ""`, cmd: "node", args: []string{"a b.js", "c d", ""}},
		{spec: "http://127.0.0.1:3001/mcp", url: "http://127.0.0.1:3001/mcp"},
		{spec: "web=https://example.com/sse?x=1", name: "web", url: "https://example.com/sse?x=1"},
		{spec: "/usr/bin/server --opt=1", cmd: "/usr/bin/server", args: []string{"--opt=1"}},
	} {
		cfg, err := mcp.ParseSpec(tc.spec)
		if err != nil {
			t.Errorf("%q: %v", tc.spec, err)
			continue
		}
		if cfg.Name != tc.name || cfg.Command != tc.cmd || cfg.URL != tc.url || !slices.Equal(cfg.Args, tc.args) {
			t.Errorf("%q: got %+v", tc.spec, cfg)
		}
	}
	for _, bad := range []string{"", "name=", "npx 'open", `npx \`} {
		if _, err := mcp.ParseSpec(bad); !errors.Is(err, mcp.ErrConfig) {
			t.Errorf("%q: err %v", bad, err)
		}
	}
}

func TestToolName(t *testing.T) {
	if got := mcp.ToolName("my server", "read.file/v2"); got != "mcp__myxserver__readxfilexv2" {
		t.Fatal(got)
	}
}
