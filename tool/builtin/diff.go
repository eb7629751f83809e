package builtin

import (
	"fmt"
	"sort"
	"strings"
)

// The unified diff Write and Edit put in their result metadata, as
// Python's difflib.unified_diff(a.splitlines(True), b.splitlines(True),
// fromfile, tofile, n=3) writes it: the same matching (SequenceMatcher's
// longest-match recursion with its "popular line" heuristic), hunks and
// headers, so a client renders the reference's diff.

// maxDiffBytes bounds the texts diffed: the matcher is quadratic at worst,
// and a diff of larger files is left empty.
const maxDiffBytes = 1 << 20

func unifiedDiff(a, b, fromFile, toFile string) string {
	if len(a) > maxDiffBytes || len(b) > maxDiffBytes {
		return ""
	}
	al, bl := pySplitLines(a), pySplitLines(b)
	groups := groupedOpcodes(opcodes(matchingBlocks(al, bl)), 3)
	if len(groups) == 0 {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", fromFile, toFile)
	for _, g := range groups {
		first, last := g[0], g[len(g)-1]
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", unifiedRange(first.i1, last.i2), unifiedRange(first.j1, last.j2))
		for _, op := range g {
			if op.tag == 'e' {
				for _, l := range al[op.i1:op.i2] {
					sb.WriteString(" " + l)
				}
				continue
			}
			if op.tag == 'r' || op.tag == 'd' {
				for _, l := range al[op.i1:op.i2] {
					sb.WriteString("-" + l)
				}
			}
			if op.tag == 'r' || op.tag == 'i' {
				for _, l := range bl[op.j1:op.j2] {
					sb.WriteString("+" + l)
				}
			}
		}
	}
	return sb.String()
}

func unifiedRange(start, stop int) string {
	begin, n := start+1, stop-start
	if n == 1 {
		return fmt.Sprint(begin)
	}
	if n == 0 {
		begin--
	}
	return fmt.Sprintf("%d,%d", begin, n)
}

// pySplitLines is str.splitlines(keepends=True).
func pySplitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= 0x80 {
			r, size = decodeRune(s[i:])
		}
		switch r {
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			out = append(out, s[start:i+size])
			start = i + size
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				size = 2
			}
			out = append(out, s[start:i+size])
			start = i + size
		}
		i += size
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func decodeRune(s string) (rune, int) {
	for _, r := range s {
		return r, len(string(r))
	}
	return 0, 1
}

type match struct{ i, j, k int }

// matchingBlocks is SequenceMatcher(None, a, b).get_matching_blocks().
func matchingBlocks(a, b []string) []match {
	b2j := map[string][]int{}
	for j, l := range b {
		b2j[l] = append(b2j[l], j)
	}
	if n := len(b); n >= 200 {
		ntest := n/100 + 1
		for l, js := range b2j {
			if len(js) > ntest {
				delete(b2j, l)
			}
		}
	}
	longest := func(alo, ahi, blo, bhi int) match {
		bi, bj, bk := alo, blo, 0
		j2len := map[int]int{}
		for i := alo; i < ahi; i++ {
			next := map[int]int{}
			for _, j := range b2j[a[i]] {
				if j < blo {
					continue
				}
				if j >= bhi {
					break
				}
				k := j2len[j-1] + 1
				next[j] = k
				if k > bk {
					bi, bj, bk = i-k+1, j-k+1, k
				}
			}
			j2len = next
		}
		for bi > alo && bj > blo && a[bi-1] == b[bj-1] {
			bi, bj, bk = bi-1, bj-1, bk+1
		}
		for bi+bk < ahi && bj+bk < bhi && a[bi+bk] == b[bj+bk] {
			bk++
		}
		return match{bi, bj, bk}
	}
	var blocks []match
	queue := [][4]int{{0, len(a), 0, len(b)}}
	for len(queue) > 0 {
		q := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		m := longest(q[0], q[1], q[2], q[3])
		if m.k == 0 {
			continue
		}
		blocks = append(blocks, m)
		if q[0] < m.i && q[2] < m.j {
			queue = append(queue, [4]int{q[0], m.i, q[2], m.j})
		}
		if m.i+m.k < q[1] && m.j+m.k < q[3] {
			queue = append(queue, [4]int{m.i + m.k, q[1], m.j + m.k, q[3]})
		}
	}
	sort.Slice(blocks, func(x, y int) bool {
		if blocks[x].i != blocks[y].i {
			return blocks[x].i < blocks[y].i
		}
		return blocks[x].j < blocks[y].j
	})
	var out []match
	cur := match{}
	for _, m := range blocks {
		if cur.i+cur.k == m.i && cur.j+cur.k == m.j {
			cur.k += m.k
			continue
		}
		if cur.k > 0 {
			out = append(out, cur)
		}
		cur = m
	}
	if cur.k > 0 {
		out = append(out, cur)
	}
	return append(out, match{len(a), len(b), 0})
}

type opcode struct {
	tag            byte // e(qual), r(eplace), d(elete), i(nsert)
	i1, i2, j1, j2 int
}

func opcodes(blocks []match) []opcode {
	var out []opcode
	i, j := 0, 0
	for _, m := range blocks {
		var tag byte
		switch {
		case i < m.i && j < m.j:
			tag = 'r'
		case i < m.i:
			tag = 'd'
		case j < m.j:
			tag = 'i'
		}
		if tag != 0 {
			out = append(out, opcode{tag, i, m.i, j, m.j})
		}
		i, j = m.i+m.k, m.j+m.k
		if m.k > 0 {
			out = append(out, opcode{'e', m.i, i, m.j, j})
		}
	}
	return out
}

func groupedOpcodes(codes []opcode, n int) [][]opcode {
	if len(codes) == 0 {
		codes = []opcode{{'e', 0, 1, 0, 1}}
	}
	if c := &codes[0]; c.tag == 'e' {
		c.i1, c.j1 = max(c.i1, c.i2-n), max(c.j1, c.j2-n)
	}
	if c := &codes[len(codes)-1]; c.tag == 'e' {
		c.i2, c.j2 = min(c.i2, c.i1+n), min(c.j2, c.j1+n)
	}
	var groups [][]opcode
	var group []opcode
	for _, c := range codes {
		if c.tag == 'e' && c.i2-c.i1 > 2*n {
			group = append(group, opcode{'e', c.i1, min(c.i2, c.i1+n), c.j1, min(c.j2, c.j1+n)})
			groups = append(groups, group)
			group = nil
			c.i1, c.j1 = max(c.i1, c.i2-n), max(c.j1, c.j2-n)
		}
		group = append(group, c)
	}
	if len(group) > 0 && !(len(group) == 1 && group[0].tag == 'e') {
		groups = append(groups, group)
	}
	return groups
}
