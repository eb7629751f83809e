package server

import (
	"encoding/json"
	"testing"

	"github.com/agentscope-go/agentscope/session"
)

// A subscriber that falls a full buffer behind is cut, not buffered
// without bound; the others keep receiving.
func TestHubCutsSlowSubscriber(t *testing.T) {
	h := newHub(2)
	k := session.Key{UserID: "u", SessionID: "s"}
	slow, fast := h.subscribe(k, 10), h.subscribe(k, 10)
	for i := range 3 {
		h.publish(k, newFrames(int64(i+1), []json.RawMessage{json.RawMessage(`{}`)}))
		<-fast.ch
	}
	select {
	case <-slow.gone:
	default:
		t.Fatal("the slow subscriber was not cut")
	}
	if !slow.cut || len(slow.ch) != 2 {
		t.Fatalf("cut %v, queued %d", slow.cut, len(slow.ch))
	}
	select {
	case <-fast.gone:
		t.Fatal("the fast subscriber was cut")
	default:
	}
	h.publish(k, newFrames(4, []json.RawMessage{json.RawMessage(`{}`)}))
	if f := <-fast.ch; f[0].seq != 4 {
		t.Fatalf("fast got %d", f[0].seq)
	}
	if h.subscribe(k, 1) != nil {
		t.Fatal("a subscriber beyond the limit was accepted")
	}
	h.closeAll()
	<-fast.gone
	if h.subscribe(k, 10) != nil {
		t.Fatal("subscribed to a closed hub")
	}
}

func TestFrameFormat(t *testing.T) {
	// One buffer holds a batch's frames; each is its own, with its seq.
	fs := newFrames(42, []json.RawMessage{json.RawMessage(`{"type":"X"}`), json.RawMessage(`{}`), json.RawMessage(`{"a":"9999999999"}`)})
	want := []string{"id: 42\ndata: {\"type\":\"X\"}\n\n", "id: 43\ndata: {}\n\n", "id: 44\ndata: {\"a\":\"9999999999\"}\n\n"}
	for i, f := range fs {
		if string(f.b) != want[i] || f.seq != int64(42+i) || cap(f.b) != len(f.b) {
			t.Errorf("frame %d: %q seq %d cap %d", i, f.b, f.seq, cap(f.b))
		}
	}
	big := newFrames(1<<62, []json.RawMessage{json.RawMessage(`{}`)})
	if got := string(big[0].b); got != "id: 4611686018427387904\ndata: {}\n\n" {
		t.Errorf("frame %q", got)
	}
}
