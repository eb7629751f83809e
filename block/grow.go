package block

import (
	"sync/atomic"
	"unsafe"
)

// grower makes repeated appends to a string field amortized O(1).
//
// The field's string aliases the first len bytes of buf; appends write only
// past that point, so a string already handed out never changes. tail is
// shared by every value copy of the grower and records how much of buf's
// array is taken: an append first claims the bytes it writes by moving tail
// from its own length, so a copy that is behind (a copy taken earlier, or a
// value copied back over the block) fails the claim and re-copies instead of
// overwriting bytes another string still holds.
type grower struct {
	buf  []byte
	tail *atomic.Int64
}

func (g *grower) append(cur *string, delta string) {
	if delta == "" {
		return
	}
	s := *cur
	if len(g.buf) != len(s) || (len(s) > 0 && unsafe.StringData(s) != unsafe.SliceData(g.buf)) ||
		!g.claim(len(delta)) {
		g.buf = append(make([]byte, 0, max(2*(len(s)+len(delta)), 32)), s...)
		g.tail = new(atomic.Int64)
		g.tail.Store(int64(len(s) + len(delta)))
	}
	g.buf = append(g.buf, delta...)
	*cur = unsafe.String(unsafe.SliceData(g.buf), len(g.buf))
}

// claim reserves n bytes past len(g.buf) in its array for this copy.
func (g *grower) claim(n int) bool {
	return g.tail != nil && cap(g.buf)-len(g.buf) >= n &&
		g.tail.CompareAndSwap(int64(len(g.buf)), int64(len(g.buf)+n))
}
