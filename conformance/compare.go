package conformance

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/agentscope-go/agentscope/internal/ojson"
)

// Compiled on first use: every command of the binary links this package.
var (
	hexIDRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{32}$`) })
	goldIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^<id:(\d+)>$`) })
	timeRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?`) })
	// reprRE finds where a Python repr starts inside an error text: a
	// pydantic model's "field=" list after ": ", a set or dict of strings,
	// an enum member.
	reprRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`: [a-z_]+=|\{'|=<`) })
)

// normalizer renumbers generated ids by first appearance and masks
// timestamps. Subtrees at excused paths are left as they are: they are not
// compared, and ids that only one side has there must not shift the
// numbering of the rest.
type normalizer struct {
	ids  map[string]int
	skip func([]elem) bool
}

func newNormalizer(skip func([]elem) bool) *normalizer {
	return &normalizer{ids: map[string]int{}, skip: skip}
}

func (n *normalizer) id(key string) string {
	k, ok := n.ids[key]
	if !ok {
		k = len(n.ids) + 1
		n.ids[key] = k
	}
	return "<id:" + strconv.Itoa(k) + ">"
}

func (n *normalizer) value(p []elem, v any) any {
	if n.skip != nil && len(p) > 0 && n.skip(p) {
		return v
	}
	switch t := v.(type) {
	case string:
		if m := goldIDRE().FindStringSubmatch(t); m != nil {
			return n.id("g" + m[1])
		}
		if hexIDRE().MatchString(t) {
			return n.id("m" + t)
		}
		if strings.Contains(t, "T") {
			return timeRE().ReplaceAllString(t, "<ts>")
		}
		return t
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = n.value(append(p[:len(p):len(p)], elem{index: i}), e)
		}
		return out
	case *ojson.Object:
		out := &ojson.Object{Keys: t.Keys, Vals: make(map[string]any, len(t.Vals))}
		for _, k := range t.Keys {
			out.Vals[k] = n.value(append(p[:len(p):len(p)], elem{key: k, index: -1}), t.Vals[k])
		}
		return out
	}
	return v
}

// normalize prepares a trace document for comparison. At level 1 every
// section (each field of each step, final_context, folded_replies) numbers
// its ids from 1; at level 2 the whole file shares one numbering.
func normalize(doc *ojson.Object, level int, skip func([]elem) bool) *ojson.Object {
	if level >= 2 {
		return newNormalizer(skip).value(nil, doc).(*ojson.Object)
	}
	out := &ojson.Object{Keys: doc.Keys, Vals: map[string]any{}}
	for _, k := range doc.Keys {
		v := doc.Vals[k]
		top := []elem{{key: k, index: -1}}
		switch k {
		case "steps":
			steps, _ := v.([]any)
			ns := make([]any, len(steps))
			for i, s := range steps {
				at := append(top[:1:1], elem{index: i})
				so, ok := s.(*ojson.Object)
				if !ok {
					ns[i] = newNormalizer(skip).value(at, s)
					continue
				}
				no := &ojson.Object{Keys: so.Keys, Vals: map[string]any{}}
				for _, sk := range so.Keys {
					no.Vals[sk] = newNormalizer(skip).value(append(at[:2:2], elem{key: sk, index: -1}), so.Vals[sk])
				}
				ns[i] = no
			}
			out.Vals[k] = ns
		default:
			out.Vals[k] = newNormalizer(skip).value(top, v)
		}
	}
	return out
}

// elem is one step of a path: an object key or an array index.
type elem struct {
	key   string
	index int // -1 for keys
}

func pathString(p []elem) string {
	var b strings.Builder
	for i, e := range p {
		if e.index >= 0 {
			fmt.Fprintf(&b, "[%d]", e.index)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e.key)
	}
	return b.String()
}

// compared fields of a trace document (spec and descriptions are copied
// from the golden file; logs are not compared).
var comparedTop = []string{"steps", "final_context", "folded_replies", "unused_model_turns"}

// Difference is the first unexcused difference between two documents.
type Difference struct {
	Path string
	Got  string
	Want string
}

func (d *Difference) Error() string {
	return fmt.Sprintf("%s: got %s, want %s", d.Path, d.Got, d.Want)
}

// comparer walks got and want in parallel.
type comparer struct {
	want    *ojson.Object // the whole golden document, for excuse predicates
	excuses []pattern
}

func (c *comparer) compareDocs(got, want *ojson.Object) *Difference {
	for _, k := range comparedTop {
		gv, gok := got.Get(k)
		wv, wok := want.Get(k)
		if !wok {
			continue
		}
		if !gok {
			return &Difference{Path: k, Got: "nothing", Want: brief(wv)}
		}
		if d := c.compare([]elem{{key: k, index: -1}}, gv, wv); d != nil {
			return d
		}
	}
	return nil
}

func (c *comparer) excused(p []elem) bool {
	for _, pat := range c.excuses {
		if pat.match(p, c.want) {
			return true
		}
	}
	return false
}

func (c *comparer) diff(p []elem, got, want any) *Difference {
	if c.excused(p) {
		return nil
	}
	return &Difference{Path: pathString(p), Got: brief(got), Want: brief(want)}
}

