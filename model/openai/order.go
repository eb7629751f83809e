package openai

import (
	"encoding/json"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/model/internal/toolinput"
)

// answerFirst reorders one reply's blocks so that nothing separates a set
// of tool calls from their results: both wires want the results right after
// the calls (Chat: role:"tool" messages contiguous after the assistant
// tool_calls message). A hint that arrived while calls were unanswered, or
// any content after the first result of a set, is held back until the set
// is answered. Blocks keep their order otherwise; content without calls is
// returned as is.
func answerFirst(content []block.Block) []block.Block {
	hasCall := false
	for _, b := range content {
		if _, ok := b.(*block.ToolCall); ok {
			hasCall = true
			break
		}
	}
	if !hasCall {
		return content
	}
	out := make([]block.Block, 0, len(content))
	var held []block.Block
	owed := map[string]bool{}
	answering := false // a result of the current set has been placed
	var place func(b block.Block)
	place = func(b block.Block) {
		switch b := b.(type) {
		case *block.ToolResult:
			out = append(out, b)
			delete(owed, b.ID)
			answering = len(owed) > 0
			if !answering && held != nil {
				h := held
				held = nil
				for _, x := range h {
					place(x)
				}
			}
			return
		case *block.ToolCall:
			if !answering {
				owed[b.ID] = true
				out = append(out, b)
				return
			}
		case *block.Hint:
			if len(owed) == 0 {
				out = append(out, b)
				return
			}
		default:
			if !answering {
				out = append(out, b)
				return
			}
		}
		held = append(held, b)
	}
	for _, b := range content {
		place(b)
	}
	return append(out, held...)
}

// callArguments is the argument text sent back for a call: as the model
// wrote it when it is a JSON object (so echoed history matches what was
// streamed byte for byte), "{}" when empty, and otherwise (a call cut off
// mid-stream) the repaired object, since strict servers reject invalid
// JSON in history.
func callArguments(input string) string {
	s := strings.TrimSpace(input)
	if s == "" {
		return "{}"
	}
	if s[0] == '{' && json.Valid([]byte(s)) {
		return input
	}
	obj, _ := toolinput.Object(input)
	return string(obj)
}
