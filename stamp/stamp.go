package stamp

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Source hands out entity ids and creation timestamps. Implementations must
// be safe for concurrent use.
type Source interface {
	// NewID returns a fresh identifier.
	NewID() string
	// Now returns the current time in the wire's timestamp format.
	Now() string
}

// Default is the production source: random uuid4 hex ids and the local wall
// clock. It is safe for concurrent use.
var Default Source = defaultSource{}

type defaultSource struct{}

func (defaultSource) NewID() string { return arenaID() }
func (defaultSource) Now() string   { return arenaTime(wallNanos()) }

const hexDigits = "0123456789abcdef"

// AppendID appends a random uuid4 in hex form (32 characters, version and
// variant bits set as Python's uuid4 does).
func AppendID(dst []byte) []byte {
	hi, lo := rand.Uint64(), rand.Uint64()
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // RFC 4122 variant
	var b [32]byte
	// Two hex digits per table lookup: half the loads and shifts of a
	// digit-at-a-time loop, on a path every streamed event takes.
	for i := range 8 {
		h, l := hi>>(56-8*i)&0xff, lo>>(56-8*i)&0xff
		b[2*i], b[2*i+1] = hexPairs[2*h], hexPairs[2*h+1]
		b[16+2*i], b[17+2*i] = hexPairs[2*l], hexPairs[2*l+1]
	}
	return append(dst, b[:]...)
}

// hexPairs holds the two hex digits of every byte value.
var hexPairs = func() (t [512]byte) {
	for i := range 256 {
		t[2*i], t[2*i+1] = hexDigits[i>>4], hexDigits[i&0xf]
	}
	return t
}()

// NewID returns a random uuid4 in hex form.
func NewID() string { return string(AppendID(make([]byte, 0, 32))) }

// AppendTime appends t in Python's isoformat() shape for a naive datetime:
// YYYY-MM-DDTHH:MM:SS, then .ffffff only when the microseconds are non-zero.
// The zone is dropped (the reference emits naive local time).
func AppendTime(dst []byte, t time.Time) []byte {
	year, month, day := t.Date()
	hour, min, sec := t.Clock()
	dst = appendPad(dst, year, 4)
	dst = append(dst, '-')
	dst = appendPad(dst, int(month), 2)
	dst = append(dst, '-')
	dst = appendPad(dst, day, 2)
	dst = append(dst, 'T')
	dst = appendPad(dst, hour, 2)
	dst = append(dst, ':')
	dst = appendPad(dst, min, 2)
	dst = append(dst, ':')
	dst = appendPad(dst, sec, 2)
	if us := t.Nanosecond() / 1000; us != 0 {
		dst = append(dst, '.')
		dst = appendPad(dst, us, 6)
	}
	return dst
}

// FormatTime formats t like AppendTime.
func FormatTime(t time.Time) string { return string(AppendTime(make([]byte, 0, 26), t)) }

// ParseTime parses both shapes FormatTime produces (with and without the
// fraction, in local time), and also accepts RFC 3339 input.
func ParseTime(s string) (time.Time, error) {
	if t, err := time.ParseInLocation("2006-01-02T15:04:05.999999", s, time.Local); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339Nano, s)
}

func appendPad(dst []byte, v, width int) []byte {
	var tmp [20]byte
	b := strconv.AppendInt(tmp[:0], int64(v), 10)
	for i := len(b); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, b...)
}

// The default source carves ids and timestamps out of shared 8 KiB arenas so
// that a streaming reply does not pay one allocation per string. The bytes of
// a handed-out string are never written again, so sharing is safe; an arena
// stays alive while any string cut from it does.
const arenaSize = 8192

type arena struct {
	// buf is the arena, cut from off on: the strings cut before off are
	// never written again. Advancing an offset, not the slice, spares a
	// pointer write (and its write barrier while the GC marks) per cut.
	buf []byte
	off int
	// The last timestamp cut from this arena and its Unix microsecond:
	// events stamped within the same microsecond share the string.
	us int64
	ts string
}

var arenas = sync.Pool{New: func() any { return &arena{} }}

func (a *arena) cut(n int, fill func([]byte) []byte) string {
	if len(a.buf)-a.off < n {
		a.buf, a.off = make([]byte, arenaSize), 0
	}
	// fill appends within the capacity left (n bounds what it writes);
	// were it to write more, append would move its bytes elsewhere and
	// the string would be cut from there.
	b := fill(a.buf[a.off:a.off])
	if unsafe.SliceData(b) == &a.buf[a.off] {
		a.off += len(b)
	}
	return unsafeString(b[:len(b):len(b)])
}

// at is the timestamp of Unix nanoseconds ns, shared with the previous
// one cut from a within the same microsecond.
func (a *arena) at(ns int64) string {
	if u := ns / 1000; a.ts == "" || a.us != u {
		// Cut by hand, formatted from the nanoseconds: no closure call and
		// no time.Time on a path most events take.
		if len(a.buf)-a.off < 26 {
			a.buf, a.off = make([]byte, arenaSize), 0
		}
		b := appendNanosCached(a.buf[a.off:a.off:len(a.buf)], ns)
		if unsafe.SliceData(b) == &a.buf[a.off] { // else it did not fit (a year past 9999)
			a.off += len(b)
		}
		a.ts = unsafeString(b[:len(b):len(b)])
		a.us = u
	}
	return a.ts
}

