package message_test

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/message"
)

// specMsgs returns the two Msg examples of core-spec §1.5, the
// pretty-printed one compacted to the one-line form pydantic emits.
func specMsgs(t testing.TB) []string {
	t.Helper()
	fences := fixture.SpecFences(t, "### 1.5")
	if len(fences) != 2 {
		t.Fatalf("§1.5: want 2 json fences, got %d", len(fences))
	}
	out := make([]string, len(fences))
	for i, f := range fences {
		out[i] = string(wire.AppendCompact(nil, []byte(strings.TrimSpace(f))))
	}
	return out
}

func TestSpecMsgByteExact(t *testing.T) {
	for i, line := range specMsgs(t) {
		var m message.Msg
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("example %d: %v", i, err)
		}
		if got := string(m.AppendJSON(nil)); got != line {
			t.Fatalf("example %d\n got: %s\nwant: %s", i, got, line)
		}
		if got, _ := m.MarshalJSON(); string(got) != line {
			t.Fatalf("example %d: MarshalJSON differs", i)
		}
		if got := string(m.Clone().AppendJSON(nil)); got != line {
			t.Fatalf("example %d: clone differs\n got: %s\nwant: %s", i, got, line)
		}
	}
}

// md5Source numbers ids like the spec's examples do (md5 of "1", "2", …) at
// one fixed instant.
type md5Source struct{ n atomic.Int64 }

func (s *md5Source) NewID() string {
	sum := md5.Sum([]byte(strconv.FormatInt(s.n.Add(1), 10)))
	return hex.EncodeToString(sum[:])
}
func (s *md5Source) Now() string { return "2026-08-22T09:14:04.512348" }

// TestSpecUserMsgFactory: UserText builds the §1.5 user message byte for
// byte, ids included, when its source numbers ids like the spec's.
func TestSpecUserMsgFactory(t *testing.T) {
	want := specMsgs(t)[1]
	m := message.UserText("user", "What's in this image?", message.WithStamp(new(md5Source)))
	if got := string(m.AppendJSON(nil)); got != want {
		t.Fatalf("\n got: %s\nwant: %s", got, want)
	}
}

type msgFixture struct {
	Valid []struct {
		Name      string `json:"name"`
		Construct struct {
			Factory string          `json:"factory"`
			Name    string          `json:"name"`
			Content json.RawMessage `json:"content"`
		} `json:"construct"`
		Expected any `json:"expected"`
	} `json:"valid"`
	Invalid []struct {
		Role  string          `json:"role"`
		Block json.RawMessage `json:"block"`
	} `json:"invalid_role_content"`
}

