package event_test

import (
	"errors"
	"testing"

	"github.com/agentscope-go/agentscope/event"
)

// TestEmptyIsNotNull: "" in a nullable field is a value, not null. A
// TOOL_RESULT_DATA_DELTA with "data": "" is valid (the reference accepts
// it), and both forms encode back as they came.
func TestEmptyIsNotNull(t *testing.T) {
	valid := []string{
		`{"id":"e","created_at":"C","metadata":{},"type":"TOOL_RESULT_DATA_DELTA","reply_id":"r","tool_call_id":"c","block_id":"b","media_type":"image/png","data":"","url":null}`,
		`{"id":"e","created_at":"C","metadata":{},"type":"TOOL_RESULT_DATA_DELTA","reply_id":"r","tool_call_id":"c","block_id":"b","media_type":"image/png","data":null,"url":""}`,
		`{"id":"e","created_at":"C","metadata":{},"type":"HINT_BLOCK","reply_id":"r","block_id":"b","source":"","hint":"h"}`,
		`{"id":"e","created_at":"C","metadata":{},"type":"HINT_BLOCK","reply_id":"r","block_id":"b","source":null,"hint":"h"}`,
	}
	for _, in := range valid {
		e, err := event.Decode([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := string(e.AppendJSON(nil)); got != in {
			t.Errorf("round trip\n got %s\nwant %s", got, in)
		}
	}
	for _, in := range []string{
		`{"type":"TOOL_RESULT_DATA_DELTA","reply_id":"r","tool_call_id":"c","media_type":"image/png","data":null,"url":null}`,
		`{"type":"TOOL_RESULT_DATA_DELTA","reply_id":"r","tool_call_id":"c","media_type":"image/png","data":"","url":""}`,
	} {
		if _, err := event.Decode([]byte(in)); !errors.Is(err, event.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", in, err)
		}
	}
}
