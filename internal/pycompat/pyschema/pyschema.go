package pyschema

import (
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
)

// pathElem is one step of an error's instance path: a property name or an
// array index.
type pathElem struct {
	key   string
	index int
	isIdx bool
}

type verr struct {
	msg       string
	validator string // the keyword; "" for a false schema (Python's None)
	path      []pathElem
	schema    pyjson.Value // the (sub)schema holding the keyword
	instance  pyjson.Value
	context   []*verr
	set       bool // details filled (Python's error._set fills unset fields only)
}

// BestMatch returns the message of the error jsonschema.validate(instance,
// schema) would raise, and false when the instance is valid as far as this
// package can tell.
func BestMatch(schema, instance pyjson.Value) (string, bool) {
	v := validator{root: schema, re: map[string]*regexp.Regexp{}}
	errs := v.iter(schema, instance, 0)
	if len(errs) == 0 {
		return "", false
	}
	best := errs[0]
	for _, e := range errs[1:] {
		if compareKey(e, best) > 0 { // max keeps the first of equals
			best = e
		}
	}
	for len(best.context) > 0 {
		// heapq.nsmallest(2, context, key): the two smallest, stable.
		ctx := slices.Clone(best.context)
		slices.SortStableFunc(ctx, compareKey)
		if len(ctx) >= 2 && compareKey(ctx[0], ctx[1]) == 0 {
			return best.msg, true
		}
		best = ctx[0]
	}
	return best.msg, true
}

// compareKey orders errors by jsonschema's relevance key:
// (-len(path), path, validator not in weak, validator in strong,
// not matches_type).
func compareKey(a, b *verr) int {
	if c := -len(a.path) - -len(b.path); c != 0 {
		return sign(c)
	}
	if c := comparePath(a.path, b.path); c != 0 {
		return c
	}
	if c := boolCmp(!weak(a.validator), !weak(b.validator)); c != 0 {
		return c
	}
	return boolCmp(!a.matchesType(), !b.matchesType())
}

func weak(k string) bool { return k == "anyOf" || k == "oneOf" }

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func comparePath(a, b []pathElem) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		switch {
		case x.isIdx && y.isIdx:
			if x.index != y.index {
				return sign(x.index - y.index)
			}
		case !x.isIdx && !y.isIdx:
			if c := strings.Compare(x.key, y.key); c != 0 {
				return c
			}
		default: // Python cannot compare them either; order ints first
			return boolCmp(!x.isIdx, !y.isIdx)
		}
	}
	return sign(len(a) - len(b))
}

func (e *verr) matchesType() bool {
	if e.schema.Kind != pyjson.Object {
		return false
	}
	t, ok := e.schema.Get("type")
	if !ok {
		return false
	}
	switch t.Kind {
	case pyjson.String:
		return isType(e.instance, t.Str)
	case pyjson.Array:
		for _, n := range t.Items {
			if n.Kind == pyjson.String && isType(e.instance, n.Str) {
				return true
			}
		}
	}
	return false
}

// isType is jsonschema's draft 2020-12 type checker.
func isType(v pyjson.Value, name string) bool {
	switch name {
	case "object":
		return v.Kind == pyjson.Object
	case "array":
		return v.Kind == pyjson.Array
	case "string":
		return v.Kind == pyjson.String
	case "boolean":
		return v.Kind == pyjson.Bool
	case "null":
		return v.Kind == pyjson.Null
	case "number":
		return v.IsNumber()
	case "integer":
		if v.Kind == pyjson.Int {
			return true
		}
		if v.Kind == pyjson.Float {
			f := v.Float64()
			return !math.IsInf(f, 0) && !math.IsNaN(f) && f == math.Trunc(f)
		}
	}
	return false
}

type validator struct {
	root pyjson.Value
	re   map[string]*regexp.Regexp
}

// maxRefDepth stops reference cycles that never consume instance depth.
const maxRefDepth = 64

