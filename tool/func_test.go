package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

type addIn struct {
	A int `json:"a" desc:"The first number"`
	B int `json:"b" desc:"The second number"`
}

type countIn struct {
	N int `json:"n" jsonschema:"description=The number to count to"`
}

type mulIn struct {
	X float64 `json:"x" desc:"The first number"`
	Y float64 `json:"y" desc:"The second number"`
}

type seqIn struct {
	Start int `json:"start" desc:"The starting number"`
	End   int `json:"end" desc:"The ending number"`
}

type weatherIn struct {
	Location string `json:"location" desc:"The location"`
}

type setModeIn struct {
	_     struct{} `jsonschema:"description=The input model of the set_mode tool."`
	Mode  string   `json:"mode" jsonschema:"description=The mode to use,enum=fast|slow"`
	Level int      `json:"level,omitempty" jsonschema:"description=The level to use,default=5,minimum=1,maximum=10"`
}

// pyFloat formats like Python's str(float) for the values used here.
func pyFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if f == float64(int64(f)) {
		s += ".0"
	}
	return s
}

func funcTools(t *testing.T) map[string]tool.Tool {
	t.Helper()
	m := must(t)
	return map[string]tool.Tool{
		"add_numbers": m(tool.Func("add_numbers", "Add two numbers together.",
			func(_ context.Context, in addIn) (tool.Chunk, error) {
				return tool.Text(fmt.Sprintf("Result: %d", in.A+in.B)), nil
			})),
		"count_to_n": m(tool.StreamFunc("count_to_n", "Count from 1 to n.",
			func(_ context.Context, in countIn) iter.Seq2[string, error] {
				return func(yield func(string, error) bool) {
					for i := 1; i <= in.N; i++ {
						if !yield(strconv.Itoa(i), nil) {
							return
						}
					}
				}
			})),
		"multiply_numbers": m(tool.Func("multiply_numbers", "Multiply two numbers.",
			func(_ context.Context, in mulIn) (string, error) {
				return "Product: " + pyFloat(in.X*in.Y), nil
			})),
		"generate_sequence": m(tool.StreamFunc("generate_sequence", "Generate a sequence of numbers.",
			func(_ context.Context, in seqIn) iter.Seq2[tool.Chunk, error] {
				return func(yield func(tool.Chunk, error) bool) {
					for i := in.Start; i <= in.End; i++ {
						if !yield(tool.Text(fmt.Sprintf("Number: %d", i)), nil) {
							return
						}
					}
				}
			})),
		"set_mode_model_class": m(tool.Func("set_mode", "Set the working mode.",
			func(_ context.Context, in setModeIn) (string, error) { return in.Mode, nil })),
		"set_mode_custom": m(tool.Func("set_mode", "Set the working mode.",
			func(_ context.Context, in map[string]any) (string, error) { return fmt.Sprint(in["mode"]), nil },
			tool.WithSchema(json.RawMessage(`{"type":"object","properties":{"mode":{"type":"string","description":"The mode to use","enum":["fast","slow"]}},"required":["mode"]}`)))),
		"get_weather_sync_str": m(tool.Func("get_weather", "Get the weather.",
			func(_ context.Context, in weatherIn) (string, error) {
				return "The weather in " + in.Location + " is sunny.", nil
			})),
		"get_weather_async_dict": m(tool.Func("get_weather", "Get the weather.",
			func(_ context.Context, in weatherIn) (any, error) {
				type w struct {
					Condition   string `json:"condition"`
					Temperature int    `json:"temperature"`
				}
				return struct {
					Location string `json:"location"`
					Weather  w      `json:"weather"`
				}{in.Location, w{"sunny", 22}}, nil
			})),
		"stream_weather": m(tool.StreamFunc("stream_weather", "Stream the weather.",
			func(context.Context, struct{}) iter.Seq2[any, error] {
				return func(yield func(any, error) bool) {
					_ = yield("checking", nil) && yield(map[string]any{"condition": "sunny", "temperature": 22}, nil)
				}
			})),
		"stream_status": m(tool.StreamFunc("stream_status", "Stream a status.",
			func(context.Context, struct{}) iter.Seq2[any, error] {
				return func(yield func(any, error) bool) {
					_ = yield("started", nil) && yield(map[string]bool{"done": true}, nil)
				}
			})),
	}
}

