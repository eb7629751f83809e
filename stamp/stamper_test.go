package stamp_test

import (
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/stamp"
)

// A Stamper's ids have uuid4's hex form and never repeat, across a base
// change too; its timestamps parse and track the clock.
func TestStamper(t *testing.T) {
	var s stamp.Stamper
	seen := make(map[string]bool)
	before := time.Now().Add(-time.Second)
	const n = 1<<20 + 1000 // past the first base
	for i := range n {
		id := s.NewID()
		if len(id) != 32 || id[12] != '4' || (id[16] != '8' && id[16] != '9' && id[16] != 'a' && id[16] != 'b') {
			t.Fatalf("id %d: %q is not a uuid4 hex", i, id)
		}
		for _, c := range []byte(id) {
			if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
				t.Fatalf("id %d: %q is not lowercase hex", i, id)
			}
		}
		if seen[id] {
			t.Fatalf("id %d: %q repeats", i, id)
		}
		seen[id] = true
	}
	id, now := s.IDNow()
	if seen[id] {
		t.Fatalf("IDNow's id %q repeats", id)
	}
	ts, err := stamp.ParseTime(now)
	if err != nil || ts.Before(before) || ts.After(time.Now().Add(time.Second)) {
		t.Fatalf("now %q (%v)", now, err)
	}
	if ts2, _ := stamp.ParseTime(s.Now()); ts2.Before(ts) {
		t.Fatalf("time went backwards: %v after %v", ts2, ts)
	}
}

// Two Stampers (two streams) draw different bases.
func TestStampersDiffer(t *testing.T) {
	var a, b stamp.Stamper
	x, y := a.NewID(), b.NewID()
	if x[:24] == y[:24] {
		t.Fatalf("two stampers share a base: %q %q", x, y)
	}
}

// The strings a Stamper hands out are never written again.
func TestStamperStringsStay(t *testing.T) {
	var s stamp.Stamper
	ids := make([]string, 0, 1000)
	copies := make([]string, 0, 1000)
	for range 1000 {
		id := s.NewID()
		ids = append(ids, id)
		copies = append(copies, string([]byte(id)))
	}
	for i := range ids {
		if ids[i] != copies[i] {
			t.Fatalf("id %d changed: %q, was %q", i, ids[i], copies[i])
		}
	}
}

func BenchmarkStamperIDNow(b *testing.B) {
	var s stamp.Stamper
	for b.Loop() {
		s.IDNow()
	}
}

func BenchmarkIDNow(b *testing.B) {
	for b.Loop() {
		stamp.IDNow()
	}
}
