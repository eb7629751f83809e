package block

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentscope-go/agentscope/internal/ojson"
	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/stamp"
)

// ToolResultState is the outcome of a tool call.
type ToolResultState string

// Tool-result states.
const (
	ResultSuccess     ToolResultState = "success"
	ResultError       ToolResultState = "error"
	ResultInterrupted ToolResultState = "interrupted"
	ResultDenied      ToolResultState = "denied"
	ResultRunning     ToolResultState = "running"
)

// Valid reports whether s is one of the five wire values.
func (s ToolResultState) Valid() bool {
	switch s {
	case ResultSuccess, ResultError, ResultInterrupted, ResultDenied, ResultRunning:
		return true
	}
	return false
}

// Behavior is what a permission rule or decision says.
type Behavior string

// Permission behaviors.
const (
	Allow       Behavior = "allow"
	Deny        Behavior = "deny"
	Ask         Behavior = "ask"
	Passthrough Behavior = "passthrough"
)

func (b Behavior) valid() bool {
	switch b {
	case Allow, Deny, Ask, Passthrough:
		return true
	}
	return false
}

// PermissionRule allows, denies or asks for a tool, optionally narrowed by a
// tool-specific pattern (RuleContent null: the whole tool; Some("") is kept
// apart from null, as the reference writes "" for a generic tool's rule).
type PermissionRule struct {
	ToolName    string
	RuleContent NullString // null: the whole tool
	Behavior    Behavior
	Source      string
}

// AppendJSON appends the rule's wire JSON.
func (r PermissionRule) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = wire.AppendKey(dst, "tool_name")
	dst = wire.AppendString(dst, r.ToolName)
	dst = nullField(dst, "rule_content", r.RuleContent)
	dst = strField(dst, "behavior", string(r.Behavior))
	dst = strField(dst, "source", r.Source)
	return append(dst, '}')
}

// MarshalJSON returns the rule's wire JSON.
func (r PermissionRule) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }

// UnmarshalJSON decodes a rule; rule_content must be present (it may be null).
func (r *PermissionRule) UnmarshalJSON(data []byte) error {
	o, err := wire.Borrow("permission rule", data)
	if err != nil {
		return err
	}
	defer o.Release()
	*r = PermissionRule{}
	o.String("tool_name", &r.ToolName)
	if !o.Has("rule_content") {
		o.Fail("rule_content", "required")
	}
	o.Nullable("rule_content", &r.RuleContent.String, &r.RuleContent.Valid)
	var b string
	o.String("behavior", &b)
	o.String("source", &r.Source)
	r.Behavior = Behavior(b)
	if o.Err() == nil && !r.Behavior.valid() {
		o.Fail("behavior", "unknown behavior %q", b)
	}
	return o.Err()
}

// AppendRules appends a JSON array of rules.
func AppendRules(dst []byte, rs []PermissionRule) []byte {
	dst = append(dst, '[')
	for i, r := range rs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = r.AppendJSON(dst)
	}
	return append(dst, ']')
}

// ToolCall is a model's request to run a tool. Input is the raw JSON text of
// the arguments as the model produced it (accumulated while streaming), not
// a decoded object.
type ToolCall struct {
	ID             string
	Name           string
	Input          string
	State          ToolCallState // "" is written as "pending"
	SuggestedRules []PermissionRule
	CreatedAt      string
	FinishedAt     NullString
	// Extra holds provider fields that must travel with the call back to
	// the same provider (Gemini's "thought_signature", which Gemini 3
	// requires on the echoed functionCall part). It lives in memory only:
	// the reference's ToolCallBlock has no extras, so AppendJSON never
	// writes them and UnmarshalJSON never reads them, keeping the block's
	// JSON exactly the reference's.
	Extra []Extra
	g     grower
}

func (*ToolCall) Kind() Kind        { return KindToolCall }
func (b *ToolCall) BlockID() string { return b.ID }
func (b *ToolCall) fill(src stamp.Source) {
	if b.CreatedAt == "" {
		b.CreatedAt = src.Now()
	}
	if b.State == "" {
		b.State = CallPending
	}
}

// AppendInput appends an argument fragment in amortized O(1).
func (b *ToolCall) AppendInput(delta string) { b.g.append(&b.Input, delta) }

func (b *ToolCall) CloneBlock() Block {
	c := *b
	c.g = grower{}
	c.SuggestedRules = slices.Clone(b.SuggestedRules)
	c.Extra = slices.Clone(b.Extra)
	return &c
}

// GetString returns an Extra key holding a JSON string ("" if absent).
func (b *ToolCall) GetString(key string) string {
	for _, e := range b.Extra {
		if e.Key == key {
			var s string
			_ = json.Unmarshal(e.Value, &s)
			return s
		}
	}
	return ""
}