// TK-5, TK-8, TK-10, TK-11, TK-13, TK-14: schemas.
func TestFuncSchemasMatchFixture(t *testing.T) {
	fx := loadToolkitFixture(t)
	var want map[string]json.RawMessage
	if err := json.Unmarshal(fx["function_tool_schemas"], &want); err != nil {
		t.Fatal(err)
	}
	tools := funcTools(t)
	for name, w := range want {
		tl := tools[name]
		tk, err := tool.NewToolkit([]tool.Tool{tl})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(tk.Schemas(nil)[0])
		matchJSON(t, name, got, w)
	}
}

// TK-5..TK-12: results, chunk by chunk, and the folded response.
func TestFuncResultsMatchFixture(t *testing.T) {
	fx := loadToolkitFixture(t)
	var want map[string]struct {
		Input        json.RawMessage
		Text         *string
		Chunks       []string
		ResponseText string `json:"response_text"`
	}
	if err := json.Unmarshal(fx["function_tool_results"], &want); err != nil {
		t.Fatal(err)
	}
	tools := funcTools(t)
	r := &tool.Runner{Stamp: seqStamp()}
	for name, w := range want {
		tl := tools[name]
		if tl == nil {
			t.Fatalf("no tool for %s", name)
		}
		tk, _ := tool.NewToolkit([]tool.Tool{tl})
		_, input, err := tk.Prepare(&block.ToolCall{ID: "id_" + name, Name: tl.Name(), Input: string(w.Input)}, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		chunks := w.Chunks
		resp := w.ResponseText
		if w.Text != nil {
			chunks, resp = []string{*w.Text}, *w.Text
		}
		got := collect(r.Run(context.Background(), tl, input))
		if !slices.Equal(texts(got), chunks) {
			t.Errorf("%s: chunks %q, want %q", name, texts(got), chunks)
		}
		for _, c := range got {
			if c.State != "" {
				t.Errorf("%s: chunk state %q, want running", name, c.State)
			}
		}
		res := r.Collect(context.Background(), "id_"+name, tl, input)
		if res.State != block.ResultSuccess || len(res.Content) != 1 || textOf(res.Content[0]) != resp || res.ID != "id_"+name {
			t.Errorf("%s: response %s, want text %q", name, res.AppendJSON(nil), resp)
		}
	}
}

func TestFuncDefaultsAndOptions(t *testing.T) {
	f := must(t)(tool.Func("f", "d", func(context.Context, struct{}) (string, error) { return "", nil }))
	if fl := f.Flags(); !fl.ConcurrencySafe || fl.ReadOnly || fl.External || fl.StateInjected {
		t.Errorf("Func flags %+v", fl)
	}
	n := must(t)(tool.New("n", "d", emptySchema, chunks()))
	if fl := n.Flags(); fl.ConcurrencySafe {
		t.Errorf("New flags %+v", fl)
	}
	// The reference's generic-tool permission policy.
	fp := tool.PermissionSubject(f)
	d := fp.CheckPermissions(context.Background(), nil, nil)
	if d.Behavior != block.Ask || d.BypassImmune {
		t.Errorf("default check %+v", d)
	}
	if fp.ReadOnly(nil) || fp.MatchRule("x", nil) || !fp.MatchRule("", nil) {
		t.Error("default read-only/match")
	}
	if rs := fp.SuggestRules(nil); len(rs) != 1 || rs[0].ToolName != "f" || rs[0].RuleContent.Valid || rs[0].Behavior != block.Allow || rs[0].Source != "suggested" {
		t.Errorf("suggestions %+v", rs)
	}
	custom := must(t)(tool.Func("c", "d", func(context.Context, struct{}) (string, error) { return "", nil },
		tool.ConcurrencySafe(false), tool.ReadOnly(), tool.StateInjected(),
		tool.WithPermissionCheck(func(context.Context, map[string]any, *permission.Context) permission.Decision {
			return permission.Decision{Behavior: block.Deny, Message: "no"}
		}),
		tool.WithReadOnlyCheck(func(in map[string]any) bool { return in["ro"] == true }),
		tool.WithRuleMatcher(func(c string, in map[string]any) bool { return c == in["cmd"] }),
		tool.WithSuggestions(func(map[string]any) []block.PermissionRule { return nil })))
	if fl := custom.Flags(); fl.ConcurrencySafe || !fl.ReadOnly || !fl.StateInjected {
		t.Errorf("custom flags %+v", fl)
	}
	cp := tool.PermissionSubject(custom)
	if cp.CheckPermissions(context.Background(), nil, nil).Behavior != block.Deny ||
		!cp.ReadOnly(map[string]any{"ro": true}) || cp.ReadOnly(nil) ||
		!cp.MatchRule("ls", map[string]any{"cmd": "ls"}) || cp.SuggestRules(nil) != nil {
		t.Error("custom hooks not used")
	}
}

func TestFuncErrorsAndResults(t *testing.T) {
	ctx := context.Background()
	r := &tool.Runner{}
	boom := must(t)(tool.Func("boom", "d", func(context.Context, struct{}) (string, error) {
		return "", errors.New("disk on fire")
	}))
	res := r.Collect(ctx, "c", boom, nil)
	if res.State != block.ResultError || textOf(res.Content[0]) != "disk on fire" {
		t.Errorf("error result %s", res.AppendJSON(nil))
	}
	// Decoding happens in the tool; a wrong type that skipped validation
	// is an error result, not a panic.
	res = r.Collect(ctx, "c", funcTools(t)["add_numbers"], map[string]any{"a": "x"})
	if res.State != block.ResultError {
		t.Errorf("bad input %s", res.AppendJSON(nil))
	}
	// Results that cannot be JSON-encoded are error results too.
	ch := must(t)(tool.Func("ch", "d", func(context.Context, struct{}) (any, error) { return make(chan int), nil }))
	res = r.Collect(ctx, "c", ch, nil)
	if res.State != block.ResultError {
		t.Errorf("chan result %s", res.AppendJSON(nil))
	}
	// Blocks pass through.
	blk := must(t)(tool.Func("blk", "d", func(context.Context, struct{}) ([]block.Block, error) {
		return []block.Block{block.NewText("x"), &block.Data{Source: block.NewBase64("image/png", "AAAA")}}, nil
	}))
	res = r.Collect(ctx, "c", blk, nil)
	if len(res.Content) != 2 || textOf(res.Content[1]) != "data:AAAA" {
		t.Errorf("block result %s", res.AppendJSON(nil))
	}
	// A stream error after some chunks keeps them and ends in error.
	st := must(t)(tool.StreamFunc("st", "d", func(context.Context, struct{}) iter.Seq2[string, error] {
		return func(yield func(string, error) bool) {
			_ = yield("part", nil) && yield("", errors.New("broke"))
		}
	}))
	res = r.Collect(ctx, "c", st, nil)
	if res.State != block.ResultError || textOf(res.Content[0]) != "partbroke" {
		t.Errorf("stream error %s", res.AppendJSON(nil))
	}
	if _, err := tool.Func[struct{}, string]("nil", "d", nil); err == nil {
		t.Error("nil func accepted")
	}
	if _, err := tool.Func("bad", "d", func(context.Context, chan int) (string, error) { return "", nil }); err == nil {
		t.Error("chan input accepted")
	}
}

type inner struct {
	V string `json:"v"`
}

type node struct {
	Name     string  `json:"name"`
	Children []*node `json:"children,omitempty"`
}

type Embedded struct {
	E string `json:"e"`
	N string `json:"name"` // shadowed by the outer field
}

type inferIn struct {
	Embedded
	S      string            `json:"s"`
	I      int64             `json:"i,omitempty"`
	U      uint8             `json:"u"`
	F      float32           `json:"f" jsonschema:"exclusiveMinimum=0,multipleOf=0.5"`
	B      bool              `json:"b" jsonschema:"optional"`
	P      *int              `json:"p" jsonschema:"description=A pointer, with a comma"`
	Req    *string           `json:"req" jsonschema:"required"`
	L      []inner           `json:"l" jsonschema:"minItems=1,uniqueItems"`
	A      [2]string         `json:"a"`
	M      map[string]int    `json:"m"`
	Raw    []byte            `json:"raw"`
	T      time.Time         `json:"t"`
	X      any               `json:"x"`
	Nested inner             `json:"nested"`
	Tree   node              `json:"tree"`
	Name   string            `json:"name" jsonschema:"enum=a|b,default=a,title=Name"`
	Skip   string            `json:"-"`
	hidden string            //nolint:unused
	Tags   map[string]string `json:"tags,omitzero" description:"Free tags"`
	NoTag  string
}

func TestInferSchema(t *testing.T) {
	got, err := tool.SchemaFor[inferIn]()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{` +
		`"s":{"type":"string"},` +
		`"i":{"type":"integer"},` +
		`"u":{"type":"integer","minimum":0},` +
		`"f":{"type":"number","exclusiveMinimum":0,"multipleOf":0.5},` +
		`"b":{"type":"boolean"},` +
		`"p":{"type":"integer","description":"A pointer, with a comma"},` +
		`"req":{"type":"string"},` +
		`"l":{"type":"array","items":{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]},"minItems":1,"uniqueItems":true},` +
		`"a":{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":2},` +
		`"m":{"type":"object","additionalProperties":{"type":"integer"}},` +
		`"raw":{"type":"string","contentEncoding":"base64"},` +
		`"t":{"type":"string","format":"date-time"},` +
		`"x":{},` +
		`"nested":{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]},` +
		`"tree":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"type":"object"}}},"required":["name"]},` +
		`"name":{"type":"string","enum":["a","b"],"default":"a","title":"Name"},` +
		`"tags":{"type":"object","description":"Free tags","additionalProperties":{"type":"string"}},` +
		`"NoTag":{"type":"string"},` +
		`"e":{"type":"string"}},` +
		`"required":["s","u","f","req","l","a","m","raw","t","x","nested","tree","name","NoTag","e"]}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// The inferred schema is a valid JSON Schema that accepts a decoded
	// value of the type.
	v, err := tool.NewValidator("t", got)
	if err != nil {
		t.Fatal(err)
	}
	one, str := 1, "s"
	raw, _ := json.Marshal(inferIn{F: 1.5, P: &one, Req: &str, Raw: []byte("r"), M: map[string]int{"k": 1}, L: []inner{{"x"}}, Name: "a", Tree: node{Name: "r", Children: []*node{{Name: "c"}}}})
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	if err := v.Validate(m); err != nil {
		t.Fatal(err)
	}

	for _, bad := range []reflect.Type{
		reflect.TypeFor[int](), reflect.TypeFor[struct{ C chan int }](), reflect.TypeFor[struct{ F func() }](),
		reflect.TypeFor[map[int]string](), reflect.TypeFor[struct {
			X int `jsonschema:"minimum=abc"`
		}](), reflect.TypeFor[struct {
			X int `jsonschema:"enum=1|x"`
		}](), reflect.TypeFor[struct {
			X int `jsonschema:"bogus=1"`
		}](),
	} {
		if _, err := tool.InferSchema(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if s, err := tool.SchemaFor[map[string]any](); err != nil || string(s) != `{"type":"object","properties":{}}` {
		t.Errorf("map schema %s %v", s, err)
	}
}