// TestMessageFixtureConstruction builds each message of message_test.json
// with the matching factory and compares the dump.
func TestMessageFixtureConstruction(t *testing.T) {
	var fx msgFixture
	fixture.Load(t, &fx, "spec", "fixtures", "message_test.json")
	if len(fx.Valid) == 0 || len(fx.Invalid) == 0 {
		t.Fatal("empty fixture")
	}
	for _, c := range fx.Valid {
		t.Run(c.Name, func(t *testing.T) {
			var content []block.Block
			var text string
			if err := json.Unmarshal(c.Construct.Content, &text); err == nil {
				content = []block.Block{message.Text(text)}
			} else {
				bs, err := block.DecodeList(c.Construct.Content)
				if err != nil {
					t.Fatal(err)
				}
				content = bs
			}
			var m *message.Msg
			var err error
			switch c.Construct.Factory {
			case "UserMsg":
				m, err = message.UserMsg(c.Construct.Name, content)
			case "AssistantMsg":
				m, err = message.AssistantMsg(c.Construct.Name, content)
			case "SystemMsg":
				m, err = message.SystemMsg(c.Construct.Name, content)
			default:
				t.Fatalf("unknown factory %q", c.Construct.Factory)
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := fixture.Parse(m.AppendJSON(nil))
			if err != nil {
				t.Fatal(err)
			}
			if err := fixture.Match(got, c.Expected, map[string]any{"<ANY_STRING>": nil}); err != nil {
				t.Fatal(err)
			}
			// And the dump decodes back to the same message.
			var back message.Msg
			if err := json.Unmarshal(m.AppendJSON(nil), &back); err != nil {
				t.Fatal(err)
			}
			if string(back.AppendJSON(nil)) != string(m.AppendJSON(nil)) {
				t.Fatal("decode/encode round trip differs")
			}
		})
	}
}

// TestMessageFixtureRoleErrors: every forbidden role/block pair is refused
// with a *RoleError — by New, by the role's factory, and when decoding.
func TestMessageFixtureRoleErrors(t *testing.T) {
	var fx msgFixture
	fixture.Load(t, &fx, "spec", "fixtures", "message_test.json")
	for i, c := range fx.Invalid {
		b, err := block.Decode(c.Block)
		if err != nil {
			t.Fatalf("invalid[%d]: block: %v", i, err)
		}
		role := event.Role(c.Role)
		check := func(how string, err error) {
			t.Helper()
			var re *message.RoleError
			if !errors.As(err, &re) {
				t.Fatalf("invalid[%d] %s via %s: got %v, want *RoleError", i, b.Kind(), how, err)
			}
			if re.Role != role || re.Index != 1 || re.Kind != b.Kind() || !errors.Is(err, message.ErrRoleContent) {
				t.Fatalf("invalid[%d] via %s: %+v", i, how, re)
			}
			wantPrefix := map[event.Role]string{
				event.RoleUser:   "User message can only contain text blocks or data blocks.",
				event.RoleSystem: "System message can only contain text blocks.",
			}[role]
			if !strings.HasPrefix(strings.Replace(err.Error(), " (content[1] is "+string(b.Kind())+")", "", 1), strings.TrimSuffix(wantPrefix, ".")) {
				t.Fatalf("invalid[%d]: message %q", i, err)
			}
		}
		content := []block.Block{message.Text("ok"), b}
		_, err = message.New("n", role, content)
		check("New", err)
		if role == event.RoleUser {
			_, err = message.UserMsg("n", content)
		} else {
			_, err = message.SystemMsg("n", content)
		}
		check("factory", err)
		raw := `{"name":"n","role":"` + c.Role + `","content":[{"type":"text","text":"ok"},` + string(c.Block) + `]}`
		var m message.Msg
		check("UnmarshalJSON", json.Unmarshal([]byte(raw), &m))
		// The assistant role accepts the same block.
		if _, err := message.AssistantMsg("n", []block.Block{b.CloneBlock()}); err != nil {
			t.Fatalf("invalid[%d]: assistant refused %s: %v", i, b.Kind(), err)
		}
	}
}

func TestRoleInvalid(t *testing.T) {
	if _, err := message.New("n", "robot", nil); !errors.Is(err, message.ErrRole) {
		t.Fatalf("got %v", err)
	}
	var m message.Msg
	if err := json.Unmarshal([]byte(`{"name":"n","role":"robot","content":[]}`), &m); !errors.Is(err, message.ErrRole) {
		t.Fatalf("got %v", err)
	}
}

func TestMsgDecodeErrors(t *testing.T) {
	cases := []struct{ in, field string }{
		{`{"role":"user","content":[]}`, "name"},
		{`{"name":"n","content":[]}`, "role"},
		{`{"name":"n","role":"user"}`, "content"},
		{`{"name":"n","role":"user","content":null}`, "content"},
		{`{"name":"n","role":"assistant","content":[],"finished_reason":"done"}`, "finished_reason"},
		{`{"name":"n","role":"assistant","content":[],"usage":{"input_tokens":1}}`, "output_tokens"},
		{`{"name":"n","role":"assistant","content":[],"error":{"type":"x","message":"m"}}`, "type"},
		{`{"name":"n","role":"assistant","content":[],"structured_output":[1]}`, "structured_output"},
	}
	for _, c := range cases {
		var m message.Msg
		err := json.Unmarshal([]byte(c.in), &m)
		var fe *wire.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s: got %v, want a FieldError on %q", c.in, err, c.field)
		}
	}
	var m message.Msg
	if err := json.Unmarshal([]byte(`{"name":"n","role":"user","content":[{"type":"text"}]}`), &m); err == nil {
		t.Fatal("bad block accepted")
	}
	if err := json.Unmarshal([]byte(`null`), &m); err == nil {
		t.Fatal("null accepted as a message")
	}
	// A null *Msg field is simply nil; UnmarshalJSON is not involved.
	var holder struct{ M *message.Msg }
	if err := json.Unmarshal([]byte(`{"M":null}`), &holder); err != nil || holder.M != nil {
		t.Fatalf("%v %v", err, holder.M)
	}
}

// TestMsgDecodeDefaults: missing optional fields take the reference's
// defaults; a decoded message re-encodes with every field present.
func TestMsgDecodeDefaults(t *testing.T) {
	var m message.Msg
	in := `{"name":"n","role":"assistant","content":[],"id":"i","created_at":"T","usage":{"input_tokens":1,"output_tokens":2}}`
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	want := `{"name":"n","content":[],"role":"assistant","id":"i","metadata":{},"created_at":"T","usage":{"input_tokens":1,"output_tokens":2,"cache_input_tokens":0,"cache_creation_input_tokens":0},"finished_at":null,"finished_reason":null,"structured_output":null,"error":null}`
	if got := string(m.AppendJSON(nil)); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	// An explicit "" is a value, not an absent key: it is kept.
	empty := `{"name":"","content":[],"role":"user","id":"","metadata":{},"created_at":"","usage":null,"finished_at":null,"finished_reason":null,"structured_output":null,"error":null}`
	m = message.Msg{}
	if err := json.Unmarshal([]byte(empty), &m); err != nil {
		t.Fatal(err)
	}
	if got := string(m.AppendJSON(nil)); got != empty {
		t.Fatalf("\n got %s\nwant %s", got, empty)
	}
	m = message.Msg{}
	if err := json.Unmarshal([]byte(`{"name":"n","role":"user","content":[]}`), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.ID) != 32 || m.CreatedAt == "" {
		t.Fatalf("id %q created_at %q", m.ID, m.CreatedAt)
	}
}

