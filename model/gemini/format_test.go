package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
)

func field(t *testing.T, b []byte, keys ...string) string {
	t.Helper()
	raw := json.RawMessage(b)
	for _, k := range keys {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		raw = m[k]
	}
	return string(raw)
}

func sigThinking(text, sig string) *block.Thinking {
	b := block.NewThinking(text)
	if sig != "" {
		b.Set("thought_signature", sig)
	}
	return b
}

func sigCall(id, name, input, sig string) *block.ToolCall {
	c := &block.ToolCall{ID: id, Name: name, Input: input}
	if sig != "" {
		c.Extra = sigExtra(sig)
	}
	return c
}

// One reply Msg holding a whole tool round: the model content keeps the
// calls (signature on the first), all responses share one user content
// (nothing else in it), the returned image follows in the next user
// content with the hint, then the answer.
func TestFormatSplitsOneReply(t *testing.T) {
	png := &block.Data{ID: "img1", Source: block.NewBase64("image/png", "iVBORw0KGgo=")}
	anthropicThinking := block.NewThinking("")
	anthropicThinking.Set("redacted_thinking_data", "xyz")
	reply, err := message.AssistantMsg("assistant", []block.Block{
		sigThinking("planning", ""),
		block.NewText("Checking."),
		sigCall("c1", "add", `{"a": 2, "b": 3}`, "SIG1"),
		sigCall("c2", "snap", ``, ""),
		result("c1", "add", "5"),
		&block.ToolResult{ID: "c2", Name: "snap", Output: block.BlocksBody(block.NewText("here"), png), State: block.ResultSuccess},
		block.NewHint("Answer in one line.", ""),
		anthropicThinking,
		block.NewText(""),
		block.NewText("5, and a picture."),
	})
	if err != nil {
		t.Fatal(err)
	}
	b := bodyOf(t, New("g"), &model.Request{Messages: []*message.Msg{message.SystemText("s", "Be kind."), message.UserText("u", "go"), reply}})
	want := `[
	 {"role":"user","parts":[{"text":"go"}]},
	 {"role":"model","parts":[
	   {"text":"planning","thought":true},
	   {"text":"Checking."},
	   {"functionCall":{"id":"c1","name":"add","args":{"a":2,"b":3}},"thoughtSignature":"SIG1"},
	   {"functionCall":{"id":"c2","name":"snap","args":{}}}]},
	 {"role":"user","parts":[
	   {"functionResponse":{"id":"c1","name":"add","response":{"result":"5"}}},
	   {"functionResponse":{"id":"c2","name":"snap","response":{"result":"here\n<system-reminder>A(n) image file is returned and will be presented to you with the identifier [img1].</system-reminder>"}}}]},
	 {"role":"user","parts":[
	   {"text":"<system-reminder>The multimodal data and their identifiers are listed as follows:"},
	   {"text":"- img1 (image file): "},
	   {"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},
	   {"text":"</system-reminder>"},
	   {"text":"Answer in one line."}]},
	 {"role":"model","parts":[{"text":"5, and a picture."}]}]`
	wiretest.EqualJSON(t, []byte(field(t, b, "contents")), []byte(want))
	wiretest.EqualJSON(t, []byte(field(t, b, "systemInstruction")), []byte(`{"role":"user","parts":[{"text":"Be kind."}]}`))
	if field(t, b, "generationConfig") != "" || field(t, b, "tools") != "" {
		t.Fatalf("unasked config: %s", b)
	}
}

