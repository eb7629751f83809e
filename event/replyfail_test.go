package event_test

import (
	"testing"

	"github.com/agentscope-go/agentscope/event"
)

// The REPLY_END that closes a failed reply is the one of core-spec §2.
func TestNewReplyEndError(t *testing.T) {
	e := event.NewReplyEndError("s1", "r1", &event.ErrorInfo{Type: event.ErrRateLimit, Message: "x"})
	e.ID, e.CreatedAt = "37693cfc748049e45d87b8c7d8b9aacd", "2026-08-22T09:14:04.512589"
	want := `{"id":"37693cfc748049e45d87b8c7d8b9aacd","created_at":"2026-08-22T09:14:04.512589","metadata":{},"type":"REPLY_END","session_id":"s1","reply_id":"r1","finished_reason":"error","error":{"type":"rate_limit","message":"x"}}`
	if got := string(e.AppendJSON(nil)); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
