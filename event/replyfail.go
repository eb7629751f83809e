package event

// NewReplyEndError returns the REPLY_END that closes a reply which failed
// instead of ending: finished_reason "error" and the typed error (nil is
// written as null). The agent never emits it — like the reference's, it
// returns the error and leaves the reply open — so whoever prints or
// publishes a reply's events sends this one after a failure, and a
// consumer always sees the stream close, as the reference's service does.
// The event is not stamped; pass it to Stamp.
func NewReplyEndError(sessionID, replyID string, info *ErrorInfo) *ReplyEnd {
	return &ReplyEnd{SessionID: sessionID, ReplyID: replyID, FinishedReason: ReplyError, Error: info}
}
