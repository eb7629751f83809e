package agui

import (
	"bytes"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/wire"
)

// ExceedMaxItersMessage is the message of the RUN_ERROR that a reply ended
// on its iteration limit becomes, as the reference writes it.
const ExceedMaxItersMessage = "The agent exceeded the maximum reasoning-acting iterations"

// defaultStep is the step name the reference's STEP_FINISHED carries when
// no MODEL_CALL_START came before it.
const defaultStep = "model_call"

// Converter is the reference's conversion of a native event stream into
// AG-UI events, the one GET /sessions/{id}/stream?format=agui sends: each
// native event becomes exactly one AG-UI event (the package documentation
// has the table).
//
// It remembers, per stream, the model of the last MODEL_CALL_START (for
// STEP_FINISHED) and the text of each tool result (for TOOL_CALL_RESULT),
// so a stream needs a Converter of its own; the reference keeps that state
// in its middleware, shared by every stream of the process. A Converter is
// not safe for concurrent use.
type Converter struct {
	model    string
	results  map[string][]byte // tool_call_id -> the result's text so far
	scratch  []byte
	chunkBuf []byte
}

// NewConverter returns a Converter for one stream.
func NewConverter() *Converter { return &Converter{model: defaultStep} }

// Append appends the AG-UI event for e to dst, one JSON object followed by
// '\n', and returns the extended buffer (unchanged for a nil e).
func (c *Converter) Append(dst []byte, e event.Event) []byte {
	if e == nil {
		return dst
	}
	switch e := e.(type) {
	case *event.ReplyStart:
		dst = head(dst, "RUN_STARTED")
		dst = str(dst, "threadId", e.SessionID)
		dst = str(dst, "runId", e.ReplyID)
		return end(dst)
	case *event.ReplyEnd:
		// Only the iteration limit is an error here: a reply that failed
		// or was interrupted still "finished", as the reference says.
		if e.FinishedReason == event.ReplyExceedMaxIters {
			dst = head(dst, "RUN_ERROR")
			dst = str(dst, "message", ExceedMaxItersMessage)
			dst = str(dst, "code", string(event.ReplyExceedMaxIters))
			return end(dst)
		}
		dst = head(dst, "RUN_FINISHED")
		dst = str(dst, "threadId", e.SessionID)
		dst = str(dst, "runId", e.ReplyID)
		return end(dst)
	case *event.ModelCallStart:
		c.model = e.ModelName
		dst = head(dst, "STEP_STARTED")
		dst = str(dst, "stepName", e.ModelName)
		return end(dst)
	case *event.ModelCallEnd:
		dst = head(dst, "STEP_FINISHED")
		dst = str(dst, "stepName", c.model)
		return end(dst)
	case *event.TextBlockStart:
		return textStart(dst, e.BlockID)
	case *event.TextBlockDelta:
		return delta(dst, "TEXT_MESSAGE_CONTENT", "messageId", e.BlockID, e.Delta)
	case *event.TextBlockEnd:
		return idOnly(dst, "TEXT_MESSAGE_END", "messageId", e.BlockID)
	case *event.ThinkingBlockStart:
		return reasoningStart(dst, e.BlockID)
	case *event.ThinkingBlockDelta:
		return delta(dst, "REASONING_MESSAGE_CONTENT", "messageId", e.BlockID, e.Delta)
	case *event.ThinkingBlockEnd:
		return idOnly(dst, "REASONING_MESSAGE_END", "messageId", e.BlockID)
	case *event.ToolCallStart:
		return toolCallStart(dst, e.ToolCallID, e.ToolCallName, e.ReplyID)
	case *event.ToolCallDelta:
		return delta(dst, "TOOL_CALL_ARGS", "toolCallId", e.ToolCallID, e.Delta)
	case *event.ToolCallEnd:
		return idOnly(dst, "TOOL_CALL_END", "toolCallId", e.ToolCallID)
	case *event.ToolResultTextDelta:
		if c.results == nil {
			c.results = map[string][]byte{}
		}
		c.results[e.ToolCallID] = append(c.results[e.ToolCallID], e.Delta...)
		return appendCustom(dst, snake(c.chunkBuf[:0], e.Type()), e, &c.scratch)
	case *event.ToolResultEnd:
		text := c.results[e.ToolCallID]
		delete(c.results, e.ToolCallID)
		// The reference names the reply as the result's message (every
		// result of a reply then shares it: Run does better).
		return toolResult(dst, e.ReplyID, e, text, "")
	case *event.ToolResultStart, *event.ToolResultDataDelta,
		*event.DataBlockStart, *event.DataBlockDelta, *event.DataBlockEnd,
		*event.ExceedMaxIters, *event.RequireUserConfirm, *event.RequireExternalExecution,
		*event.UserConfirmResult, *event.ExternalExecutionResult:
		return appendCustom(dst, snake(c.chunkBuf[:0], e.Type()), e, &c.scratch)
	}
	// HINT_BLOCK, USER_INTERRUPT and CUSTOM have no case in the reference:
	// its fallback names them all "unknown", with the whole event as value.
	return appendCustom(dst, []byte("unknown"), e, &c.scratch)
}

