package state_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/state"
)

// specExample extracts the §1.7 AgentState example from core-spec.md.
func specExample(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(fixture.Path(t, "spec", "core-spec.md"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)### 1.7 AgentState JSON.*?```json\n(.*?)```")
	m := re.FindSubmatch(data)
	if m == nil {
		t.Fatal("§1.7 example not found")
	}
	return m[1]
}

func compact(t *testing.T, data []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestSpecExampleRoundTripsByteExact(t *testing.T) {
	ex := specExample(t)
	var s state.AgentState
	if err := json.Unmarshal(ex, &s); err != nil {
		t.Fatal(err)
	}
	if s.Reply.ReplyID != "r1" || s.Reply.CurIter != 2 || s.Tools.MaxCacheBytes != 25000 || s.Tools.MaxCacheFiles != 100 {
		t.Fatalf("decoded %+v", s)
	}
	got, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	if want := compact(t, ex); string(got) != want {
		t.Fatalf("round trip\n got %s\nwant %s", got, want)
	}
}

func TestNewStateJSONShape(t *testing.T) {
	src := &stamp.Fixed{Time: "2026-08-22T09:14:04.512348"}
	s := state.New(src)
	got := string(s.AppendJSON(nil))
	want := `{"session_id":"00000000000000000000000000000001","summary":"","context":[],` +
		`"reply_context":{"reply_id":"00000000000000000000000000000002","cur_iter":0,"structured_schema":null,"structured_output":null},` +
		`"permission_context":{"mode":"default","working_directories":{},"allow_rules":{},"deny_rules":{},"ask_rules":{}},` +
		`"tool_context":{"max_cache_files":100,"max_cache_bytes":25000.0,"read_file_cache":[],"activated_groups":[]},` +
		`"tasks_context":{"tasks":[]},"middle_context":{}}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestFullStateRoundTrip(t *testing.T) {
	in := `{"session_id":"s","summary":[{"type":"text","text":"sum","id":"b1","created_at":"2026-01-01T00:00:00","finished_at":null}],` +
		`"context":[{"name":"user","content":[{"type":"text","text":"hi","id":"b2","created_at":"2026-01-01T00:00:00","finished_at":null}],"role":"user","id":"m1","metadata":{},"created_at":"2026-01-01T00:00:00","usage":null,"finished_at":"2026-01-01T00:00:00","finished_reason":null,"structured_output":null,"error":null},` +
		`{"name":"Friday","content":[{"type":"tool_call","id":"call_1","name":"Bash","input":"{\"command\": \"ls\"}","state":"asking","suggested_rules":[{"tool_name":"Bash","rule_content":"ls:*","behavior":"allow","source":"suggested"}],"created_at":"2026-01-01T00:00:00","finished_at":null}],"role":"assistant","id":"r9","metadata":{},"created_at":"2026-01-01T00:00:00","usage":{"input_tokens":3,"output_tokens":4,"cache_input_tokens":0,"cache_creation_input_tokens":0},"finished_at":null,"finished_reason":null,"structured_output":null,"error":null}],` +
		`"reply_context":{"reply_id":"r9","cur_iter":1,"structured_schema":{"type":"object","properties":{"b":{"type":"integer"},"a":{"type":"number"}}},"structured_output":{"a":1.5,"b":2}},` +
		`"permission_context":{"mode":"accept_edits","working_directories":{"/w":{"path":"/w","source":"session"}},"allow_rules":{"Read":[{"tool_name":"Read","rule_content":null,"behavior":"allow","source":"userSettings"}]},"deny_rules":{},"ask_rules":{}},` +
		`"tool_context":{"max_cache_files":7,"max_cache_bytes":20000.5,"read_file_cache":[{"lines":[1,2],"updated_at":1.5,"bytes":10,"file_path":"/w/a"}],"activated_groups":["web"]},` +
		`"tasks_context":{"tasks":[{"subject":"Write","description":"d","metadata":{"k":1},"created_at":"2026-01-01T00:00:00","state":"in_progress","id":"t1","owner":null,"blocks":["t2"],"blocked_by":[]}]},` +
		`"middle_context":{"budget":{"r9":3}}}`
	s, err := state.Decode([]byte(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(s.AppendJSON(nil)); got != in {
		t.Fatalf("round trip\n got %s\nwant %s", got, in)
	}
	// The clone is deep: changing it leaves the original as it was.
	c := s.Clone()
	c.Context[1].Content[0].(*block.ToolCall).State = block.CallFinished
	c.Reply.StructuredOutput["a"] = "x"
	c.Tools.ActivatedGroups[0] = "other"
	c.Tasks.Tasks[0].Blocks[0] = "zz"
	c.Permission.Mode = permission.ModeBypass
	if got := string(s.AppendJSON(nil)); got != in {
		t.Fatalf("clone shares data:\n%s", got)
	}
}

func TestLegacyTopLevelReplyFieldsAreMigrated(t *testing.T) {
	s, err := state.Decode([]byte(`{"session_id":"s","reply_id":"old","cur_iter":4}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Reply.ReplyID != "old" || s.Reply.CurIter != 4 {
		t.Fatalf("reply = %+v", s.Reply)
	}
	out := string(s.AppendJSON(nil))
	if strings.Contains(out, `"session_id":"s","reply_id"`) || !strings.Contains(out, `"reply_context":{"reply_id":"old","cur_iter":4,`) {
		t.Fatalf("legacy fields not moved: %s", out)
	}
	// reply_context wins over legacy fields.
	s, err = state.Decode([]byte(`{"reply_id":"old","cur_iter":4,"reply_context":{"reply_id":"new"}}`), nil)
	if err != nil || s.Reply.ReplyID != "new" || s.Reply.CurIter != 4 {
		t.Fatalf("got %+v, %v", s, err)
	}
}

func TestMalformedStatesAreTypedErrors(t *testing.T) {
	for _, bad := range []string{
		`null`, `[]`, `{"session_id":3}`, `{"context":{}}`, `{"context":[{"role":"user"}]}`,
		`{"reply_context":{"cur_iter":"x"}}`, `{"reply_context":{"structured_schema":[1]}}`,
		`{"permission_context":{"mode":"yolo"}}`, `{"tool_context":{"max_cache_files":1}}`,
		`{"tool_context":{"max_cache_bytes":5}}`, `{"tool_context":{"read_file_cache":[1]}}`,
		`{"tasks_context":{"tasks":[{"subject":"x","state":"done"}]}}`, `{"middle_context":[]}`,
	} {
		var s state.AgentState
		s.SessionID = "unchanged"
		err := json.Unmarshal([]byte(bad), &s)
		var de *state.DecodeError
		if err == nil || (!errors.As(err, &de) && !strings.Contains(err.Error(), "json")) {
			t.Errorf("%s: err = %v", bad, err)
			continue
		}
		if errors.As(err, &de) && !errors.Is(err, state.ErrInvalid) {
			t.Errorf("%s: not ErrInvalid", bad)
		}
		if s.SessionID != "unchanged" {
			t.Errorf("%s: state changed on error", bad)
		}
	}
}

func TestContextHelpers(t *testing.T) {
	src := stamp.NewSequence(time.Date(2026, 1, 1, 0, 0, 0, 0, time.Local))
	s := state.New(src)
	s.Context = append(s.Context, message.UserText("user", "go", message.WithStamp(src)))
	if s.ReplyMsg("Friday") != nil || s.AwaitingToolCalls("Friday") != nil {
		t.Fatal("no reply message yet")
	}
	c1 := &block.ToolCall{ID: "c1", Name: "a", State: block.CallAsking}
	c2 := &block.ToolCall{ID: "c2", Name: "b", State: block.CallSubmitted}
	c3 := &block.ToolCall{ID: "c3", Name: "c", State: block.CallPending}
	m := s.AppendContext(src, "Friday", block.NewText("hi"))
	if m.ID != s.Reply.ReplyID || m.Role != event.RoleAssistant || len(s.Context) != 2 {
		t.Fatalf("new reply msg %+v", m)
	}
	if again := s.AppendContext(src, "Friday", c1, c2, c3); again != m || len(m.Content) != 4 {
		t.Fatal("AppendContext did not extend the reply message")
	}
	ids := func(cs []*block.ToolCall) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return strings.Join(out, ",")
	}
	if got := ids(s.AwaitingToolCalls("Friday")); got != "c1,c2" {
		t.Fatalf("awaiting = %s", got)
	}
	if got := ids(s.UnfinishedToolCalls("Friday")); got != "c1,c2,c3" {
		t.Fatalf("unfinished = %s", got)
	}
	// A submitted call with a result no longer awaits.
	s.AppendContext(src, "Friday", &block.ToolResult{ID: "c2", Name: "b", Output: block.PlainBody("ok"), State: block.ResultSuccess})
	if got := ids(s.AwaitingToolCalls("Friday")); got != "c1" {
		t.Fatalf("awaiting = %s", got)
	}
	if got := ids(s.UnfinishedToolCalls("Friday")); got != "c1,c3" || !s.HasUnfinishedToolCalls("Friday") {
		t.Fatalf("unfinished = %s", got)
	}
	// Awaiting looks at the tail of any reply; unfinished only at the current one.
	s.Reply.ReplyID = "another"
	if !s.HasAwaitingToolCalls("Friday") || s.HasUnfinishedToolCalls("Friday") {
		t.Fatal("awaiting/unfinished scoping wrong")
	}
	if s.HasAwaitingToolCalls("Other") {
		t.Fatal("another agent's calls awaited")
	}
	m2 := s.AppendContext(src, "Friday", block.NewText("new reply"))
	if m2 == m || m2.ID != "another" || len(s.Context) != 3 {
		t.Fatal("a new reply id must start a new message")
	}
	s.SetActivatedGroups([]string{"g"})
	if got := s.ActivatedGroups(); len(got) != 1 || got[0] != "g" {
		t.Fatal(got)
	}
}

func TestZeroStateSummaryIsEmptyString(t *testing.T) {
	var s state.AgentState
	if got := string(s.AppendJSON(nil)); !strings.Contains(got, `"summary":""`) {
		t.Fatalf("zero state: %s", got)
	}
}
