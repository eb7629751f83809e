package tool

import (
	"github.com/agentscope-go/agentscope/block"
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
	// IsLast is informational only (the reference defaults it to true and
	// never reads it).
	IsLast bool
}

// Text returns a running chunk with one text block.
func Text(s string) Chunk { panic("unimplemented") }

// ErrorChunk returns an error chunk whose text is msg.
func ErrorChunk(msg string) Chunk { panic("unimplemented") }

// AppendJSON appends the reference's ToolChunk dump:
// {"content":[…],"state":…,"is_last":…,"metadata":{…},"id":…}.
func (c Chunk) AppendJSON(dst []byte) []byte { panic("unimplemented") }

// MarshalJSON returns the ToolChunk dump.
func (c Chunk) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil), nil }

// Response folds a call's chunks into its result (the reference's
// ToolResponse):
//
//   - a block whose id is already in the response continues it: text is
//     appended, base64 data is merged by bytes (decode, concatenate,
//     encode; plain string concatenation if either side is not valid
//     base64); URL or mixed data with a known id is a *MergeError; the
//     same id on a block of another kind is appended under a fresh id;
//   - a block with a new (or empty) id is appended as a copy;
//   - state: an error chunk makes the response error for good; otherwise
//     interrupted and denied chunks override; running and success never
//     change it (it starts as success);
//   - metadata is merged key by key;
//   - finally ([Response.Result]) consecutive text blocks are merged into
//     the first one.
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
func NewResponse(callID string, src stamp.Source) *Response { panic("unimplemented") }

// Append folds one chunk in. On a *MergeError the response is unchanged
// except for the blocks of c before the failing one.
func (r *Response) Append(c Chunk) error { panic("unimplemented") }

// Finish merges consecutive text blocks; Result and AppendJSON call it.
func (r *Response) Finish() { panic("unimplemented") }

// Result returns the finished response as the tool_result block the agent
// stores (output as a list of blocks).
func (r *Response) Result(name string) *block.ToolResult { panic("unimplemented") }

// AppendJSON appends the reference's ToolResponse dump:
// {"content":[…],"state":…,"metadata":{…},"id":…}.
func (r *Response) AppendJSON(dst []byte) []byte { panic("unimplemented") }

// MarshalJSON returns the ToolResponse dump.
func (r *Response) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }
