package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/jackc/pgx/v5"
)

// Channel is the LISTEN/NOTIFY channel the store's notices travel on. A
// channel is the database's, not a schema's: deployments sharing one
// database in separate schemas hear each other's notices, which costs
// them reads but never confuses them (session ids are random, and an
// interrupt names its run's owner and epoch).
const Channel = "agentscope"

var _ session.Notifier = (*Store)(nil)

// notice is a Notice's payload on the channel, as short as it can be: a
// NOTIFY carries at most 8000 bytes, and every replica receives every
// append's.
type notice struct {
	K string `json:"k"`           // a, d, i
	S string `json:"s"`           // session id
	Q int64  `json:"q,omitempty"` // a: last seq
	U string `json:"u,omitempty"` // i: user
	O string `json:"o,omitempty"` // i: lease owner
	E int64  `json:"e,omitempty"` // i: lease epoch
}

// notifyAppended is the SQL expression of an append's notice, in a
// statement where $1 is the session id and last_seq the row's new
// counter; it is NULL (nothing sent) when cond is false. pg_notify is
// transactional: the notice leaves at commit, so no listener reads the
// log before the events are there.
func notifyAppended(cond string) string {
	return `CASE WHEN ` + cond + ` THEN pg_notify('` + Channel + `', json_build_object('k', 'a', 's', $1::text, 'q', last_seq)::text)::text END`
}

// maxPayload is the longest payload PostgreSQL's NOTIFY takes (8000 bytes
// by default, less its terminator).
const maxPayload = 7999

// Notify sends a NoticeInterrupt to every listening process.
func (s *Store) Notify(ctx context.Context, n session.Notice) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if n.Kind != session.NoticeInterrupt {
		return fmt.Errorf("%w: postgres: Notify sends interrupts only, not %q", session.ErrInvalid, n.Kind)
	}
	if err := n.Key.Validate(); err != nil {
		return err
	}
	if n.Lease.Owner == "" {
		return fmt.Errorf("%w: an interrupt names the run's lease owner", session.ErrInvalid)
	}
	payload, _ := json.Marshal(notice{K: "i", S: n.Key.SessionID, U: n.Key.UserID, O: n.Lease.Owner, E: n.Lease.Epoch})
	if len(payload) > maxPayload {
		return fmt.Errorf("%w: postgres: a notice of %d bytes is over NOTIFY's %d", session.ErrInvalid, len(payload), maxPayload)
	}
	_, err := s.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, Channel, string(payload))
	return fail(ctx, err)
}

// Listen holds one connection of its own (not the pool's: a pooled
// connection is handed to others between statements, and a LISTEN is the
// connection's) and delivers the channel's notices. A broken connection
// is reconnected after a backoff of 50 ms, doubling to 5 s.
func (s *Store) Listen(ctx context.Context, deliver func(session.Notice)) error {
	const first, most = 50 * time.Millisecond, 5 * time.Second
	backoff := first
	for {
		s.listenOnce(ctx, deliver, func() { backoff = first })
		if ctx.Err() != nil {
			return ctx.Err()
		}
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return ctx.Err()
		}
		backoff = min(2*backoff, most)
	}
}

// listenOnce connects, listens and delivers until the connection breaks
// or ctx ends; listening is called once it listens. A connection that
// listened and broke is reported as NoticeLost; one that could not be
// made is tried again, silently (the first NoticeLost said it is gone).
func (s *Store) listenOnce(ctx context.Context, deliver func(session.Notice), listening func()) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `LISTEN `+Channel); err != nil {
		return
	}
	listening()
	deliver(session.Notice{Kind: session.NoticeListening})
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() == nil {
				deliver(session.Notice{Kind: session.NoticeLost, Err: redactError(err, s.secrets)})
			}
			return
		}
		if out, ok := decodeNotice(n.Payload); ok {
			deliver(out)
		}
	}
}

// decodeNotice reads a payload; ok is false for one this build does not
// know (a newer replica's), which is skipped.
func decodeNotice(payload string) (session.Notice, bool) {
	var n notice
	if json.Unmarshal([]byte(payload), &n) != nil || n.S == "" {
		return session.Notice{}, false
	}
	k := session.Key{SessionID: n.S}
	switch n.K {
	case "a":
		return session.Notice{Kind: session.NoticeAppended, Key: k, Seq: n.Q}, true
	case "d":
		return session.Notice{Kind: session.NoticeDeleted, Key: k}, true
	case "i":
		k.UserID = n.U
		return session.Notice{Kind: session.NoticeInterrupt, Key: k, Lease: session.Lease{Owner: n.O, Epoch: n.E}}, true
	}
	return session.Notice{}, false
}

// notifyDeleted sends, in tx, the notice of a deleted session.
func notifyDeleted(ctx context.Context, tx pgx.Tx, id string) error {
	payload, _ := json.Marshal(notice{K: "d", S: id})
	_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, Channel, string(payload))
	return err
}
