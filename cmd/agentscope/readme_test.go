package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/checkout"
)

// readmeWalkThrough is the shell block of README.md's server walk-through
// and what it prints: its "#> " lines, in order, "…" standing for a
// session id.
func readmeWalkThrough(t *testing.T) (script string, want []string) {
	t.Helper()
	root, err := checkout.Here()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "A walk-through with curl and jq")
	if !ok {
		t.Fatal("README.md has no curl walk-through")
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	script, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 {
		t.Fatal("the walk-through is not a ```sh block")
	}
	for line := range strings.Lines(script) {
		if out, ok := strings.CutPrefix(line, "#> "); ok {
			want = append(want, strings.TrimSuffix(out, "\n"))
		}
	}
	if len(want) == 0 {
		t.Fatal("the walk-through shows no output (#> lines)")
	}
	return script, want
}

// printed reports whether got is the line the README shows, "…" in it
// standing for a session id (32 hex digits).
func printed(got, shown string) bool {
	parts := strings.Split(shown, "…")
	re := regexp.QuoteMeta(parts[0])
	for _, p := range parts[1:] {
		re += "[0-9a-f]{32}" + regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + re + "$").MatchString(got)
}

// The README's curl walk-through, run as one pasted block by bash against
// the built binary with the demo agent on a fresh SQLite file, does what
// the README says: the chat starts, the status is awaiting_permission,
// the confirmation resumes the reply, the last command prints the
// answer the README shows, and events.sse holds the whole reply.
func TestREADMEWalkThrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and execs the binary")
	}
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the README walk-through needs %s on PATH: %v", tool, err)
		}
	}
	script, want := readmeWalkThrough(t)
	const addr = "A=http://127.0.0.1:8080 "
	if !strings.HasPrefix(script, addr) {
		t.Fatalf("the walk-through does not start with %q", addr)
	}
	s := startServe(t, buildBinary(t), freeAddr(t), filepath.Join(t.TempDir(), "agentscope.db"))
	script = "A=" + s.url + " " + strings.TrimPrefix(script, addr)
	jq, _ := exec.Command("jq", "--version").Output()
	t.Logf("jq: %s", bytes.TrimSpace(jq))

	// As a user pastes it: a plain bash reading the lines (no -e, no
	// pipefail), in an empty folder. A hang ends at the test's deadline,
	// with the output so far.
	dir := t.TempDir()
	ctx := t.Context()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-30*time.Second))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "bash")
	cmd.Stdin = strings.NewReader(script)
	cmd.Dir = dir
	// Its own process group, so the background curl goes with it if the
	// script fails or hangs.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	out := stdout.String()
	if err != nil {
		t.Fatalf("the walk-through failed: %v\nstdout:\n%s\nstderr:\n%s\nserver:\n%s", err, out, stderr.String(), s.stderr)
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("the walk-through printed %d lines, the README shows %d:\n%s", len(got), len(want), out)
	}
	for i := range want {
		if !printed(got[i], want[i]) {
			t.Errorf("line %d printed\n%s\nthe README shows\n%s", i+1, got[i], want[i])
		}
	}
	if stderr.Len() > 0 {
		t.Errorf("the walk-through wrote to stderr:\n%s", stderr.String())
	}

	// events.sse: the whole reply, gapless from seq 1, park and resume.
	f, err := os.Open(filepath.Join(dir, "events.sse"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []event.Event
	var seq int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "id: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			if n != seq+1 {
				t.Fatalf("events.sse: seq %d after %d", n, seq)
			}
			seq = n
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			ev, err := event.Decode([]byte(v))
			if err != nil {
				t.Fatalf("events.sse: %v", err)
			}
			evs = append(evs, ev)
		}
	}
	if len(evs) == 0 || int64(len(evs)) != seq {
		t.Fatalf("events.sse: %d events, last seq %d", len(evs), seq)
	}
	var kinds []event.Type
	var ids []string
	for _, ev := range evs {
		switch e := ev.(type) {
		case *event.ReplyStart:
			ids = append(ids, e.ReplyID)
		case *event.RequireUserConfirm, *event.UserConfirmResult:
		case *event.ReplyEnd:
			if e.FinishedReason != event.ReplyCompleted {
				t.Fatalf("events.sse: the reply ended %s", e.FinishedReason)
			}
		default:
			continue
		}
		kinds = append(kinds, ev.Type())
	}
	if got := fmtTypes(kinds); got != "REPLY_START REQUIRE_USER_CONFIRM USER_CONFIRM_RESULT REPLY_START REPLY_END" || ids[0] != ids[1] {
		t.Fatalf("events.sse: %s, reply ids %v", got, ids)
	}
}

func fmtTypes(ts []event.Type) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, " ")
}
