package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/stamp"
)

// Name is the demo model's name.
const Name = "demo"

// Model is the keyless demo model. It is safe for concurrent use.
type Model struct {
	src   stamp.Source
	delay time.Duration
}

// Option configures a Model.
type Option func(*Model)

// WithStamp sets the source of tool-call and block ids (default stamp.Default).
func WithStamp(src stamp.Source) Option { return func(m *Model) { m.src = src } }

// WithDelay pauses between chunks, so a terminal shows the text streaming.
func WithDelay(d time.Duration) Option { return func(m *Model) { m.delay = d } }

// New returns the demo model.
func New(opts ...Option) *Model {
	m := &Model{src: stamp.Default}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Name returns "demo".
func (m *Model) Name() string { return Name }

// The prompt patterns are compiled on first use, not when serve starts
// (BENCHMARKS.md, memory at start).

// arithmetic finds an expression with at least one operator between
// numbers, e.g. "12*(3+4)" or "2.5 / 5".
var arithmetic = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[-(]*\d+(?:\.\d+)?\)*(?:\s*[-+*/]\s*[-(]*\d+(?:\.\d+)?\)*)+`)
})

// waitWords asks for a wait of some seconds, e.g. "wait 30 seconds".
var waitWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bwait (?:for )?(\d+(?:\.\d+)?) ?(?:s|secs?|seconds?)\b`)
})

var timeWords = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(time|date|clock|today)\b`) })

// noteWords asks for a note; the rest of the prompt after them is the note.
var noteWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:save|remember|write down|note down|take a note)\b(?: a| the)?(?: note)?(?: that)?[:,]?\s*`)
})

// Stream answers one request; see the package documentation.
func (m *Model) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		plan := m.plan(req)
		input := int64(promptBytes(req) / 4)
		var output int64
		for i, c := range plan {
			if err := ctx.Err(); err != nil {
				yield(model.Chunk{}, err)
				return
			}
			if i > 0 && m.delay > 0 {
				t := time.NewTimer(m.delay)
				select {
				case <-ctx.Done():
					t.Stop()
					yield(model.Chunk{}, ctx.Err())
					return
				case <-t.C:
				}
			}
			for _, p := range c.Parts {
				output += int64(len(p.Text))
			}
			if i == len(plan)-1 {
				c.Usage = &message.Usage{InputTokens: input, OutputTokens: max(output/4, 1)}
			}
			if !yield(c, nil) {
				return
			}
		}
	}
}

// plan decides the whole answer up front, as chunks.
func (m *Model) plan(req *model.Request) []model.Chunk {
	if results := pendingResults(req.Messages); len(results) > 0 {
		return words(model.PartText, m.src.NewID(), answerFrom(results))
	}
	prompt := lastUserText(req.Messages)
	offered := func(name string) bool {
		for _, t := range req.Tools {
			if t.Name == name {
				return true
			}
		}
		return false
	}
	if expr := strings.TrimSpace(arithmetic().FindString(prompt)); expr != "" && offered("calculate") {
		args, _ := json.Marshal(map[string]string{"expression": expr})
		return m.callTool("calculate", string(args),
			fmt.Sprintf("The user wants %s worked out. Arithmetic is exactly what the calculate tool is for, so I will not guess.", expr))
	}
	if loc := noteWords().FindStringIndex(prompt); loc != nil && offered("save_note") {
		note := strings.TrimSpace(prompt[loc[1]:])
		if note == "" {
			note = prompt
		}
		args, _ := json.Marshal(map[string]string{"text": note})
		return m.callTool("save_note", string(args),
			"The user wants a note saved. Saving changes something, so the runtime will ask them before the tool runs.")
	}
	if w := waitWords().FindStringSubmatch(prompt); w != nil && offered("wait") {
		secs, _ := strconv.ParseFloat(w[1], 64)
		args, _ := json.Marshal(map[string]float64{"seconds": secs})
		return m.callTool("wait", string(args), "The user wants me to wait "+w[1]+" seconds. The wait tool does exactly that.")
	}
	if timeWords().MatchString(prompt) && offered("get_time") {
		return m.callTool("get_time", `{}`, "The user asks about the time. I cannot know it myself; the get_time tool can.")
	}
	var tools []string
	for _, t := range req.Tools {
		tools = append(tools, t.Name)
	}
	text := fmt.Sprintf("Hello! I am the demo model of agentscope-go. I need no API key and know nothing, "+
		"but I stream like a real model, so you can watch the runtime work. You said: %q.", prompt)
	if len(tools) > 0 {
		text += fmt.Sprintf(" I can use these tools: %s. Ask me to calculate 12*(3+4), or what time it is.", strings.Join(tools, ", "))
		if offered("save_note") {
			text += " Or ask me to save a note: I will ask for your permission first."
		}
	} else {
		text += " No tools were offered to me, so I can only talk."
	}
	return words(model.PartText, m.src.NewID(), text)
}

