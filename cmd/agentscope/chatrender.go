package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
)

// ANSI escapes, written only to a terminal.
const (
	ansiDim   = "\x1b[2m"
	ansiReset = "\x1b[0m"
)

// renderer writes a session's events for a person to read: the text as
// it streams, thinking dimmed, each tool call with its arguments as they
// stream and each tool result. It keeps only what it needs to lay the
// output out: whether the cursor is at the start of a line, and the names
// of the calls it has seen.
type renderer struct {
	w       io.Writer
	color   bool
	midLine bool              // the last byte written was not a newline
	dimmed  bool              // a thinking block's dimming is on
	names   map[string]string // tool-call id → tool name
}

func newRenderer(w io.Writer, color bool) *renderer {
	return &renderer{w: w, color: color, names: map[string]string{}}
}

func (r *renderer) write(s string) {
	if s == "" {
		return
	}
	io.WriteString(r.w, s)
	r.midLine = !strings.HasSuffix(s, "\n")
}

// newline ends the current line, if one is open.
func (r *renderer) newline() {
	if r.midLine {
		r.write("\n")
	}
}

func (r *renderer) dim(s string) {
	if r.color && s != "" {
		s = ansiDim + s + ansiReset
	}
	r.write(s)
}

// startDim turns dimming on until endDim, written once around a block
// rather than around each delta. The escapes do not move the cursor, so
// they leave midLine alone.
func (r *renderer) startDim() {
	if r.color && !r.dimmed {
		io.WriteString(r.w, ansiDim)
		r.dimmed = true
	}
}

func (r *renderer) endDim() {
	if r.dimmed {
		io.WriteString(r.w, ansiReset)
		r.dimmed = false
	}
}

func (r *renderer) prompt() {
	r.newline()
	r.write("> ")
}

func (r *renderer) confirmPrompt(call *block.ToolCall, q string) {
	r.newline()
	r.write(fmt.Sprintf("? %s(%s) needs your permission\n", call.Name, call.Input))
	for _, rule := range call.SuggestedRules {
		what := rule.ToolName
		if rule.RuleContent.Valid {
			what += "(" + rule.RuleContent.String + ")"
		}
		r.write(fmt.Sprintf("  [a]lways: %s %s\n", rule.Behavior, what))
	}
	r.write(q)
}

// event renders one event of the stream.
func (r *renderer) event(ev event.Event) {
	switch ev.(type) {
	case *event.ThinkingBlockStart, *event.ThinkingBlockDelta:
	default: // whatever ends a thinking block, even without its end event
		r.endDim()
	}
	switch e := ev.(type) {
	case *event.TextBlockStart:
		r.newline()
	case *event.TextBlockDelta:
		r.write(e.Delta)
	case *event.TextBlockEnd:
		r.newline()
	case *event.ThinkingBlockStart:
		r.newline()
		r.startDim()
	case *event.ThinkingBlockDelta:
		r.startDim()
		r.write(e.Delta)
	case *event.ThinkingBlockEnd:
		r.newline()
	case *event.ToolCallStart:
		r.names[e.ToolCallID] = e.ToolCallName
		r.newline()
		r.write("→ " + e.ToolCallName + " ")
	case *event.ToolCallDelta:
		r.write(e.Delta)
	case *event.ToolCallEnd:
		r.newline()
	case *event.ToolResultStart:
		r.newline()
		r.write("← " + e.ToolCallName + ": ")
	case *event.ToolResultTextDelta:
		r.write(e.Delta)
	case *event.ToolResultDataDelta:
		r.write("[" + e.MediaType + " data]")
	case *event.ToolResultEnd:
		if e.State != "" && e.State != block.ResultSuccess {
			r.write(" [" + string(e.State) + "]")
		}
		r.newline()
	case *event.DataBlockStart:
		r.newline()
		r.write("[" + e.MediaType + " data]")
		r.newline()
	case *event.ExceedMaxIters:
		r.newline()
		r.write("[the reply reached its iteration limit]\n")
	case *event.ReplyEnd:
		r.newline()
		switch e.FinishedReason {
		case "", event.ReplyCompleted:
		default:
			msg := "[reply " + string(e.FinishedReason)
			if e.Error != nil {
				msg += ": " + e.Error.Message
			}
			r.write(msg + "]\n")
		}
	}
}

// message renders one stored message of the transcript, for the history
// of a resumed session. Unknown blocks are skipped.
func (r *renderer) message(raw json.RawMessage) {
	var m struct {
		Role    string `json:"role"`
		Name    string `json:"name"`
		Content []struct {
			Type     string          `json:"type"`
			Text     string          `json:"text"`
			Thinking string          `json:"thinking"`
			Name     string          `json:"name"`
			Input    string          `json:"input"`
			Output   json.RawMessage `json:"output"`
			State    string          `json:"state"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return
	}
	r.newline()
	if m.Role == "user" {
		r.write("> ")
	}
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			r.write(b.Text)
			r.newline()
		case "thinking":
			r.dim(b.Thinking)
			r.newline()
		case "tool_call":
			r.write("→ " + b.Name + " " + b.Input + "\n")
		case "tool_result":
			r.write("← " + b.Name + ": " + outputText(b.Output))
			if b.State != "" && b.State != string(block.ResultSuccess) {
				r.write(" [" + b.State + "]")
			}
			r.write("\n")
		}
	}
}

// outputText is a tool result's output as text: a plain string or the
// text blocks of a list.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var b strings.Builder
	for _, x := range blocks {
		if x.Type == "text" {
			b.WriteString(x.Text)
		}
	}
	return b.String()
}
