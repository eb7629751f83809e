package mockllm

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/internal/checkout"
)

// Config is the rule set the tests rely on (YAML, mock-llm's format).
//
//go:embed mock-llm.yaml
var Config []byte

// EnvURL names the variable scripts/mock-llm.sh prints for CI.
const EnvURL = "AGENTSCOPE_MOCK_LLM_URL"

// Phrase in a user turn that makes the server call get_weather.
const WeatherPhrase = "agentscope-e2e weather"

// URL returns the root URL (http://127.0.0.1:port, no /v1) of a mock-llm
// server running Config.
func URL(t testing.TB) string {
	t.Helper()
	if u := strings.TrimRight(os.Getenv(EnvURL), "/"); u != "" {
		if err := waitHealthy(u, 5*time.Second); err != nil {
			t.Fatalf("%s=%s is set but the mock-llm server is not reachable: %v", EnvURL, u, err)
		}
		configure(t, u)
		return u
	}
	return start(t)
}

// configure posts Config, so a server started without it (or reconfigured)
// serves the rules the tests expect. It is idempotent: concurrent test
// binaries post the same rules, and no rule uses mock-llm's per-path
// sequence counters.
func configure(t testing.TB, u string) {
	t.Helper()
	resp, err := http.Post(u+"/config", "application/x-yaml", bytes.NewReader(Config))
	if err != nil {
		t.Fatalf("configure mock-llm: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("configure mock-llm: HTTP %d", resp.StatusCode)
	}
}

func waitHealthy(u string, within time.Duration) error {
	deadline := time.Now().Add(within)
	var last error
	for time.Now().Before(deadline) {
		resp, err := http.Get(u + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
			err = fmt.Errorf("health: HTTP %d", resp.StatusCode)
		}
		last = err
		time.Sleep(50 * time.Millisecond)
	}
	return last
}

// start runs a private server for this test, stopped when it ends.
func start(t testing.TB) string {
	t.Helper()
	root := repoRoot(t)
	out, err := exec.Command(filepath.Join(root, "scripts", "mock-llm.sh"), "main").Output()
	if err != nil {
		t.Fatalf("%s is not set and mock-llm could not be installed (scripts/mock-llm.sh main): %v", EnvURL, err)
	}
	main := strings.TrimSpace(string(out))
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "node", main, "--config", filepath.Join(root, "internal", "mockllm", "mock-llm.yaml"))
	cmd.Env = append(os.Environ(), "HOST=127.0.0.1", fmt.Sprintf("PORT=%d", port))
	// A file, not a buffer: exec copies into a buffer from its own
	// goroutine, and the log is read while the server runs.
	logf, err := os.CreateTemp(t.TempDir(), "mock-llm-*.log")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start mock-llm: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		logf.Close()
	})
	u := fmt.Sprintf("http://127.0.0.1:%d", port)
	if err := waitHealthy(u, 20*time.Second); err != nil {
		out, _ := os.ReadFile(logf.Name())
		t.Fatalf("mock-llm did not come up: %v\n%s", err, out)
	}
	return u
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := checkout.Here()
	if err != nil {
		t.Fatal(err)
	}
	return root
}
