package agui_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/server/agui"
)

var (
	askCall = &block.ToolCall{ID: "c1", Name: "save_note", Input: `{"text":"milk"}`, State: block.CallAsking,
		SuggestedRules: []block.PermissionRule{{ToolName: "save_note", Behavior: block.Allow, Source: "suggested"}}}
	askCall2 = &block.ToolCall{ID: "c2", Name: "Bash", Input: `{"command":"ls"}`, State: block.CallAsking}
	extCall  = &block.ToolCall{ID: "c3", Name: "weather", Input: `{"city":"Oslo"}`, State: block.CallSubmitted}
	confirm  = &event.RequireUserConfirm{ReplyID: "r", ToolCalls: []*block.ToolCall{askCall, askCall2}}
	external = &event.RequireExternalExecution{ReplyID: "r", ToolCalls: []*block.ToolCall{extCall}}
)

func entries(t *testing.T, js string) []agui.ResumeEntry {
	t.Helper()
	in, err := agui.ParseRunAgentInput([]byte(`{"threadId":"t","runId":"r","messages":[],"resume":` + js + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return in.Resume
}

func TestResumeConfirm(t *testing.T) {
	cases := []struct{ resume, want string }{
		// No payload approves; {approved:false} or "cancelled" denies.
		{`[{"interruptId":"confirm:c2","status":"resolved"},{"interruptId":"confirm:c1","status":"resolved","payload":{"approved":false}}]`,
			`c1 false {"text":"milk"} null | c2 true {"command":"ls"} null`},
		{`[{"interruptId":"confirm:c1","status":"cancelled","payload":{"approved":true}},{"interruptId":"confirm:c2","status":"resolved","payload":{"confirmed":true}}]`,
			`c1 false {"text":"milk"} null | c2 true {"command":"ls"} null`},
		// Edits: editedArgs (an object, its order kept) or input (a string or an object).
		{`[{"interruptId":"confirm:c1","status":"resolved","payload":{"approved":true,"editedArgs":{"text": "oat milk", "a": 1}}},{"interruptId":"confirm:c2","status":"resolved","payload":{"input":"{\"command\": \"pwd\"}"}}]`,
			`c1 true {"text":"oat milk","a":1} null | c2 true {"command": "pwd"} null`},
		// Rules: true is the call's suggested rules; a list is read in
		// either spelling.
		{`[{"interruptId":"confirm:c1","status":"resolved","payload":{"rules":true}},{"interruptId":"confirm:c2","status":"resolved","payload":{"rules":[{"toolName":"Bash","ruleContent":"ls:*","behavior":"allow"},{"tool_name":"Bash","rule_content":null,"behavior":"deny","source":"user"}]}}]`,
			`c1 true {"text":"milk"} [{"tool_name":"save_note","rule_content":null,"behavior":"allow","source":"suggested"}] | c2 true {"command":"ls"} [{"tool_name":"Bash","rule_content":"ls:*","behavior":"allow","source":"suggested"},{"tool_name":"Bash","rule_content":null,"behavior":"deny","source":"user"}]`},
	}
	for _, c := range cases {
		out, err := agui.ResumeEvents(entries(t, c.resume), confirm)
		if err != nil {
			t.Errorf("%s: %v", c.resume, err)
			continue
		}
		if len(out) != 1 {
			t.Fatalf("%d events", len(out))
		}
		res := out[0].(*event.UserConfirmResult)
		var got []string
		for _, r := range res.ConfirmResults {
			rules := "null"
			if r.Rules != nil {
				rules = string(block.AppendRules(nil, r.Rules))
			}
			got = append(got, strings.Join([]string{r.ToolCall.ID, map[bool]string{true: "true", false: "false"}[r.Confirmed], r.ToolCall.Input, rules}, " "))
		}
		if res.ReplyID != "r" || strings.Join(got, " | ") != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.resume, strings.Join(got, " | "), c.want)
		}
	}
	// The parked calls are not changed by an edit.
	if askCall.Input != `{"text":"milk"}` {
		t.Errorf("the parked call was edited: %s", askCall.Input)
	}
}

