package ollama

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
)

func field(t *testing.T, b []byte, key string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return string(m[key])
}

// One reply Msg holding a whole tool round: both calls on one assistant
// message, each result a tool message, the image a tool returned in a user
// message after them, then the hint and the answer; thinking is dropped.
func TestFormatSplitsOneReply(t *testing.T) {
	png := &block.Data{ID: "img1", Source: block.NewBase64("image/png", "iVBORw0KGgo=")}
	reply, err := message.AssistantMsg("a", []block.Block{
		block.NewThinking("let me think"),
		block.NewText("Checking both."),
		&block.ToolCall{ID: "c1", Name: "add", Input: `{"a": 2, "b": 3}`},
		&block.ToolCall{ID: "c2", Name: "snap", Input: `{"zoom": 2, "city": "Par`},
		&block.ToolResult{ID: "c1", Name: "add", Output: block.PlainBody("5"), State: block.ResultSuccess},
		&block.ToolResult{ID: "c2", Name: "snap", Output: block.BlocksBody(block.NewText("map"), png), State: block.ResultSuccess},
		block.NewHint("One line.", ""),
		block.NewText("5, and a map."),
	})
	if err != nil {
		t.Fatal(err)
	}
	user, _ := message.UserMsg("u", []block.Block{block.NewText("look"), png,
		&block.Data{Source: &block.URL{URL: "https://example.com/b.png", MediaType: "image/png"}},
		&block.Data{Source: block.NewBase64("audio/wav", "UklGRg==")}})
	b := bodyOf(t, New("qwen3"), &model.Request{Messages: []*message.Msg{message.SystemText("s", "Be kind."), user, reply}})
	want := `[
	 {"role":"system","content":"Be kind."},
	 {"role":"user","content":"look\n[image/png file at https://example.com/b.png, not supported by this provider]\n[audio/wav file attached, not supported by this provider]","images":["iVBORw0KGgo="]},
	 {"role":"assistant","content":"Checking both.","tool_calls":[
	   {"function":{"name":"add","arguments":{"a":2,"b":3}}},
	   {"function":{"name":"snap","arguments":{"zoom":2,"city":"Par"}}}]},
	 {"role":"tool","content":"5","tool_name":"add"},
	 {"role":"tool","content":"map\n<system-reminder>A(n) image file is returned and will be presented to you with the identifier [img1].</system-reminder>","tool_name":"snap"},
	 {"role":"user","content":"<system-reminder>The multimodal data and their identifiers are listed as follows:\n- img1 (image file): \n</system-reminder>","images":["iVBORw0KGgo="]},
	 {"role":"user","content":"One line."},
	 {"role":"assistant","content":"5, and a map."}]`
	wiretest.EqualJSON(t, []byte(field(t, b, "messages")), []byte(want))
}

func TestFormatParameters(t *testing.T) {
	msgs := []*message.Msg{message.UserText("u", "hi")}
	tools := []model.ToolSchema{weatherTool, {Name: "other"}}
	m := New("qwen3", WithThink(true), WithMaxTokens(256), WithTemperature(0.2), WithOption("num_ctx", 8192),
		WithKeepAlive("10m"), WithFormat("json"))
	b := bodyOf(t, m, &model.Request{Messages: msgs, Tools: tools,
		ToolChoice: &model.ToolChoice{Mode: "get_weather", Tools: []string{"get_weather"}},
		Extra:      map[string]any{"options": map[string]any{"temperature": 0.9, "seed": 7}, "truncate": true}})
	for k, v := range map[string]string{
		"think":      `true`,
		"keep_alive": `"10m"`,
		"format":     `"json"`,
		"truncate":   `true`,
		"stream":     `true`,
		"options":    `{"num_predict":256,"temperature":0.9,"num_ctx":8192,"seed":7}`,
	} {
		wiretest.EqualJSON(t, []byte(field(t, b, k)), []byte(v))
	}
	// tool_choice is not on the wire; its Tools list still narrows the tools.
	if field(t, b, "tool_choice") != "" {
		t.Fatal("tool_choice sent")
	}
	var ts []struct{ Function struct{ Name string } }
	json.Unmarshal([]byte(field(t, b, "tools")), &ts)
	if len(ts) != 1 || ts[0].Function.Name != "get_weather" {
		t.Fatalf("tools %s", field(t, b, "tools"))
	}
	// The model's own options are not changed by a call's.
	b = bodyOf(t, m, &model.Request{Messages: msgs})
	wiretest.EqualJSON(t, []byte(field(t, b, "options")), []byte(`{"num_predict":256,"temperature":0.2,"num_ctx":8192}`))
	if field(t, b, "tools") != "" {
		t.Fatal("tools sent without tools")
	}
	b = bodyOf(t, New("gpt-oss", WithThinkLevel("high")), &model.Request{Messages: msgs})
	if field(t, b, "think") != `"high"` || field(t, b, "options") != "" {
		t.Fatalf("body %s", b)
	}
	_, err := New("m").RequestBody(&model.Request{Messages: msgs, Tools: tools, ToolChoice: &model.ToolChoice{Mode: "nope"}})
	var me *model.Error
	if !errors.As(err, &me) || me.Type != event.ErrInvalidRequest {
		t.Fatalf("err = %v", err)
	}
}