func (v *validator) iter(schema, inst pyjson.Value, refDepth int) []*verr {
	switch schema.Kind {
	case pyjson.Bool:
		if schema.Bool {
			return nil
		}
		return []*verr{{msg: "False schema does not allow " + pyjson.Repr(inst), schema: schema, instance: inst, set: true}}
	case pyjson.Object:
	default:
		return nil
	}
	var out []*verr
	for i, k := range schema.Keys {
		kv := schema.Items[i]
		for _, e := range v.keyword(k, kv, schema, inst, refDepth) {
			if !e.set {
				if e.validator == "" {
					e.validator = k
				}
				e.schema, e.instance, e.set = schema, inst, true
			}
			out = append(out, e)
		}
	}
	return out
}

func (v *validator) descend(inst, schema pyjson.Value, refDepth int, path ...pathElem) []*verr {
	errs := v.iter(schema, inst, refDepth)
	if len(path) > 0 {
		for _, e := range errs {
			e.path = append(slices.Clone(path), e.path...)
		}
	}
	return errs
}

func (v *validator) valid(inst, schema pyjson.Value, refDepth int) bool {
	return len(v.iter(schema, inst, refDepth)) == 0
}

func newErr(msg string) *verr { return &verr{msg: msg} }

func key(k string) pathElem { return pathElem{key: k} }
func idx(i int) pathElem    { return pathElem{index: i, isIdx: true} }

func (v *validator) regex(p string) *regexp.Regexp {
	if r, ok := v.re[p]; ok {
		return r
	}
	r, err := regexp.Compile(p)
	if err != nil {
		r = nil
	}
	v.re[p] = r
	return r
}

func typeList(t pyjson.Value) []string {
	switch t.Kind {
	case pyjson.String:
		return []string{t.Str}
	case pyjson.Array:
		var out []string
		for _, n := range t.Items {
			if n.Kind == pyjson.String {
				out = append(out, n.Str)
			}
		}
		return out
	}
	return nil
}

