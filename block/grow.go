package block

import "unsafe"

// grower makes repeated appends to a string field amortized O(1).
//
// The field's string aliases the first len bytes of buf; appends write only
// past that point, so a string already handed out never changes. owner is the
// address of the block that allocated buf: a block copied by value sees a
// different address and re-copies before its first append, so two copies
// never write into one array.
type grower struct {
	buf   []byte
	owner unsafe.Pointer
}

func (g *grower) append(owner unsafe.Pointer, cur *string, delta string) {
	if delta == "" {
		return
	}
	s := *cur
	if g.owner != owner || len(g.buf) != len(s) || (len(s) > 0 && unsafe.StringData(s) != unsafe.SliceData(g.buf)) {
		g.buf = append(make([]byte, 0, max(2*(len(s)+len(delta)), 32)), s...)
		g.owner = owner
	}
	g.buf = append(g.buf, delta...)
	*cur = unsafe.String(unsafe.SliceData(g.buf), len(g.buf))
}
