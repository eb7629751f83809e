package message

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/ojson"
	"github.com/agentscope-go/agentscope/stamp"
)

// Usage counts the tokens a reply's model calls consumed.
type Usage struct {
	InputTokens              int64
	OutputTokens             int64
	CacheInputTokens         int64
	CacheCreationInputTokens int64
}

// Add accumulates u2 into u.
func (u *Usage) Add(u2 Usage) {
	u.InputTokens += u2.InputTokens
	u.OutputTokens += u2.OutputTokens
	u.CacheInputTokens += u2.CacheInputTokens
	u.CacheCreationInputTokens += u2.CacheCreationInputTokens
}

// AppendJSON appends the wire JSON.
func (u *Usage) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"input_tokens":`...)
	dst = appendInt(dst, u.InputTokens)
	dst = append(dst, `,"output_tokens":`...)
	dst = appendInt(dst, u.OutputTokens)
	dst = append(dst, `,"cache_input_tokens":`...)
	dst = appendInt(dst, u.CacheInputTokens)
	dst = append(dst, `,"cache_creation_input_tokens":`...)
	dst = appendInt(dst, u.CacheCreationInputTokens)
	return append(dst, '}')
}

// Msg is one message: who said it, in which role, and what (Content).
//
// Nullable fields use Go zero values for null: the zero block.NullString
// for FinishedAt, "" for FinishedReason (which has no "" value), nil for
// Usage, StructuredOutput and Error. A nil Metadata is written as {}.
type Msg struct {
	Name             string
	Content          []block.Block
	Role             event.Role
	ID               string
	Metadata         map[string]any
	CreatedAt        string
	Usage            *Usage
	FinishedAt       block.NullString
	FinishedReason   event.ReplyReason
	StructuredOutput map[string]any
	Error            *event.ErrorInfo

	fold foldIndex // where AppendEvent finds blocks; not part of the value
}

// ErrRoleContent is wrapped by every *RoleError.
var ErrRoleContent = errors.New("block not allowed for role")

// ErrRole is returned for a role other than user, assistant or system.
var ErrRole = errors.New("invalid role")

// ErrNilBlock is returned for a nil element of Content.
var ErrNilBlock = errors.New("nil content block")

// RoleError reports a block a role may not hold.
type RoleError struct {
	Role  event.Role
	Index int
	Kind  block.Kind
}

func (e *RoleError) Error() string {
	switch e.Role {
	case event.RoleUser:
		return fmt.Sprintf("User message can only contain text blocks or data blocks (content[%d] is %s).", e.Index, e.Kind)
	default:
		return fmt.Sprintf("System message can only contain text blocks (content[%d] is %s).", e.Index, e.Kind)
	}
}

func (e *RoleError) Unwrap() error { return ErrRoleContent }

// Validate checks the role rules: user messages hold only text and data
// blocks, system messages only text blocks, assistant messages anything;
// no message holds a nil block.
func (m *Msg) Validate() error {
	var ok func(block.Kind) bool
	switch m.Role {
	case event.RoleAssistant:
		ok = func(block.Kind) bool { return true }
	case event.RoleUser:
		ok = func(k block.Kind) bool { return k == block.KindText || k == block.KindData }
	case event.RoleSystem:
		ok = func(k block.Kind) bool { return k == block.KindText }
	default:
		return fmt.Errorf("%w %q", ErrRole, m.Role)
	}
	for i, b := range m.Content {
		if block.IsNil(b) {
			return fmt.Errorf("content[%d]: %w", i, ErrNilBlock)
		}
		if !ok(b.Kind()) {
			return &RoleError{Role: m.Role, Index: i, Kind: b.Kind()}
		}
	}
	return nil
}

// Option sets an optional field when a Msg is built.
type Option func(*options)

type options struct {
	src              stamp.Source
	id, created      string
	finished         *block.NullString
	reason           event.ReplyReason
	metadata         map[string]any
	usage            *Usage
	structuredOutput map[string]any
}

// WithStamp sets the source of generated ids and timestamps.
func WithStamp(src stamp.Source) Option { return func(o *options) { o.src = src } }

// WithID sets the message id (an assistant reply's id equals its reply id).
func WithID(id string) Option { return func(o *options) { o.id = id } }

// WithCreatedAt sets created_at.
func WithCreatedAt(ts string) Option { return func(o *options) { o.created = ts } }

// WithFinishedAt sets finished_at (the zero NullString for null).
func WithFinishedAt(ts block.NullString) Option { return func(o *options) { o.finished = &ts } }

// WithFinishedReason sets finished_reason.
func WithFinishedReason(r event.ReplyReason) Option { return func(o *options) { o.reason = r } }

// WithMetadata sets metadata.
func WithMetadata(md map[string]any) Option { return func(o *options) { o.metadata = md } }

// WithUsage sets usage (assistant messages).
func WithUsage(u Usage) Option { return func(o *options) { o.usage = &u } }

// WithStructuredOutput sets structured_output (assistant messages).
func WithStructuredOutput(v map[string]any) Option {
	return func(o *options) { o.structuredOutput = v }
}

// New builds a Msg with the given role, fills missing block ids and
// timestamps, and validates the role rules. finished_at stays null unless
// WithFinishedAt is given (the reference's plain Msg constructor).
func New(name string, role event.Role, content []block.Block, opts ...Option) (*Msg, error) {
	return build(name, role, content, false, opts)
}

func build(name string, role event.Role, content []block.Block, finishedNow bool, opts []Option) (*Msg, error) {
	o := options{src: stamp.Default}
	for _, f := range opts {
		f(&o)
	}
	if content == nil {
		content = []block.Block{}
	}
	m := &Msg{
		Name: name, Content: content, Role: role, ID: o.id, Metadata: o.metadata,
		CreatedAt: o.created, Usage: o.usage, FinishedReason: o.reason,
		StructuredOutput: o.structuredOutput,
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	// Blocks first, then the message: the reference builds the content
	// before the Msg's own defaults run, so a counting source numbers them
	// in the same order.
	for _, b := range m.Content {
		block.Fill(b, o.src)
	}
	if m.ID == "" {
		m.ID = o.src.NewID()
	}
	if m.CreatedAt == "" {
		m.CreatedAt = o.src.Now()
	}
	switch {
	case o.finished != nil:
		m.FinishedAt = *o.finished
	case finishedNow:
		m.FinishedAt = block.Some(m.CreatedAt)
	}
	return m, nil
}

// UserMsg builds a user message (text and data blocks only). Like the
// reference's factory, finished_at defaults to created_at.
func UserMsg(name string, content []block.Block, opts ...Option) (*Msg, error) {
	return build(name, event.RoleUser, content, true, opts)
}

// AssistantMsg builds an assistant message (any blocks); finished_at stays
// null.
func AssistantMsg(name string, content []block.Block, opts ...Option) (*Msg, error) {
	return build(name, event.RoleAssistant, content, false, opts)
}

// SystemMsg builds a system message (text blocks only); finished_at
// defaults to created_at.
func SystemMsg(name string, content []block.Block, opts ...Option) (*Msg, error) {
	return build(name, event.RoleSystem, content, true, opts)
}

// UserText is UserMsg with a single text block; it cannot fail.
func UserText(name, text string, opts ...Option) *Msg {
	m, _ := UserMsg(name, []block.Block{block.NewText(text)}, opts...)
	return m
}

// AssistantText is AssistantMsg with a single text block.
func AssistantText(name, text string, opts ...Option) *Msg {
	m, _ := AssistantMsg(name, []block.Block{block.NewText(text)}, opts...)
	return m
}

// SystemText is SystemMsg with a single text block.
func SystemText(name, text string, opts ...Option) *Msg {
	m, _ := SystemMsg(name, []block.Block{block.NewText(text)}, opts...)
	return m
}

// Text returns a text block for use in a factory call.
func Text(s string) *block.Text { return block.NewText(s) }

// TextContent joins the text of the top-level text blocks with sep. ok is
// false when there is no text block (the reference returns None, not "").
func (m *Msg) TextContent(sep string) (text string, ok bool) {
	var parts []string
	for _, b := range m.Content {
		if t, isText := b.(*block.Text); isText {
			parts = append(parts, t.Text)
		}
	}
	if parts == nil {
		return "", false
	}
	return strings.Join(parts, sep), true
}

// HasBlocks reports whether the message has any block of the given kinds
// (any block at all when none are given).
func (m *Msg) HasBlocks(kinds ...block.Kind) bool {
	if len(kinds) == 0 {
		return len(m.Content) > 0
	}
	for _, b := range m.Content {
		if block.IsNil(b) {
			continue
		}
		for _, k := range kinds {
			if b.Kind() == k {
				return true
			}
		}
	}
	return false
}

// Blocks returns the blocks of the given kinds, in order (all when none are
// given).
func (m *Msg) Blocks(kinds ...block.Kind) []block.Block {
	if len(kinds) == 0 {
		return m.Content
	}
	var out []block.Block
	for _, b := range m.Content {
		if block.IsNil(b) {
			continue
		}
		for _, k := range kinds {
			if b.Kind() == k {
				out = append(out, b)
				break
			}
		}
	}
	return out
}

// BlocksOf returns the blocks of type T, in order; for example
// BlocksOf[*block.ToolCall](m).
func BlocksOf[T block.Block](m *Msg) []T {
	var out []T
	for _, b := range m.Content {
		if t, ok := b.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// Find returns the first block of kind k with id, or nil.
func (m *Msg) Find(k block.Kind, id string) block.Block {
	if i := m.fold.find(m.Content, k, id); i >= 0 {
		return m.Content[i]
	}
	return nil
}

// Clone returns a deep copy.
func (m *Msg) Clone() *Msg {
	c := &Msg{
		Name: m.Name, Content: block.CloneList(m.Content), Role: m.Role, ID: m.ID,
		Metadata: ojson.CloneMap(m.Metadata), CreatedAt: m.CreatedAt, FinishedAt: m.FinishedAt,
		FinishedReason: m.FinishedReason, StructuredOutput: ojson.CloneMap(m.StructuredOutput),
	}
	if c.Content == nil {
		c.Content = []block.Block{}
	}
	if m.Usage != nil {
		u := *m.Usage
		c.Usage = &u
	}
	if m.Error != nil {
		e := *m.Error
		c.Error = &e
	}
	return c
}