func (v *validator) keyword(k string, kv, schema, inst pyjson.Value, refDepth int) []*verr {
	switch k {
	case "$ref":
		if kv.Kind != pyjson.String || refDepth >= maxRefDepth {
			return nil
		}
		target, ok := v.resolve(kv.Str)
		if !ok {
			return nil
		}
		return v.descend(inst, target, refDepth+1)

	case "type":
		names := typeList(kv)
		for _, n := range names {
			if isType(inst, n) {
				return nil
			}
		}
		reprs := make([]string, len(names))
		for i, n := range names {
			reprs[i] = pyjson.StrRepr(n)
		}
		return []*verr{newErr(pyjson.Repr(inst) + " is not of type " + strings.Join(reprs, ", "))}

	case "enum":
		if kv.Kind != pyjson.Array {
			return nil
		}
		for _, e := range kv.Items {
			if equal(e, inst) {
				return nil
			}
		}
		return []*verr{newErr(pyjson.Repr(inst) + " is not one of " + pyjson.Repr(kv))}

	case "const":
		if equal(inst, kv) {
			return nil
		}
		return []*verr{newErr(pyjson.Repr(kv) + " was expected")}

	case "properties":
		if inst.Kind != pyjson.Object || kv.Kind != pyjson.Object {
			return nil
		}
		var out []*verr
		for i, p := range kv.Keys {
			if val, ok := inst.Get(p); ok {
				out = append(out, v.descend(val, kv.Items[i], refDepth, key(p))...)
			}
		}
		return out

	case "patternProperties":
		if inst.Kind != pyjson.Object || kv.Kind != pyjson.Object {
			return nil
		}
		var out []*verr
		for i, pat := range kv.Keys {
			re := v.regex(pat)
			if re == nil {
				continue
			}
			for j, name := range inst.Keys {
				if re.MatchString(name) {
					out = append(out, v.descend(inst.Items[j], kv.Items[i], refDepth, key(name))...)
				}
			}
		}
		return out

	case "additionalProperties":
		if inst.Kind != pyjson.Object {
			return nil
		}
		extras := v.additional(inst, schema)
		slices.Sort(extras) // Python iterates a set here; sorted is one of its orders
		if kv.Kind == pyjson.Object {
			var out []*verr
			for _, x := range extras {
				val, _ := inst.Get(x)
				out = append(out, v.descend(val, kv, refDepth, key(x))...)
			}
			return out
		}
		if kv.Kind == pyjson.Bool && !kv.Bool && len(extras) > 0 {
			if pp, ok := schema.Get("patternProperties"); ok {
				verb := "does"
				if len(extras) != 1 {
					verb = "do"
				}
				pats := slices.Clone(pp.Keys)
				slices.Sort(pats)
				return []*verr{newErr(joinReprs(extras) + " " + verb + " not match any of the regexes: " + joinReprs(pats))}
			}
			return []*verr{newErr("Additional properties are not allowed (" + extrasMsg(extras) + " unexpected)")}
		}
		return nil

	case "required":
		if inst.Kind != pyjson.Object || kv.Kind != pyjson.Array {
			return nil
		}
		var out []*verr
		for _, p := range kv.Items {
			if p.Kind == pyjson.String && !inst.Has(p.Str) {
				out = append(out, newErr(pyjson.StrRepr(p.Str)+" is a required property"))
			}
		}
		return out

	case "items":
		if inst.Kind != pyjson.Array {
			return nil
		}
		prefix := 0
		if pi, ok := schema.Get("prefixItems"); ok && pi.Kind == pyjson.Array {
			prefix = len(pi.Items)
		}
		total := len(inst.Items)
		extra := total - prefix
		if extra <= 0 {
			return nil
		}
		if kv.Kind == pyjson.Bool && !kv.Bool {
			var rest pyjson.Value
			if extra != 1 {
				rest = pyjson.Value{Kind: pyjson.Array, Items: inst.Items[prefix:]}
			} else {
				rest = inst.Items[prefix]
			}
			item := "items"
			if prefix == 1 {
				item = "item"
			}
			return []*verr{newErr("Expected at most " + strconv.Itoa(prefix) + " " + item + " but found " +
				strconv.Itoa(extra) + " extra: " + pyjson.Repr(rest))}
		}
		var out []*verr
		for i := prefix; i < total; i++ {
			out = append(out, v.descend(inst.Items[i], kv, refDepth, idx(i))...)
		}
		return out

	case "prefixItems":
		if inst.Kind != pyjson.Array || kv.Kind != pyjson.Array {
			return nil
		}
		var out []*verr
		for i := 0; i < len(inst.Items) && i < len(kv.Items); i++ {
			out = append(out, v.descend(inst.Items[i], kv.Items[i], refDepth, idx(i))...)
		}
		return out

	case "contains":
		if inst.Kind != pyjson.Array {
			return nil
		}
		minC, maxC := 1.0, float64(len(inst.Items))
		if m, ok := schema.Get("minContains"); ok && m.IsNumber() {
			minC = m.Float64()
		}
		if m, ok := schema.Get("maxContains"); ok && m.IsNumber() {
			maxC = m.Float64()
		}
		matches := 0
		for _, it := range inst.Items {
			if v.valid(it, kv, refDepth) {
				matches++
				if float64(matches) > maxC {
					e := newErr("Too many items match the given schema (expected at most " + numStr(schema, "maxContains", maxC) + ")")
					e.validator = "maxContains"
					return []*verr{e}
				}
			}
		}
		if float64(matches) < minC {
			if matches == 0 {
				return []*verr{newErr(pyjson.Repr(inst) + " does not contain items matching the given schema")}
			}
			e := newErr("Too few items match the given schema (expected at least " + numStr(schema, "minContains", minC) +
				" but only " + strconv.Itoa(matches) + " matched)")
			e.validator = "minContains"
			return []*verr{e}
		}
		return nil

	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		if !inst.IsNumber() || !kv.IsNumber() {
			return nil
		}
		x, lim := inst.Float64(), kv.Float64()
		r, l := pyjson.Repr(inst), pyjson.Repr(kv)
		switch k {
		case "minimum":
			if x < lim {
				return []*verr{newErr(r + " is less than the minimum of " + l)}
			}
		case "maximum":
			if x > lim {
				return []*verr{newErr(r + " is greater than the maximum of " + l)}
			}
		case "exclusiveMinimum":
			if x <= lim {
				return []*verr{newErr(r + " is less than or equal to the minimum of " + l)}
			}
		case "exclusiveMaximum":
			if x >= lim {
				return []*verr{newErr(r + " is greater than or equal to the maximum of " + l)}
			}
		}
		return nil

	case "multipleOf":
		if !inst.IsNumber() || !kv.IsNumber() {
			return nil
		}
		x, d := inst.Float64(), kv.Float64()
		var failed bool
		if kv.Kind == pyjson.Float {
			q := x / d
			failed = math.IsInf(q, 0) || q != math.Trunc(q)
		} else if d != 0 {
			failed = math.Mod(x, d) != 0
		}
		if failed {
			return []*verr{newErr(pyjson.Repr(inst) + " is not a multiple of " + pyjson.Repr(kv))}
		}
		return nil

	case "minItems", "maxItems":
		if inst.Kind != pyjson.Array || !kv.IsNumber() {
			return nil
		}
		return lengthErr(k, float64(len(inst.Items)), kv.Float64(), inst)

	case "minLength", "maxLength":
		if inst.Kind != pyjson.String || !kv.IsNumber() {
			return nil
		}
		return lengthErr(k, float64(utf8.RuneCountInString(inst.Str)), kv.Float64(), inst)

	case "minProperties", "maxProperties":
		if inst.Kind != pyjson.Object || !kv.IsNumber() {
			return nil
		}
		n, lim := float64(len(inst.Keys)), kv.Float64()
		if k == "minProperties" && n < lim {
			m := "does not have enough properties"
			if lim == 1 {
				m = "should be non-empty"
			}
			return []*verr{newErr(pyjson.Repr(inst) + " " + m)}
		}
		if k == "maxProperties" && n > lim {
			m := "has too many properties"
			if lim == 0 {
				m = "is expected to be empty"
			}
			return []*verr{newErr(pyjson.Repr(inst) + " " + m)}
		}
		return nil

	case "uniqueItems":
		if kv.Kind != pyjson.Bool || !kv.Bool || inst.Kind != pyjson.Array {
			return nil
		}
		for i := range inst.Items {
			for j := i + 1; j < len(inst.Items); j++ {
				if equal(inst.Items[i], inst.Items[j]) {
					return []*verr{newErr(pyjson.Repr(inst) + " has non-unique elements")}
				}
			}
		}
		return nil

	case "pattern":
		if inst.Kind != pyjson.String || kv.Kind != pyjson.String {
			return nil
		}
		if re := v.regex(kv.Str); re != nil && !re.MatchString(inst.Str) {
			return []*verr{newErr(pyjson.Repr(inst) + " does not match " + pyjson.StrRepr(kv.Str))}
		}
		return nil

	case "dependentRequired":
		if inst.Kind != pyjson.Object || kv.Kind != pyjson.Object {
			return nil
		}
		var out []*verr
		for i, p := range kv.Keys {
			if !inst.Has(p) || kv.Items[i].Kind != pyjson.Array {
				continue
			}
			for _, d := range kv.Items[i].Items {
				if d.Kind == pyjson.String && !inst.Has(d.Str) {
					out = append(out, newErr(pyjson.StrRepr(d.Str)+" is a dependency of "+pyjson.StrRepr(p)))
				}
			}
		}
		return out

	case "dependentSchemas":
		if inst.Kind != pyjson.Object || kv.Kind != pyjson.Object {
			return nil
		}
		var out []*verr
		for i, p := range kv.Keys {
			if inst.Has(p) {
				out = append(out, v.descend(inst, kv.Items[i], refDepth)...)
			}
		}
		return out

	case "propertyNames":
		if inst.Kind != pyjson.Object {
			return nil
		}
		var out []*verr
		for _, name := range inst.Keys {
			out = append(out, v.descend(pyjson.Value{Kind: pyjson.String, Str: name}, kv, refDepth)...)
		}
		return out

	case "allOf":
		if kv.Kind != pyjson.Array {
			return nil
		}
		var out []*verr
		for _, sub := range kv.Items {
			out = append(out, v.descend(inst, sub, refDepth)...)
		}
		return out

	case "anyOf":
		if kv.Kind != pyjson.Array {
			return nil
		}
		var all []*verr
		for _, sub := range kv.Items {
			errs := v.descend(inst, sub, refDepth)
			if len(errs) == 0 {
				return nil
			}
			all = append(all, errs...)
		}
		e := newErr(pyjson.Repr(inst) + " is not valid under any of the given schemas")
		e.context = all
		return []*verr{e}

	case "oneOf":
		if kv.Kind != pyjson.Array {
			return nil
		}
		var all []*verr
		first := -1
		for i, sub := range kv.Items {
			errs := v.descend(inst, sub, refDepth)
			if len(errs) == 0 {
				first = i
				break
			}
			all = append(all, errs...)
		}
		if first < 0 {
			e := newErr(pyjson.Repr(inst) + " is not valid under any of the given schemas")
			e.context = all
			return []*verr{e}
		}
		var more []pyjson.Value
		for _, sub := range kv.Items[first+1:] {
			if v.valid(inst, sub, refDepth) {
				more = append(more, sub)
			}
		}
		if len(more) > 0 {
			more = append(more, kv.Items[first])
			reprs := make([]string, len(more))
			for i, s := range more {
				reprs[i] = pyjson.Repr(s)
			}
			return []*verr{newErr(pyjson.Repr(inst) + " is valid under each of " + strings.Join(reprs, ", "))}
		}
		return nil

	case "not":
		if v.valid(inst, kv, refDepth) {
			return []*verr{newErr(pyjson.Repr(inst) + " should not be valid under " + pyjson.Repr(kv))}
		}
		return nil

	case "if":
		if v.valid(inst, kv, refDepth) {
			if then, ok := schema.Get("then"); ok {
				return v.descend(inst, then, refDepth)
			}
		} else if els, ok := schema.Get("else"); ok {
			return v.descend(inst, els, refDepth)
		}
		return nil
	}
	return nil
}

