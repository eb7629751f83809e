package tool

import (
	"encoding/base64"
	"fmt"
	"maps"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/stamp"
)

// Chunk is one increment of a tool's output (the reference's ToolChunk).
type Chunk struct {
	// Content holds *block.Text and *block.Data blocks. A block that
	// continues an earlier one (more text, more bytes of the same image)
	// carries the same block id.
	Content []block.Block
	// State is the result state this chunk reports; "" means running,
	// which never changes the folded result's state.
	State block.ToolResultState
	// Metadata is merged key by key into the result's metadata.
	Metadata map[string]any
	// ID identifies the chunk; [Run] fills it when empty.
	ID string
}

// Text returns a running chunk with one text block.
func Text(s string) Chunk {
	return Chunk{Content: []block.Block{block.NewText(s)}}
}

// ErrorChunk returns an error chunk whose text is msg.
func ErrorChunk(msg string) Chunk {
	return Chunk{Content: []block.Block{block.NewText(msg)}, State: block.ResultError}
}

// InterruptedChunk returns the interrupted chunk [Run] ends a cancelled
// call with.
func InterruptedChunk() Chunk {
	return Chunk{Content: []block.Block{block.NewText(InterruptedText)}, State: block.ResultInterrupted}
}

// state returns the wire state ("" is running).
func (c Chunk) state() block.ToolResultState {
	if c.State == "" {
		return block.ResultRunning
	}
	return c.State
}