func (b *ToolCall) AppendJSON(dst []byte) []byte {
	dst = head(dst, KindToolCall)
	dst = strField(dst, "id", b.ID)
	dst = strField(dst, "name", b.Name)
	dst = strField(dst, "input", b.Input)
	st := b.State
	if st == "" {
		st = CallPending
	}
	dst = strField(dst, "state", string(st))
	dst = append(dst, `,"suggested_rules":`...)
	dst = AppendRules(dst, b.SuggestedRules)
	dst = strField(dst, "created_at", b.CreatedAt)
	dst = nullField(dst, "finished_at", b.FinishedAt)
	return append(dst, '}')
}

func (b *ToolCall) MarshalJSON() ([]byte, error) { return marshal(b) }

func (b *ToolCall) UnmarshalJSON(data []byte) error {
	return unmarshalBlock(b, "tool_call block", data)
}

func (b *ToolCall) decodeObject(o *wire.Object) error {
	checkType(o, KindToolCall)
	*b = ToolCall{}
	o.String("id", &b.ID)
	o.String("name", &b.Name)
	o.String("input", &b.Input)
	var st string
	o.StringOr("state", &st, string(CallPending))
	b.State = ToolCallState(st)
	if o.Err() == nil && !b.State.valid() {
		o.Fail("state", "unknown tool call state %q", st)
	}
	o.StringOr("created_at", &b.CreatedAt, "")
	o.Nullable("finished_at", &b.FinishedAt.String, &b.FinishedAt.Valid)
	rules := o.Array("suggested_rules", false)
	if err := o.Err(); err != nil {
		return err
	}
	for i, r := range rules {
		var rule PermissionRule
		if err := rule.UnmarshalJSON(r); err != nil {
			return fmt.Errorf("suggested_rules[%d]: %w", i, err)
		}
		b.SuggestedRules = append(b.SuggestedRules, rule)
	}
	fillAbsent(o, nil, &b.CreatedAt)
	return nil
}

// ToolResult is the outcome of a tool call; ID equals the call's ID.
type ToolResult struct {
	ID         string
	Name       string
	Output     Body
	State      ToolResultState // "" is written as "running"
	Metadata   map[string]any
	CreatedAt  string
	FinishedAt NullString
}

func (*ToolResult) Kind() Kind        { return KindToolResult }
func (b *ToolResult) BlockID() string { return b.ID }
func (b *ToolResult) fill(src stamp.Source) {
	if b.CreatedAt == "" {
		b.CreatedAt = src.Now()
	}
	if b.State == "" {
		b.State = ResultRunning
	}
	for _, c := range b.Output.Blocks {
		fill(c, src)
	}
}

func (b *ToolResult) CloneBlock() Block {
	c := *b
	c.Output = b.Output.Clone()
	c.Metadata = ojson.CloneMap(b.Metadata)
	return &c
}

func (b *ToolResult) AppendJSON(dst []byte) []byte {
	dst = head(dst, KindToolResult)
	dst = strField(dst, "id", b.ID)
	dst = strField(dst, "name", b.Name)
	dst = append(dst, `,"output":`...)
	dst = b.Output.AppendJSON(dst)
	st := b.State
	if st == "" {
		st = ResultRunning
	}
	dst = strField(dst, "state", string(st))
	dst = append(dst, `,"metadata":`...)
	dst = wire.AppendObject(dst, b.Metadata)
	dst = strField(dst, "created_at", b.CreatedAt)
	dst = nullField(dst, "finished_at", b.FinishedAt)
	return append(dst, '}')
}

func (b *ToolResult) MarshalJSON() ([]byte, error) { return marshal(b) }

func (b *ToolResult) UnmarshalJSON(data []byte) error {
	return unmarshalBlock(b, "tool_result block", data)
}

func (b *ToolResult) decodeObject(o *wire.Object) error {
	checkType(o, KindToolResult)
	*b = ToolResult{}
	o.String("id", &b.ID)
	o.String("name", &b.Name)
	var st string
	o.StringOr("state", &st, string(ResultRunning))
	b.State = ToolResultState(st)
	if o.Err() == nil && !b.State.Valid() {
		o.Fail("state", "unknown tool result state %q", st)
	}
	o.Metadata("metadata", &b.Metadata)
	o.StringOr("created_at", &b.CreatedAt, "")
	o.Nullable("finished_at", &b.FinishedAt.String, &b.FinishedAt.Valid)
	raw, ok := o.Value("output")
	if !ok {
		o.Fail("output", "required")
	}
	if err := o.Err(); err != nil {
		return err
	}
	if err := b.Output.UnmarshalJSON(raw); err != nil {
		return fmt.Errorf("tool_result output: %w", err)
	}
	fillAbsent(o, nil, &b.CreatedAt)
	return nil
}