// Function responses must follow their calls at once and together: a hint
// arriving between a call and its results, or between two results, is sent
// after them.
func TestFormatHintBetweenCallsAndResults(t *testing.T) {
	reply, _ := message.AssistantMsg("a", []block.Block{
		sigCall("c1", "f", `{}`, ""), sigCall("c2", "g", `{}`, ""),
		block.NewHint("first hint", ""),
		result("c1", "f", "1"),
		block.NewHint("second hint", ""),
		result("c2", "g", "2"),
		block.NewText("done"),
	})
	b := bodyOf(t, New("g"), &model.Request{Messages: []*message.Msg{message.UserText("u", "go"), reply}})
	want := `[{"role":"user","parts":[{"text":"go"}]},
	 {"role":"model","parts":[{"functionCall":{"id":"c1","name":"f","args":{}}},{"functionCall":{"id":"c2","name":"g","args":{}}}]},
	 {"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":{"result":"1"}}},{"functionResponse":{"id":"c2","name":"g","response":{"result":"2"}}}]},
	 {"role":"user","parts":[{"text":"first hint"},{"text":"second hint"}]},
	 {"role":"model","parts":[{"text":"done"}]}]`
	wiretest.EqualJSON(t, []byte(field(t, b, "contents")), []byte(want))
}

func TestFormatFailedResultsAndRepairedArgs(t *testing.T) {
	reply, _ := message.AssistantMsg("a", []block.Block{
		sigCall("c1", "f", `{"q": "cut off`, ""),
		&block.ToolResult{ID: "c1", Name: "f", Output: block.PlainBody("interrupted by the user"), State: block.ResultInterrupted},
	})
	b := bodyOf(t, New("g"), &model.Request{Messages: []*message.Msg{message.UserText("u", "go"), reply, message.UserText("u", "try again")}})
	// The next user message does not join the function responses' content.
	want := `[{"role":"user","parts":[{"text":"go"}]},
	 {"role":"model","parts":[{"functionCall":{"id":"c1","name":"f","args":{"q":"cut off"}}}]},
	 {"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":{"error":"interrupted by the user"}}}]},
	 {"role":"user","parts":[{"text":"try again"}]}]`
	wiretest.EqualJSON(t, []byte(field(t, b, "contents")), []byte(want))
}

// With a fallback configured, the first call of each model turn that lost
// its signature gets the documented placeholder; later parallel calls and
// calls with a real signature are left alone.
func TestFormatSignatureFallback(t *testing.T) {
	reply, _ := message.AssistantMsg("a", []block.Block{
		sigCall("c1", "f", `{}`, ""), sigCall("c2", "f", `{}`, ""),
		result("c1", "f", "1"), result("c2", "f", "2"),
		block.NewText("more"), sigCall("c3", "f", `{}`, "REAL"), result("c3", "f", "3"),
		sigCall("c4", "f", `{}`, ""), result("c4", "f", "4"),
	})
	req := &model.Request{Messages: []*message.Msg{message.UserText("u", "go"), reply}}
	var got struct {
		Contents []struct {
			Parts []struct {
				FunctionCall     *struct{ ID string }
				ThoughtSignature string
			}
		}
	}
	json.Unmarshal(bodyOf(t, New("g", WithSignatureFallback(SkipSignatureValidator)), req), &got)
	sigs := map[string]string{}
	for _, c := range got.Contents {
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				sigs[p.FunctionCall.ID] = p.ThoughtSignature
			}
		}
	}
	want := map[string]string{"c1": SkipSignatureValidator, "c2": "", "c3": "REAL", "c4": SkipSignatureValidator}
	for id, s := range want {
		if sigs[id] != s {
			t.Errorf("%s: signature %q, want %q", id, sigs[id], s)
		}
	}
	// Without the option nothing is invented.
	got.Contents = nil
	json.Unmarshal(bodyOf(t, New("g"), req), &got)
	for _, c := range got.Contents {
		for _, p := range c.Parts {
			if p.FunctionCall != nil && p.FunctionCall.ID != "c3" && p.ThoughtSignature != "" {
				t.Errorf("invented signature %q", p.ThoughtSignature)
			}
		}
	}
}

