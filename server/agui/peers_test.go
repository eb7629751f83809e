package agui_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/server/agui"
)

// checkScript locates testdata/peers/agui-check.mjs with the npm test
// peers installed (scripts/peers.sh installs them when missing). It fails
// the test, never skips, when node or the peers are missing: CI installs
// them.
func checkScript(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is required for the AG-UI client checks: %v", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(root, "scripts", "peers.sh")).Output()
	if err != nil {
		t.Fatalf("the npm test peers could not be installed (scripts/peers.sh): %v", err)
	}
	dir := strings.TrimSpace(string(out))
	for _, rel := range []string{"node_modules/@ag-ui/core/package.json", "node_modules/@ag-ui/client/package.json", "agui-check.mjs"} {
		if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
			t.Fatalf("test peer missing after install: %v", err)
		}
	}
	return filepath.Join(dir, "agui-check.mjs")
}

// The plan and report of agui-check.mjs --plan.
type (
	checkPlan struct {
		Streams []checkStream `json:"streams"`
		Threads []checkThread `json:"threads"`
	}
	checkStream struct {
		Name  string   `json:"name"`
		Lines []string `json:"lines"`
	}
	checkThread struct {
		Name     string     `json:"name"`
		ThreadID string     `json:"threadId"`
		Runs     []checkRun `json:"runs"`
	}
	checkRun struct {
		RunID       string           `json:"runId"`
		Lines       []string         `json:"lines"`
		AddMessages []map[string]any `json:"addMessages,omitempty"`
		Resume      []map[string]any `json:"resume,omitempty"`
	}
	checkReport struct {
		Streams []struct {
			Name   string   `json:"name"`
			Events int      `json:"events"`
			Errors []string `json:"errors"`
		} `json:"streams"`
		Threads []struct {
			Name string      `json:"name"`
			Runs []runReport `json:"runs"`
		} `json:"threads"`
	}
	runReport struct {
		RunID     string          `json:"runId"`
		Events    int             `json:"events"`
		Errors    []string        `json:"errors"`
		Warnings  []string        `json:"warnings"`
		Request   json.RawMessage `json:"request"`
		RunErrors []struct {
			Message string `json:"message"`
			Code    string `json:"code"`
		} `json:"runErrors"`
		NewMessages []struct {
			ID         string `json:"id"`
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"toolCallId"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"toolCalls"`
		} `json:"newMessages"`
		PendingInterrupts []struct {
			ID         string `json:"id"`
			Reason     string `json:"reason"`
			ToolCallID string `json:"toolCallId"`
		} `json:"pendingInterrupts"`
	}
)

// A golden trace, as far as these checks read it.
type trace struct {
	Steps []struct {
		Index int `json:"index"`
		Input struct {
			Kind    string   `json:"kind"`
			Text    string   `json:"text"`
			Texts   []string `json:"texts"`
			Results []struct {
				ToolCallID  string          `json:"tool_call_id"`
				Approve     *bool           `json:"approve"`
				EditedInput json.RawMessage `json:"edited_input"`
				Rules       string          `json:"rules"`
				Output      json.RawMessage `json:"output"`
				State       string          `json:"state"`
				Metadata    json.RawMessage `json:"metadata"`
			} `json:"results"`
		} `json:"input"`
		InputObject json.RawMessage `json:"input_object"`
		Stream      []struct {
			Event json.RawMessage `json:"event"`
		} `json:"stream"`
		Outcome struct {
			Status string `json:"status"`
			Error  struct {
				Message string `json:"message"`
			} `json:"error"`
		} `json:"outcome"`
	} `json:"steps"`
}

// step is one step of a trace as a run of the AG-UI route: the native
// events the service streams for it (for a resume, the input event and the
// REPLY_START it publishes first, as the reference's service does; for a
// reply that raised, the REPLY_END(error) the service closes it with).
type step struct {
	kind   string
	texts  []string // the user's messages
	events []event.Event
	input  event.Event // a resume's native input event
	raw    *trace
	index  int
}

func loadSteps(t *testing.T, file string) []*step {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var tr trace
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatal(err)
	}
	var steps []*step
	var start *event.ReplyStart
	for i, st := range tr.Steps {
		s := &step{kind: st.Input.Kind, raw: &tr, index: i}
		if st.Input.Kind == "user" {
			s.texts = []string{st.Input.Text}
		} else {
			s.texts = st.Input.Texts
		}
		for _, item := range st.Stream {
			if item.Event == nil {
				continue // a {"msg": …} item
			}
			e, err := event.Decode(item.Event)
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			s.events = append(s.events, e)
			if rs, ok := e.(*event.ReplyStart); ok {
				start = rs
			}
		}
		if len(s.events) == 0 {
			continue // a rejected resume or a no-op: no run
		}
		if start == nil {
			t.Fatalf("step %d: no REPLY_START so far", i)
		}
		if s.kind != "user" && s.kind != "user_list" {
			in, err := event.Decode(st.InputObject)
			if err != nil {
				t.Fatalf("step %d input: %v", i, err)
			}
			s.input = in
			again := &event.ReplyStart{SessionID: start.SessionID, ReplyID: start.ReplyID, Name: start.Name}
			s.events = append([]event.Event{in, again}, s.events...)
		}
		if st.Outcome.Status == "raised" {
			s.events = append(s.events, &event.ReplyEnd{SessionID: start.SessionID, ReplyID: start.ReplyID,
				FinishedReason: event.ReplyError, Error: &event.ErrorInfo{Type: event.ErrInternal, Message: st.Outcome.Error.Message}})
		}
		steps = append(steps, s)
	}
	return steps
}

func lines(out []byte) []string {
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

// TestRealClient translates every golden trace (and testdata/reply.jsonl)
// both ways and has the real @ag-ui/core and @ag-ui/client judge the
// result: each trace's session stream, converted as ?format=agui sends
// it, against EventSchemas; each step as one run of POST /agui through an
// HttpAgent (schemas, verifyEvents, the client's own event handling),
// the user's messages and the resumes sent by the client itself. What the
// client sent is then read back with this package's input side: the new
// user messages are the step's, and a resume becomes the native event the
// reference was given.
func TestRealClient(t *testing.T) {
	script := checkScript(t)
	files, err := filepath.Glob(fixture.Path(t, "conformance", "golden", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden traces (%v)", err)
	}
	var plan checkPlan
	all := map[string][]*step{}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		steps := loadSteps(t, file)
		all[name] = steps
		conv := agui.NewConverter()
		var stream []byte
		th := checkThread{Name: name, ThreadID: "thread-" + name}
		var prev []byte // the previous run's output, for its interrupts
		users := 0
		for _, s := range steps {
			run := agui.NewRun(th.ThreadID, fmt.Sprintf("%s-run-%d", name, s.index))
			var out []byte
			for _, e := range s.events {
				stream = conv.Append(stream, e)
				out = run.Append(out, e)
			}
			out = run.Finish(out)
			verifyRun(t, out)
			cr := checkRun{RunID: fmt.Sprintf("%s-run-%d", name, s.index), Lines: lines(out)}
			for _, text := range s.texts {
				cr.AddMessages = append(cr.AddMessages, map[string]any{"id": fmt.Sprintf("u%d", users), "role": "user", "content": text})
				users++
			}
			if s.input != nil {
				cr.Resume = resumeFor(t, s, prev)
			}
			th.Runs = append(th.Runs, cr)
			prev = out
		}
		plan.Streams = append(plan.Streams, checkStream{Name: name, Lines: lines(stream)})
		plan.Threads = append(plan.Threads, th)
	}
	reply, err := os.ReadFile(fixture.Path(t, "reply.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	conv, run := agui.NewConverter(), agui.NewRun("thread-reply", "reply-run")
	var stream, out []byte
	for _, line := range bytes.Split(bytes.TrimSpace(reply), []byte("\n")) {
		e := decode(t, string(line))
		stream, out = conv.Append(stream, e), run.Append(out, e)
	}
	plan.Streams = append(plan.Streams, checkStream{Name: "reply.jsonl", Lines: lines(stream)})
	plan.Threads = append(plan.Threads, checkThread{Name: "reply.jsonl", ThreadID: "thread-reply",
		Runs: []checkRun{{RunID: "reply-run", Lines: lines(run.Finish(out)), AddMessages: []map[string]any{{"id": "u0", "role": "user", "content": "What is here?"}}}}})

	planFile := filepath.Join(t.TempDir(), "plan.json")
	data, _ := json.Marshal(plan)
	if err := os.WriteFile(planFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, "--plan", planFile)
	cmd.Dir = filepath.Dir(script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, runErr := cmd.Output()
	var report checkReport
	if err := json.Unmarshal(stdout, &report); err != nil {
		t.Fatalf("agui-check.mjs: %v (%v)\n%s\n%s", err, runErr, stdout, stderr.String())
	}
	if len(report.Streams) != len(plan.Streams) || len(report.Threads) != len(plan.Threads) {
		t.Fatalf("the report covers %d streams and %d threads of %d and %d", len(report.Streams), len(report.Threads), len(plan.Streams), len(plan.Threads))
	}
	for _, s := range report.Streams {
		if len(s.Errors) > 0 {
			t.Errorf("stream %s: %s", s.Name, strings.Join(s.Errors, "\n"))
		}
	}
	runs := 0
	for _, th := range report.Threads {
		steps := all[th.Name]
		var stored []string
		for i, r := range th.Runs {
			runs++
			if len(r.Errors) > 0 || len(r.Warnings) > 0 {
				t.Errorf("%s: %s: errors %q, warnings %q", th.Name, r.RunID, r.Errors, r.Warnings)
				continue
			}
			if steps == nil {
				continue // reply.jsonl: the client's verdict is the check
			}
			s := steps[i]
			checkRequest(t, th.Name, s, r, &stored)
			checkOutcome(t, th.Name, s, r)
		}
	}
	if runErr != nil {
		t.Errorf("agui-check.mjs failed: %v\n%s", runErr, stderr.String())
	}
	t.Logf("the real client accepted %d converted streams and %d runs", len(report.Streams), runs)
}

// resumeFor answers the previous run's interrupts as the trace's input
// does, through the interrupts that run announced (their ids, and their
// metadata's suggestedRules for "rules": "suggested"); an interrupt the
// trace leaves unanswered (the native API allows a partial answer, AG-UI
// does not) is approved.
func resumeFor(t *testing.T, s *step, prev []byte) []map[string]any {
	t.Helper()
	ls := lines(prev)
	var fin struct {
		Type    string `json:"type"`
		Outcome struct {
			Interrupts []struct {
				ID         string `json:"id"`
				Reason     string `json:"reason"`
				ToolCallID string `json:"toolCallId"`
				Metadata   struct {
					SuggestedRules json.RawMessage `json:"suggestedRules"`
				} `json:"metadata"`
			} `json:"interrupts"`
		} `json:"outcome"`
	}
	if err := json.Unmarshal([]byte(ls[len(ls)-1]), &fin); err != nil || len(fin.Outcome.Interrupts) == 0 {
		t.Fatalf("step %d resumes a run that did not park: %s", s.index, ls[len(ls)-1])
	}
	results := s.raw.Steps[s.index].Input.Results
	var resume []map[string]any
	for _, in := range fin.Outcome.Interrupts {
		entry := map[string]any{"interruptId": in.ID, "status": "resolved"}
		if s.kind == "interrupt" {
			entry["status"] = "cancelled"
		}
		for _, res := range results {
			if res.ToolCallID != in.ToolCallID {
				continue
			}
			payload := map[string]any{}
			if in.Reason == agui.ReasonConfirm {
				payload["approved"] = res.Approve == nil || *res.Approve
				if res.EditedInput != nil {
					payload["editedArgs"] = res.EditedInput
				}
				if res.Rules == "suggested" {
					payload["rules"] = in.Metadata.SuggestedRules
				}
			} else {
				var text string
				if json.Unmarshal(res.Output, &text) == nil {
					payload["result"] = text
				} else {
					var parts []map[string]any
					if err := json.Unmarshal(res.Output, &parts); err != nil {
						t.Fatalf("output %s", res.Output)
					}
					for _, p := range parts {
						p["type"] = "text"
					}
					payload["content"] = parts
				}
				if res.State == "error" {
					payload["isError"] = true
				}
				if res.Metadata != nil {
					payload["metadata"] = res.Metadata
				}
			}
			entry["payload"] = payload
		}
		resume = append(resume, entry)
	}
	return resume
}

// checkRequest reads what the client sent back with the input side: the
// new user messages are the step's own; a resume becomes the native event
// the reference was given.
func checkRequest(t *testing.T, name string, s *step, r runReport, stored *[]string) {
	t.Helper()
	in, err := agui.ParseRunAgentInput(r.Request)
	if err != nil {
		t.Errorf("%s: %s: the client's request: %v\n%s", name, r.RunID, err, r.Request)
		return
	}
	msgs, err := agui.NewInput(in, func(id string) bool { return slices.Contains(*stored, id) })
	if err != nil {
		t.Errorf("%s: %s: %v", name, r.RunID, err)
		return
	}
	var got []string
	for _, m := range msgs {
		text, _ := m.TextContent("")
		got = append(got, text)
		*stored = append(*stored, m.ID)
	}
	if strings.Join(got, "|") != strings.Join(s.texts, "|") {
		t.Errorf("%s: %s: new input %q, want %q", name, r.RunID, got, s.texts)
	}
	if s.input == nil || s.kind == "interrupt" {
		if s.kind == "interrupt" && len(in.Resume) == 0 {
			t.Errorf("%s: %s: no resume", name, r.RunID)
		}
		return
	}
	prevParked := parkedBefore(s)
	events, err := agui.ResumeEvents(in.Resume, prevParked...)
	if err != nil {
		t.Errorf("%s: %s: resume %s: %v", name, r.RunID, r.Request, err)
		return
	}
	var want map[string]any
	_ = json.Unmarshal(s.raw.Steps[s.index].InputObject, &want)
	for _, e := range events {
		if string(e.Type()) != want["type"] {
			continue
		}
		var got map[string]any
		_ = json.Unmarshal(event.Marshal(e), &got)
		if g, w := resumeSummary(got), resumeSummary(want); !strings.HasPrefix(g, w) {
			t.Errorf("%s: %s: resume became\n %s\nwant\n %s", name, r.RunID, g, w)
		}
		return
	}
	t.Errorf("%s: %s: the resume gave no %v: %v", name, r.RunID, want["type"], events)
}

// parkedBefore returns the park events of the step before s.
func parkedBefore(s *step) []event.Event {
	for i := s.index - 1; i >= 0; i-- {
		st := s.raw.Steps[i]
		var parked []event.Event
		for _, item := range st.Stream {
			if item.Event == nil {
				continue
			}
			e, err := event.Decode(item.Event)
			if err != nil {
				continue
			}
			if t := e.Type(); t == event.TypeRequireUserConfirm || t == event.TypeRequireExternalExecution {
				parked = append(parked, e)
			}
		}
		if len(parked) > 0 {
			return parked
		}
	}
	return nil
}

// resumeSummary lists what a resume event decides, call by call (a call
// the trace leaves unanswered, and AG-UI needs answered, comes last).
func resumeSummary(e map[string]any) string {
	var b strings.Builder
	for _, key := range []string{"confirm_results", "execution_results"} {
		items, _ := e[key].([]any)
		for _, it := range items {
			m := it.(map[string]any)
			if tc, ok := m["tool_call"].(map[string]any); ok {
				fmt.Fprintf(&b, "%v confirmed=%v input=%v rules=%s; ", tc["id"], m["confirmed"], compactInput(tc["input"]), rulesOf(m["rules"]))
				continue
			}
			out, _ := json.Marshal(m["output"])
			md, _ := json.Marshal(m["metadata"])
			fmt.Fprintf(&b, "%v output=%s state=%v metadata=%s; ", m["id"], stripIDs(string(out)), m["state"], md)
		}
	}
	return b.String()
}

func compactInput(v any) string {
	s, _ := v.(string)
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(s)) != nil {
		return s
	}
	return buf.String()
}

func rulesOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// stripIDs keeps a tool output's text only: its blocks' ids and times are
// the caller's to stamp.
func stripIDs(out string) string {
	var parts []map[string]any
	if json.Unmarshal([]byte(out), &parts) != nil {
		return out
	}
	var texts []string
	for _, p := range parts {
		texts = append(texts, fmt.Sprint(p["type"], ":", p["text"]))
	}
	return strings.Join(texts, ",")
}

// checkOutcome checks how the client ended the run: parked with one
// interrupt per pending call, failed with the error delivered, or with
// the reply's text and tool calls in its messages.
func checkOutcome(t *testing.T, name string, s *step, r runReport) {
	t.Helper()
	pending := 0
	var texts = map[string]string{}
	var order []string
	calls := map[string]string{}
	failed := false // the run ends in RUN_ERROR
	for _, e := range s.events {
		switch e := e.(type) {
		case *event.ReplyEnd:
			failed = e.FinishedReason == event.ReplyError || e.FinishedReason == event.ReplyExceedMaxIters
		case *event.RequireUserConfirm:
			pending += len(e.ToolCalls)
		case *event.RequireExternalExecution:
			pending += len(e.ToolCalls)
		case *event.TextBlockStart:
			order = append(order, e.BlockID)
		case *event.TextBlockDelta:
			texts[e.BlockID] += e.Delta
		case *event.ToolCallStart:
			calls[e.ToolCallID] = ""
		case *event.ToolCallDelta:
			calls[e.ToolCallID] += e.Delta
		}
	}
	if len(r.PendingInterrupts) != pending {
		t.Errorf("%s: %s: %d pending interrupts, want %d", name, r.RunID, len(r.PendingInterrupts), pending)
	}
	for _, in := range r.PendingInterrupts {
		if in.ToolCallID == "" || !strings.HasSuffix(in.ID, ":"+in.ToolCallID) {
			t.Errorf("%s: %s: interrupt %+v", name, r.RunID, in)
		}
	}
	if failed != (len(r.RunErrors) == 1) {
		t.Errorf("%s: %s: run errors %+v (the reply failed: %v)", name, r.RunID, r.RunErrors, failed)
	}
	for _, id := range order {
		found := false
		for _, m := range r.NewMessages {
			found = found || (m.ID == id && m.Role == "assistant" && m.Content == texts[id])
		}
		if !found {
			t.Errorf("%s: %s: no assistant message %s %q in %+v", name, r.RunID, id, texts[id], r.NewMessages)
		}
	}
	for id, args := range calls {
		found := false
		for _, m := range r.NewMessages {
			for _, c := range m.ToolCalls {
				found = found || (m.Role == "assistant" && c.ID == id && c.Function.Arguments == args)
			}
		}
		if !found {
			t.Errorf("%s: %s: no tool call %s %q in %+v", name, r.RunID, id, args, r.NewMessages)
		}
	}
}
