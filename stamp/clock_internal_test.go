package stamp

import (
	"testing"
	"time"
)

// wallNow agrees with time.Now: every reading lies between a time.Now
// taken before it and one taken after it (to the microsecond the wire
// keeps), and readings never go backwards.
func TestWallNowTracksTheClock(t *testing.T) {
	clockAnchor.Store(nil)
	var last time.Time
	for i := 0; i < 100000; i++ {
		before := time.Now()
		got := wallNow()
		after := time.Now()
		if got.Before(before.Add(-time.Microsecond)) || got.After(after.Add(time.Microsecond)) {
			t.Fatalf("reading %d: %v outside [%v, %v]", i, got, before, after)
		}
		if got.Before(last) {
			t.Fatalf("reading %d went backwards: %v after %v", i, got, last)
		}
		last = got
	}
}

// A stale anchor (older than a second) is renewed rather than extended.
func TestWallNowRenewsStaleAnchor(t *testing.T) {
	old := time.Now().Add(-2 * time.Second)
	clockAnchor.Store(&anchor{t: old, ns: old.UnixNano()})
	before := time.Now()
	wallNow()
	if a := clockAnchor.Load(); a.t.Before(before) {
		t.Fatalf("anchor %v not renewed (before %v)", a.t, before)
	}
	// wallNanos renews a stale anchor too, and agrees with the wall clock.
	clockAnchor.Store(&anchor{t: old, ns: old.UnixNano()})
	before = time.Now()
	if ns := wallNanos(); ns < before.UnixNano() {
		t.Fatalf("wallNanos %d before the wall clock %d", ns, before.UnixNano())
	}
}