func numStr(schema pyjson.Value, k string, f float64) string {
	if m, ok := schema.Get(k); ok {
		return pyjson.Repr(m)
	}
	return strconv.Itoa(int(f))
}

func lengthErr(k string, n, lim float64, inst pyjson.Value) []*verr {
	var m string
	switch {
	case strings.HasPrefix(k, "min") && n < lim:
		m = "is too short"
		if lim == 1 {
			m = "should be non-empty"
		}
	case strings.HasPrefix(k, "max") && n > lim:
		m = "is too long"
		if lim == 0 {
			m = "is expected to be empty"
		}
	default:
		return nil
	}
	return []*verr{newErr(pyjson.Repr(inst) + " " + m)}
}

func (v *validator) additional(inst, schema pyjson.Value) []string {
	props, _ := schema.Get("properties")
	var pats []string
	if pp, ok := schema.Get("patternProperties"); ok && pp.Kind == pyjson.Object {
		pats = pp.Keys
	}
	var re *regexp.Regexp
	if len(pats) > 0 {
		re = v.regex(strings.Join(pats, "|"))
	}
	var out []string
	for _, name := range inst.Keys {
		if props.Kind == pyjson.Object && props.Has(name) {
			continue
		}
		if re != nil && re.MatchString(name) {
			continue
		}
		out = append(out, name)
	}
	return out
}

