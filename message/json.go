package message

import (
	"fmt"
	"strconv"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/stamp"
)

func appendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }

// AppendJSON appends the message's wire JSON to dst. It cannot fail, so it
// expects a Msg that passes Validate: a nil block is written as null, which
// no reader accepts. Where Content may hold nil, use MarshalJSON, which
// reports it (ErrNilBlock).
func (m *Msg) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"name":`...)
	dst = wire.AppendString(dst, m.Name)
	dst = append(dst, `,"content":`...)
	dst = block.AppendList(dst, m.Content)
	dst = append(dst, `,"role":`...)
	dst = wire.AppendString(dst, string(m.Role))
	dst = append(dst, `,"id":`...)
	dst = wire.AppendString(dst, m.ID)
	dst = append(dst, `,"metadata":`...)
	dst = wire.AppendObject(dst, m.Metadata)
	dst = append(dst, `,"created_at":`...)
	dst = wire.AppendString(dst, m.CreatedAt)
	dst = append(dst, `,"usage":`...)
	if m.Usage == nil {
		dst = append(dst, "null"...)
	} else {
		dst = m.Usage.AppendJSON(dst)
	}
	dst = append(dst, `,"finished_at":`...)
	dst = wire.AppendNullable(dst, m.FinishedAt.String, m.FinishedAt.Valid)
	dst = append(dst, `,"finished_reason":`...)
	dst = wire.AppendNullString(dst, string(m.FinishedReason))
	dst = append(dst, `,"structured_output":`...)
	dst = wire.AppendNullObject(dst, m.StructuredOutput)
	dst = append(dst, `,"error":`...)
	if m.Error == nil {
		dst = append(dst, "null"...)
	} else {
		dst = m.Error.AppendJSON(dst)
	}
	return append(dst, '}')
}

// MarshalJSON returns the message's wire JSON, or an error wrapping
// ErrNilBlock (naming the position) when Content, or the body of a tool
// result or hint in it, holds a nil block: AppendJSON, which cannot fail,
// writes such a block as null, and no reader (the reference's pydantic
// models included) accepts a null block. json.Marshal and everything built
// on MarshalJSON therefore refuse such a Msg instead of writing it.
func (m *Msg) MarshalJSON() ([]byte, error) {
	if err := noNilBlocks("content", m.Content); err != nil {
		return nil, err
	}
	return m.AppendJSON(make([]byte, 0, 512)), nil
}

func noNilBlocks(path string, content []block.Block) error {
	for i, b := range content {
		var body []block.Block
		switch b := b.(type) {
		case *block.ToolResult:
			if b != nil {
				body = b.Output.Blocks
			}
		case *block.Hint:
			if b != nil {
				body = b.Hint.Blocks
			}
		}
		if block.IsNil(b) {
			return fmt.Errorf("%s[%d]: %w", path, i, ErrNilBlock)
		}
		if err := noNilBlocks(fmt.Sprintf("%s[%d].body", path, i), body); err != nil {
			return err
		}
	}
	return nil
}

// UnmarshalJSON decodes a message and checks the role rules. Missing ids and
// created_at take fresh values from stamp.Default, as the reference's
// defaults do.
func (m *Msg) UnmarshalJSON(data []byte) error {
	o, err := wire.Borrow("message", data)
	if err != nil {
		return err
	}
	defer o.Release()
	*m = Msg{}
	o.String("name", &m.Name)
	var role string
	o.String("role", &role)
	m.Role = event.Role(role)
	o.StringOr("id", &m.ID, "")
	o.Map("metadata", &m.Metadata)
	o.StringOr("created_at", &m.CreatedAt, "")
	o.Nullable("finished_at", &m.FinishedAt.String, &m.FinishedAt.Valid)
	var reason string
	o.NullString("finished_reason", &reason)
	m.FinishedReason = event.ReplyReason(reason)
	if o.Err() == nil && reason != "" && !m.FinishedReason.Valid() {
		o.Fail("finished_reason", "unknown value %q", reason)
	}
	o.Map("structured_output", &m.StructuredOutput)
	content := o.Array("content", true)
	if raw, ok := o.Raw("usage"); ok && raw != nil {
		u, err := wire.Borrow("usage", raw)
		if err != nil {
			return err
		}
		defer u.Release()
		m.Usage = new(Usage)
		u.Int("input_tokens", &m.Usage.InputTokens, true, 0)
		u.Int("output_tokens", &m.Usage.OutputTokens, true, 0)
		u.Int("cache_input_tokens", &m.Usage.CacheInputTokens, false, 0)
		u.Int("cache_creation_input_tokens", &m.Usage.CacheCreationInputTokens, false, 0)
		if err := u.Err(); err != nil {
			return err
		}
	}
	if raw, ok := o.Raw("error"); ok && raw != nil {
		m.Error = new(event.ErrorInfo)
		if err := m.Error.UnmarshalJSON(raw); err != nil {
			return err
		}
	}
	if err := o.Err(); err != nil {
		return err
	}
	m.Content = make([]block.Block, 0, len(content))
	for i, raw := range content {
		b, err := block.Decode(raw)
		if err != nil {
			return fmt.Errorf("message content[%d]: %w", i, err)
		}
		m.Content = append(m.Content, b)
	}
	// Only absent keys take defaults; an explicit "" stays "".
	if !o.Has("id") {
		m.ID = stamp.Default.NewID()
	}
	if !o.Has("created_at") {
		m.CreatedAt = stamp.Default.Now()
	}
	return m.Validate()
}