func TestResumeExternal(t *testing.T) {
	cases := []struct{ payload, want string }{
		{`{"result":"-3 degrees"}`, `"-3 degrees" success`},
		{`{"result":{"temp": -3}}`, `"{\"temp\":-3}" success`},
		{`{"result":"no network","isError":true}`, `"no network" error`},
		{`{"content":"cold"}`, `"cold" success`},
		{`{"content":[{"type":"text","text":"map:"},{"type":"image","source":{"type":"url","value":"https://x.test/m.png"}}]}`,
			`[{"type":"text","text":"map:","id":"","created_at":"","finished_at":null},{"type":"data","id":"","source":{"type":"url","url":"https://x.test/m.png","media_type":"image/png"},"name":null,"created_at":"","finished_at":null}] success`},
	}
	for _, c := range cases {
		out, err := agui.ResumeEvents(entries(t, `[{"interruptId":"external:c3","status":"resolved","payload":`+c.payload+`}]`), external)
		if err != nil {
			t.Errorf("%s: %v", c.payload, err)
			continue
		}
		r := out[0].(*event.ExternalExecutionResult).ExecutionResults[0]
		if got := string(r.Output.AppendJSON(nil)) + " " + string(r.State); r.ID != "c3" || r.Name != "weather" || got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.payload, got, c.want)
		}
	}
	out, err := agui.ResumeEvents(entries(t, `[{"interruptId":"external:c3","status":"resolved","payload":{"result":"ok","metadata":{"source":"caller","n":1.50}}}]`), external)
	if err != nil {
		t.Fatal(err)
	}
	if r := out[0].(*event.ExternalExecutionResult).ExecutionResults[0]; string(r.AppendJSON(nil)) != `{"type":"tool_result","id":"c3","name":"weather","output":"ok","state":"success","metadata":{"n":1.50,"source":"caller"},"created_at":"","finished_at":null}` {
		t.Errorf("%s", r.AppendJSON(nil))
	}
	out, err = agui.ResumeEvents(entries(t, `[{"interruptId":"external:c3","status":"cancelled"}]`), external)
	if err != nil {
		t.Fatal(err)
	}
	if r := out[0].(*event.ExternalExecutionResult).ExecutionResults[0]; r.State != block.ResultInterrupted || !strings.Contains(r.Output.Text, "interrupted by the user") {
		t.Errorf("%+v", r)
	}
}

// A park holding both kinds is answered by one resume: the two native
// events come in the parked events' order.
func TestResumeMixed(t *testing.T) {
	resume := entries(t, `[{"interruptId":"confirm:c1","status":"resolved"},{"interruptId":"external:c3","status":"resolved","payload":{"result":"ok"}},{"interruptId":"confirm:c2","status":"cancelled"}]`)
	out, err := agui.ResumeEvents(resume, external, confirm)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].Type() != event.TypeExternalExecutionResult || out[1].Type() != event.TypeUserConfirmResult {
		t.Fatalf("%v", out)
	}
	for _, e := range out {
		if _, err := event.Decode(event.Marshal(e)); err != nil {
			t.Errorf("not a valid event: %v: %s", err, event.Marshal(e))
		}
	}
}

