package openai_test

import (
	"slices"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/openai"
)

const (
	respFixture = "openai_responses_stream_reasoning_function_call"
	respRsID    = "rs_0b86a26c238e40a9016a3c123d2a20819eb9a8dce83808a2ea"
	respCallID  = "call_eK7Vcp3N6x11thqQ8JcD8HZq"
)

func TestResponsesFixture(t *testing.T) {
	srv := replay(t, respFixture+".sse")
	m := openai.NewResponses("o4-mini",
		openai.WithBaseURL(srv.URL), openai.WithAPIKey("sk-test"), openai.WithStamp(fixedStamp()),
		openai.WithMaxTokens(4000), openai.WithStore(false), openai.WithStrictTools(false))
	history := []*message.Msg{
		message.SystemText("", "You are a helpful assistant"),
		message.UserText("", "What's the weather in Florence,Italy?"),
	}
	req := &model.Request{Messages: history, Tools: []model.ToolSchema{weatherTool}, ToolChoice: &model.ToolChoice{Mode: model.ChoiceAuto}}
	r := drain(t, m.Stream(ctx(t), req))
	if r.err != nil {
		t.Fatalf("stream error after %d chunks: %v", r.errAt, r.err)
	}
	if srv.requests() != 1 || srv.paths[0] != "/responses" {
		t.Fatalf("requests %d, paths %v", srv.requests(), srv.paths)
	}
	sameJSON(t, "request", srv.body(0), parseJSON(t, readWire(t, respFixture+".request.json")))

	// The reasoning item (no summary: empty text) closes before the call
	// opens; the call is keyed by call_id, not by the fc_… item id.
	if got, want := r.boundaries(), []string{"thinking:" + respRsID, "tool_call:" + respCallID}; !slices.Equal(got, want) {
		t.Errorf("boundaries\n got %q\nwant %q", got, want)
	}
	checkContent(t, r.acc.Content(), "", "", []wantCall{{respCallID, "weather", `{"location":"Florence, Italy"}`}})
	th := r.acc.Content()[0].(*block.Thinking)
	if got := th.GetString(openai.ExtraReasoningItemID); got != respRsID {
		t.Errorf("reasoning_item_id = %q", got)
	}
	if u := r.acc.Usage(); u == nil || *u != (message.Usage{InputTokens: 60, OutputTokens: 210}) {
		t.Errorf("usage = %+v", u)
	}

	// store:false and no encrypted content: the reasoning item is not
	// replayed (the recorded next request omits it).
	reply := replyWithResults(t, r.acc.Content(), map[string]string{respCallID: "40 C"})
	req.Messages = append(history, reply)
	body, err := m.Body(ctx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "next request", body, parseJSON(t, readWire(t, respFixture+".next_request.json")))

	// With the default store (true) the same history replays the item by id.
	stored := openai.NewResponses("o4-mini", openai.WithMaxTokens(4000), openai.WithStrictTools(false))
	body, err = stored.Body(ctx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	input := parseJSON(t, body).(map[string]any)["input"].([]any)
	if len(input) != 5 {
		t.Fatalf("input has %d items: %s", len(input), body)
	}
	sameJSON(t, "replayed reasoning", []byte(compact(t, mustJSON(t, input[2]))),
		parseJSON(t, []byte(`{"type":"reasoning","id":"`+respRsID+`","summary":[]}`)))
}
