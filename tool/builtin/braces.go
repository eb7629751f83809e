package builtin

import (
	"strconv"

	"mvdan.cc/sh/v3/syntax"
)

// maxBraceWords bounds the words a command's brace expansions may make
// for it to stay read-only. bash builds every word before the command
// runs, so `echo {1..1000000000}` takes gigabytes of memory however
// little of its output is kept: a way to take the machine's memory (and
// the server with it) without writing a byte.
const maxBraceWords = 10000

// braceWords is the number of words bash makes of w by brace expansion
// (1 for a word without one), saturating at limit+1.
func braceWords(w *syntax.Word, limit uint64) uint64 {
	// SplitBraces rewrites the word it is given: it gets a copy, so the
	// tree the rest of the analysis reads keeps its literals.
	cp := &syntax.Word{Parts: make([]syntax.WordPart, len(w.Parts))}
	for i, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			lc := *l
			p = &lc
		}
		cp.Parts[i] = p
	}
	if !syntax.SplitBraces(cp) {
		return 1
	}
	return wordCount(cp, limit)
}

func wordCount(w *syntax.Word, limit uint64) uint64 {
	n := uint64(1)
	for _, p := range w.Parts {
		if b, ok := p.(*syntax.BraceExp); ok {
			n = satMul(n, braceCount(b, limit), limit)
		}
	}
	return n
}

func braceCount(b *syntax.BraceExp, limit uint64) uint64 {
	if !b.Sequence {
		var n uint64
		for _, e := range b.Elems {
			if n += wordCount(e, limit); n > limit {
				return limit + 1
			}
		}
		return n
	}
	if len(b.Elems) < 2 {
		return 1
	}
	from, to := b.Elems[0].Lit(), b.Elems[1].Lit()
	step := uint64(1)
	if len(b.Elems) > 2 {
		s, err := strconv.ParseInt(b.Elems[2].Lit(), 10, 64)
		if err != nil && !isRangeErr(err) {
			return 1 // not a sequence to bash: the word stays as it is
		}
		if s < 0 {
			s = -s
		}
		if s > 0 && err == nil {
			step = uint64(s)
		}
	}
	var span uint64
	x, errX := strconv.ParseInt(from, 10, 64)
	y, errY := strconv.ParseInt(to, 10, 64)
	switch {
	case errX == nil && errY == nil:
		if x > y {
			x, y = y, x
		}
		d := uint64(y) - uint64(x) // two's complement: exact for any int64 pair
		span = d/step + 1
		if span == 0 { // d = 2^64-1 and step 1
			return limit + 1
		}
	case isRangeErr(errX) || isRangeErr(errY):
		return limit + 1 // numbers past int64: more than any limit
	case len(from) == 1 && len(to) == 1:
		x, y := from[0], to[0]
		if x > y {
			x, y = y, x
		}
		span = uint64(y-x)/step + 1
	default:
		return 1
	}
	if span > limit {
		return limit + 1
	}
	return span
}

func satMul(a, b, limit uint64) uint64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > limit || b > limit || a > (limit+1)/b {
		return limit + 1
	}
	if p := a * b; p <= limit {
		return p
	}
	return limit + 1
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}
