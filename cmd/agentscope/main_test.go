package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
)

// sample is the README's quick-start stream.
const sample = "../../testdata/reply.jsonl"

// runIn runs the command line in process.
func runIn(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(t.Context(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func decodeMsg(t *testing.T, s string) *message.Msg {
	t.Helper()
	var m message.Msg
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("output is not a Msg: %v\n%s", err, s)
	}
	return &m
}

const (
	start = `{"id":"e0","created_at":"2026-08-22T09:14:04","metadata":{},"type":"REPLY_START","session_id":"s","reply_id":"r","name":"Friday","role":"assistant"}`
	open  = `{"id":"e1","created_at":"2026-08-22T09:14:05","metadata":{},"type":"TEXT_BLOCK_START","reply_id":"r","block_id":"b"}`
	delta = `{"id":"e2","created_at":"2026-08-22T09:14:06","metadata":{},"type":"TEXT_BLOCK_DELTA","reply_id":"r","block_id":"b","delta":"hi"}`
)

func TestFoldCommand(t *testing.T) {
	cases := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		stdout   string // a substring of stdout ("" = must be empty)
		stderr   []string
		noStderr bool
	}{
		{name: "plain", args: []string{"fold"}, stdin: start + "\n" + open + "\n" + delta + "\n", code: 0,
			stdout: `{"name":"Friday","content":[{"type":"text","text":"hi","id":"b","created_at":"2026-08-22T09:14:05","finished_at":null}],"role":"assistant","id":"r","metadata":{},"created_at":"2026-08-22T09:14:04",`, noStderr: true},
		{name: "CRLF, blank lines, no final newline", args: []string{"fold"}, stdin: "\r\n" + start + "\r\n\r\n" + open + "\r\n" + delta, code: 0,
			stdout: `"text":"hi"`, noStderr: true},
		{name: "malformed line", args: []string{"fold"}, stdin: start + "\n" + open + "\n" + `{"type":"TEXT_BLOCK_DELTA",` + "\n", code: 2,
			stderr: []string{"line 3"}},
		{name: "unknown event type", args: []string{"fold"}, stdin: start + "\n" + `{"type":"TEXT_BLOCK_GROW","reply_id":"r"}` + "\n", code: 2,
			stderr: []string{"line 2", "unknown event type"}},
		{name: "missing field", args: []string{"fold"}, stdin: start + "\n\n" + `{"type":"TEXT_BLOCK_START","reply_id":"r"}` + "\n", code: 2,
			stderr: []string{"line 3", "block_id"}},
		{name: "data delta not base64", args: []string{"fold"}, code: 2, stderr: []string{"line 3", "base64"},
			stdin: start + "\n" + `{"type":"DATA_BLOCK_START","reply_id":"r","block_id":"d","media_type":"image/png"}` + "\n" +
				`{"type":"DATA_BLOCK_DELTA","reply_id":"r","block_id":"d","media_type":"image/png","data":"@@@"}` + "\n"},
		{name: "no REPLY_START", args: []string{"fold"}, stdin: open + "\n", code: 2,
			stderr: []string{"line 1", "REPLY_START", "-reply-id"}},
		{name: "empty input", args: []string{"fold"}, stdin: "", code: 2, stderr: []string{"no events"}},
		{name: "skipped events warn and continue", args: []string{"fold"}, code: 0, stdout: `"text":"hi"`,
			stdin: start + "\n" + open + "\n" +
				`{"type":"TEXT_BLOCK_DELTA","reply_id":"r","block_id":"ghost","delta":"x"}` + "\n" +
				`{"type":"TEXT_BLOCK_DELTA","reply_id":"other","block_id":"b","delta":"x"}` + "\n" +
				`{"type":"CUSTOM","name":"state_updated"}` + "\n" + delta + "\n",
			stderr: []string{"line 3: skipped", "block not found", "line 4: skipped", "another reply", "line 5: skipped"}},
		{name: "continuation", args: []string{"fold", "-reply-id", "r", "-name", "Friday"}, stdin: open + "\n" + delta + "\n", code: 0,
			stdout: `{"name":"Friday","content":[{"type":"text","text":"hi","id":"b","created_at":"2026-08-22T09:14:05","finished_at":null}],"role":"assistant","id":"r","metadata":{},"created_at":"2026-08-22T09:14:05",`, noStderr: true},
		{name: "continuation without events", args: []string{"fold", "-reply-id", "r", "-name", "Friday"}, code: 0,
			stdout: `{"name":"Friday","content":[],"role":"assistant","id":"r",`, noStderr: true},
		{name: "name overrides REPLY_START", args: []string{"fold", "-name", "Jarvis"}, stdin: start, code: 0,
			stdout: `{"name":"Jarvis","content":[]`, noStderr: true},
		{name: "stray argument", args: []string{"fold", "events.jsonl"}, code: 2, stderr: []string{"stdin"}},
		{name: "bad flag", args: []string{"fold", "-bogus"}, code: 2, stderr: []string{"-bogus"}},
		{name: "-h", args: []string{"fold", "-h"}, code: 0, stderr: []string{"usage: agentscope fold", "-reply-id"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runIn(t, c.stdin, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, c.code, stdout, stderr)
			}
			if c.stdout == "" && stdout != "" {
				t.Fatalf("unexpected stdout %s", stdout)
			}
			if !strings.Contains(stdout, c.stdout) {
				t.Fatalf("stdout %s\nwant it to contain %s", stdout, c.stdout)
			}
			if c.stdout != "" {
				decodeMsg(t, stdout)
			}
			for _, s := range c.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr %q does not mention %q", stderr, s)
				}
			}
			if c.noStderr && stderr != "" {
				t.Errorf("unexpected stderr %q", stderr)
			}
		})
	}
}