func joinReprs(ss []string) string {
	reprs := make([]string, len(ss))
	for i, s := range ss {
		reprs[i] = pyjson.StrRepr(s)
	}
	return strings.Join(reprs, ", ")
}

// extrasMsg is jsonschema's _utils.extras_msg: "'a' was" / "'a', 'b' were".
func extrasMsg(extras []string) string {
	verb := "was"
	if len(extras) != 1 {
		verb = "were"
	}
	return joinReprs(extras) + " " + verb
}

// equal is jsonschema's _utils.equal: strings only equal strings, bools
// only bools, numbers compare by value (1 == 1.0), containers deeply.
func equal(a, b pyjson.Value) bool {
	switch {
	case a.Kind == pyjson.String || b.Kind == pyjson.String:
		return a.Kind == b.Kind && a.Str == b.Str
	case a.Kind == pyjson.Array || b.Kind == pyjson.Array:
		if a.Kind != b.Kind || len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !equal(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	case a.Kind == pyjson.Object || b.Kind == pyjson.Object:
		if a.Kind != b.Kind || len(a.Keys) != len(b.Keys) {
			return false
		}
		for i, k := range a.Keys {
			bv, ok := b.Get(k)
			if !ok || !equal(a.Items[i], bv) {
				return false
			}
		}
		return true
	case a.Kind == pyjson.Bool || b.Kind == pyjson.Bool:
		return a.Kind == b.Kind && a.Bool == b.Bool
	case a.IsNumber() && b.IsNumber():
		return a.Float64() == b.Float64()
	}
	return a.Kind == b.Kind // null == null
}

// resolve follows a local reference ("#", "#/$defs/X", any JSON pointer
// into the root document).
func (v *validator) resolve(ref string) (pyjson.Value, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return pyjson.Value{}, false
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	cur := v.root
	if frag == "" {
		return cur, true
	}
	if !strings.HasPrefix(frag, "/") {
		return pyjson.Value{}, false // anchors are not modelled
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch cur.Kind {
		case pyjson.Object:
			next, ok := cur.Get(tok)
			if !ok {
				return pyjson.Value{}, false
			}
			cur = next
		case pyjson.Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur.Items) {
				return pyjson.Value{}, false
			}
			cur = cur.Items[i]
		default:
			return pyjson.Value{}, false
		}
	}
	return cur, true
}