func (c *comparer) compare(p []elem, got, want any) *Difference {
	switch w := want.(type) {
	case *ojson.Object:
		g, ok := got.(*ojson.Object)
		if !ok {
			return c.diff(p, got, want)
		}
		for _, k := range w.Keys {
			if k == "logs" {
				continue
			}
			q := append(p[:len(p):len(p)], elem{key: k, index: -1})
			gv, has := g.Vals[k]
			if !has {
				if d := c.diff(q, "nothing", w.Vals[k]); d != nil {
					return d
				}
				continue
			}
			if d := c.compare(q, gv, w.Vals[k]); d != nil {
				return d
			}
		}
		for _, k := range g.Keys {
			if _, has := w.Vals[k]; !has && k != "logs" {
				q := append(p[:len(p):len(p)], elem{key: k, index: -1})
				if d := c.diff(q, g.Vals[k], "nothing"); d != nil {
					return d
				}
			}
		}
		return nil
	case []any:
		g, ok := got.([]any)
		if !ok {
			return c.diff(p, got, want)
		}
		if c.excused(p) {
			return nil
		}
		for i := 0; i < len(w) && i < len(g); i++ {
			q := append(p[:len(p):len(p)], elem{index: i})
			if d := c.compare(q, g[i], w[i]); d != nil {
				return d
			}
		}
		if len(g) != len(w) {
			return c.diff(p, fmt.Sprintf("%d items", len(g)), fmt.Sprintf("%d items", len(w)))
		}
		return nil
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			return c.diff(p, got, want)
		}
		gf, err1 := g.Float64()
		wf, err2 := w.Float64()
		if err1 != nil || err2 != nil || gf != wf {
			return c.diff(p, got, want)
		}
		return nil
	case string:
		g, ok := got.(string)
		if !ok {
			return c.diff(p, got, want)
		}
		if g == w {
			return nil
		}
		if n := len(p); n >= 3 && p[n-1].key == "message" && p[n-2].key == "error" && p[n-3].key == "outcome" {
			// Error texts embedding a Python repr match up to the repr.
			if cut := reprStart(w); cut >= 0 && strings.HasPrefix(g, w[:cut]) {
				return nil
			}
		}
		return c.diff(p, got, want)
	default:
		if got != want {
			return c.diff(p, got, want)
		}
		return nil
	}
}

func reprStart(s string) int {
	if loc := reprRE().FindStringIndex(s); loc != nil {
		return loc[0]
	}
	return -1
}

func brief(v any) string {
	switch t := v.(type) {
	case string:
		if t == "nothing" || strings.HasSuffix(t, " items") {
			return t
		}
		return strconv.Quote(t)
	}
	s := string(toJSON(v))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// pattern is an excused field path: keys, [n], [*] and predicates
// [?key=value,…] that test the golden node reached so far (value * is any
// value but null).
type pattern struct {
	raw  string
	segs []pseg
}

type pseg struct {
	key   string // "" for index segments
	index int    // -1 = any
	isIdx bool
	preds [][2]string
}

// parsePattern parses e.g. `steps[*].stream[*].msg[?finished_reason=completed].content`.
func parsePattern(s string) (pattern, error) {
	p := pattern{raw: s}
	i := 0
	for i < len(s) {
		switch s[i] {
		case '.':
			i++
		case '[':
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				return p, fmt.Errorf("excused path %q: unclosed [", s)
			}
			inner := s[i+1 : i+j]
			i += j + 1
			switch {
			case inner == "*":
				p.segs = append(p.segs, pseg{isIdx: true, index: -1})
			case strings.HasPrefix(inner, "?"):
				if len(p.segs) == 0 {
					return p, fmt.Errorf("excused path %q: predicate without a node", s)
				}
				for _, cond := range strings.Split(inner[1:], ",") {
					k, v, ok := strings.Cut(cond, "=")
					if !ok {
						return p, fmt.Errorf("excused path %q: bad predicate %q", s, cond)
					}
					last := &p.segs[len(p.segs)-1]
					last.preds = append(last.preds, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
				}
			default:
				n, err := strconv.Atoi(inner)
				if err != nil {
					return p, fmt.Errorf("excused path %q: bad index %q", s, inner)
				}
				p.segs = append(p.segs, pseg{isIdx: true, index: n})
			}
		default:
			j := strings.IndexAny(s[i:], ".[")
			if j < 0 {
				j = len(s) - i
			}
			p.segs = append(p.segs, pseg{key: s[i : i+j], index: -1})
			i += j
		}
	}
	if len(p.segs) == 0 {
		return p, fmt.Errorf("empty excused path")
	}
	return p, nil
}

// match reports whether the pattern covers path p (p equals the pattern or
// lies below it), evaluating predicates on the golden document.
func (pat pattern) match(p []elem, root *ojson.Object) bool {
	if len(p) < len(pat.segs) {
		return false
	}
	var node any = root
	for i, s := range pat.segs {
		e := p[i]
		if s.isIdx {
			if e.index < 0 || (s.index >= 0 && s.index != e.index) {
				return false
			}
			arr, _ := node.([]any)
			if e.index < len(arr) {
				node = arr[e.index]
			} else {
				node = nil
			}
		} else {
			if e.index >= 0 || e.key != s.key {
				return false
			}
			o, _ := node.(*ojson.Object)
			if o != nil {
				node = o.Vals[e.key]
			} else {
				node = nil
			}
		}
		for _, pr := range s.preds {
			o, ok := node.(*ojson.Object)
			if !ok {
				return false
			}
			if pr[1] == "*" {
				// Any value but null: the field is there.
				if o.Vals[pr[0]] == nil {
					return false
				}
				continue
			}
			if scalar(o.Vals[pr[0]]) != pr[1] {
				return false
			}
		}
	}
	return true
}

func scalar(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case json.Number:
		return string(t)
	}
	return string(toJSON(v))
}
