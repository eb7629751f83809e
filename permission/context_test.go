package permission_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/permission"
)

// roundTrip decodes raw (any whitespace, reference key order) and checks
// that encoding gives back the same text, compacted.
func roundTrip(t *testing.T, raw []byte) *permission.Context {
	t.Helper()
	var pc permission.Context
	if err := json.Unmarshal(raw, &pc); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	var want bytes.Buffer
	if err := json.Compact(&want, raw); err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(&pc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("round trip\n got %s\nwant %s", got, want.Bytes())
	}
	return &pc
}

// The §1.7 AgentState example's permission_context.
func TestContextJSONSpecExample(t *testing.T) {
	spec, err := os.ReadFile(fixture.Path(t, "spec", "core-spec.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := bytes.Cut(spec, []byte("### 1.7 AgentState JSON"))
	if !ok {
		t.Fatal("§1.7 not found in core-spec.md")
	}
	m := regexp.MustCompile("(?s)```json\n(.*?)```").FindSubmatch(after)
	if m == nil {
		t.Fatal("no JSON example in §1.7")
	}
	var state struct {
		PermissionContext json.RawMessage `json:"permission_context"`
	}
	if err := json.Unmarshal(m[1], &state); err != nil {
		t.Fatal(err)
	}
	pc := roundTrip(t, state.PermissionContext)
	if pc.Mode != permission.ModeDefault || len(pc.AllowRules)+len(pc.DenyRules)+len(pc.AskRules)+len(pc.WorkingDirectories) != 0 {
		t.Errorf("decoded %+v", pc)
	}
	// A fresh context serializes to the same document.
	got, _ := permission.NewContext(permission.ModeDefault).MarshalJSON()
	var want bytes.Buffer
	_ = json.Compact(&want, state.PermissionContext)
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("NewContext JSON %s, want %s", got, want.Bytes())
	}
}

// Every permission_context the reference recorded in the conformance traces
// (rules learned from approvals, deny rules, dont_ask mode) round-trips.
func TestContextJSONGoldenStates(t *testing.T) {
	files, err := filepath.Glob(fixture.Path(t, "conformance", "golden", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden traces: %v", err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Steps []struct {
				State struct {
					PermissionContext json.RawMessage `json:"permission_context"`
				} `json:"state"`
			} `json:"steps"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, st := range doc.Steps {
			if raw := st.State.PermissionContext; raw != nil && !seen[string(raw)] {
				seen[string(raw)] = true
				roundTrip(t, raw)
			}
		}
	}
	// default, learned allow rule, deny rule, dont_ask mode.
	if len(seen) < 4 {
		t.Errorf("only %d distinct permission contexts found in the traces", len(seen))
	}
}

func TestContextJSONKeyOrderAndContent(t *testing.T) {
	raw := []byte(`{"mode":"accept_edits","working_directories":{"/z":{"path":"/z","source":"session"},"/a":{"path":"/a","source":"userSettings"}},` +
		`"allow_rules":{"Zed":[{"tool_name":"Zed","rule_content":"x:*","behavior":"allow","source":"suggested"},{"tool_name":"Zed","rule_content":null,"behavior":"allow","source":"s"}],"Alpha":[]},` +
		`"deny_rules":{"Bash":[{"tool_name":"Bash","rule_content":"rm:*","behavior":"deny","source":"userSettings"}]},` +
		`"ask_rules":{"q\"uote":[{"tool_name":"q\"uote","rule_content":null,"behavior":"ask","source":"s"}]}}`)
	pc := roundTrip(t, raw)
	if pc.Mode != permission.ModeAcceptEdits || pc.WorkingDirectories["/a"].Source != "userSettings" ||
		len(pc.AllowRules["Zed"]) != 2 || pc.AllowRules["Zed"][0].RuleContent != block.Some("x:*") || pc.AllowRules["Alpha"] == nil {
		t.Errorf("decoded %+v", pc)
	}

	// New tools are appended after the recorded ones; keys put on the maps
	// directly come last, sorted.
	e := permission.NewEngine(pc)
	e.AddRule(rule("Beta", "", A))
	pc.AllowRules["Direct2"] = nil
	pc.AllowRules["Direct1"] = nil
	pc.AddWorkingDirectory("/m", "cli")
	got, _ := json.Marshal(pc)
	for _, want := range []string{
		`"allow_rules":{"Zed":[`,
		`],"Alpha":[],"Beta":[{"tool_name":"Beta","rule_content":null,"behavior":"allow","source":"test"}],"Direct1":[],"Direct2":[]}`,
		`"working_directories":{"/z":{"path":"/z","source":"session"},"/a":{"path":"/a","source":"userSettings"},"/m":{"path":"/m","source":"cli"}}`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("%s\nlacks %s", got, want)
		}
	}
}

func TestContextJSONDefaults(t *testing.T) {
	for _, in := range []string{`{}`, `{"extra":1}`, `{"mode":"default"}`} {
		var pc permission.Context
		if err := json.Unmarshal([]byte(in), &pc); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got, _ := json.Marshal(&pc)
		if want := `{"mode":"default","working_directories":{},"allow_rules":{},"deny_rules":{},"ask_rules":{}}`; string(got) != want {
			t.Errorf("%s → %s", in, got)
		}
	}
	var nilPC *permission.Context
	if got := string(nilPC.AppendJSON(nil)); !strings.HasPrefix(got, `{"mode":"default"`) {
		t.Errorf("nil context: %s", got)
	}
}

func TestContextJSONErrors(t *testing.T) {
	rule := func(fields string) string {
		return `{"allow_rules":{"Bash":[` + fields + `]}}`
	}
	cases := []struct {
		in        string
		mode      bool   // a *ModeError
		field     string // DecodeError.Field
		fieldErr  bool   // wraps a *wire.FieldError of the rule
		wantInMsg string
	}{
		{in: `{"mode":"yolo"}`, mode: true, wantInMsg: `"yolo"`},
		{in: `{"mode":""}`, mode: true},
		{in: `{"mode":null}`, field: "mode"},
		{in: `{"mode":3}`, field: "mode"},
		{in: `null`},
		{in: `[]`},
		{in: `"x"`},
		{in: `{"mode":`},
		{in: `{"working_directories":null}`, field: "working_directories"},
		{in: `{"working_directories":{"/a":{"path":"/a"}}}`, field: "working_directories./a", fieldErr: true},
		{in: `{"working_directories":{"/a":"x"}}`, field: "working_directories./a"},
		{in: `{"allow_rules":null}`, field: "allow_rules"},
		{in: `{"deny_rules":[]}`, field: "deny_rules"},
		{in: `{"ask_rules":{"Bash":null}}`, field: "ask_rules.Bash"},
		{in: `{"ask_rules":{"Bash":{}}}`, field: "ask_rules.Bash"},
		{in: rule(`{"tool_name":"Bash","behavior":"allow","source":"s"}`), field: "allow_rules.Bash[0]", fieldErr: true, wantInMsg: "rule_content"},
		{in: rule(`{"tool_name":"Bash","rule_content":null,"behavior":"allow","source":"s"},{"tool_name":"Bash","rule_content":null,"behavior":"sometimes","source":"s"}`),
			field: "allow_rules.Bash[1]", fieldErr: true, wantInMsg: "sometimes"},
		{in: rule(`{"rule_content":null,"behavior":"allow","source":"s"}`), field: "allow_rules.Bash[0]", fieldErr: true},
		{in: rule(`7`), field: "allow_rules.Bash[0]"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			pc := permission.NewContext(permission.ModeExplore)
			pc.AddWorkingDirectory("/keep", "test")
			before, _ := json.Marshal(pc)
			err := pc.UnmarshalJSON([]byte(c.in))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, permission.ErrInvalidContext) {
				t.Errorf("%v does not match ErrInvalidContext", err)
			}
			var me *permission.ModeError
			if errors.As(err, &me) != c.mode {
				t.Errorf("ModeError: %v", err)
			}
			var de *permission.DecodeError
			if c.field != "" && (!errors.As(err, &de) || de.Field != c.field) {
				t.Errorf("want field %q, got %v", c.field, err)
			}
			var fe *wire.FieldError
			if c.fieldErr && !errors.As(err, &fe) {
				t.Errorf("no *wire.FieldError in %v", err)
			}
			if !strings.Contains(err.Error(), c.wantInMsg) {
				t.Errorf("message %q lacks %q", err, c.wantInMsg)
			}
			if after, _ := json.Marshal(pc); !bytes.Equal(before, after) {
				t.Errorf("context changed by a failed decode: %s", after)
			}
		})
	}
}

func TestContextClone(t *testing.T) {
	pc := permission.NewContext(permission.ModeDefault)
	pc.AddWorkingDirectory("/w", "s")
	e := permission.NewEngine(pc)
	e.AddRule(rule("t", "", A))
	cp := e.Snapshot()
	if !reflect.DeepEqual(cp, pc) {
		t.Fatalf("clone differs:\n%+v\n%+v", cp, pc)
	}
	cp.AllowRules["t"][0].Source = "changed"
	cp.AllowRules["u"] = nil
	cp.WorkingDirectories["/x"] = permission.WorkingDirectory{}
	cp.Mode = permission.ModeBypass
	if pc.AllowRules["t"][0].Source != "test" || len(pc.AllowRules) != 1 || len(pc.WorkingDirectories) != 1 || pc.Mode != permission.ModeDefault {
		t.Errorf("original changed through the clone: %+v", pc)
	}
	var nilPC *permission.Context
	if nilPC.Clone() != nil {
		t.Error("nil clone")
	}
}

// PE-51's path semantics: working directories and paths compare after
// resolving symlinks, in both directions.
func TestInWorkingDirectory(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "project")
	other := filepath.Join(root, "project2")
	link := filepath.Join(root, "link")
	for _, d := range []string{real, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}

	viaReal := permission.NewContext(permission.ModeAcceptEdits)
	viaReal.AddWorkingDirectory(real, "test")
	viaLink := permission.NewContext(permission.ModeAcceptEdits)
	viaLink.AddWorkingDirectory(link, "test")

	for _, c := range []struct {
		pc   *permission.Context
		path string
		want bool
	}{
		{viaReal, filepath.Join(real, "file.txt"), true},
		{viaReal, filepath.Join(link, "file.txt"), true}, // written through the symlink
		{viaLink, filepath.Join(real, "new", "deep.txt"), true},
		{viaReal, real, true},
		{viaReal, filepath.Join(other, "file.txt"), false}, // a sibling sharing the prefix
		{viaReal, filepath.Join(real, "..", "project2", "f"), false},
		{viaReal, "/definitely/elsewhere/file.txt", false},
	} {
		if got := c.pc.InWorkingDirectory(c.path); got != c.want {
			t.Errorf("InWorkingDirectory(%s) with %v = %v", c.path, c.pc.WorkingDirectories, got)
		}
	}

	// The process's current directory always counts.
	t.Chdir(other)
	if !viaReal.InWorkingDirectory("relative.txt") {
		t.Error("a path in the current directory is outside")
	}
}