// Detail is one validation error with its instance location as
// jsonschema's ValidationError.json_path renders it ("$", "$.a[0].b").
type Detail struct {
	Path    string
	Message string
}

// All returns every error jsonschema's iter_errors would yield, in order.
func All(schema, instance pyjson.Value) []Detail {
	v := validator{root: schema, re: map[string]*regexp.Regexp{}}
	errs := v.iter(schema, instance, 0)
	out := make([]Detail, len(errs))
	for i, e := range errs {
		var b strings.Builder
		b.WriteByte('$')
		for _, p := range e.path {
			if p.isIdx {
				b.WriteString("[" + strconv.Itoa(p.index) + "]")
			} else {
				b.WriteString("." + p.key)
			}
		}
		out[i] = Detail{Path: b.String(), Message: e.msg}
	}
	return out
}

// FillDefaults sets missing object members that a "properties" subschema
// gives a "default" for, before descending, the way the usual jsonschema
// "extend with default" validator does; it follows $ref, allOf and array
// items. inst is modified in place.
//
// It also writes a whole number under a "number" schema as a float.
func FillDefaults(schema pyjson.Value, inst *pyjson.Value) {
	v := validator{root: schema, re: map[string]*regexp.Regexp{}}
	v.fill(schema, inst, 0)
}

func (v *validator) fill(schema pyjson.Value, inst *pyjson.Value, refDepth int) {
	if schema.Kind != pyjson.Object || refDepth >= maxRefDepth {
		return
	}
	for i, k := range schema.Keys {
		kv := schema.Items[i]
		switch k {
		case "type":
			// A whole number under a "number" schema is a float, as
			// pydantic's float fields dump it (25 → 25.0); integers stay
			// integers.
			if inst.Kind == pyjson.Int && kv.Kind == pyjson.String && kv.Str == "number" {
				inst.Kind, inst.Str = pyjson.Float, inst.Str+".0"
			}
		case "$ref":
			if kv.Kind == pyjson.String {
				if target, ok := v.resolve(kv.Str); ok {
					v.fill(target, inst, refDepth+1)
				}
			}
		case "allOf":
			for _, sub := range kv.Items {
				v.fill(sub, inst, refDepth)
			}
		case "properties":
			if inst.Kind != pyjson.Object || kv.Kind != pyjson.Object {
				continue
			}
			for j, p := range kv.Keys {
				sub := kv.Items[j]
				if d, ok := sub.Get("default"); ok && sub.Kind == pyjson.Object && !inst.Has(p) {
					inst.Set(p, d)
				}
			}
			for j, p := range kv.Keys {
				for n, name := range inst.Keys {
					if name == p {
						v.fill(kv.Items[j], &inst.Items[n], refDepth)
					}
				}
			}
		case "items":
			if inst.Kind == pyjson.Array {
				for n := range inst.Items {
					v.fill(kv, &inst.Items[n], refDepth)
				}
			}
		}
	}
}
