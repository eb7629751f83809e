package agent

import (
	"context"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
)

// The step's fused walk counts what CountTokens and eachImage count
// apart: images at the top level, in tool results and in hints, past the
// head only; data that is not an image counts as data, not as an image.
func TestEstimatorCountMatchesImageWalk(t *testing.T) {
	img := func() *block.Data { return &block.Data{Source: block.NewBase64("image/png", "iVBORw0KGgo=")} }
	audio := &block.Data{Source: block.NewBase64("audio/wav", "UklGRg==")}
	head, err := message.UserMsg("user", []block.Block{block.NewText("summary"), img()})
	if err != nil {
		t.Fatal(err)
	}
	res := &block.ToolResult{ID: "c", Name: "shot", Output: block.BlocksBody(img(), block.NewText("seen")), State: block.ResultSuccess}
	hint := &block.Hint{Hint: block.BlocksBody(img(), audio)}
	m1, err := message.AssistantMsg("Friday", []block.Block{img(), &block.ToolCall{ID: "c", Name: "shot", Input: `{"a": 1}`}, res})
	if err != nil {
		t.Fatal(err)
	}
	m2, err := message.AssistantMsg("Friday", []block.Block{block.NewText("look"), hint, audio})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []*message.Msg{head, m1, m2}
	var e Estimator
	want, _ := e.CountTokens(context.Background(), msgs, nil)
	wantImages := 0
	eachImage(msgs[1:], func(image) bool { wantImages++; return true })
	got, images := e.count(msgs, nil, 1)
	if got != want || images != wantImages || images != 3 {
		t.Fatalf("count %d tokens, %d images; want %d, %d (3)", got, images, want, wantImages)
	}
}