// AppendJSON appends the reference's ToolChunk dump:
// {"content":[…],"state":…,"is_last":…,"metadata":{…},"id":…}.
func (c Chunk) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"content":`...)
	dst = block.AppendList(dst, c.Content)
	dst = append(dst, `,"state":`...)
	dst = wire.AppendString(dst, string(c.state()))
	// The reference's is_last defaults to true and is never read.
	dst = append(dst, `,"is_last":true`...)
	dst = append(dst, `,"metadata":`...)
	dst = wire.AppendObject(dst, c.Metadata)
	dst = append(dst, `,"id":`...)
	dst = wire.AppendString(dst, c.ID)
	return append(dst, '}')
}

// MarshalJSON returns the ToolChunk dump.
func (c Chunk) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil), nil }

// Response folds a call's chunks into its result (the reference's
// ToolResponse):
//
//   - a block whose id is already in the response continues it: text is
//     appended, base64 data is merged by bytes (decode, concatenate,
//     encode; plain string concatenation if either side is not valid
//     base64) taking the newer media type and name; URL or mixed data with
//     a known id is a *MergeError; the same id on a block of another kind
//     is appended under a fresh id;
//   - a block with a new (or empty) id is appended as a copy;
//   - only text and data blocks are allowed (nil ones are skipped);
//   - state: an error chunk makes the response error for good; otherwise
//     interrupted and denied chunks override; running and success never
//     change it (it starts as success);
//   - metadata is merged key by key;
//   - after each chunk, consecutive text blocks are merged into the first
//     one (whose id survives).
//
// A Response is not safe for concurrent use.
type Response struct {
	// ID is the tool call's id.
	ID       string
	Content  []block.Block
	State    block.ToolResultState
	Metadata map[string]any

	src stamp.Source
}

// NewResponse returns an empty success response for the call id. src
// stamps blocks that arrive without an id or created_at; nil means
// stamp.Default.
func NewResponse(callID string, src stamp.Source) *Response {
	if src == nil {
		src = stamp.Default
	}
	return &Response{ID: callID, State: block.ResultSuccess, Metadata: map[string]any{}, src: src}
}

// Append folds one chunk in. On a *MergeError the blocks of c before the
// failing one stay folded, its state and metadata are not applied.
func (r *Response) Append(c Chunk) error {
	tail := len(r.Content)
	err := r.appendContent(c.Content)
	r.mergeTexts(tail)
	if err != nil {
		return err
	}
	switch c.State {
	case block.ResultError:
		r.State = block.ResultError
	case block.ResultInterrupted, block.ResultDenied:
		if r.State != block.ResultError {
			r.State = c.State
		}
	}
	if len(c.Metadata) > 0 {
		if r.Metadata == nil {
			r.Metadata = map[string]any{}
		}
		maps.Copy(r.Metadata, c.Metadata)
	}
	return nil
}

func (r *Response) appendContent(bs []block.Block) error {
	for _, b := range bs {
		switch {
		case b == nil:
			continue
		case block.IsNil(b):
			// A typed nil is a bug in the tool, reported like a foreign
			// block rather than crashing the caller.
			return &MergeError{Reason: "a tool result holds no nil " + string(b.Kind()) + " block"}
		}
		switch b.(type) {
		case *block.Text, *block.Data:
		default:
			return &MergeError{BlockID: b.BlockID(), Reason: "a tool result holds only text and data blocks, not " + string(b.Kind())}
		}
		id := b.BlockID()
		at := -1
		if id != "" {
			for i, have := range r.Content {
				if have.BlockID() == id {
					at = i
					break
				}
			}
		}
		if at < 0 {
			c := b.CloneBlock()
			block.Fill(c, r.src)
			r.Content = append(r.Content, c)
			continue
		}
		switch have := r.Content[at].(type) {
		case *block.Text:
			if t, ok := b.(*block.Text); ok {
				have.AppendText(t.Text)
				continue
			}
		case *block.Data:
			if d, ok := b.(*block.Data); ok {
				if err := mergeData(have, d); err != nil {
					return err
				}
				continue
			}
		}
		// Same id on another kind of block: keep both, under a fresh id.
		c := b.CloneBlock()
		setID(c, r.src.NewID())
		block.Fill(c, r.src)
		r.Content = append(r.Content, c)
	}
	return nil
}

func setID(b block.Block, id string) {
	switch v := b.(type) {
	case *block.Text:
		v.ID = id
	case *block.Data:
		v.ID = id
	case *block.Thinking:
		v.ID = id
	case *block.Hint:
		v.ID = id
	}
}

func mergeData(have, add *block.Data) error {
	hs, ok1 := have.Source.(*block.Base64)
	as, ok2 := add.Source.(*block.Base64)
	if !ok1 || !ok2 {
		return &MergeError{BlockID: have.ID, Reason: fmt.Sprintf(
			"cannot append a data block with a URL source or a different source type (%T vs %T)", have.Source, add.Source)}
	}
	if as.MediaType != "" {
		hs.MediaType = as.MediaType
	}
	if add.Name.String != "" {
		have.Name = add.Name
	}
	incoming := as.Data()
	if _, err := hs.Bytes(); err == nil && validBase64(incoming) {
		if err := hs.AppendBase64(incoming); err == nil {
			return nil
		}
	}
	// Either side is not valid base64: the reference concatenates the
	// text.
	have.Source = block.NewBase64(hs.MediaType, hs.Data()+incoming)
	return nil
}

func validBase64(s string) bool {
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}

// mergeTexts merges consecutive text blocks from index from-1 on (earlier
// blocks are already merged: only appended blocks create new neighbours).
func (r *Response) mergeTexts(from int) {
	if from < 1 {
		from = 1
	}
	if from >= len(r.Content) {
		return
	}
	out := r.Content[:from]
	for _, b := range r.Content[from:] {
		if t, ok := b.(*block.Text); ok {
			if last, ok := out[len(out)-1].(*block.Text); ok {
				last.AppendText(t.Text)
				continue
			}
		}
		out = append(out, b)
	}
	clear(r.Content[len(out):])
	r.Content = out
}

// Result returns the response as the tool_result block the agent stores
// (output as a list of blocks, deep-copied).
func (r *Response) Result(name string) *block.ToolResult {
	return &block.ToolResult{
		ID:       r.ID,
		Name:     name,
		Output:   block.BlocksBody(block.CloneList(r.Content)...),
		State:    r.State,
		Metadata: maps.Clone(r.Metadata),
	}
}

// AppendJSON appends the reference's ToolResponse dump:
// {"content":[…],"state":…,"metadata":{…},"id":…}.
func (r *Response) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"content":`...)
	dst = block.AppendList(dst, r.Content)
	dst = append(dst, `,"state":`...)
	dst = wire.AppendString(dst, string(r.State))
	dst = append(dst, `,"metadata":`...)
	dst = wire.AppendObject(dst, r.Metadata)
	dst = append(dst, `,"id":`...)
	dst = wire.AppendString(dst, r.ID)
	return append(dst, '}')
}

// MarshalJSON returns the ToolResponse dump.
func (r *Response) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }
