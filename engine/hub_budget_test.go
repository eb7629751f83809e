package engine

import (
	"bytes"
	"testing"

	"github.com/agentscope-go/agentscope/session"
)

// A subscriber is cut once the bytes it has queued would pass the budget,
// long before its batch count is reached; one that takes what it gets is
// not, even for a batch larger than the budget.
func TestHubCutsSubscriberOverByteBudget(t *testing.T) {
	h := newHub(1000)
	h.budget = 10 << 10
	k := session.Key{UserID: "u", SessionID: "s"}
	slow, _ := h.subscribe(k, 10)
	fast, _ := h.subscribe(k, 10)
	big := bytes.Repeat([]byte("x"), 3<<10) // a frame of about 3 KiB
	seq := int64(0)
	next := func(n int) []Entry {
		fs := make([]Entry, n)
		for i := range fs {
			seq++
			fs[i] = sized(seq, big)
		}
		return fs
	}
	for i := range 3 {
		fs := next(1)
		h.publish(k, fs)
		fast.took(<-fast.ch)
		if slow.cut {
			t.Fatalf("cut after %d frames (%d bytes queued), within the budget", i+1, slow.queued.Load())
		}
	}
	if q := slow.queued.Load(); q < 9<<10 || q > 10<<10 {
		t.Fatalf("slow has %d bytes queued", q)
	}
	h.publish(k, next(1))
	if !slow.cut || len(slow.ch) != 3 {
		t.Fatalf("cut %v, %d batches queued (the batch limit is 1000)", slow.cut, len(slow.ch))
	}
	if !isClosed(slow) {
		t.Fatal("the slow subscriber was not cut past its byte budget")
	}
	fast.took(<-fast.ch)
	// A batch larger than the whole budget still reaches a subscriber
	// with nothing queued.
	huge := next(8)
	h.publish(k, huge)
	select {
	case got, ok := <-fast.ch:
		if !ok {
			t.Fatal("a subscriber with nothing queued was cut by one large batch")
		}
		fast.took(got)
		if len(got) != 8 || got[0].Seq != huge[0].Seq {
			t.Fatalf("got %d frames from %d", len(got), got[0].Seq)
		}
	}
	if q := fast.queued.Load(); q != 0 {
		t.Fatalf("%d bytes counted queued after everything was taken", q)
	}
	h.closeAll()
}

// With no byte budget only the batch count bounds a subscriber.
func TestHubWithoutByteBudget(t *testing.T) {
	h := newHub(4)
	k := session.Key{UserID: "u", SessionID: "s"}
	sub, _ := h.subscribe(k, 1)
	for i := range 4 {
		h.publish(k, []Entry{sized(int64(i+1), bytes.Repeat([]byte("x"), 1<<20))})
	}
	if sub.cut {
		t.Fatal("cut within the batch count with no byte budget")
	}
	h.publish(k, []Entry{sized(5, []byte(`{}`))})
	if !sub.cut {
		t.Fatal("not cut past the batch count")
	}
}

// sized is an entry of seq whose JSON is b (what the budget counts).
func sized(seq int64, b []byte) Entry { return Entry{Seq: seq, JSON: b} }
