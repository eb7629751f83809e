package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
)

// ChatModel is a streaming chat model.
type ChatModel interface {
	// Name is the model's name as reported in MODEL_CALL_START.
	Name() string
	// Stream makes one call. See the package documentation for the error
	// and cancellation contract. The Parts slice of a yielded Chunk is only
	// valid until the next iteration step and is read-only to the
	// consumer (see Chunk); strings in it may be kept.
	Stream(ctx context.Context, req *Request) iter.Seq2[Chunk, error]
}

// Request is one model call's input.
type Request struct {
	// Messages is the whole history: the system prompt first (as a system
	// Msg), then the conversation.
	Messages []*message.Msg
	// Tools are the tools the model may call, in order.
	Tools []ToolSchema
	// ToolChoice restricts tool use; nil means the provider default (auto).
	ToolChoice *ToolChoice
	// Extra carries per-call provider parameters (temperature, max tokens,
	// reasoning effort, extra_body …), passed through by adapters that know
	// them.
	Extra map[string]any
}

// ToolSchema describes one tool in the canonical OpenAI-function shape.
type ToolSchema struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the tool's input (an object schema).
	Parameters json.RawMessage
}

// MarshalJSON writes {"type":"function","function":{name,description,parameters}}.
func (s ToolSchema) MarshalJSON() ([]byte, error) {
	params := s.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return json.Marshal(struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}{Type: "function", Function: struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}{s.Name, s.Description, params}})
}

// Tool-choice modes other than a tool's name.
const (
	ChoiceAuto     = "auto"
	ChoiceNone     = "none"
	ChoiceRequired = "required"
)

// ToolChoice is the reference's {"mode", "tools"}: Mode is auto, none,
// required or the name of the one tool that must be called; Tools, when
// non-nil, narrows the schemas offered.
type ToolChoice struct {
	Mode  string
	Tools []string
}

// MarshalJSON writes {"mode":…,"tools":[…]|null}.
func (c ToolChoice) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Mode  string   `json:"mode"`
		Tools []string `json:"tools"`
	}{c.Mode, c.Tools})
}

// Forced reports the tool name a choice forces, if any.
func (c *ToolChoice) Forced() (string, bool) {
	if c == nil {
		return "", false
	}
	switch c.Mode {
	case "", ChoiceAuto, ChoiceNone, ChoiceRequired:
		return "", false
	}
	return c.Mode, true
}

// ErrToolChoice is returned for a tool choice naming a tool not offered.
var ErrToolChoice = errors.New("invalid tool choice")

// Validate checks that the choice only names offered tools.
func (c *ToolChoice) Validate(tools []ToolSchema) error {
	if c == nil {
		return nil
	}
	has := func(name string) bool {
		for _, t := range tools {
			if t.Name == name {
				return true
			}
		}
		return false
	}
	for _, n := range c.Tools {
		if !has(n) {
			return fmt.Errorf("%w: tool %q is not among the offered tools", ErrToolChoice, n)
		}
	}
	if name, ok := c.Forced(); ok && !has(name) {
		return fmt.Errorf("%w: mode %q is not an offered tool", ErrToolChoice, name)
	}
	return nil
}

// PartKind says what a Part carries.
type PartKind uint8

// Part kinds.
const (
	PartText     PartKind = iota + 1 // Text is a text fragment
	PartThinking                     // Text is a reasoning fragment; Extra may carry signatures
	PartToolCall                     // ID is the call id, Name the tool, Text an argument fragment
	PartData                         // Text is one independently base64-encoded chunk, or URL is set
)

func (k PartKind) String() string {
	switch k {
	case PartText:
		return "text"
	case PartThinking:
		return "thinking"
	case PartToolCall:
		return "tool_call"
	case PartData:
		return "data"
	}
	return fmt.Sprintf("PartKind(%d)", k)
}

// Part is one block's fragment within a chunk.
type Part struct {
	Kind PartKind
	// ID is the block's key, stable for the call: the provider's block id,
	// item id or index for text, thinking and data; the tool-call id for
	// tool calls (it becomes the ToolCallBlock and ToolResultBlock id).
	ID   string
	Text string
	// Name is the tool's name (tool calls; repeated fragments may leave it
	// empty) or the file name (data).
	Name      string
	MediaType string // data
	URL       string // data by reference
	// Extra carries provider fields of thinking blocks (signature,
	// redacted_thinking_data, reasoning_item_id, thought_signature …) and of
	// tool calls (e.g. Gemini's thought_signature). A later value for the
	// same key replaces an earlier one.
	Extra []block.Extra
}

// Chunk is one step of a model stream: some parts, and optionally the
// latest usage report (cumulative for the call so far).
//
// A consumer reads a chunk's Parts and never writes to them (nor appends
// to the slice): a model may hand out the same parts again, as
// model/scripted hands every replay of a turn its compiled parts, and
// a middleware's change would then reach the next call. A consumer that
// wants other parts builds its own slice.
type Chunk struct {
	Parts []Part
	Usage *message.Usage
	// Final marks a closing chunk that carries the complete response
	// content rather than a delta (the reference's explicit is_last chunk).
	// Most adapters never send one; the Accumulator builds the final
	// content from the deltas instead.
	Final bool
}

// Error is a failed model call, classified like the reference's ErrorType.
type Error struct {
	Type       event.ErrorType
	Provider   string
	Status     int           // HTTP status, if any
	Message    string        // the provider's message, kept verbatim
	RetryAfter time.Duration // from Retry-After, if given
	// Attempts is how many HTTP requests the adapter made for the call,
	// its own retries included; 0 when no request was counted (a setup
	// error, a scripted model).
	Attempts int
	Err      error // the underlying error, if any
}

func (e *Error) Error() string {
	s := string(e.Type)
	if e.Provider != "" {
		s = e.Provider + ": " + s
	}
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		s += ": " + e.Message
	} else if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether retrying the same call may succeed: rate limits,
// upstream 5xx and connection failures.
func (e *Error) Retryable() bool {
	switch e.Type {
	case event.ErrRateLimit, event.ErrUpstream, event.ErrConnection:
		return true
	}
	return false
}

// Info converts an error for a REPLY_END event
// (event.NewReplyEndError): the type of the *Error it wraps, else unknown,
// and the whole error text, so that the context around a model failure
// ("model … failed after 4 attempt(s): …") is kept.
func Info(err error) *event.ErrorInfo {
	var me *Error
	if errors.As(err, &me) {
		return &event.ErrorInfo{Type: me.Type, Message: err.Error()}
	}
	return &event.ErrorInfo{Type: event.ErrUnknown, Message: err.Error()}
}