// callTool thinks aloud, then calls a tool with its JSON arguments split
// into fragments, as providers stream them.
func (m *Model) callTool(name, args, thought string) []model.Chunk {
	chunks := words(model.PartThinking, m.src.NewID(), thought)
	// Provider call ids are short; a custom stamp.Source may hand out ids
	// shorter than the 24 characters kept here.
	id := m.src.NewID()
	id = "call_" + id[:min(len(id), 24)]
	for i, frag := range fragments(args, 3) {
		p := model.Part{Kind: model.PartToolCall, ID: id, Text: frag}
		if i == 0 {
			p.Name = name
		}
		chunks = append(chunks, model.Chunk{Parts: []model.Part{p}})
	}
	return chunks
}

// words splits text into word-sized chunks of one block.
func words(kind model.PartKind, id, text string) []model.Chunk {
	var out []model.Chunk
	start := 0
	for i := 1; i <= len(text); i++ {
		if i == len(text) || text[i] == ' ' {
			out = append(out, model.Chunk{Parts: []model.Part{{Kind: kind, ID: id, Text: text[start:i]}}})
			start = i
		}
	}
	return out
}

// fragments cuts s into at most n pieces of similar length.
func fragments(s string, n int) []string {
	size := max((len(s)+n-1)/n, 1)
	var out []string
	for len(s) > size {
		out = append(out, s[:size])
		s = s[size:]
	}
	return append(out, s)
}

// pendingResults returns the tool results of the reply in progress that
// no text has answered yet: the tail of the last message when it is an
// assistant message ending in tool results.
func pendingResults(msgs []*message.Msg) []*block.ToolResult {
	if len(msgs) == 0 {
		return nil
	}
	last := msgs[len(msgs)-1]
	if last.Role != event.RoleAssistant {
		return nil
	}
	var out []*block.ToolResult
	for i := len(last.Content) - 1; i >= 0; i-- {
		r, ok := last.Content[i].(*block.ToolResult)
		if !ok {
			if _, isCall := last.Content[i].(*block.ToolCall); isCall {
				continue
			}
			break
		}
		out = append(out, r)
	}
	slices.Reverse(out) // collected from the tail backwards
	return out
}

func answerFrom(results []*block.ToolResult) string {
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteString(" ")
		}
		text := resultText(r)
		switch r.State {
		case block.ResultError, block.ResultDenied, block.ResultInterrupted:
			fmt.Fprintf(&b, "The %s tool did not give me an answer (%s): %s.", r.Name, r.State, strings.TrimRight(text, "."))
		default:
			fmt.Fprintf(&b, "The %s tool says: %s.", r.Name, strings.TrimRight(text, "."))
		}
	}
	b.WriteString(" That is all I can tell from it.")
	return b.String()
}

func resultText(r *block.ToolResult) string {
	if r.Output.Plain {
		return r.Output.Text
	}
	var parts []string
	for _, b := range r.Output.Blocks {
		if t, ok := b.(*block.Text); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}

func lastUserText(msgs []*message.Msg) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == event.RoleUser {
			if t, ok := msgs[i].TextContent(" "); ok {
				return t
			}
		}
	}
	return ""
}

func promptBytes(req *model.Request) int {
	n := 0
	for _, m := range req.Messages {
		if t, ok := m.TextContent(" "); ok {
			n += len(t)
		}
	}
	return n
}