func TestFactories(t *testing.T) {
	src := &fixedSource{}
	u := message.UserText("u", "hi", message.WithStamp(src))
	if u.FinishedAt != block.Some(u.CreatedAt) || u.Role != event.RoleUser {
		t.Fatalf("user: %+v", u)
	}
	a := message.AssistantText("a", "hi", message.WithStamp(src), message.WithUsage(message.Usage{InputTokens: 1, OutputTokens: 2}),
		message.WithStructuredOutput(map[string]any{"k": "v"}), message.WithFinishedReason(event.ReplyReason("completed")))
	if a.FinishedAt.Valid || a.Usage.OutputTokens != 2 || a.StructuredOutput["k"] != "v" {
		t.Fatalf("assistant: %+v", a)
	}
	s := message.SystemText("s", "be brief", message.WithID("sys"), message.WithCreatedAt("C"), message.WithFinishedAt(block.NullString{}), message.WithMetadata(map[string]any{"x": 1}))
	want := `{"name":"s","content":[{"type":"text","text":"be brief","id":"` + s.Content[0].BlockID() + `","created_at":"` + s.Content[0].(*block.Text).CreatedAt + `","finished_at":null}],"role":"system","id":"sys","metadata":{"x":1},"created_at":"C","usage":null,"finished_at":null,"finished_reason":null,"structured_output":null,"error":null}`
	if got := string(s.AppendJSON(nil)); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	if m, err := message.AssistantMsg("a", nil); err != nil || m.Content == nil || string(m.AppendJSON(nil))[:22] != `{"name":"a","content":` {
		t.Fatalf("nil content: %v %v", m, err)
	}
}

type fixedSource struct{ n atomic.Int64 }

func (s *fixedSource) NewID() string { return "id" + strconv.FormatInt(s.n.Add(1), 10) }
func (s *fixedSource) Now() string   { return "NOW" }

func TestHelpers(t *testing.T) {
	tc := &block.ToolCall{ID: "c1", Name: "Bash", Input: "{}"}
	tr := &block.ToolResult{ID: "c1", Name: "Bash", Output: block.PlainBody("ok")}
	m, err := message.AssistantMsg("a", []block.Block{
		block.NewThinking("hmm"), message.Text("one"), tc, tr, message.Text("two"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := m.TextContent("\n"); !ok || s != "one\ntwo" {
		t.Fatalf("TextContent %q %v", s, ok)
	}
	empty, _ := message.AssistantMsg("a", []block.Block{tc.CloneBlock()})
	if s, ok := empty.TextContent("\n"); ok || s != "" {
		t.Fatalf("no text: %q %v", s, ok)
	}
	if !m.HasBlocks() || !m.HasBlocks(block.KindToolCall) || m.HasBlocks(block.KindHint) {
		t.Fatal("HasBlocks")
	}
	if got := m.Blocks(block.KindText, block.KindThinking); len(got) != 3 {
		t.Fatalf("Blocks: %d", len(got))
	}
	if len(m.Blocks()) != 5 {
		t.Fatal("Blocks()")
	}
	if calls := message.BlocksOf[*block.ToolCall](m); len(calls) != 1 || calls[0] != tc {
		t.Fatal("BlocksOf")
	}
	// Find distinguishes kinds sharing an id (a call and its result).
	if m.Find(block.KindToolResult, "c1") != block.Block(tr) || m.Find(block.KindToolCall, "c1") != block.Block(tc) {
		t.Fatal("Find")
	}
	if m.Find(block.KindText, "nope") != nil {
		t.Fatal("Find missing")
	}
	// Find sees edits made to Content directly.
	m.Content = m.Content[1:]
	m.Content[0] = message.Text("replaced")
	if m.Find(block.KindThinking, m.Content[0].BlockID()) != nil {
		t.Fatal("stale index")
	}
	fresh := message.Text("x")
	fresh.ID = "new"
	m.Content = append(m.Content, fresh)
	if m.Find(block.KindText, "new") != block.Block(fresh) {
		t.Fatal("appended block not found")
	}

	c := m.Clone()
	c.Content[1].(*block.ToolCall).Input = "changed"
	if tc.Input != "{}" {
		t.Fatal("clone shares blocks")
	}
}
