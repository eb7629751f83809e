package event

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/stamp"
)

// Event is one of the 28 event types.
type Event interface {
	// Type returns the wire "type".
	Type() Type
	// Header returns the common fields, for reading or stamping.
	Header() *Base
	// AppendJSON appends the event's wire JSON to dst.
	AppendJSON(dst []byte) []byte
	// MarshalJSON returns the event's wire JSON.
	MarshalJSON() ([]byte, error)
	decode(o *wire.Object)
	replyID() (string, bool)
}

// Base holds the fields every event starts with.
type Base struct {
	ID        string
	CreatedAt string
	Metadata  map[string]any // nil is written as {}
}

// Header returns b.
func (b *Base) Header() *Base { return b }

// ReplyIDOf returns the reply an event belongs to; CUSTOM events have none.
func ReplyIDOf(e Event) (string, bool) { return e.replyID() }

// Stamp fills an event's empty id and created_at from src (stamp.Default if
// nil). Events built by hand are stamped before they leave the process.
func Stamp(e Event, src stamp.Source) {
	if src == nil {
		src = stamp.Default
	}
	h := e.Header()
	if h.ID == "" {
		h.ID = src.NewID()
	}
	if h.CreatedAt == "" {
		h.CreatedAt = src.Now()
	}
}

// ErrUnknownType is returned by Decode for a "type" that is not one of the 28.
var ErrUnknownType = errors.New("unknown event type")

// ErrInvalid is returned by Decode and Validate for an event that violates a
// model constraint beyond field presence (e.g. TOOL_RESULT_DATA_DELTA without
// exactly one of data/url).
var ErrInvalid = errors.New("invalid event")

// New returns an empty event of type t.
func New(t Type) (Event, error) {
	if e := newEvent(t); e != nil {
		return e, nil
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownType, t)
}

// Decode reads one event from its wire JSON, dispatching on "type". Missing
// id, created_at and metadata take their defaults (a fresh id, now, {});
// missing required fields, wrong field types and unknown types are errors
// (wire.FieldError wrapping wire.ErrField, ErrUnknownType, ErrInvalid).
func Decode(data []byte) (Event, error) {
	// The scanned form is pooled: it is larger than the event and dead once
	// the event is filled.
	o, err := wire.Borrow("event", data)
	if err != nil {
		return nil, err
	}
	defer o.Release()
	var t string
	o.String("type", &t)
	if err := o.Err(); err != nil {
		return nil, err
	}
	e, err := New(Type(t))
	if err != nil {
		return nil, err
	}
	o.Type = t
	if err := decodeInto(e, o); err != nil {
		return nil, err
	}
	return e, nil
}

func decodeInto(e Event, o *wire.Object) error {
	h := e.Header()
	o.StringOr("id", &h.ID, "")
	o.StringOr("created_at", &h.CreatedAt, "")
	o.Metadata("metadata", &h.Metadata)
	e.decode(o)
	if err := o.Err(); err != nil {
		return err
	}
	// Only absent keys take defaults: an explicit "" stays "", as in
	// pydantic, so decoding then encoding never changes a value.
	if !o.Has("id") {
		h.ID = stamp.Default.NewID()
	}
	if !o.Has("created_at") {
		h.CreatedAt = stamp.Default.Now()
	}
	return Validate(e)
}

func unmarshal(e Event, data []byte) error {
	o, err := wire.Borrow(string(e.Type()), data)
	if err != nil {
		return err
	}
	defer o.Release()
	var t string
	o.StringOr("type", &t, string(e.Type()))
	if t != string(e.Type()) {
		return fmt.Errorf("%w: got type %q, want %q", ErrInvalid, t, e.Type())
	}
	return decodeInto(e, o)
}

// Validate checks constraints that go beyond field presence.
func Validate(e Event) error {
	if d, ok := e.(*ToolResultDataDelta); ok && d.Data.Valid == d.URL.Valid {
		return fmt.Errorf("%w: TOOL_RESULT_DATA_DELTA: Exactly one of `data` or `url` must be provided.", ErrInvalid)
	}
	return nil
}

// Marshal returns the wire JSON of e.
func Marshal(e Event) []byte { return e.AppendJSON(make([]byte, 0, 256)) }

func (b *Base) head(dst []byte, t Type) []byte {
	dst = append(dst, `{"id":`...)
	dst = wire.AppendString(dst, b.ID)
	dst = append(dst, `,"created_at":`...)
	dst = wire.AppendString(dst, b.CreatedAt)
	dst = append(dst, `,"metadata":`...)
	dst = wire.AppendObject(dst, b.Metadata)
	dst = append(dst, `,"type":"`...)
	dst = append(dst, t...)
	return append(dst, '"')
}

func fstr(dst []byte, name, v string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	return wire.AppendString(dst, v)
}

func fnull(dst []byte, name string, v block.NullString) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	return wire.AppendNullable(dst, v.String, v.Valid)
}

func fint(dst []byte, name string, v int64) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	return strconv.AppendInt(dst, v, 10)
}

func fkey(dst []byte, name string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	return append(dst, '"', ':')
}

func enumOr[T ~string](o *wire.Object, name string, p *T, def T, valid func(T) bool) {
	var s string
	if def == "" {
		o.String(name, &s)
	} else {
		o.StringOr(name, &s, string(def))
	}
	*p = T(s)
	if o.Err() == nil && !valid(*p) {
		o.Fail(name, "unknown value %q", s)
	}
}

func decodeCalls(o *wire.Object, name string) []*block.ToolCall {
	raws := o.Array(name, true)
	out := make([]*block.ToolCall, 0, len(raws))
	for i, r := range raws {
		c := new(block.ToolCall)
		if err := c.UnmarshalJSON(r); err != nil {
			o.Fail(name, "element %d: %v", i, err)
			return nil
		}
		out = append(out, c)
	}
	return out
}

func appendCalls(dst []byte, calls []*block.ToolCall) []byte {
	dst = append(dst, '[')
	for i, c := range calls {
		if i > 0 {
			dst = append(dst, ',')
		}
		if c == nil {
			dst = append(dst, "null"...)
			continue
		}
		dst = c.AppendJSON(dst)
	}
	return append(dst, ']')
}
