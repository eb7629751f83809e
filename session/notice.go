package session

import "context"

// Notifier is a store that several processes share, and that tells each of
// them what the others do to a session, so that none of them polls: a
// follower on one replica is woken when a run on another appends to the
// session's log, a run is asked to stop by a replica it does not run on,
// and the followers of a deleted session end everywhere. It is optional:
// a store only one process uses (SQLite, memory) needs none, and an engine
// over a store without it is one process, as before.
//
// Notices carry news, never data: whoever gets one reads the store. A
// notice may be delivered late, more than once, or (when the connection
// it travels on breaks) not at all, and a listener is told of the last
// (NoticeListening after NoticeLost), so it re-reads what it follows.
type Notifier interface {
	// Listen delivers every notice of every process sharing the store,
	// this one's included, in the order they were sent, by calling
	// deliver on one goroutine (keep it short: the next notice waits for
	// it). It first delivers NoticeListening, once it listens; when its
	// connection breaks it delivers NoticeLost, reconnects with a backoff
	// and delivers NoticeListening again. It returns ctx's error when ctx
	// ends, and only then.
	Listen(ctx context.Context, deliver func(Notice)) error
	// Notify sends n (a NoticeInterrupt) to every listening process.
	// NoticeAppended and NoticeDeleted are not sent this way: the store
	// sends them itself, in the transaction of the write they announce
	// (AppendRun, FinishRun, DeleteSession), so a listener learns of a
	// write only once it is committed and readable. ErrInvalid for
	// another kind or a notice too large to send.
	Notify(ctx context.Context, n Notice) error
}

// NoticeKind says what a Notice announces.
type NoticeKind string

// The kinds of notice.
const (
	// NoticeAppended: a run appended events to the session's log, the
	// last of them at Seq. Key has the SessionID only (session ids are
	// unique over all users).
	NoticeAppended NoticeKind = "appended"
	// NoticeDeleted: the session was deleted. Key has the SessionID only.
	NoticeDeleted NoticeKind = "deleted"
	// NoticeInterrupt: a process asks the run holding Lease (its Owner
	// and Epoch) on the session Key to stop.
	NoticeInterrupt NoticeKind = "interrupt"
	// NoticeListening: Listen listens (again). Notices sent before it,
	// while it was not listening, are lost: re-read what you follow.
	NoticeListening NoticeKind = "listening"
	// NoticeLost: Listen lost its connection (Err says why); it
	// reconnects.
	NoticeLost NoticeKind = "lost"
)

// Notice is one piece of news from a process sharing the store.
type Notice struct {
	Kind NoticeKind
	Key  Key
	// Seq is the last sequence a NoticeAppended's write appended.
	Seq int64
	// Lease names the run a NoticeInterrupt is for (Owner, Epoch).
	Lease Lease
	// Err is why a NoticeLost's connection broke.
	Err error
}
