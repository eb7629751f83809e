package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// buildAgentscope builds cmd/agentscope of the checkout at repo into dir,
// in the checkout's workspace (this module runs outside it).
func buildAgentscope(ctx context.Context, repo, dir string) (string, error) {
	repo, err := filepath.Abs(repo)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "agentscope")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Join(repo, "cmd", "agentscope")
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(repo, "go.work"))
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/agentscope: %w: %s", err, out)
	}
	return bin, nil
}

// server is a server process this program started.
type server struct {
	cmd  *exec.Cmd
	base string
	done chan struct{}
}

// start runs cmd and waits for the "listening on URL" line it writes to
// its standard error; the rest of that output is dropped.
func start(ctx context.Context, cmd *exec.Cmd) (*server, error) {
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, done: make(chan struct{})}
	urls := make(chan string, 1)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stderr)
		found := false
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "listening on "); ok && !found {
				u, _, _ = strings.Cut(u, ",")
				urls <- u
				found = true
			}
		}
		io.Copy(io.Discard, stderr)
		cmd.Wait()
	}()
	select {
	case u := <-urls:
		s.base = u
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("%s exited before it listened", cmd.Path)
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	case <-time.After(60 * time.Second):
		s.stop()
		return nil, fmt.Errorf("%s did not listen within a minute", cmd.Path)
	}
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// stop interrupts the server and waits for it to exit.
func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// startOurs runs `agentscope serve` on a new SQLite file in dir with the
// demo model without its terminal delay.
func startOurs(ctx context.Context, bin, dir string) (*server, error) {
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(dir, "load.db"), "--model", "demo:demo")
	cmd.Dir = dir // the demo's save_note writes nothing outside the store, but keep the tree clean
	return start(ctx, cmd)
}

// startADK runs this program again as adk-go's server (adkserve.go).
func startADK(ctx context.Context) (*server, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), adkEnv+"=127.0.0.1:0")
	return start(ctx, cmd)
}

func newClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConns: 400, MaxIdleConnsPerHost: 400, IdleConnTimeout: time.Minute,
		DisableCompression: true,
	}}
}

// rss reads a process's resident memory from /proc (Linux).
func rss(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb); err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
