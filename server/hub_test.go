package server

import (
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
		h.publish(k, []frame{newFrame(int64(i+1), []byte(`{}`))})
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
	h.publish(k, []frame{newFrame(4, []byte(`{}`))})
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
	if got := string(newFrame(42, []byte(`{"type":"X"}`)).b); got != "id: 42\ndata: {\"type\":\"X\"}\n\n" {
		t.Fatalf("frame %q", got)
	}
}
