// Package check holds the argument checks and time rounding every session
// backend applies, so they agree on what is ErrInvalid.
package check

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/session"
)

// Begin is the common prologue: a cancelled context, then the key.
func Begin(ctx context.Context, k session.Key) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return k.Validate()
}

// JSON reports ErrInvalid for empty or malformed JSON.
func JSON(what string, raw json.RawMessage) error {
	if len(raw) == 0 {
		return fmt.Errorf("%w: empty %s", session.ErrInvalid, what)
	}
	if !json.Valid(raw) {
		return fmt.Errorf("%w: %s is not valid JSON", session.ErrInvalid, what)
	}
	return nil
}

// Events checks a batch of events for a run's write.
func Events(events []json.RawMessage) error {
	if len(events) == 0 {
		return fmt.Errorf("%w: no events", session.ErrInvalid)
	}
	for i, e := range events {
		if err := JSON(fmt.Sprintf("event %d", i), e); err != nil {
			return err
		}
	}
	return nil
}

// Messages checks a batch of messages for a run's write.
func Messages(msgs []session.Message) error {
	if len(msgs) == 0 {
		return fmt.Errorf("%w: no messages", session.ErrInvalid)
	}
	for i, m := range msgs {
		if m.ID == "" {
			return fmt.Errorf("%w: message %d has an empty id", session.ErrInvalid, i)
		}
		if err := JSON("message "+m.ID, m.JSON); err != nil {
			return err
		}
	}
	return nil
}

// New checks a NewSession and returns its config ({} when nil).
func New(s session.NewSession) (json.RawMessage, error) {
	if s.UserID == "" {
		return nil, fmt.Errorf("%w: empty user id", session.ErrInvalid)
	}
	if s.AgentID == "" {
		return nil, fmt.Errorf("%w: empty agent id", session.ErrInvalid)
	}
	if s.ID != "" {
		if err := ID(s.ID); err != nil {
			return nil, err
		}
	}
	if s.Config == nil {
		return json.RawMessage("{}"), nil
	}
	return s.Config, JSON("config", s.Config)
}

// Patch checks a Patch.
func Patch(p session.Patch) error {
	if p.Config != nil {
		return JSON("config", p.Config)
	}
	return nil
}

// Limit reports ErrInvalid for a limit below 1.
func Limit(n int) error {
	if n < 1 {
		return fmt.Errorf("%w: limit %d below 1", session.ErrInvalid, n)
	}
	return nil
}

// List checks a ListQuery.
func List(q session.ListQuery) error {
	if q.UserID == "" {
		return fmt.Errorf("%w: empty user id", session.ErrInvalid)
	}
	if q.Limit < 0 || q.Offset < 0 {
		return fmt.Errorf("%w: negative limit or offset", session.ErrInvalid)
	}
	return nil
}

// Owner reports ErrInvalid for an empty lease owner.
func Owner(owner string) error {
	if owner == "" {
		return fmt.Errorf("%w: empty lease owner", session.ErrInvalid)
	}
	return nil
}

// TTL reports ErrInvalid for a lease TTL below one microsecond (the
// precision leases are stored with).
func TTL(ttl time.Duration) error {
	if ttl < time.Microsecond {
		return fmt.Errorf("%w: lease ttl %v", session.ErrInvalid, ttl)
	}
	return nil
}

// Lease checks a lease request's owner and TTL (Owner, TTL).
func Lease(owner string, ttl time.Duration) error {
	if err := Owner(owner); err != nil {
		return err
	}
	return TTL(ttl)
}

// Leased is the ErrLeased of a lease request refused because cur, another
// owner's, is held.
func Leased(k session.Key, cur session.Lease) error {
	return fmt.Errorf("session %s: %w (by %s until %s)", k.SessionID, session.ErrLeased, cur.Owner, cur.Expires)
}

// Time rounds t as every backend stores it: UTC, microseconds.
func Time(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// Clock returns now, or time.Now when now is nil.
func Clock(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}

// Page turns up to limit+1 messages read newest first into a page of at
// most limit, oldest first, with HasMore set when the extra one was there.
func Page(newestFirst []session.Message, limit int) session.MessagePage {
	page := session.MessagePage{Messages: newestFirst}
	if len(page.Messages) > limit {
		page.Messages, page.HasMore = page.Messages[:limit], true
	}
	slices.Reverse(page.Messages)
	return page
}

// RunBegin checks a BeginRun request: its owner, its TTL, and its input
// when there is one.
func RunBegin(b session.RunBegin) error {
	if err := Lease(b.Owner, b.TTL); err != nil {
		return err
	}
	if b.Input != nil {
		return JSON("input", b.Input)
	}
	return nil
}

// RunLease checks the lease a run's write names.
func RunLease(l session.Lease) error {
	if l.Owner == "" || l.Epoch < 1 {
		return fmt.Errorf("%w: a run's lease needs its owner and epoch (%q, %d)", session.ErrInvalid, l.Owner, l.Epoch)
	}
	return nil
}

// RunAppend checks an AppendRun: at least one part, each as valid as its
// own write would need.
func RunAppend(l session.Lease, a session.RunAppend) error {
	if err := RunLease(l); err != nil {
		return err
	}
	if len(a.Messages) == 0 && len(a.Events) == 0 {
		return fmt.Errorf("%w: an empty run append", session.ErrInvalid)
	}
	return parts(nil, a.Messages, a.Events)
}

// RunEnd checks a FinishRun: a resting status, and each part present.
func RunEnd(l session.Lease, e session.RunEnd) error {
	if err := RunLease(l); err != nil {
		return err
	}
	if !e.Status.Resting() {
		return fmt.Errorf("%w: a run cannot end as status %q", session.ErrInvalid, e.Status)
	}
	return parts(e.State, e.Messages, e.Events)
}

func parts(state json.RawMessage, msgs []session.Message, events []json.RawMessage) error {
	if state != nil {
		if err := JSON("state", state); err != nil {
			return err
		}
	}
	if len(msgs) > 0 {
		if err := Messages(msgs); err != nil {
			return err
		}
	}
	if len(events) > 0 {
		if err := Events(events); err != nil {
			return err
		}
	}
	return nil
}

// Status checks a FillStatus.
func Status(s session.Status) error {
	if !s.Resting() {
		return fmt.Errorf("%w: status %q cannot be filled in", session.ErrInvalid, s)
	}
	return nil
}

// FoldMessages folds repeated message ids as a sequence of single upserts
// would: the last JSON wins, at the first one's place.
func FoldMessages(msgs []session.Message) []session.Message {
	at := make(map[string]int, len(msgs))
	out := make([]session.Message, 0, len(msgs))
	for _, m := range msgs {
		if i, ok := at[m.ID]; ok {
			out[i].JSON = m.JSON
			continue
		}
		at[m.ID] = len(out)
		out = append(out, m)
	}
	return out
}

// ID checks a session id a caller chose (session.NewSession.ID).
func ID(id string) error {
	if len(id) > session.MaxIDLen {
		return fmt.Errorf("%w: session id of %d bytes, over %d", session.ErrInvalid, len(id), session.MaxIDLen)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' || strings.IndexByte(`/?#%\`, c) >= 0 {
			return fmt.Errorf("%w: session id %q: byte %d (%q) is not a printable ASCII character allowed in a path segment", session.ErrInvalid, id, i, c)
		}
	}
	if id == "" {
		return fmt.Errorf("%w: empty session id", session.ErrInvalid)
	}
	return nil
}

// Parts checks the messages and events of an Opening's Commit (either may
// be empty).
func Parts(msgs []session.Message, events []json.RawMessage) error {
	return parts(nil, msgs, events)
}
