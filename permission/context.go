package permission

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/realpath"
	"github.com/agentscope-go/agentscope/internal/wire"
)

// WorkingDirectory is a directory edits are allowed in (ACCEPT_EDITS and
// DONT_ASK), with where it came from.
type WorkingDirectory struct {
	Path   string
	Source string
}

// Context is the persisted permission policy: the mode, working directories
// and rules keyed by tool name. Its JSON is the reference's
// permission_context, field order mode, working_directories, allow_rules,
// deny_rules, ask_rules, with map keys in insertion order.
//
// Which map a rule sits in decides how it acts, whatever its own Behavior
// says (as in the reference).
//
// Once a Context is handed to an [Engine], read and change it only through
// the Engine (or while no Check/AddRule runs): the Engine guards it.
type Context struct {
	Mode               Mode
	WorkingDirectories map[string]WorkingDirectory
	AllowRules         map[string][]block.PermissionRule
	DenyRules          map[string][]block.PermissionRule
	AskRules           map[string][]block.PermissionRule

	// Insertion order of the map keys, so JSON keeps the reference's key
	// order across a round trip (Python dicts are ordered); keys set
	// directly on the maps come after, sorted.
	dirOrder, allowOrder, denyOrder, askOrder []string
}

// NewContext returns an empty context in mode.
func NewContext(mode Mode) *Context {
	return &Context{
		Mode:               mode,
		WorkingDirectories: map[string]WorkingDirectory{},
		AllowRules:         map[string][]block.PermissionRule{},
		DenyRules:          map[string][]block.PermissionRule{},
		AskRules:           map[string][]block.PermissionRule{},
	}
}

// AddWorkingDirectory records path (replacing an entry for the same path).
func (c *Context) AddWorkingDirectory(path, source string) {
	if c.WorkingDirectories == nil {
		c.WorkingDirectories = map[string]WorkingDirectory{}
	}
	if _, ok := c.WorkingDirectories[path]; !ok {
		c.dirOrder = append(c.dirOrder, path)
	}
	c.WorkingDirectories[path] = WorkingDirectory{Path: path, Source: source}
}

// addRule appends r to the map its behavior selects; other behaviors are
// dropped. It reports whether r was kept.
func (c *Context) addRule(r block.PermissionRule) bool {
	var m *map[string][]block.PermissionRule
	var order *[]string
	switch r.Behavior {
	case block.Allow:
		m, order = &c.AllowRules, &c.allowOrder
	case block.Deny:
		m, order = &c.DenyRules, &c.denyOrder
	case block.Ask:
		m, order = &c.AskRules, &c.askOrder
	default:
		return false
	}
	if *m == nil {
		*m = map[string][]block.PermissionRule{}
	}
	if _, ok := (*m)[r.ToolName]; !ok {
		*order = append(*order, r.ToolName)
	}
	(*m)[r.ToolName] = append((*m)[r.ToolName], r)
	return true
}

// rules returns the map holding rules of behavior b (nil for others).
func (c *Context) rules(b block.Behavior) map[string][]block.PermissionRule {
	switch b {
	case block.Allow:
		return c.AllowRules
	case block.Deny:
		return c.DenyRules
	case block.Ask:
		return c.AskRules
	}
	return nil
}

// InWorkingDirectory reports whether path lies inside the process's current
// directory or one of the working directories (or is one of them). Both
// sides are made absolute, "~" expanded and symlinks resolved, so an alias
// of a working directory counts as inside it. Tools auto-allowing edits in
// ACCEPT_EDITS/DONT_ASK use it.
func (c *Context) InWorkingDirectory(path string) bool {
	target := resolvePath(path)
	dirs := make([]string, 0, 1+len(c.WorkingDirectories))
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	dirs = append(dirs, orderedKeys(c.WorkingDirectories, c.dirOrder)...)
	for _, d := range dirs {
		d = resolvePath(d)
		if target == d || strings.HasPrefix(target, strings.TrimSuffix(d, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// resolvePath is Python's os.path.realpath(os.path.expanduser(p)): the
// path the kernel reaches, each symlink resolved where it stands — before
// a ".." after it (link/../x is beside link's target, not beside link)
// and at the end even when dangling (a write to a link to a missing file
// creates that file) — and a missing tail kept lexically.
func resolvePath(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = home + "/" + p[1:]
		}
	}
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return filepath.Clean(p)
		}
		p = wd + "/" + p
	}
	r, ok := realpath.Walk(p)
	if !ok {
		return filepath.Clean(p) // a loop: the kernel reaches nothing
	}
	return r
}

