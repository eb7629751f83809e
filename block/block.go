package block

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/stamp"
)

// Kind is a block's "type" discriminator.
type Kind string

// The six block kinds.
const (
	KindText       Kind = "text"
	KindThinking   Kind = "thinking"
	KindHint       Kind = "hint"
	KindToolCall   Kind = "tool_call"
	KindToolResult Kind = "tool_result"
	KindData       Kind = "data"
)

// Block is one content block. The implementations are *Text, *Thinking,
// *Data, *Hint, *ToolCall and *ToolResult.
type Block interface {
	// Kind returns the wire "type".
	Kind() Kind
	// BlockID returns the block's id (the provider's tool-call id for
	// tool_call and tool_result blocks).
	BlockID() string
	// AppendJSON appends the block's wire JSON to dst.
	AppendJSON(dst []byte) []byte
	// MarshalJSON returns the block's wire JSON.
	MarshalJSON() ([]byte, error)
	// CloneBlock returns a deep copy.
	CloneBlock() Block
	fill(src stamp.Source)
}

// ErrUnknownKind is returned when a block's "type" is not one of the six.
var ErrUnknownKind = errors.New("unknown block type")

// Fill gives b (and the blocks nested in it) an id and a created_at where
// they are empty, as the reference's field defaults do. Tool-call and
// tool-result ids are the provider's and are never generated.
func Fill(b Block, src stamp.Source) {
	if src == nil {
		src = stamp.Default
	}
	fill(b, src)
}

// fill fills b unless it is nil (there is nothing to fill).
func fill(b Block, src stamp.Source) {
	if !IsNil(b) {
		b.fill(src)
	}
}

// IsNil reports whether b is nil or a nil pointer of one of the six block
// types; a list holding one encodes it as null and clones it as nil.
func IsNil(b Block) bool {
	switch b := b.(type) {
	case nil:
		return true
	case *Text:
		return b == nil
	case *Thinking:
		return b == nil
	case *Data:
		return b == nil
	case *Hint:
		return b == nil
	case *ToolCall:
		return b == nil
	case *ToolResult:
		return b == nil
	}
	return false
}

// fillAbsent gives a decoded block the defaults pydantic gives a missing
// key: a fresh id and now. A key present with "" keeps "" (only an absent
// key takes the default), so decoding and re-encoding never changes a value.
func fillAbsent(o *wire.Object, id, createdAt *string) {
	if !o.Has("id") && id != nil {
		*id = stamp.Default.NewID()
	}
	if !o.Has("created_at") {
		*createdAt = stamp.Default.Now()
	}
}

func fillIDTime(id, createdAt *string, src stamp.Source) {
	if *id == "" {
		*id = src.NewID()
	}
	if *createdAt == "" {
		*createdAt = src.Now()
	}
}

// Decode decodes one block of any kind from its wire JSON. Missing ids and
// timestamps get fresh values from stamp.Default, as pydantic's defaults do.
func Decode(data []byte) (Block, error) { return decode(data, nil) }

// DecodeBody decodes an element of a string-or-blocks body, which only admits
// text and data blocks.
func decodeBodyBlock(data []byte) (Block, error) {
	return decode(data, []Kind{KindText, KindData})
}

// objectDecoder is a block that decodes from an already scanned object.
type objectDecoder interface {
	Block
	decodeObject(o *wire.Object) error
}

func unmarshalBlock(b objectDecoder, typ string, data []byte) error {
	o, err := wire.Borrow(typ, data)
	if err != nil {
		return err
	}
	defer o.Release()
	return b.decodeObject(o)
}

// typeNames are the FieldError names of the blocks, by kind.
var typeNames = map[Kind]string{
	KindText: "text block", KindThinking: "thinking block", KindData: "data block",
	KindHint: "hint block", KindToolCall: "tool_call block", KindToolResult: "tool_result block",
}

func decode(data []byte, allowed []Kind) (Block, error) {
	// One scan serves both the type and the block's fields; text the
	// scanner rejects, and unusual "type" keys, get PeekType's errors.
	o, err := wire.Borrow("", data)
	if err != nil {
		_, err = wire.PeekType(data)
		return nil, fmt.Errorf("block: %w", err)
	}
	defer o.Release()
	t, ok := o.PlainType()
	if !ok {
		if t, err = wire.PeekType(data); err != nil {
			return nil, fmt.Errorf("block: %w", err)
		}
	}
	var b objectDecoder
	switch Kind(t) {
	case KindText:
		b = new(Text)
	case KindThinking:
		b = new(Thinking)
	case KindHint:
		b = new(Hint)
	case KindToolCall:
		b = new(ToolCall)
	case KindToolResult:
		b = new(ToolResult)
	case KindData:
		b = new(Data)
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownKind, t)
	}
	if allowed != nil && !containsKind(allowed, Kind(t)) {
		return nil, fmt.Errorf("%w: %q is not allowed here (want text or data)", ErrUnknownKind, t)
	}
	o.Type = typeNames[Kind(t)]
	if err := b.decodeObject(o); err != nil {
		return nil, err
	}
	return b, nil
}

func containsKind(ks []Kind, k Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// DecodeList decodes a JSON array of blocks.
func DecodeList(data []byte) ([]Block, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, fmt.Errorf("block list: %w", err)
	}
	out := make([]Block, 0, len(raws))
	for i, r := range raws {
		b, err := Decode(r)
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", i, err)
		}
		out = append(out, b)
	}
	return out, nil
}

// AppendList appends a JSON array of blocks.
func AppendList(dst []byte, bs []Block) []byte {
	dst = append(dst, '[')
	for i, b := range bs {
		if i > 0 {
			dst = append(dst, ',')
		}
		if IsNil(b) {
			dst = append(dst, "null"...)
			continue
		}
		dst = b.AppendJSON(dst)
	}
	return append(dst, ']')
}

// CloneList deep-copies a block list (nil stays nil, and so does a nil
// element).
func CloneList(bs []Block) []Block {
	if bs == nil {
		return nil
	}
	out := make([]Block, len(bs))
	for i, b := range bs {
		if !IsNil(b) {
			out[i] = b.CloneBlock()
		}
	}
	return out
}

func marshal(b Block) ([]byte, error) { return b.AppendJSON(make([]byte, 0, 128)), nil }

// head appends `{"type":"<kind>"`.
func head(dst []byte, k Kind) []byte {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, k...)
	return append(dst, '"')
}

func strField(dst []byte, name, v string) []byte {
	dst = append(dst, ',')
	dst = wire.AppendKey(dst, name)
	return wire.AppendString(dst, v)
}

func nullField(dst []byte, name string, v NullString) []byte {
	dst = append(dst, ',')
	dst = wire.AppendKey(dst, name)
	return wire.AppendNullable(dst, v.String, v.Valid)
}

func checkType(o *wire.Object, k Kind) {
	var t string
	o.StringOr("type", &t, string(k))
	if t != string(k) {
		o.Fail("type", "expected %q", k)
	}
}
