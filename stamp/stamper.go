package stamp

import "math/rand/v2"

// Stamper stamps a stream of events on one goroutine with what Default
// would give them, cheaper: ids in uuid4's hex form (version and variant
// bits set) and the wall clock in the wire's timestamp format.
//
// Its ids are a random base, drawn on first use and again every 2^20 ids,
// whose low 32 bits count up: two ids collide only if two bases share
// their other 90 random bits, as unlikely as two uuid4s colliding among
// as many streams. Ids of one stream follow from each other, so a Stamper
// is for event ids, never for ids that must be unguessable (sessions,
// tokens): those come from NewID.
//
// The zero value is ready to use. A Stamper is not safe for concurrent
// use.
type Stamper struct {
	arena          // its own, not the pool's: the strings are cut from it
	hex   [32]byte // the base in hex; the last 8 digits are the counter's
	lo    uint32   // the counter (the base's low 32 bits, advanced)
	left  uint32   // ids left before the next base
}

// reseedEvery bounds the ids drawn from one base.
const reseedEvery = 1 << 20

func (s *Stamper) reseed() {
	hi, lo := rand.Uint64(), rand.Uint64()
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // RFC 4122 variant
	for i := range 8 {
		h, l := hi>>(56-8*i)&0xff, lo>>(56-8*i)&0xff
		s.hex[2*i], s.hex[2*i+1] = hexPairs[2*h], hexPairs[2*h+1]
		s.hex[16+2*i], s.hex[17+2*i] = hexPairs[2*l], hexPairs[2*l+1]
	}
	s.lo = uint32(lo)
	s.left = reseedEvery
}

// NewID returns a fresh id (see the type's comment for how fresh).
func (s *Stamper) NewID() string {
	if s.left == 0 {
		s.reseed()
	}
	s.left--
	s.lo++
	c := s.lo
	for i := range 4 {
		b := c >> (24 - 8*i) & 0xff
		s.hex[24+2*i], s.hex[25+2*i] = hexPairs[2*b], hexPairs[2*b+1]
	}
	// Cut by hand rather than through arena.cut: a closure call per id
	// shows in a stream's profile.
	if len(s.buf)-s.off < 32 {
		s.buf, s.off = make([]byte, arenaSize), 0
	}
	b := s.buf[s.off : s.off+32 : s.off+32]
	copy(b, s.hex[:])
	s.off += 32
	return unsafeString(b)
}

// Now returns the current time in the wire's timestamp format, as
// Default.Now does.
func (s *Stamper) Now() string { return s.at(wallNanos()) }

// IDNow returns NewID and Now: the pair an event is stamped with.
func (s *Stamper) IDNow() (id, now string) {
	ns := wallNanos()
	id = s.NewID()
	return id, s.at(ns)
}
