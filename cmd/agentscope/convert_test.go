package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// aguiLines decodes convert's output, one JSON object a line, and returns
// the objects' types.
func aguiLines(t *testing.T, out string) (objs []map[string]any, types []string) {
	t.Helper()
	if out != "" && !strings.HasSuffix(out, "\n") {
		t.Fatalf("output does not end with a newline: %q", out)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var o map[string]any
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("not a JSON object: %q: %v", line, err)
		}
		objs = append(objs, o)
		types = append(types, o["type"].(string))
	}
	return objs, types
}

const parkedStream = start + "\n" +
	`{"type":"MODEL_CALL_START","reply_id":"r","model_name":"m"}` + "\n" +
	`{"type":"TOOL_CALL_START","reply_id":"r","tool_call_id":"c1","tool_call_name":"save_note"}` + "\n" +
	`{"type":"TOOL_CALL_END","reply_id":"r","tool_call_id":"c1"}` + "\n" +
	`{"type":"MODEL_CALL_END","reply_id":"r","input_tokens":1,"output_tokens":1}` + "\n" +
	`{"type":"REQUIRE_USER_CONFIRM","reply_id":"r","tool_calls":[{"type":"tool_call","id":"c1","name":"save_note","input":"{}","state":"asking","suggested_rules":[{"tool_name":"save_note","rule_content":null,"behavior":"allow","source":"suggested"}]}]}` + "\n"

func TestConvertCommand(t *testing.T) {
	reply, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	events := bytes.Count(bytes.TrimSpace(reply), []byte("\n")) + 1

	// The default is the reference's conversion: one AG-UI event per event.
	code, stdout, stderr := runIn(t, string(reply), "convert", "--to", "agui")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, types := aguiLines(t, stdout)
	if len(types) != events || types[0] != "RUN_STARTED" || types[len(types)-1] != "RUN_FINISHED" {
		t.Fatalf("%d events for %d: %v", len(types), events, types)
	}

	// The same stream recorded as SSE, CRLF and all, converts the same.
	var sse strings.Builder
	sse.WriteString(":\r\n\r\n")
	for i, line := range strings.Split(strings.TrimSpace(string(reply)), "\n") {
		sse.WriteString("id: " + string(rune('0'+i%10)) + "\r\nevent: message\r\ndata: " + line + "\r\n\r\n")
	}
	if code, out, stderr := runIn(t, sse.String(), "convert", "--to=agui", "--mode", "stream"); code != 0 || out != stdout {
		t.Fatalf("SSE input: exit %d %s\n%s", code, stderr, out)
	}

	// --mode run: one AG-UI run, its ids from the flags or the events.
	code, stdout, stderr = runIn(t, string(reply), "convert", "--to", "agui", "--mode", "run", "--run-id", "run-7")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	objs, types := aguiLines(t, stdout)
	last := objs[len(objs)-1]
	if types[0] != "RUN_STARTED" || objs[0]["runId"] != "run-7" || objs[0]["threadId"] != "f531f86857be4617bb9e4f08567986c6" ||
		last["type"] != "RUN_FINISHED" || last["outcome"].(map[string]any)["type"] != "success" {
		t.Fatalf("%s", stdout)
	}

	// A parked reply's run ends at EOF with its interrupt.
	code, stdout, _ = runIn(t, parkedStream, "convert", "--to", "agui", "--mode", "run", "--thread-id", "t")
	objs, types = aguiLines(t, stdout)
	if code != 0 || strings.Join(types, " ") != "RUN_STARTED STEP_STARTED TOOL_CALL_START TOOL_CALL_END STEP_FINISHED CUSTOM RUN_FINISHED" {
		t.Fatalf("exit %d: %v", code, types)
	}
	in := objs[len(objs)-1]["outcome"].(map[string]any)["interrupts"].([]any)[0].(map[string]any)
	if objs[0]["threadId"] != "t" || objs[0]["runId"] != "r" || in["id"] != "confirm:c1" || in["toolCallId"] != "c1" {
		t.Fatalf("%s", stdout)
	}
	// The stream mode of the same events has no interrupt: the reference
	// leaves a parked run open.
	code, stdout, _ = runIn(t, parkedStream, "convert", "--to", "agui")
	if _, types = aguiLines(t, stdout); code != 0 || types[len(types)-1] != "CUSTOM" {
		t.Fatalf("exit %d: %v", code, types)
	}
	// No events: a run still starts and ends.
	code, stdout, _ = runIn(t, "\n", "convert", "--to", "agui", "--mode", "run")
	if _, types = aguiLines(t, stdout); code != 0 || strings.Join(types, " ") != "RUN_STARTED RUN_ERROR" {
		t.Fatalf("exit %d: %v", code, types)
	}
	if code, stdout, _ = runIn(t, "", "convert", "--to", "agui"); code != 0 || stdout != "" {
		t.Fatalf("exit %d: %q", code, stdout)
	}
}