func arenaID() string {
	a := arenas.Get().(*arena)
	s := a.cut(32, AppendID)
	arenas.Put(a)
	return s
}

// IDNow returns what Default.NewID and Default.Now would, in one visit to
// the shared arenas: the pair an event is stamped with. A single goroutine
// stamping a stream does better with a Stamper.
func IDNow() (id, now string) {
	ns := wallNanos()
	a := arenas.Get().(*arena)
	id = a.cut(32, AppendID)
	now = a.at(ns)
	arenas.Put(a)
	return id, now
}

func arenaTime(ns int64) string {
	a := arenas.Get().(*arena)
	s := a.at(ns)
	arenas.Put(a)
	return s
}

// clockAnchor is a wall-clock reading that later readings are derived
// from by monotonic elapsed time: time.Since on a monotonic reading costs
// one clock read where time.Now costs two, a third of an event's stamping
// cost on a VM's paravirtual clock. The anchor is renewed every second, so
// a step of the wall clock (NTP) shows within a second.
var clockAnchor atomic.Pointer[anchor]

// anchor is a wall-clock reading with its Unix nanoseconds.
type anchor struct {
	t  time.Time
	ns int64
}

// wallNanos is the wall clock as Unix nanoseconds, read through
// clockAnchor: the one home of the default source's clock. No time.Time
// is built on the path of an event whose timestamp string is shared with
// the previous one (same microsecond).
func wallNanos() int64 {
	if a := clockAnchor.Load(); a != nil {
		if d := time.Since(a.t); d >= 0 && d < time.Second {
			return a.ns + int64(d)
		}
	}
	t := time.Now()
	ns := t.UnixNano()
	clockAnchor.Store(&anchor{t: t, ns: ns})
	return ns
}

// wallNow is wallNanos as a local time.Time.
func wallNow() time.Time { return time.Unix(0, wallNanos()) }

// secondPrefix is the formatted "YYYY-MM-DDTHH:MM:SS" of one Unix second.
type secondPrefix struct {
	unix int64
	text []byte
}

// lastSecond caches the prefix of the second most recently formatted:
// timestamps taken within one second differ only in their microseconds,
// and formatting the date and clock dominates the cost of Now.
var lastSecond atomic.Pointer[secondPrefix]

// appendTimeCached is AppendTime with the date and clock of the current
// second reused.
func appendTimeCached(dst []byte, t time.Time) []byte { return appendNanosCached(dst, t.UnixNano()) }

// appendNanosCached is appendTimeCached of the local time at Unix
// nanoseconds ns. (Zone offsets are whole seconds, so the fraction of the
// local time is the fraction of ns.)
func appendNanosCached(dst []byte, ns int64) []byte {
	u, frac := ns/1e9, ns%1e9
	if frac < 0 {
		u, frac = u-1, frac+1e9
	}
	p := lastSecond.Load()
	if p == nil || p.unix != u {
		p = &secondPrefix{unix: u, text: AppendTime(nil, time.Unix(u, 0))}
		lastSecond.Store(p)
	}
	dst = append(dst, p.text...)
	if us := frac / 1000; us != 0 {
		var f [7]byte
		f[0] = '.'
		for i := 6; i >= 1; i-- {
			f[i] = byte('0' + us%10)
			us /= 10
		}
		dst = append(dst, f[:]...)
	}
	return dst
}

// Sequence is a deterministic Source for tests and golden files: ids are the
// counter in 32-digit hex, timestamps start at Start and advance by Step.
type Sequence struct {
	Start time.Time
	Step  time.Duration
	ids   atomic.Uint64
	ticks atomic.Int64
}

// NewSequence returns a Sequence starting at start and advancing by one
// microsecond per timestamp.
func NewSequence(start time.Time) *Sequence {
	return &Sequence{Start: start, Step: time.Microsecond}
}

// NewID returns the next id: 1, 2, 3… as 32 hex digits.
func (s *Sequence) NewID() string { return counterID(s.ids.Add(1)) }

func counterID(n uint64) string {
	b := make([]byte, 32)
	for i := 31; i >= 0; i-- {
		b[i] = hexDigits[n&0xf]
		n >>= 4
	}
	return string(b)
}

// Now returns Start plus Step times the number of earlier calls.
func (s *Sequence) Now() string {
	k := s.ticks.Add(1) - 1
	return FormatTime(s.Start.Add(time.Duration(k) * s.Step))
}

// Fixed is a Source whose timestamps never change; ids are counted. It is the
// simplest choice for byte-exact golden tests.
type Fixed struct {
	Time string
	ids  atomic.Uint64
}

// NewID returns the next id: 1, 2, 3… as 32 hex digits.
func (f *Fixed) NewID() string { return counterID(f.ids.Add(1)) }

// Now returns f.Time.
func (f *Fixed) Now() string { return f.Time }
