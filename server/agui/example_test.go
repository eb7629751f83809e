package agui_test

import (
	"fmt"
	"os"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/server/agui"
)

// A Converter turns a native stream into the reference's AG-UI events, one
// per native event: the step remembers its model, the tool result its
// text.
func ExampleConverter() {
	events := []event.Event{
		&event.ReplyStart{SessionID: "s1", ReplyID: "r1", Name: "Friday"},
		&event.ModelCallStart{ReplyID: "r1", ModelName: "qwen-plus"},
		&event.TextBlockDelta{ReplyID: "r1", BlockID: "b1", Delta: "Hi"},
		&event.ModelCallEnd{ReplyID: "r1"},
		&event.ToolResultTextDelta{Base: event.Base{ID: "e5", CreatedAt: "2026-08-22T09:14:04"}, ReplyID: "r1", ToolCallID: "c1", Delta: "42"},
		&event.ToolResultEnd{ReplyID: "r1", ToolCallID: "c1", State: "success"},
		&event.ReplyEnd{SessionID: "s1", ReplyID: "r1", FinishedReason: event.ReplyExceedMaxIters},
	}
	c := agui.NewConverter()
	var out []byte
	for _, e := range events {
		out = c.Append(out, e)
	}
	os.Stdout.Write(out)
	// Output:
	// {"type":"RUN_STARTED","threadId":"s1","runId":"r1"}
	// {"type":"STEP_STARTED","stepName":"qwen-plus"}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"b1","delta":"Hi"}
	// {"type":"STEP_FINISHED","stepName":"qwen-plus"}
	// {"type":"CUSTOM","name":"tool_result_text_delta","value":{"id":"e5","created_at":"2026-08-22T09:14:04","metadata":{},"type":"TOOL_RESULT_TEXT_DELTA","reply_id":"r1","tool_call_id":"c1","delta":"42"}}
	// {"messageId":"r1","type":"TOOL_CALL_RESULT","toolCallId":"c1","content":"42"}
	// {"type":"RUN_ERROR","message":"The agent exceeded the maximum reasoning-acting iterations","code":"exceed_max_iters"}
}

// AppendChunk rewrites an SSE body chunk by chunk, as the reference's
// middleware does: data lines are converted, line endings, other lines and
// heartbeats kept.
func ExampleConverter_AppendChunk() {
	c := agui.NewConverter()
	frame := "id: 7\r\ndata: {\"type\":\"TEXT_BLOCK_END\",\"reply_id\":\"r1\",\"block_id\":\"b1\"}\r\n\r\n"
	fmt.Printf("%q\n", c.AppendChunk(nil, []byte(frame)))
	fmt.Printf("%q\n", c.AppendChunk(nil, []byte(":\n\n")))
	// Output:
	// "id: 7\r\ndata: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"b1\"}\r\n\r\n"
	// ":\n\n"
}
