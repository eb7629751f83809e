package wiretest

import (
	"pgregory.net/rapid"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
)

// History draws a conversation of the shapes the agent produces: system
// and user messages, and reply Msgs interleaving text, thinking (signed,
// unsigned, redacted, Gemini-signed), tool calls (whole, truncated or
// empty arguments, some with a Gemini signature) followed by their
// results (plain, blocks with media, empty; any state), hints and data.
func History(t *rapid.T) []*message.Msg {
	var msgs []*message.Msg
	if rapid.Bool().Draw(t, "system") {
		msgs = append(msgs, message.SystemText("s", rapid.SampledFrom([]string{"Be kind.", ""}).Draw(t, "sys")))
	}
	turns := rapid.IntRange(1, 4).Draw(t, "turns")
	id := 0
	for range turns {
		user, _ := message.UserMsg("u", userBlocks(t))
		msgs = append(msgs, user)
		var content []block.Block
		for range rapid.IntRange(1, 3).Draw(t, "iterations") {
			for range rapid.IntRange(0, 3).Draw(t, "pre") {
				content = append(content, replyBlock(t))
			}
			n := rapid.IntRange(0, 3).Draw(t, "calls")
			var ids []string
			for range n {
				id++
				c := &block.ToolCall{ID: "call" + string(rune('a'+id)), Name: rapid.SampledFrom([]string{"f", "g"}).Draw(t, "name"),
					Input: rapid.SampledFrom([]string{`{"a": 1}`, `{"a": "tru`, ``, `[1]`, `{}`}).Draw(t, "input")}
				if rapid.Bool().Draw(t, "sig") {
					c.Extra = []block.Extra{{Key: "thought_signature", Value: []byte(`"c2ln"`)}}
				}
				content = append(content, c)
				ids = append(ids, c.ID)
			}
			if n > 0 && rapid.Bool().Draw(t, "hint-between") {
				content = append(content, block.NewHint("hint", ""))
			}
			for _, cid := range ids {
				content = append(content, toolResult(t, cid))
				if rapid.IntRange(0, 3).Draw(t, "hint-after-result") == 0 {
					content = append(content, block.NewHint("late hint", ""))
				}
			}
		}
		if rapid.Bool().Draw(t, "answer") {
			content = append(content, block.NewText(rapid.SampledFrom([]string{"answer", ""}).Draw(t, "answer-text")))
		}
		reply, _ := message.AssistantMsg("a", content)
		msgs = append(msgs, reply)
		if rapid.Bool().Draw(t, "late-system") {
			msgs = append(msgs, message.SystemText("s", "Now be terse."))
		}
	}
	return msgs
}

func media(t *rapid.T) *block.Data {
	switch rapid.IntRange(0, 3).Draw(t, "media") {
	case 0:
		return &block.Data{ID: "d1", Source: block.NewBase64("image/png", "iVBORw0KGgo=")}
	case 1:
		return &block.Data{ID: "d2", Source: &block.URL{URL: "https://example.com/a.jpg", MediaType: "image/jpeg"}}
	case 2:
		return &block.Data{ID: "d3", Source: block.NewBase64("audio/wav", "UklGRg==")}
	}
	return &block.Data{ID: "d4", Source: block.NewBase64("application/pdf", "JVBERi0=")}
}

func userBlocks(t *rapid.T) []block.Block {
	bs := []block.Block{block.NewText(rapid.SampledFrom([]string{"hi", ""}).Draw(t, "user-text"))}
	if rapid.Bool().Draw(t, "user-media") {
		bs = append(bs, media(t))
	}
	return bs
}

func replyBlock(t *rapid.T) block.Block {
	switch rapid.IntRange(0, 6).Draw(t, "block") {
	case 0:
		return block.NewText(rapid.SampledFrom([]string{"text", ""}).Draw(t, "text"))
	case 1:
		b := block.NewThinking("signed")
		b.Set("signature", "sig")
		return b
	case 2:
		return block.NewThinking(rapid.SampledFrom([]string{"unsigned", ""}).Draw(t, "thinking"))
	case 3:
		b := block.NewThinking("")
		b.Set("redacted_thinking_data", "data")
		return b
	case 4:
		b := block.NewThinking(rapid.SampledFrom([]string{"thought", ""}).Draw(t, "gthought"))
		b.Set("thought_signature", "c2ln")
		return b
	case 5:
		return block.NewHint(rapid.SampledFrom([]string{"note", ""}).Draw(t, "hint"), "")
	}
	return media(t)
}

func toolResult(t *rapid.T, id string) *block.ToolResult {
	r := &block.ToolResult{ID: id, Name: "f", State: rapid.SampledFrom([]block.ToolResultState{
		block.ResultSuccess, block.ResultError, block.ResultInterrupted, block.ResultDenied}).Draw(t, "state")}
	switch rapid.IntRange(0, 2).Draw(t, "output") {
	case 0:
		r.Output = block.PlainBody(rapid.SampledFrom([]string{"ok", ""}).Draw(t, "out"))
	case 1:
		r.Output = block.BlocksBody(block.NewText("see"), media(t))
	default:
		r.Output = block.BlocksBody()
	}
	return r
}