// Body is a value that is either a plain string or a list of text and data
// blocks: a hint's text, a tool result's output, a state summary.
type Body struct {
	// Plain selects the string form; Text holds it.
	Plain  bool
	Text   string
	Blocks []Block
}

// PlainBody returns the string form.
func PlainBody(s string) Body { return Body{Plain: true, Text: s} }

// BlocksBody returns the list form.
func BlocksBody(bs ...Block) Body {
	if bs == nil {
		bs = []Block{}
	}
	return Body{Blocks: bs}
}

// Clone deep-copies the body.
func (b Body) Clone() Body {
	b.Blocks = CloneList(b.Blocks)
	return b
}

// AppendJSON appends the string or the array.
func (b Body) AppendJSON(dst []byte) []byte {
	if b.Plain {
		return wire.AppendString(dst, b.Text)
	}
	return AppendList(dst, b.Blocks)
}

// MarshalJSON returns the wire JSON.
func (b Body) MarshalJSON() ([]byte, error) { return b.AppendJSON(nil), nil }

// UnmarshalJSON accepts a string or an array of text/data blocks.
func (b *Body) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		if s, ok := wire.DecodeString(data); ok {
			*b = PlainBody(s)
			return nil
		}
	}
	raws, ok := wire.SplitArray(data)
	if !ok {
		return fmt.Errorf("expected a string or a list of text/data blocks")
	}
	out := make([]Block, 0, len(raws))
	for i, r := range raws {
		blk, err := decodeBodyBlock(r)
		if err != nil {
			return fmt.Errorf("element %d: %w", i, err)
		}
		out = append(out, blk)
	}
	*b = Body{Blocks: out}
	return nil
}

// Hint is an out-of-band instruction to the model (formatters send it as a
// user turn). Unlike other blocks it is born finished.
type Hint struct {
	Hint       Body
	ID         string
	Source     NullString // by convention a small JSON object as a string
	CreatedAt  string
	FinishedAt NullString // Fill sets it to CreatedAt
}

// NewHint returns a hint block with a plain string body; source "" is null
// (set Source to Some("") for an empty one).
func NewHint(text, source string) *Hint {
	h := &Hint{Hint: PlainBody(text)}
	if source != "" {
		h.Source = Some(source)
	}
	return h
}

func (*Hint) Kind() Kind        { return KindHint }
func (b *Hint) BlockID() string { return b.ID }
func (b *Hint) fill(src stamp.Source) {
	fillIDTime(&b.ID, &b.CreatedAt, src)
	if !b.FinishedAt.Valid {
		b.FinishedAt = Some(b.CreatedAt)
	}
	for _, c := range b.Hint.Blocks {
		fill(c, src)
	}
}

func (b *Hint) CloneBlock() Block {
	c := *b
	c.Hint = b.Hint.Clone()
	return &c
}

func (b *Hint) AppendJSON(dst []byte) []byte {
	dst = head(dst, KindHint)
	dst = append(dst, `,"hint":`...)
	dst = b.Hint.AppendJSON(dst)
	dst = strField(dst, "id", b.ID)
	dst = nullField(dst, "source", b.Source)
	dst = strField(dst, "created_at", b.CreatedAt)
	dst = nullField(dst, "finished_at", b.FinishedAt)
	return append(dst, '}')
}

func (b *Hint) MarshalJSON() ([]byte, error) { return marshal(b) }

func (b *Hint) UnmarshalJSON(data []byte) error { return unmarshalBlock(b, "hint block", data) }

func (b *Hint) decodeObject(o *wire.Object) error {
	checkType(o, KindHint)
	*b = Hint{}
	o.StringOr("id", &b.ID, "")
	o.Nullable("source", &b.Source.String, &b.Source.Valid)
	o.StringOr("created_at", &b.CreatedAt, "")
	raw, ok := o.Value("hint")
	if !ok {
		o.Fail("hint", "required")
	}
	hasFinished := o.Has("finished_at")
	o.Nullable("finished_at", &b.FinishedAt.String, &b.FinishedAt.Valid)
	if err := o.Err(); err != nil {
		return err
	}
	if err := b.Hint.UnmarshalJSON(raw); err != nil {
		return fmt.Errorf("hint: %w", err)
	}
	fillAbsent(o, &b.ID, &b.CreatedAt)
	if !hasFinished {
		b.FinishedAt = Some(b.CreatedAt)
	}
	return nil
}