// AppendChunk converts one chunk of a native SSE body the way the
// reference's middleware rewrites a text/event-stream response, and
// appends the result to dst:
//
//   - a chunk with "data:" lines has each line whose payload is a native
//     event replaced by "data: " and the AG-UI event, its line ending kept
//     (LF or CRLF); its other lines (id:, comments, blank lines, data that
//     is not an event) are kept as they are;
//   - otherwise a chunk that is one native event (bare JSON) becomes the
//     AG-UI event and a '\n';
//   - anything else (a ":" heartbeat, a partial frame) is copied unchanged.
//
// Lines are split at '\n' only, as SSE does; the reference's splitlines
// also splits at U+2028 and other separators, which cuts a data line that
// holds one in its text and then leaves it unconverted.
func (c *Converter) AppendChunk(dst, chunk []byte) []byte {
	mark := len(dst)
	converted := false
	for rest := chunk; len(rest) > 0; {
		var line []byte
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			line, rest = rest, nil
		}
		payload, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			dst = append(dst, line...)
			continue
		}
		content, ending := splitEnding(payload)
		content = bytes.TrimPrefix(content, []byte(" "))
		e, err := event.Decode(content)
		if err != nil {
			dst = append(dst, line...)
			continue
		}
		dst = append(dst, "data: "...)
		dst = c.Append(dst, e)
		dst = append(dst[:len(dst)-1], ending...) // the event's '\n' gives way to the line's ending
		converted = true
	}
	if converted {
		return dst
	}
	dst = dst[:mark]
	if e, err := event.Decode(bytes.TrimSpace(chunk)); err == nil {
		return c.Append(dst, e)
	}
	return append(dst, chunk...)
}

func splitEnding(line []byte) (content, ending []byte) {
	if n := len(line); n >= 2 && line[n-2] == '\r' && line[n-1] == '\n' {
		return line[:n-2], line[n-2:]
	}
	if n := len(line); n >= 1 && line[n-1] == '\n' {
		return line[:n-1], line[n-1:]
	}
	return line, nil
}

func textStart(dst []byte, id string) []byte {
	dst = head(dst, "TEXT_MESSAGE_START")
	dst = str(dst, "messageId", id)
	dst = str(dst, "role", "assistant")
	return end(dst)
}

func reasoningStart(dst []byte, id string) []byte {
	dst = head(dst, "REASONING_MESSAGE_START")
	dst = str(dst, "messageId", id)
	dst = str(dst, "role", "reasoning")
	return end(dst)
}

func toolCallStart(dst []byte, id, name, parent string) []byte {
	dst = head(dst, "TOOL_CALL_START")
	dst = str(dst, "toolCallId", id)
	dst = str(dst, "toolCallName", name)
	dst = str(dst, "parentMessageId", parent)
	return end(dst)
}

func delta(dst []byte, typ, idKey, id, d string) []byte {
	dst = head(dst, typ)
	dst = str(dst, idKey, id)
	dst = str(dst, "delta", d)
	return end(dst)
}

func idOnly(dst []byte, typ, idKey, id string) []byte {
	dst = head(dst, typ)
	dst = str(dst, idKey, id)
	return end(dst)
}

// toolResult appends TOOL_CALL_RESULT, role left out when "". The content
// is the result's text, or its state when it streamed none.
func toolResult(dst []byte, messageID string, e *event.ToolResultEnd, text []byte, role string) []byte {
	dst = head(dst, "TOOL_CALL_RESULT")
	dst = str(dst, "messageId", messageID)
	dst = str(dst, "toolCallId", e.ToolCallID)
	dst = key(dst, "content")
	if len(text) > 0 {
		dst = wire.AppendString(dst, string(text))
	} else {
		dst = wire.AppendString(dst, string(e.State))
	}
	if role != "" {
		dst = str(dst, "role", role)
	}
	return end(dst)
}
