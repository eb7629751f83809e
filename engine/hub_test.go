package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/session"
)

// A subscriber that falls a full buffer behind is cut, not buffered
// without bound; the others keep receiving.
func TestHubCutsSlowSubscriber(t *testing.T) {
	h := newHub(2)
	k := session.Key{UserID: "u", SessionID: "s"}
	slow, _ := h.subscribe(k, 10)
	fast, _ := h.subscribe(k, 10)
	for i := range 3 {
		h.publish(k, newBatch(int64(i+1), []json.RawMessage{json.RawMessage(`{}`)}))
		<-fast.ch
	}
	if !slow.cut || len(slow.ch) != 2 {
		t.Fatalf("cut %v, queued %d", slow.cut, len(slow.ch))
	}
	if !isClosed(slow) {
		t.Fatal("the slow subscriber was not cut")
	}
	if isClosed(fast) {
		t.Fatal("the fast subscriber was cut")
	}
	h.publish(k, newBatch(4, []json.RawMessage{json.RawMessage(`{}`)}))
	if f := <-fast.ch; f[0].Seq != 4 {
		t.Fatalf("fast got %d", f[0].Seq)
	}
	if sub, why := h.subscribe(k, 1); sub != nil || why != refusedTopic {
		t.Fatal("a subscriber beyond the limit was accepted")
	}
	h.closeAll()
	if !isClosed(fast) {
		t.Fatal("closeAll left a subscriber")
	}
	if sub, why := h.subscribe(k, 10); sub != nil || why != refusedClosed {
		t.Fatal("subscribed to a closed hub")
	}
}

// The process-wide bound counts the subscribers of every session, and a
// subscriber gone (left, cut or its session closed) frees its slot.
func TestHubTotalBound(t *testing.T) {
	h := newHub(1)
	h.maxTotal = 2
	a, b, c := session.Key{UserID: "u", SessionID: "a"}, session.Key{UserID: "u", SessionID: "b"}, session.Key{UserID: "v", SessionID: "c"}
	sa, _ := h.subscribe(a, 10)
	sb, _ := h.subscribe(b, 10)
	if sa == nil || sb == nil {
		t.Fatal("refused within the bound")
	}
	if sub, why := h.subscribe(c, 10); sub != nil || why != refusedTotal {
		t.Fatalf("a third subscriber: %v %v", sub, why)
	}
	h.unsubscribe(a, sa)
	h.unsubscribe(a, sa) // twice frees one slot only
	sc, _ := h.subscribe(c, 10)
	if sc == nil {
		t.Fatal("a slot freed by unsubscribe was not taken again")
	}
	if sub, _ := h.subscribe(a, 10); sub != nil {
		t.Fatal("unsubscribing twice freed two slots")
	}
	// Cut for falling behind (a buffer of one batch): the slot is freed.
	h.publish(b, newBatch(1, []json.RawMessage{json.RawMessage(`{}`)}))
	h.publish(b, newBatch(2, []json.RawMessage{json.RawMessage(`{}`)}))
	if !isClosed(sb) {
		t.Fatal("the subscriber was not cut")
	}
	sa, _ = h.subscribe(a, 10)
	if sa == nil {
		t.Fatal("a slot freed by a cut was not taken again")
	}
	h.closeTopic(c)
	if sub, _ := h.subscribe(b, 10); sub == nil {
		t.Fatal("a slot freed by closeTopic was not taken again")
	}
}

// isClosed reports whether the subscriber's channel is closed, draining
// what is queued.
func isClosed(sub *subscriber) bool {
	for {
		select {
		case _, ok := <-sub.ch:
			if !ok {
				return true
			}
		default:
			return false
		}
	}
}

// A batch that does not follow what the followers were given (the events
// between were appended by another process, whose notice is not in yet)
// is not given as it is: the hub reads the log after the last event given,
// once for all of the session's followers, so each gets every event once
// and in order. A notice of what they have costs no read.
func TestHubFillsGapsFromTheLog(t *testing.T) {
	k := session.Key{UserID: "u", SessionID: "s"}
	var logged []Entry
	for i := range 6 {
		logged = append(logged, Entry{Seq: int64(i + 1), JSON: json.RawMessage(`{}`)})
	}
	h := newHub(16)
	h.read = func(_ context.Context, got session.Key, after int64) ([]Entry, error) {
		if got != k {
			t.Errorf("read %v", got)
		}
		return logged[after:], nil
	}
	a, _ := h.subscribe(k, 10)
	b, _ := h.subscribe(k, 10)
	h.base(k, 0)
	h.publish(k, logged[0:2])
	h.publish(k, logged[4:6]) // 3 and 4 were appended elsewhere
	for _, sub := range []*subscriber{a, b} {
		var seqs []int64
		for len(seqs) < 6 {
			select {
			case batch := <-sub.ch:
				for _, e := range batch {
					seqs = append(seqs, e.Seq)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("got %v", seqs)
			}
		}
		if fmt.Sprint(seqs) != "[1 2 3 4 5 6]" {
			t.Fatalf("got %v", seqs)
		}
	}
	h.announce("s", 6)
	h.announce("s", 3)
	h.announce("other", 9)
	h.closeAll()
	if n := h.reads.Load(); n != 1 {
		t.Fatalf("%d reads of the log, want 1", n)
	}
	if len(a.ch)+len(b.ch) != 0 {
		t.Fatal("a notice of what the followers had gave them more")
	}
}