// Clone returns a deep copy.
func (c *Context) Clone() *Context {
	if c == nil {
		return nil
	}
	out := &Context{
		Mode:               c.Mode,
		WorkingDirectories: make(map[string]WorkingDirectory, len(c.WorkingDirectories)),
		AllowRules:         cloneRules(c.AllowRules),
		DenyRules:          cloneRules(c.DenyRules),
		AskRules:           cloneRules(c.AskRules),
		dirOrder:           slices.Clone(c.dirOrder),
		allowOrder:         slices.Clone(c.allowOrder),
		denyOrder:          slices.Clone(c.denyOrder),
		askOrder:           slices.Clone(c.askOrder),
	}
	for k, v := range c.WorkingDirectories {
		out.WorkingDirectories[k] = v
	}
	return out
}

func cloneRules(m map[string][]block.PermissionRule) map[string][]block.PermissionRule {
	out := make(map[string][]block.PermissionRule, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}

// orderedKeys lists m's keys: those in order first (once each), then the
// rest sorted.
func orderedKeys[V any](m map[string]V, order []string) []string {
	keys := make([]string, 0, len(m))
	seen := make(map[string]bool, len(m))
	for _, k := range order {
		if _, ok := m[k]; ok && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	if len(keys) == len(m) {
		return keys
	}
	extra := make([]string, 0, len(m)-len(keys))
	for k := range m {
		if !seen[k] {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	return append(keys, extra...)
}

// AppendJSON appends the reference JSON of c (compact, as pydantic's
// model_dump_json). A nil Context is written as the default context.
func (c *Context) AppendJSON(dst []byte) []byte {
	if c == nil {
		c = NewContext(ModeDefault)
	}
	mode := c.Mode
	if mode == "" {
		mode = ModeDefault
	}
	dst = append(dst, '{')
	dst = wire.AppendKey(dst, "mode")
	dst = wire.AppendString(dst, string(mode))
	dst = append(dst, ',')
	dst = wire.AppendKey(dst, "working_directories")
	dst = append(dst, '{')
	for i, k := range orderedKeys(c.WorkingDirectories, c.dirOrder) {
		if i > 0 {
			dst = append(dst, ',')
		}
		wd := c.WorkingDirectories[k]
		dst = wire.AppendString(dst, k)
		dst = append(dst, ':', '{')
		dst = wire.AppendKey(dst, "path")
		dst = wire.AppendString(dst, wd.Path)
		dst = append(dst, ',')
		dst = wire.AppendKey(dst, "source")
		dst = wire.AppendString(dst, wd.Source)
		dst = append(dst, '}')
	}
	dst = append(dst, '}')
	dst = appendRuleMap(dst, "allow_rules", c.AllowRules, c.allowOrder)
	dst = appendRuleMap(dst, "deny_rules", c.DenyRules, c.denyOrder)
	dst = appendRuleMap(dst, "ask_rules", c.AskRules, c.askOrder)
	return append(dst, '}')
}

func appendRuleMap(dst []byte, name string, m map[string][]block.PermissionRule, order []string) []byte {
	dst = append(dst, ',')
	dst = wire.AppendKey(dst, name)
	dst = append(dst, '{')
	for i, k := range orderedKeys(m, order) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = wire.AppendString(dst, k)
		dst = append(dst, ':')
		dst = block.AppendRules(dst, m[k])
	}
	return append(dst, '}')
}

// MarshalJSON returns the reference JSON of c.
func (c *Context) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil), nil }

// UnmarshalJSON decodes a permission_context. Absent fields take the
// reference defaults (mode "default", empty maps); null is rejected like
// pydantic does; unknown fields are ignored. An unknown mode is a
// *ModeError; every error matches ErrInvalidContext. On error c is left
// unchanged.
func (c *Context) UnmarshalJSON(data []byte) error {
	fields, _, err := orderedObject(data)
	if err != nil {
		return &DecodeError{Err: err}
	}
	out := NewContext(ModeDefault)
	if raw, ok := fields["mode"]; ok {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil || isNull(raw) {
			return &DecodeError{Field: "mode", Err: fmt.Errorf("expected a string")}
		}
		m, err := ParseMode(s)
		if err != nil {
			return err
		}
		out.Mode = m
	}
	if raw, ok := fields["working_directories"]; ok {
		dirs, order, err := orderedObject(raw)
		if err != nil {
			return &DecodeError{Field: "working_directories", Err: err}
		}
		for _, k := range order {
			var wd WorkingDirectory
			if err := decodeWorkingDirectory(dirs[k], &wd); err != nil {
				return &DecodeError{Field: "working_directories." + k, Err: err}
			}
			out.WorkingDirectories[k] = wd
		}
		out.dirOrder = order
	}
	for _, f := range [...]struct {
		name  string
		m     map[string][]block.PermissionRule
		order *[]string
	}{
		{"allow_rules", out.AllowRules, &out.allowOrder},
		{"deny_rules", out.DenyRules, &out.denyOrder},
		{"ask_rules", out.AskRules, &out.askOrder},
	} {
		raw, ok := fields[f.name]
		if !ok {
			continue
		}
		lists, order, err := orderedObject(raw)
		if err != nil {
			return &DecodeError{Field: f.name, Err: err}
		}
		for _, k := range order {
			rs, err := decodeRules(lists[k])
			if err != nil {
				return &DecodeError{Field: f.name + "." + k + err.path, Err: err.err}
			}
			f.m[k] = rs
		}
		*f.order = order
	}
	*c = *out
	return nil
}

func decodeWorkingDirectory(raw json.RawMessage, wd *WorkingDirectory) error {
	o, err := wire.ParseObject("working directory", raw)
	if err != nil {
		return err
	}
	o.String("path", &wd.Path)
	o.String("source", &wd.Source)
	return o.Err()
}

type ruleErr struct {
	path string
	err  error
}

func decodeRules(raw json.RawMessage) ([]block.PermissionRule, *ruleErr) {
	if isNull(raw) {
		return nil, &ruleErr{err: fmt.Errorf("expected an array, got null")}
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, &ruleErr{err: fmt.Errorf("expected an array")}
	}
	rs := make([]block.PermissionRule, len(items))
	for i, it := range items {
		if err := rs[i].UnmarshalJSON(it); err != nil {
			return nil, &ruleErr{path: fmt.Sprintf("[%d]", i), err: err}
		}
	}
	return rs, nil
}

func isNull(v []byte) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

// orderedObject decodes one JSON object into raw members, returning the keys
// in first-seen order (a repeated key keeps its first position and its last
// value, as Python's json does).
func orderedObject(data []byte) (map[string]json.RawMessage, []string, error) {
	if isNull(data) {
		return nil, nil, fmt.Errorf("expected an object, got null")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("expected an object")
	}
	fields := map[string]json.RawMessage{}
	var order []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, nil, fmt.Errorf("expected an object key")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, dup := fields[key]; !dup {
			order = append(order, key)
		}
		fields[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	if dec.More() {
		return nil, nil, fmt.Errorf("unexpected data after the object")
	}
	return fields, order, nil
}
