package postgrestest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/internal/checkout"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/jackc/pgx/v5"
)

// EnvURL names the variable scripts/postgres.sh prints.
const EnvURL = "AGENTSCOPE_TEST_POSTGRES_URL"

// Main runs the test binary's tests with a PostgreSQL server: the one
// EnvURL names, or a private one started for this run and stopped after
// it. Call it from TestMain. It exits with status 1, failing the package,
// when no server can be started.
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run is Main without the exit, for a TestMain with cleanup of its own: it
// returns the exit status.
func Run(m *testing.M) int {
	if os.Getenv(EnvURL) != "" {
		return m.Run()
	}
	stop, err := start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "postgrestest: %s is not set and no PostgreSQL could be started: %v\n", EnvURL, err)
		return 1
	}
	defer stop()
	return m.Run()
}

// start runs scripts/postgres.sh start on a free port in a fresh data
// directory and sets EnvURL.
func start() (stop func(), err error) {
	root, err := checkout.Here()
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir, err := os.MkdirTemp("", "agentscope-postgrestest-")
	if err != nil {
		return nil, err
	}
	// As root the cluster runs as the postgres user, who must reach the
	// data directory inside this one.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	script := filepath.Join(root, "scripts", "postgres.sh")
	env := append(os.Environ(), fmt.Sprintf("POSTGRES_PORT=%d", port), "POSTGRES_DIR="+filepath.Join(dir, "data"))
	cmd := exec.Command(script, "start")
	cmd.Env, cmd.Stderr = env, os.Stderr
	out, err := cmd.Output()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("scripts/postgres.sh start: %w", err)
	}
	u, ok := parseExport(string(out))
	if !ok {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("scripts/postgres.sh start printed no %s line: %q", EnvURL, out)
	}
	os.Setenv(EnvURL, u)
	return func() {
		cmd := exec.Command(script, "stop")
		cmd.Env, cmd.Stderr = env, os.Stderr
		cmd.Run()
		os.RemoveAll(dir)
	}, nil
}

func parseExport(out string) (string, bool) {
	for line := range strings.Lines(out) {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "export "+EnvURL+"=")
		if ok {
			return strings.Trim(v, `'"`), true
		}
	}
	return "", false
}

// URL returns the server's database URL; the test fails without one.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		t.Fatalf("%s is not set: call postgrestest.Main from TestMain", EnvURL)
	}
	return u
}

// Schema creates a fresh schema for this test, dropped when it ends, and
// returns a database URL whose connections use it (search_path).
func Schema(t testing.TB) string {
	t.Helper()
	base := URL(t)
	name := "t_" + stamp.NewID()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", base, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop schema %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", base, err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}
