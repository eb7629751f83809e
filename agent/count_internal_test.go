package agent

import (
	"context"
	"iter"
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

// The step's count with its per-slot cache agrees with a full walk
// after every change the reply's steps can make between two counts: the
// reply's own message growing in place, a message appended, a content
// slice replaced or grown, a message replaced, an image evicted in place
// (limitImages, which makes the next count cold), a new reply.
func TestCountCachedMatchesFullWalk(t *testing.T) {
	img := func() *block.Data { return &block.Data{Source: block.NewBase64("image/png", "iVBORw0KGgo=")} }
	a := &Agent{}
	r := &run{a: a, replyID: "reply-1"}
	var e Estimator
	check := func(step string, msgs []*message.Msg, from int) {
		t.Helper()
		buf := a.fillInput(nil, msgs)
		got, gotImages := r.countCached(&e, buf, nil, from)
		want, wantImages := e.count(msgs, nil, from)
		if got != want || gotImages != wantImages {
			t.Fatalf("%s: cached %d tokens, %d images; full walk %d, %d", step, got, gotImages, want, wantImages)
		}
	}
	sys := message.SystemText("system", "You are a helpful assistant.")
	u1 := message.UserText("user", "question one")
	u2, err := message.UserMsg("user", []block.Block{block.NewText("look at this"), img()})
	if err != nil {
		t.Fatal(err)
	}
	reply := message.AssistantText("Friday", "a", message.WithID("reply-1"))
	msgs := []*message.Msg{sys, u1, u2, reply}
	check("first count", msgs, 1)
	check("unchanged", msgs, 1)
	// The reply's text grows in place, as folding a delta does.
	reply.Content[0].(*block.Text).Text += "nswer, longer now"
	check("reply grown in place", msgs, 1)
	// A tool call and its result join the reply.
	reply.Content = append(reply.Content, &block.ToolCall{ID: "c", Name: "echo", Input: `{"input": "hi"}`},
		&block.ToolResult{ID: "c", Name: "echo", Output: block.BlocksBody(block.NewText("hi"), img()), State: block.ResultSuccess})
	check("reply appended to", msgs, 1)
	// The head changes size: every slot moves.
	check("another head", msgs, 2)
	// A prior message replaced by an edited copy, as a caller changes one.
	u1 = u1.Clone()
	u1.Content = append(u1.Content, block.NewText(" and a much longer question than before"))
	msgs[1] = u1
	check("message replaced by an edited copy", msgs, 1)
	// A message replaced by another in its slot, one appended.
	msgs[2] = message.UserText("user", "no image any more")
	msgs = append(msgs, message.UserText("user", "next"))
	check("message replaced and appended", msgs, 1)
	// Fewer messages (a compression's kept ones).
	msgs = msgs[:2]
	check("shorter", msgs, 1)
	// An image evicted in place, as limitImages does it, marks the cache cold.
	msgs = append(msgs, u2)
	check("image back", msgs, 1)
	u2.Content[1] = block.NewText("[image evicted]")
	a.estWarm = false
	check("image evicted in place", msgs, 1)
	// The next reply: its input follows the last reply's message, which
	// is no longer the tail; a block of it replaced in place is seen once
	// the cache is cold (as after the agent's own in-place replacement,
	// limitImages).
	r = &run{a: a, replyID: "reply-2"}
	msgs = append(msgs, reply, message.UserText("user", "and now?"))
	check("next reply", msgs, 1)
	reply.Content[0] = block.NewText("a replaced first block")
	a.estWarm = false
	check("block replaced, cache cold", msgs, 1)
	// The new tail grows in place as the reply's message does.
	tail := msgs[len(msgs)-1]
	tail.Content = append(tail.Content, block.NewText("more of the tail"))
	check("tail grown", msgs, 1)
}

// A middleware may edit the context in place (ReplyState): with one
// registered, every count walks every message.
func TestCountCachedOffWithMiddleware(t *testing.T) {
	a := &Agent{mws: sortMiddlewares([]Middleware{{Reasoning: func(ctx context.Context, _ *Agent, in ReasoningInput, next ReasoningHandler) iter.Seq2[Item, error] {
		return next(ctx, in)
	}}})}
	r := &run{a: a, replyID: "reply-1"}
	var e Estimator
	u1 := message.UserText("user", "question one")
	msgs := a.fillInput(nil, []*message.Msg{u1})
	r.countCached(&e, msgs, nil, 0)
	u1.Content[0].(*block.Text).Text = "a middleware edited this question in place"
	got, _ := r.countCached(&e, msgs, nil, 0)
	if want, _ := e.count(msgs, nil, 0); got != want {
		t.Fatalf("with a middleware: cached %d, full walk %d", got, want)
	}
}