// A 1.5 MB line (one big data delta) is read whole.
func TestFoldLongLine(t *testing.T) {
	raw := bytes.Repeat([]byte{0xAB}, 1<<20+1)
	stdin := start + "\n" + `{"type":"DATA_BLOCK_START","reply_id":"r","block_id":"d","media_type":"image/png"}` + "\n" +
		`{"type":"DATA_BLOCK_DELTA","reply_id":"r","block_id":"d","media_type":"image/png","data":"` + base64.StdEncoding.EncodeToString(raw) + `"}` + "\n"
	code, stdout, stderr := runIn(t, stdin, "fold")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	d := decodeMsg(t, stdout).Content[0].(*block.Data)
	got, err := d.Source.(interface{ Bytes() ([]byte, error) }).Bytes()
	if err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("data differs (%v)", err)
	}
}

func TestFoldCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := foldStream(ctx, strings.NewReader(start), foldOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

func TestDispatch(t *testing.T) {
	code, stdout, _ := runIn(t, "", "help")
	if code != 0 || !strings.Contains(stdout, "fold") || !strings.Contains(stdout, "help") {
		t.Fatalf("help: %d %s", code, stdout)
	}
	code, stdout, _ = runIn(t, "", "help", "fold")
	if code != 0 || !strings.Contains(stdout, "usage: agentscope fold") || !strings.Contains(stdout, "-reply-id") {
		t.Fatalf("help fold: %d %s", code, stdout)
	}
	if code, _, stderr := runIn(t, "", "help", "nope"); code != 2 || !strings.Contains(stderr, "nope") {
		t.Fatalf("help nope: %d %s", code, stderr)
	}
	if code, _, stderr := runIn(t, "", "frobnicate"); code != 2 || !strings.Contains(stderr, `unknown command "frobnicate"`) || !strings.Contains(stderr, "fold") {
		t.Fatalf("unknown: %d %s", code, stderr)
	}
	if code, _, stderr := runIn(t, ""); code != 2 || !strings.Contains(stderr, "commands:") {
		t.Fatalf("no args: %d %s", code, stderr)
	}
	if code, stdout, _ := runIn(t, "", "--help"); code != 0 || !strings.Contains(stdout, "commands:") {
		t.Fatalf("--help: %d %s", code, stdout)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("registering a name twice did not panic")
		}
	}()
	register("fold", commands["fold"])
}

// TestBinary builds the real command and runs it as a user does.
func TestBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "agentscope")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	exe := func(t *testing.T, stdin []byte, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), bin, args...)
		cmd.Stdin = bytes.NewReader(stdin)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0, out.String(), errOut.String()
		case errors.As(err, &ee):
			return ee.ExitCode(), out.String(), errOut.String()
		}
		t.Fatal(err)
		return 0, "", ""
	}
	good, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("good stream", func(t *testing.T) {
		code, stdout, stderr := exe(t, good, "fold")
		if code != 0 || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		m, err := foldStream(t.Context(), bytes.NewReader(good), foldOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if want := string(m.AppendJSON(nil)) + "\n"; stdout != want {
			t.Fatalf("stdout\n%s\nwant\n%s", stdout, want)
		}
		got := decodeMsg(t, stdout)
		if got.FinishedReason != "completed" || len(got.Content) != 4 || got.Usage == nil || got.Usage.InputTokens != 1713 {
			t.Fatalf("unexpected Msg: %s", stdout)
		}
	})
	t.Run("bad line", func(t *testing.T) {
		lines := bytes.SplitAfter(good, []byte("\n"))
		bad := bytes.Join([][]byte{lines[0], lines[1], lines[2], []byte("{\"type\": \"TEXT_BLOCK_DELTA\", oops}\n"), lines[3]}, nil)
		code, stdout, stderr := exe(t, bad, "fold")
		if code != 2 || stdout != "" || !strings.Contains(stderr, "line 4") {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	})
	t.Run("help", func(t *testing.T) {
		code, stdout, _ := exe(t, nil, "help")
		if code != 0 || !strings.Contains(stdout, "fold") {
			t.Fatalf("exit %d: %s", code, stdout)
		}
	})
}