func TestResumeErrors(t *testing.T) {
	cases := []struct {
		resume string
		parked []event.Event
		id     string
		err    error
		path   string
	}{
		{`[{"interruptId":"confirm:c9","status":"resolved"}]`, []event.Event{confirm}, "confirm:c9", agui.ErrUnknownInterrupt, ""},
		// The kind is part of the id: a confirmation's answer cannot
		// settle an external execution of the same call.
		{`[{"interruptId":"confirm:c3","status":"resolved"}]`, []event.Event{external}, "confirm:c3", agui.ErrUnknownInterrupt, ""},
		{`[{"interruptId":"confirm:c1","status":"resolved"}]`, nil, "confirm:c1", agui.ErrUnknownInterrupt, ""},
		{`[{"interruptId":"confirm:c1","status":"resolved"}]`, []event.Event{confirm}, "confirm:c2", agui.ErrUnanswered, ""},
		{`[]`, []event.Event{external}, "external:c3", agui.ErrUnanswered, ""},
		{`[{"interruptId":"confirm:c1","status":"resolved"},{"interruptId":"confirm:c1","status":"cancelled"}]`, []event.Event{confirm}, "confirm:c1", agui.ErrAnsweredTwice, ""},
		{`[{"interruptId":"confirm:c1","status":"resolved","payload":"yes"},{"interruptId":"confirm:c2","status":"resolved"}]`, []event.Event{confirm}, "", nil, "resume[0].payload"},
		{`[{"interruptId":"confirm:c2","status":"resolved"},{"interruptId":"confirm:c1","status":"resolved","payload":{"approved":"yes"}}]`, []event.Event{confirm}, "", nil, "resume[1].payload.approved"},
		{`[{"interruptId":"confirm:c1","status":"resolved","payload":{"approved":true,"confirmed":false}},{"interruptId":"confirm:c2","status":"resolved"}]`, []event.Event{confirm}, "", nil, "resume[0].payload.confirmed"},
		{`[{"interruptId":"confirm:c1","status":"resolved","payload":{"editedArgs":{},"input":"{}"}},{"interruptId":"confirm:c2","status":"resolved"}]`, []event.Event{confirm}, "", nil, "resume[0].payload"},
		{`[{"interruptId":"confirm:c1","status":"resolved","payload":{"input":3}},{"interruptId":"confirm:c2","status":"resolved"}]`, []event.Event{confirm}, "", nil, "resume[0].payload.input"},
		{`[{"interruptId":"confirm:c1","status":"resolved","payload":{"rules":[{"toolName":"x","behavior":"maybe"}]}},{"interruptId":"confirm:c2","status":"resolved"}]`, []event.Event{confirm}, "", nil, "resume[0].payload.rules[0].behavior"},
		{`[{"interruptId":"confirm:c1","status":"resolved","payload":{"rules":[{"behavior":"allow"}]}},{"interruptId":"confirm:c2","status":"resolved"}]`, []event.Event{confirm}, "", nil, "resume[0].payload.rules[0].toolName"},
		{`[{"interruptId":"confirm:c1","status":"resolved","payload":{"rules":"all"}},{"interruptId":"confirm:c2","status":"resolved"}]`, []event.Event{confirm}, "", nil, "resume[0].payload.rules"},
		{`[{"interruptId":"external:c3","status":"resolved"}]`, []event.Event{external}, "", nil, "resume[0].payload"},
		{`[{"interruptId":"external:c3","status":"resolved","payload":{}}]`, []event.Event{external}, "", nil, "resume[0].payload.result"},
		{`[{"interruptId":"external:c3","status":"resolved","payload":{"result":"a","content":"b"}}]`, []event.Event{external}, "", nil, "resume[0].payload"},
		{`[{"interruptId":"external:c3","status":"resolved","payload":{"result":"a","isError":"no"}}]`, []event.Event{external}, "", nil, "resume[0].payload.isError"},
		{`[{"interruptId":"external:c3","status":"resolved","payload":{"result":"a","metadata":[]}}]`, []event.Event{external}, "", nil, "resume[0].payload.metadata"},
		{`[{"interruptId":"external:c3","status":"resolved","payload":{"content":[{"type":"image","source":{"type":"data","value":"!","mimeType":"image/png"}}]}}]`, []event.Event{external}, "", nil, "resume[0].payload.content[0].source.value"},
	}
	for _, c := range cases {
		_, err := agui.ResumeEvents(entries(t, c.resume), c.parked...)
		if c.err != nil {
			var re *agui.ResumeError
			if !errors.As(err, &re) || !errors.Is(err, c.err) || re.InterruptID != c.id {
				t.Errorf("%s: got %v, want %v for %s", c.resume, err, c.err, c.id)
			}
			continue
		}
		var ie *agui.InputError
		if !errors.As(err, &ie) || ie.Path != c.path {
			t.Errorf("%s: got %v, want an *InputError at %s", c.resume, err, c.path)
		}
	}
	if _, err := agui.ResumeEvents(nil, &event.ReplyEnd{}); !errors.Is(err, agui.ErrNotParked) {
		t.Errorf("got %v", err)
	}
	if _, err := agui.ResumeEvents(nil, nil); !errors.Is(err, agui.ErrNotParked) {
		t.Errorf("got %v", err)
	}
	if out, err := agui.ResumeEvents(nil); out != nil || err != nil {
		t.Errorf("got %v %v", out, err)
	}
}

// What Run announces, ResumeEvents answers: the interrupts' ids are the
// resume's, and the suggestedRules written in their metadata read back.
func TestInterruptsRoundTrip(t *testing.T) {
	r := agui.NewRun("t", "r1")
	r.Append(nil, confirm)
	out := r.Finish(nil)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var fin struct {
		Outcome struct {
			Interrupts []struct {
				ID       string `json:"id"`
				Metadata struct {
					SuggestedRules json.RawMessage `json:"suggestedRules"`
				} `json:"metadata"`
			} `json:"interrupts"`
		} `json:"outcome"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &fin); err != nil {
		t.Fatal(err)
	}
	var resume []agui.ResumeEntry
	for _, in := range fin.Outcome.Interrupts {
		resume = append(resume, agui.ResumeEntry{InterruptID: in.ID, Status: agui.StatusResolved,
			Payload: json.RawMessage(`{"approved":true,"rules":` + string(in.Metadata.SuggestedRules) + `}`)})
	}
	evs, err := agui.ResumeEvents(resume, confirm)
	if err != nil {
		t.Fatal(err)
	}
	res := evs[0].(*event.UserConfirmResult).ConfirmResults
	if len(res) != 2 || string(block.AppendRules(nil, res[0].Rules)) != string(block.AppendRules(nil, askCall.SuggestedRules)) || len(res[1].Rules) != 0 || res[1].Rules == nil {
		t.Errorf("%+v", res)
	}
}