func TestConvertCommandErrors(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		stdin  string
		stdout int // lines printed before the error
		stderr []string
	}{
		{"malformed line", []string{"convert", "--to", "agui"}, start + "\n" + open + "\n" + `{"type":"TEXT_BLOCK_DELTA",` + "\n" + delta + "\n", 2, []string{"line 3"}},
		{"unknown type", []string{"convert", "--to", "agui", "--mode", "run"}, start + "\n\n" + `{"type":"TEXT_BLOCK_GROW","reply_id":"r"}` + "\n", 1, []string{"line 3", "unknown event type"}},
		{"missing field", []string{"convert", "--to", "agui"}, `data: {"type":"TEXT_BLOCK_START","reply_id":"r"}` + "\n", 0, []string{"line 1", "block_id"}},
		{"no --to", []string{"convert"}, "", 0, []string{"--to is required"}},
		{"another protocol", []string{"convert", "--to", "a2a"}, "", 0, []string{`--to "a2a"`}},
		{"bad mode", []string{"convert", "--to", "agui", "--mode", "batch"}, "", 0, []string{`--mode "batch"`}},
		{"ids without run", []string{"convert", "--to", "agui", "--run-id", "x"}, "", 0, []string{"--mode run"}},
		{"stray argument", []string{"convert", "--to", "agui", "events.jsonl"}, "", 0, []string{"stdin"}},
		{"bad flag", []string{"convert", "-bogus"}, "", 0, []string{"-bogus"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runIn(t, c.stdin, c.args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want 2\nstdout %s\nstderr %s", code, stdout, stderr)
			}
			if got := strings.Count(stdout, "\n"); got != c.stdout {
				t.Errorf("%d lines printed, want %d: %s", got, c.stdout, stdout)
			}
			for _, s := range c.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr %q does not mention %q", stderr, s)
				}
			}
		})
	}
	if code, _, stderr := runIn(t, "", "convert", "-h"); code != 0 || !strings.Contains(stderr, "usage: agentscope convert") || !strings.Contains(stderr, "-mode") {
		t.Errorf("-h: %d %s", code, stderr)
	}
	if code, stdout, _ := runIn(t, "", "help"); code != 0 || !strings.Contains(stdout, "convert") {
		t.Errorf("help does not list convert: %s", stdout)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := convertStream(ctx, strings.NewReader(start), &bytes.Buffer{}, convertOptions{Mode: "stream"}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v", err)
	}
}

// The command's output, piped into testdata/peers/agui-check.mjs as a
// user would check a recorded stream: the reference's conversion passes
// @ag-ui/core's schemas, the run mode an HttpAgent too.
func TestConvertRealClient(t *testing.T) {
	everythingJS(t) // installs the npm test peers, or fails
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	reply, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		check []string
	}{
		{[]string{"convert", "--to", "agui"}, []string{"--schema"}},
		{[]string{"convert", "--to", "agui", "--mode", "run"}, nil},
		{[]string{"convert", "--to", "agui", "--mode", "run"}, []string{"--schema"}},
	} {
		code, stdout, stderr := runIn(t, string(reply), c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		cmd := exec.Command("node", append([]string{"agui-check.mjs"}, c.check...)...)
		cmd.Dir = filepath.Join(root, "testdata", "peers")
		cmd.Stdin = strings.NewReader(stdout)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v | agui-check.mjs %v: %v\n%s", c.args, c.check, err, out)
		}
		var report struct {
			Streams []struct{ Events int } `json:"streams"`
			Threads []struct {
				Runs []struct{ Events int } `json:"runs"`
			} `json:"threads"`
		}
		if err := json.Unmarshal(out, &report); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		n := 0
		for _, s := range report.Streams {
			n += s.Events
		}
		for _, th := range report.Threads {
			for _, r := range th.Runs {
				n += r.Events
			}
		}
		if want := strings.Count(stdout, "\n"); n != want {
			t.Errorf("%v: the check saw %d events of %d", c.args, n, want)
		}
	}
}
