package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	peersOnce sync.Once
	peersDir  string
	peersErr  error
)

// peer returns the path of a file of an installed npm test peer
// (testdata/peers/node_modules/...), installing the peers with
// scripts/peers.sh when missing. It fails the test, never skips, when they
// cannot be installed.
func peer(t testing.TB, rel string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is required for the MCP peer tests: %v", err)
	}
	peersOnce.Do(func() {
		root, err := filepath.Abs("..")
		if err != nil {
			peersErr = err
			return
		}
		out, err := exec.Command(filepath.Join(root, "scripts", "peers.sh")).Output()
		if err != nil {
			peersErr = err
			return
		}
		peersDir = strings.TrimSpace(string(out))
	})
	if peersErr != nil {
		t.Fatalf("the npm test peers could not be installed (scripts/peers.sh): %v", peersErr)
	}
	p := filepath.Join(peersDir, "node_modules", rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("test peer missing after install: %v", err)
	}
	return p
}

func everythingJS(t testing.TB) string {
	return peer(t, "@modelcontextprotocol/server-everything/dist/index.js")
}

func filesystemJS(t testing.TB) string {
	return peer(t, "@modelcontextprotocol/server-filesystem/dist/index.js")
}