func TestFormatUserData(t *testing.T) {
	user, err := message.UserMsg("u", []block.Block{
		block.NewText("what is this"),
		&block.Data{Source: block.NewBase64("image/jpeg", "/9j/4AAQ")},
		&block.Data{Source: &block.URL{URL: "https://example.com/clip.mp4", MediaType: "video/mp4"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	b := bodyOf(t, New("g"), &model.Request{Messages: []*message.Msg{user, message.AssistantText("a", "a cat"),
		message.AssistantText("a", "a black one"), message.SystemText("s", "Be brief."), message.UserText("u", "sure?")}})
	// Turns of one role from consecutive messages form one content.
	want := `[{"role":"user","parts":[{"text":"what is this"},{"inlineData":{"mimeType":"image/jpeg","data":"/9j/4AAQ"}},{"fileData":{"mimeType":"video/mp4","fileUri":"https://example.com/clip.mp4"}}]},
	 {"role":"model","parts":[{"text":"a cat"},{"text":"a black one"}]},
	 {"role":"user","parts":[{"text":"Be brief."},{"text":"sure?"}]}]`
	wiretest.EqualJSON(t, []byte(field(t, b, "contents")), []byte(want))
	if field(t, b, "systemInstruction") != "" {
		t.Fatal("a late system message went to systemInstruction")
	}
}

func TestFormatToolChoice(t *testing.T) {
	msgs := []*message.Msg{message.UserText("u", "hi")}
	tools := []model.ToolSchema{addTool, mulTool}
	cases := []struct {
		choice *model.ToolChoice
		want   string
		n      int
	}{
		{nil, ``, 2},
		{&model.ToolChoice{Mode: "auto"}, `{"functionCallingConfig":{"mode":"AUTO"}}`, 2},
		{&model.ToolChoice{Mode: "none"}, `{"functionCallingConfig":{"mode":"NONE"}}`, 2},
		{&model.ToolChoice{Mode: "required"}, `{"functionCallingConfig":{"mode":"ANY"}}`, 2},
		{&model.ToolChoice{Mode: "add"}, `{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["add"]}}`, 2},
		{&model.ToolChoice{Mode: "auto", Tools: []string{"multiply"}}, `{"functionCallingConfig":{"mode":"AUTO"}}`, 1},
	}
	for _, c := range cases {
		b := bodyOf(t, New("g"), &model.Request{Messages: msgs, Tools: tools, ToolChoice: c.choice})
		got := field(t, b, "toolConfig")
		if (got == "") != (c.want == "") {
			t.Errorf("%+v: toolConfig %s", c.choice, got)
		} else if c.want != "" {
			wiretest.EqualJSON(t, []byte(got), []byte(c.want))
		}
		var tl []struct{ FunctionDeclarations []json.RawMessage }
		json.Unmarshal([]byte(field(t, b, "tools")), &tl)
		if len(tl) != 1 || len(tl[0].FunctionDeclarations) != c.n {
			t.Errorf("%+v: tools %s", c.choice, field(t, b, "tools"))
		}
	}
	_, err := New("g").RequestBody(&model.Request{Messages: msgs, Tools: tools, ToolChoice: &model.ToolChoice{Mode: "nope"}})
	var me *model.Error
	if !errors.As(err, &me) || me.Type != event.ErrInvalidRequest {
		t.Fatalf("err = %v", err)
	}
}

func TestFormatGenerationConfig(t *testing.T) {
	msgs := []*message.Msg{message.UserText("u", "hi")}
	cases := []struct {
		opts  []Option
		extra map[string]any
		gen   string
		top   map[string]string
	}{
		{nil, nil, ``, nil},
		{[]Option{WithThinkingBudget(0)}, nil, `{"thinkingConfig":{"includeThoughts":false,"thinkingBudget":0}}`, nil},
		{[]Option{WithThinkingBudget(-1), WithThoughtSummaries(false)}, nil, `{"thinkingConfig":{"includeThoughts":false,"thinkingBudget":-1}}`, nil},
		{[]Option{WithThinkingLevel("LOW"), WithMaxTokens(100), WithTemperature(0.5), WithTopP(0.9), WithTopK(20)}, nil,
			`{"maxOutputTokens":100,"temperature":0.5,"topP":0.9,"topK":20,"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"LOW"}}`, nil},
		// Per-call: generationConfig fields by their API names, the rest at the top.
		{[]Option{WithTemperature(1)}, map[string]any{"temperature": 0.1, "stopSequences": []string{"END"},
			"safetySettings": []any{map[string]any{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "BLOCK_NONE"}}},
			`{"temperature":0.1,"stopSequences":["END"]}`,
			map[string]string{"safetySettings": `[{"category":"HARM_CATEGORY_HATE_SPEECH","threshold":"BLOCK_NONE"}]`}},
	}
	for i, c := range cases {
		b := bodyOf(t, New("g", c.opts...), &model.Request{Messages: msgs, Extra: c.extra})
		got := field(t, b, "generationConfig")
		if (got == "") != (c.gen == "") {
			t.Errorf("case %d: generationConfig %s", i, got)
		} else if c.gen != "" {
			wiretest.EqualJSON(t, []byte(got), []byte(c.gen))
		}
		for k, v := range c.top {
			wiretest.EqualJSON(t, []byte(field(t, b, k)), []byte(v))
		}
	}
}

func TestSanitizeSchema(t *testing.T) {
	in := `{
	  "$schema": "https://json-schema.org/draft/2020-12/schema",
	  "type": "object",
	  "title": "Args",
	  "additionalProperties": false,
	  "properties": {
	    "zeta": {"type": "string", "const": "fixed"},
	    "alpha": {"anyOf": [{"$ref": "#/$defs/Point"}, {"type": "null"}], "description": "where"},
	    "tags": {"type": "array", "items": {"type": ["string", "null"]}, "uniqueItems": true},
	    "n": {"type": "integer", "enum": [1, 2], "exclusiveMinimum": 0},
	    "either": {"type": ["integer", "string"]},
	    "tree": {"$ref": "#/$defs/Node"}
	  },
	  "required": ["zeta"],
	  "$defs": {
	    "Point": {"type": "object", "properties": {"x": {"type": "number"}}, "additionalProperties": false},
	    "Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
	  }
	}`
	out, err := sanitizeSchema(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"OBJECT","title":"Args","properties":{
	  "zeta":{"type":"STRING","enum":["fixed"]},
	  "alpha":{"description":"where","nullable":true,"type":"OBJECT","properties":{"x":{"type":"NUMBER"}}},
	  "tags":{"type":"ARRAY","items":{"type":"STRING","nullable":true}},
	  "n":{"type":"INTEGER"},
	  "either":{"anyOf":[{"type":"INTEGER"},{"type":"STRING"}]},
	  "tree":{"type":"OBJECT","properties":{"children":{"type":"ARRAY","items":{"type":"OBJECT"}}}}},
	  "required":["zeta"]}`
	wiretest.EqualJSON(t, out, []byte(want))
	// Property order survives (it is what the model reads).
	if s := string(out); !(indexOf(s, `"zeta"`) < indexOf(s, `"alpha"`) && indexOf(s, `"alpha"`) < indexOf(s, `"tags"`)) {
		t.Fatalf("order lost: %s", s)
	}
	if _, err := sanitizeSchema(json.RawMessage(`[1]`)); err == nil {
		t.Fatal("a non-object schema was accepted")
	}
	_, err = New("g").RequestBody(&model.Request{Tools: []model.ToolSchema{{Name: "bad", Parameters: json.RawMessage(`{"type":`)}}})
	var me *model.Error
	if !errors.As(err, &me) || me.Type != event.ErrInvalidRequest {
		t.Fatalf("bad schema: %v", err)
	}
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// Gemini answers a bad key with 400 INVALID_ARGUMENT; it is still an
// authentication failure.
func TestInvalidAPIKeyIsAuthentication(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Status(400, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`))
	_, err := wiretest.Collect(New("g", WithBaseURL(srv.URL)).Stream(context.Background(), &model.Request{Messages: []*message.Msg{message.UserText("u", "hi")}}))
	var me *model.Error
	if !errors.As(err, &me) || me.Type != event.ErrAuthentication || me.Status != 400 || len(srv.Requests()) != 1 {
		t.Fatalf("err = %v", err)
	}
}
