package message_test

import (
	"fmt"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/stamp"
)

// UserText builds the message a user sends; its JSON is exactly what
// AgentScope 2.x emits. A stamp.Fixed source makes ids and times
// deterministic (production code leaves WithStamp out).
func ExampleUserText() {
	src := &stamp.Fixed{Time: "2026-08-22T09:14:04.512348"}
	m := message.UserText("user", "What's in this image?", message.WithStamp(src))
	fmt.Println(string(m.AppendJSON(nil)))
	// Output:
	// {"name":"user","content":[{"type":"text","text":"What's in this image?","id":"00000000000000000000000000000001","created_at":"2026-08-22T09:14:04.512348","finished_at":null}],"role":"user","id":"00000000000000000000000000000002","metadata":{},"created_at":"2026-08-22T09:14:04.512348","usage":null,"finished_at":"2026-08-22T09:14:04.512348","finished_reason":null,"structured_output":null,"error":null}
}

// AssistantMsg accepts every block kind; the user and system factories
// refuse the ones their role may not hold, with a *RoleError.
func ExampleAssistantMsg() {
	call := &block.ToolCall{ID: "call_1", Name: "Bash", Input: `{"command": "ls"}`}
	m, err := message.AssistantMsg("Friday", []block.Block{block.NewThinking("List the files."), call},
		message.WithStamp(&stamp.Fixed{Time: "2026-08-22T09:14:04"}))
	if err != nil {
		panic(err)
	}
	for _, b := range m.Content {
		fmt.Println(b.Kind(), b.BlockID())
	}
	fmt.Println(message.BlocksOf[*block.ToolCall](m)[0].State)

	_, err = message.UserMsg("user", []block.Block{call})
	fmt.Println(err)
	// Output:
	// thinking 00000000000000000000000000000001
	// tool_call call_1
	// pending
	// User message can only contain text blocks or data blocks (content[0] is tool_call).
}

// AppendEvent folds a reply's events into the Msg they describe: start
// from an empty assistant Msg whose id is the reply id and apply each event
// in order.
func ExampleMsg_AppendEvent() {
	lines := []string{
		`{"id":"e1","created_at":"2026-08-22T09:14:04","metadata":{},"type":"REPLY_START","session_id":"s1","reply_id":"r1","name":"Friday","role":"assistant"}`,
		`{"id":"e2","created_at":"2026-08-22T09:14:05","metadata":{},"type":"TEXT_BLOCK_START","reply_id":"r1","block_id":"b1"}`,
		`{"id":"e3","created_at":"2026-08-22T09:14:06","metadata":{},"type":"TEXT_BLOCK_DELTA","reply_id":"r1","block_id":"b1","delta":"Hello"}`,
		`{"id":"e4","created_at":"2026-08-22T09:14:07","metadata":{},"type":"TEXT_BLOCK_DELTA","reply_id":"r1","block_id":"b1","delta":", world"}`,
		`{"id":"e5","created_at":"2026-08-22T09:14:08","metadata":{},"type":"TEXT_BLOCK_END","reply_id":"r1","block_id":"b1"}`,
		`{"id":"e6","created_at":"2026-08-22T09:14:09","metadata":{},"type":"MODEL_CALL_END","reply_id":"r1","input_tokens":12,"output_tokens":3}`,
		`{"id":"e7","created_at":"2026-08-22T09:14:10","metadata":{},"type":"REPLY_END","session_id":"s1","reply_id":"r1","finished_reason":"completed","error":null}`,
	}
	m, _ := message.AssistantMsg("Friday", nil, message.WithID("r1"), message.WithCreatedAt("2026-08-22T09:14:04"))
	for _, l := range lines {
		e, err := event.Decode([]byte(l))
		if err != nil {
			panic(err)
		}
		if err := m.AppendEvent(e); err != nil {
			fmt.Println("skipped:", err) // another reply's event, a missing block…
		}
	}
	text, _ := m.TextContent("\n")
	fmt.Println(text)
	fmt.Println(string(m.AppendJSON(nil)))
	// Output:
	// Hello, world
	// {"name":"Friday","content":[{"type":"text","text":"Hello, world","id":"b1","created_at":"2026-08-22T09:14:05","finished_at":"2026-08-22T09:14:08"}],"role":"assistant","id":"r1","metadata":{},"created_at":"2026-08-22T09:14:04","usage":{"input_tokens":12,"output_tokens":3,"cache_input_tokens":0,"cache_creation_input_tokens":0},"finished_at":"2026-08-22T09:14:10","finished_reason":"completed","structured_output":null,"error":null}
}
