package block

import (
	"encoding/json"
	"slices"

	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/stamp"
)

// Text is a plain text block.
type Text struct {
	ID         string
	Text       string
	CreatedAt  string
	FinishedAt NullString
	g          grower
}

// NewText returns a text block; its id and created_at are filled when it is
// put into a message (see Fill).
func NewText(s string) *Text { return &Text{Text: s} }

func (*Text) Kind() Kind        { return KindText }
func (b *Text) BlockID() string { return b.ID }
func (b *Text) fill(src stamp.Source) {
	fillIDTime(&b.ID, &b.CreatedAt, src)
}

// AppendText appends delta to the text in amortized O(1).
func (b *Text) AppendText(delta string) { b.g.append(&b.Text, delta) }

func (b *Text) CloneBlock() Block {
	c := *b
	c.g = grower{}
	return &c
}

func (b *Text) AppendJSON(dst []byte) []byte {
	dst = head(dst, KindText)
	dst = strField(dst, "text", b.Text)
	dst = strField(dst, "id", b.ID)
	dst = strField(dst, "created_at", b.CreatedAt)
	dst = nullField(dst, "finished_at", b.FinishedAt)
	return append(dst, '}')
}

func (b *Text) MarshalJSON() ([]byte, error) { return marshal(b) }

func (b *Text) UnmarshalJSON(data []byte) error { return unmarshalBlock(b, "text block", data) }

func (b *Text) decodeObject(o *wire.Object) error {
	checkType(o, KindText)
	*b = Text{}
	o.String("text", &b.Text)
	o.StringOr("id", &b.ID, "")
	o.StringOr("created_at", &b.CreatedAt, "")
	o.Nullable("finished_at", &b.FinishedAt.String, &b.FinishedAt.Valid)
	if err := o.Err(); err != nil {
		return err
	}
	fillAbsent(o, &b.ID, &b.CreatedAt)
	return nil
}

// Thinking is a model's reasoning block. Provider extras (Anthropic's
// "signature" and "redacted_thinking_data", OpenAI's "reasoning_item_id", …)
// are kept in Extra in arrival order and written after the declared fields.
type Thinking struct {
	ID         string
	Thinking   string
	CreatedAt  string
	FinishedAt NullString
	Extra      []Extra
	g          grower
}

// Extra is one provider-specific key of a thinking block.
type Extra struct {
	Key   string
	Value json.RawMessage
}

// NewThinking returns a thinking block.
func NewThinking(s string) *Thinking { return &Thinking{Thinking: s} }

func (*Thinking) Kind() Kind        { return KindThinking }
func (b *Thinking) BlockID() string { return b.ID }
func (b *Thinking) fill(src stamp.Source) {
	fillIDTime(&b.ID, &b.CreatedAt, src)
}

// AppendThinking appends delta in amortized O(1).
func (b *Thinking) AppendThinking(delta string) {
	b.g.append(&b.Thinking, delta)
}

// Get returns the raw JSON of an extra key.
func (b *Thinking) Get(key string) (json.RawMessage, bool) {
	for _, e := range b.Extra {
		if e.Key == key {
			return e.Value, true
		}
	}
	return nil, false
}

// GetString returns an extra key holding a JSON string ("" if absent).
func (b *Thinking) GetString(key string) string {
	raw, ok := b.Get(key)
	if !ok {
		return ""
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// Set stores an extra key, replacing an earlier value in place.
func (b *Thinking) Set(key string, value any) {
	raw := json.RawMessage(wire.AppendAny(nil, value))
	for i := range b.Extra {
		if b.Extra[i].Key == key {
			b.Extra[i].Value = raw
			return
		}
	}
	b.Extra = append(b.Extra, Extra{Key: key, Value: raw})
}

func (b *Thinking) CloneBlock() Block {
	c := *b
	c.g = grower{}
	c.Extra = slices.Clone(b.Extra)
	return &c
}

func (b *Thinking) AppendJSON(dst []byte) []byte {
	dst = head(dst, KindThinking)
	dst = strField(dst, "thinking", b.Thinking)
	dst = strField(dst, "id", b.ID)
	dst = strField(dst, "created_at", b.CreatedAt)
	dst = nullField(dst, "finished_at", b.FinishedAt)
	for _, e := range b.Extra {
		dst = append(dst, ',')
		dst = wire.AppendString(dst, e.Key)
		dst = append(dst, ':')
		dst = wire.AppendAny(dst, e.Value)
	}
	return append(dst, '}')
}

func (b *Thinking) MarshalJSON() ([]byte, error) { return marshal(b) }

var thinkingDeclared = map[string]bool{"type": true, "thinking": true, "id": true, "created_at": true, "finished_at": true}

func (b *Thinking) UnmarshalJSON(data []byte) error { return unmarshalBlock(b, "thinking block", data) }

func (b *Thinking) decodeObject(o *wire.Object) error {
	checkType(o, KindThinking)
	*b = Thinking{}
	o.String("thinking", &b.Thinking)
	o.StringOr("id", &b.ID, "")
	o.StringOr("created_at", &b.CreatedAt, "")
	o.Nullable("finished_at", &b.FinishedAt.String, &b.FinishedAt.Valid)
	if err := o.Err(); err != nil {
		return err
	}
	// Extras keep the order they arrived in; map iteration would lose it.
	for _, k := range o.Keys() {
		if !thinkingDeclared[k] {
			v, _ := o.Value(k)
			b.Extra = append(b.Extra, Extra{Key: k, Value: json.RawMessage(wire.AppendCompact(nil, v))})
		}
	}
	fillAbsent(o, &b.ID, &b.CreatedAt)
	return nil
}
