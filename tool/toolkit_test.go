package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/tool"
)

func testTools(t *testing.T) (tool1, tool2 tool.Tool) {
	t.Helper()
	tool1 = must(t)(tool.New("tool_1", "A simple tool for testing.", emptySchema,
		chunks(tool.Text("Hello, world!")), tool.ConcurrencySafe(true), tool.ReadOnly()))
	tool2 = must(t)(tool.New("tool_2", "Test tool 2.", emptySchema, chunks(
		tool.Chunk{Content: []block.Block{text("a", "123")}},
		tool.Chunk{Content: []block.Block{text("b", "456")}},
		tool.Chunk{Content: []block.Block{text("b", "789")}},
		tool.Chunk{Content: []block.Block{data("1", "image/jpeg", "abc")}},
		tool.Chunk{Content: []block.Block{data("2", "image/jpeg", "***")}},
		tool.Chunk{Content: []block.Block{data("1", "image/jpeg", "def")}},
	)))
	return
}

func schemasJSON(t *testing.T, ss []model.ToolSchema) []byte {
	t.Helper()
	out, err := json.Marshal(ss)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TK-1.
func TestSchemasInRegistrationOrder(t *testing.T) {
	fx := loadToolkitFixture(t)
	empty, err := tool.NewToolkit(nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(empty.Schemas(nil)); n != 0 {
		t.Fatalf("empty toolkit has %d schemas", n)
	}
	tool1, tool2 := testTools(t)
	tk, err := tool.NewToolkit([]tool.Tool{tool1, tool2})
	if err != nil {
		t.Fatal(err)
	}
	matchJSON(t, "schemas", schemasJSON(t, tk.Schemas(nil)), fx["tool1_tool2_schemas"])
}

// TK-2 and TK-3 through Runner.Collect: chunks pass through as produced,
// then fold into the fixture's response.
func TestCallSingleAndStreamingTools(t *testing.T) {
	fx := loadToolkitFixture(t)
	tool1, tool2 := testTools(t)
	r := &tool.Runner{Stamp: seqStamp()}

	got := collect(r.Run(context.Background(), tool1, map[string]any{}))
	if len(got) != 1 {
		t.Fatalf("tool_1 yielded %d chunks", len(got))
	}
	matchJSON(t, "tool_1 chunk", got[0].AppendJSON(nil), fx["tool1_chunk_dump"])
	resp := r.Collect(context.Background(), "test_1", tool1, map[string]any{})
	matchJSON(t, "tool_1 response", resp.AppendJSON(nil), fx["tool1_response_dump"])

	got = collect(r.Run(context.Background(), tool2, map[string]any{}))
	var ids []string
	for _, c := range got {
		if c.State != "" || c.ID == "" {
			t.Errorf("chunk state %q id %q", c.State, c.ID)
		}
		ids = append(ids, c.Content[0].BlockID())
	}
	if !slices.Equal(ids, []string{"a", "b", "b", "1", "2", "1"}) {
		t.Fatalf("chunk block ids %v", ids)
	}
	resp = r.Collect(context.Background(), "test_2", tool2, map[string]any{})
	matchJSON(t, "tool_2 response", resp.AppendJSON(nil), fx["tool2_response_dump"])
}

// TK-15: groups, the reset_tools schema and its responses.
func TestGroupsAndResetTools(t *testing.T) {
	fx := loadToolkitFixture(t)
	var meta struct {
		Name, Description string
		SchemaOne         json.RawMessage `json:"schema_one_group"`
		SchemaTwo         json.RawMessage `json:"schema_two_groups"`
		Responses         []struct {
			Input map[string]any
			Text  string
		}
	}
	if err := json.Unmarshal(fx["meta_tool"], &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Name != tool.MetaToolName || meta.Description != tool.MetaToolDescription {
		t.Fatalf("meta tool name/description differ from the fixture")
	}

	tk, err := tool.NewToolkit(nil, tool.Group{Name: "group_1", Description: "Group 1"})
	if err != nil {
		t.Fatal(err)
	}
	if g := tk.GroupNames(); !slices.Equal(g, []string{"basic", "group_1"}) {
		t.Fatalf("groups %v", g)
	}
	ss := tk.Schemas(nil)
	if len(ss) != 1 {
		t.Fatalf("%d schemas", len(ss))
	}
	one, _ := json.Marshal(ss[0])
	matchJSON(t, "one group", one, meta.SchemaOne)

	if _, err := tool.NewToolkit(nil, tool.Group{Name: "g", Description: "x"}, tool.Group{Name: "g", Description: "y"}); !errors.Is(err, tool.ErrDuplicateGroup) {
		t.Fatalf("duplicate groups: %v", err)
	}
	if _, err := tool.NewToolkit(nil, tool.Group{Name: "basic", Description: "x"}); !errors.Is(err, tool.ErrReservedGroup) {
		t.Fatalf("basic group: %v", err)
	}

	tool1, tool2 := testTools(t)
	tk, err = tool.NewToolkit(nil,
		tool.Group{Name: "group_1", Description: "Group 1"},
		tool.Group{Name: "group_2", Description: "Group 2", Instructions: "This is group 2.", Tools: []tool.Tool{tool1, tool2}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tk.GroupNames()); n != 3 {
		t.Fatalf("%d groups", n)
	}
	ss = tk.Schemas(nil)
	if len(ss) != 1 {
		t.Fatalf("inactive tools visible: %d schemas", len(ss))
	}
	two, _ := json.Marshal(ss[0])
	matchJSON(t, "two groups", two, meta.SchemaTwo)

	r := &tool.Runner{Stamp: seqStamp()}
	for _, c := range meta.Responses {
		raw, _ := json.Marshal(c.Input)
		call := &block.ToolCall{ID: "xxx", Name: tool.MetaToolName, Input: string(raw)}
		mt, input, err := tk.Prepare(call, nil)
		if err != nil {
			t.Fatal(err)
		}
		var gs tool.Groups
		gs.SetActivatedGroups([]string{"group_1"}) // replaced wholesale
		ctx := tool.WithState(context.Background(), &gs)
		got := collect(r.Run(ctx, mt, input))
		if len(got) != 1 {
			t.Fatalf("%d chunks", len(got))
		}
		resp := r.Collect(ctx, "xxx", mt, input)
		if resp.State != block.ResultSuccess || len(resp.Content) != 1 || textOf(resp.Content[0]) != c.Text {
			t.Errorf("input %v: response %s\nwant text %q", c.Input, resp.AppendJSON(nil), c.Text)
		}
		var want []string
		for _, g := range []string{"group_1", "group_2"} {
			if c.Input[g] == true {
				want = append(want, g)
			}
		}
		if got := gs.ActivatedGroups(); !slices.Equal(got, want) {
			t.Errorf("input %v: activated %v, want %v", c.Input, got, want)
		}
	}

	// Activating group_2 reveals its tools after reset_tools, in order.
	names := func(ts []tool.Tool) (out []string) {
		for _, x := range ts {
			out = append(out, x.Name())
		}
		return
	}
	if got := names(tk.Tools([]string{"group_2"})); !slices.Equal(got, []string{"reset_tools", "tool_1", "tool_2"}) {
		t.Fatalf("active tools %v", got)
	}
}

func TestResetToolsErrors(t *testing.T) {
	tk, err := tool.NewToolkit(nil, tool.Group{Name: "g1", Description: "G1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tk.ResetGroups(map[string]any{"g1": "yes"}); err == nil ||
		err.Error() != "Invalid arguments: the argument g1 should be a bool value, but got <class 'str'>." {
		t.Errorf("non-bool: %v", err)
	}
	if _, _, err := tk.ResetGroups(map[string]any{"nope": true}); err == nil ||
		err.Error() != "Invalid group name(s): nope. Available tool groups: g1." {
		t.Errorf("unknown: %v", err)
	}
	meta, _ := tk.Lookup(tool.MetaToolName)
	resp := (&tool.Runner{}).Collect(context.Background(), "c", meta, map[string]any{"g1": true})
	if resp.State != block.ResultError || textOf(resp.Content[0]) != tool.ErrNoGroupState.Error() {
		t.Errorf("without state: %s", resp.AppendJSON(nil))
	}
	// Through Prepare, a non-boolean fails schema validation first.
	_, _, err = tk.Prepare(&block.ToolCall{Name: "reset_tools", Input: `{"g1": "yes"}`}, nil)
	if err == nil || err.Error() != "Input validation failed for tool 'reset_tools': 'yes' is not of type 'boolean'" {
		t.Errorf("prepare: %v", err)
	}
	d := tool.PermissionSubject(meta).CheckPermissions(context.Background(), nil, nil)
	if d.Behavior != block.Allow {
		t.Errorf("reset_tools permission %v", d.Behavior)
	}
}

// TK-17 and the exact texts of §3.7.
func TestAvailability(t *testing.T) {
	tool1, _ := testTools(t)
	tk, err := tool.NewToolkit(nil, tool.Group{Name: "group_1", Description: "Group 1", Tools: []tool.Tool{tool1}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tk.Available("tool_1", nil)
	var ie *tool.GroupInactiveError
	if !errors.As(err, &ie) || !errors.Is(err, tool.ErrModelFacing) ||
		err.Error() != "ToolGroupInactiveError: The tool 'tool_1' in group 'group_1' is currently inactive. You should first activate the group by calling the 'reset_tools' tool." {
		t.Errorf("inactive: %v", err)
	}
	if got, err := tk.Available("tool_1", []string{"group_1"}); err != nil || got != tool1 {
		t.Errorf("active: %v %v", got, err)
	}
	_, err = tk.Available("no_such_tool", []string{"group_1"})
	var nf *tool.NotFoundError
	if !errors.As(err, &nf) || err.Error() != "ToolNotFoundError: The tool named 'no_such_tool' doesn't exist." {
		t.Errorf("unknown: %v", err)
	}
	// Lookup ignores activation.
	if got, ok := tk.Lookup("tool_1"); !ok || got != tool1 {
		t.Errorf("lookup: %v %v", got, ok)
	}
	if _, ok := tk.Lookup("no_such_tool"); ok {
		t.Error("lookup found an unknown tool")
	}
}

func TestAddReplaceRemoveClear(t *testing.T) {
	tool1, tool2 := testTools(t)
	tk, err := tool.NewToolkit([]tool.Tool{tool1, tool2})
	if err != nil {
		t.Fatal(err)
	}
	other := must(t)(tool.New("tool_1", "Replacement.", emptySchema, chunks(tool.Text("new"))))
	if err := tk.Add("", other); err != nil {
		t.Fatal(err)
	}
	ts := tk.Tools(nil)
	if len(ts) != 2 || ts[0] != other || ts[1] != tool2 {
		t.Fatalf("replace kept order? %v", ts)
	}
	if err := tk.Add("missing", tool1); !errors.Is(err, tool.ErrUnknownGroup) {
		t.Fatalf("unknown group: %v", err)
	}
	bad := must(t)(tool.New("bad", "", emptySchema, chunks()))
	badSchema := &schemaOverride{Tool: bad, schema: json.RawMessage(`{"type":"array"}`)}
	var se *tool.SchemaError
	if err := tk.Add("", tool1, badSchema); !errors.As(err, &se) {
		t.Fatalf("bad schema: %v", err)
	}
	if ts := tk.Tools(nil); ts[0] != other {
		t.Fatal("a failed Add changed the toolkit")
	}
	tk.Remove("tool_1")
	if ts := tk.Tools(nil); len(ts) != 1 || ts[0] != tool2 {
		t.Fatalf("after remove %v", ts)
	}
	if err := tk.AddGroup(tool.Group{Name: "g", Description: "G", Tools: []tool.Tool{tool1}}); err != nil {
		t.Fatal(err)
	}
	if err := tk.RemoveGroup("g"); err != nil {
		t.Fatal(err)
	}
	if _, ok := tk.Lookup("tool_1"); ok {
		t.Fatal("tool of a removed group still found")
	}
	if err := tk.RemoveGroup("basic"); !errors.Is(err, tool.ErrReservedGroup) {
		t.Fatalf("remove basic: %v", err)
	}
	tk.Clear()
	if len(tk.Schemas(nil)) != 0 || !slices.Equal(tk.GroupNames(), []string{"basic"}) {
		t.Fatal("clear")
	}
}

// A later duplicate name replaces the earlier tool at its position.
func TestDuplicateNamesAcrossGroups(t *testing.T) {
	a := must(t)(tool.New("x", "from basic", emptySchema, chunks()))
	b := must(t)(tool.New("y", "y", emptySchema, chunks()))
	c := must(t)(tool.New("x", "from g", emptySchema, chunks()))
	tk, err := tool.NewToolkit([]tool.Tool{a, b}, tool.Group{Name: "g", Description: "G", Tools: []tool.Tool{c}})
	if err != nil {
		t.Fatal(err)
	}
	ss := tk.Schemas([]string{"g"})
	if len(ss) != 3 || ss[1].Name != "x" || ss[1].Description != "from g" || ss[2].Name != "y" {
		t.Fatalf("schemas %s", schemasJSON(t, ss))
	}
}

// TK-18.
func TestStripTitles(t *testing.T) {
	fx := loadToolkitFixture(t)
	var rt map[string]json.RawMessage
	if err := json.Unmarshal(fx["remove_title_field"], &rt); err != nil {
		t.Fatal(err)
	}
	got, err := tool.StripTitles(rt["defs_case_input"])
	if err != nil {
		t.Fatal(err)
	}
	matchJSON(t, "$defs", got, rt["defs_case_expected"])
	got, err = tool.StripTitles(rt["bool_defs_input"])
	if err != nil {
		t.Fatal(err)
	}
	matchJSON(t, "bool $defs", got, rt["bool_defs_input"])
	got, _ = tool.StripTitles(json.RawMessage(`{"title":"T","type":"object","properties":{"title":{"title":"Title","type":"string"}},"anyOf":[{"title":"kept"}],"items":{"title":"x"},"additionalProperties":{"title":"y","type":"integer"}}`))
	if want := `{"type":"object","properties":{"title":{"type":"string"}},"anyOf":[{"title":"kept"}],"items":{},"additionalProperties":{"type":"integer"}}`; string(got) != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

type schemaOverride struct {
	tool.Tool
	schema json.RawMessage
}

func (s *schemaOverride) InputSchema() json.RawMessage { return s.schema }

// Reads run concurrently with changes (run with -race).
func TestToolkitConcurrentUse(t *testing.T) {
	tk, err := tool.NewToolkit(nil, tool.Group{Name: "g", Description: "G"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 50 {
				name := fmt.Sprintf("t%d_%d", w, i)
				x := must(t)(tool.New(name, "d", emptySchema, chunks(tool.Text("ok"))))
				if err := tk.Add("g", x); err != nil {
					t.Error(err)
				}
				if i%3 == 0 {
					tk.Remove(name)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 50 {
				_ = tk.Schemas([]string{"g"})
				_, _ = tk.Lookup("t0_1")
				_, _, _ = tk.Prepare(&block.ToolCall{Name: "t1_2", Input: "{}"}, []string{"g"})
				_ = tk.Tools(nil)
			}
		}()
	}
	wg.Wait()
	if n := len(tk.Tools([]string{"g"})); n != 1+4*33 {
		t.Fatalf("%d tools", n)
	}
}

// A clone shares the tools but not the lists: what one adds or removes,
// the other does not see, even while both are used at once.
func TestToolkitClone(t *testing.T) {
	tool1, tool2 := testTools(t)
	search, err := tool.Func("web_search", "Search the web.", func(context.Context, struct{}) (string, error) { return "", nil })
	if err != nil {
		t.Fatal(err)
	}
	orig, err := tool.NewToolkit([]tool.Tool{tool1}, tool.Group{Name: "browsing", Description: "Browse.", Tools: []tool.Tool{search}})
	if err != nil {
		t.Fatal(err)
	}
	names := func(tk *tool.Toolkit) []string {
		var out []string
		for _, s := range tk.Schemas([]string{"browsing"}) {
			out = append(out, s.Name)
		}
		return out
	}
	want := names(orig)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := orig.Clone()
			if got := names(c); !slices.Equal(got, want) {
				t.Errorf("clone: %v, want %v", got, want)
			}
			if err := c.Add("", tool2); err != nil {
				t.Error(err)
			}
			c.Remove("tool_1")
			if err := c.RemoveGroup("browsing"); err != nil {
				t.Error(err)
			}
			if got := names(c); !slices.Equal(got, []string{"tool_2"}) {
				t.Errorf("changed clone: %v", got)
			}
		}()
	}
	wg.Wait()
	if got := names(orig); !slices.Equal(got, want) {
		t.Fatalf("original after its clones changed: %v, want %v", got, want)
	}
	// The clone's reset_tools activates the clone's groups.
	c := orig.Clone()
	if err := c.AddGroup(tool.Group{Name: "extra", Description: "More.", Tools: []tool.Tool{tool2}}); err != nil {
		t.Fatal(err)
	}
	reset, input, err := c.Prepare(&block.ToolCall{ID: "c1", Name: "reset_tools", Input: `{"extra": true}`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var st tool.Groups
	res := (&tool.Runner{}).Collect(tool.WithState(context.Background(), &st), "c1", reset, input)
	if res.State != block.ResultSuccess || !slices.Equal(st.ActivatedGroups(), []string{"extra"}) {
		t.Fatalf("reset_tools on the clone: %s %v", res.State, st.ActivatedGroups())
	}
	reset, input, err = orig.Prepare(&block.ToolCall{ID: "c2", Name: "reset_tools", Input: `{"extra": true}`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ost tool.Groups
	(&tool.Runner{}).Collect(tool.WithState(context.Background(), &ost), "c2", reset, input)
	if slices.Contains(ost.ActivatedGroups(), "extra") {
		t.Fatalf("the original's reset_tools activated the clone's group: %v", ost.ActivatedGroups())
	}
}
