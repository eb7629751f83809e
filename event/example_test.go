package event_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentscope-go/agentscope/event"
)

// Decode reads any of the 28 events by its "type" tag; a type switch then
// gets at the fields.
func ExampleDecode() {
	e, err := event.Decode([]byte(`{"id":"e1","created_at":"2026-08-22T09:14:04.512683","metadata":{},"type":"TEXT_BLOCK_DELTA","reply_id":"r1","block_id":"b1","delta":"He"}`))
	if err != nil {
		panic(err)
	}
	switch e := e.(type) {
	case *event.TextBlockDelta:
		fmt.Printf("%s: block %s += %q\n", e.Type(), e.BlockID, e.Delta)
	}

	_, err = event.Decode([]byte(`{"type":"TEXT_BLOCK_GROW"}`))
	fmt.Println(errors.Is(err, event.ErrUnknownType), err)
	// Output:
	// TEXT_BLOCK_DELTA: block b1 += "He"
	// true unknown event type "TEXT_BLOCK_GROW"
}

// AppendJSON writes the reference's exact JSON into a caller's buffer;
// reusing the buffer makes streaming a token allocation-free.
func ExampleTextBlockDelta_AppendJSON() {
	e := &event.TextBlockDelta{ReplyID: "r1", BlockID: "b1", Delta: "<b>Hé</b>\n"}
	e.ID, e.CreatedAt = "e1", "2026-08-22T09:14:04.512683"

	buf := make([]byte, 0, 256)
	buf = append(buf, "data: "...) // e.g. a server-sent event frame
	buf = e.AppendJSON(buf)
	fmt.Println(string(buf))
	// Output:
	// data: {"id":"e1","created_at":"2026-08-22T09:14:04.512683","metadata":{},"type":"TEXT_BLOCK_DELTA","reply_id":"r1","block_id":"b1","delta":"<b>Hé</b>\n"}
}

// Stamp gives a hand-built event its id and created_at.
func ExampleStamp() {
	e := &event.ReplyStart{SessionID: "s1", ReplyID: "r1", Name: "Friday"}
	event.Stamp(e, nil) // stamp.Default: a uuid4 hex id, the local time
	fmt.Println(len(e.ID), e.CreatedAt != "", e.Role == "")
	_, rest, _ := strings.Cut(string(event.Marshal(e)), `"metadata":{},`)
	fmt.Println(rest)
	// Output:
	// 32 true true
	// "type":"REPLY_START","session_id":"s1","reply_id":"r1","name":"Friday","role":"assistant"}
}
