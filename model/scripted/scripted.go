package scripted

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
)

// Part is one block fragment of a scripted chunk.
type Part struct {
	Kind model.PartKind
	// ID is an explicit block id: the tool-call id (required for tool
	// calls) or a data block's id. Empty for text, thinking and data means
	// the kind's current block of this turn (see Block).
	ID string
	// Block names the block a fragment continues; a new name starts a new
	// block of the same kind. "" is the kind's default block.
	Block     string
	Text      string // text, thinking, a tool call's argument fragment, base64 data
	Name      string // tool name (may be left out after the first fragment); data file name
	MediaType string // data
	URL       string // data by reference
}

// Step is one position of a streamed turn: a chunk (Parts and/or Usage), a
// failure (Err), or a pause.
type Step struct {
	Parts []Part
	Usage *message.Usage
	// Err is yielded at this position; context.Canceled simulates a
	// cancellation inside the provider's stream.
	Err error
	// Pause, when IsPause, waits this long at a cancellable suspension
	// point; a cancellation pending or arriving there ends the stream with
	// the context's error.
	Pause   time.Duration
	IsPause bool
}

// Turn is one model call.
type Turn struct {
	Steps []Step
	// NonStreaming delivers the whole response as one chunk.
	NonStreaming bool
	// Explicit closes the stream with a Final chunk carrying the complete
	// content (the reference's upstream-test style); otherwise only deltas
	// are sent and the consumer accumulates them.
	Explicit bool
	// Err makes the call fail before any chunk.
	Err error
}

// Error is a scripted failure; its text is the scripted message.
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

// ErrNoTurns is returned by a call when the script is used up.
var ErrNoTurns = errors.New("scripted model: no scripted turns left")

// Text is a step with one text fragment.
func Text(s string) Step { return Step{Parts: []Part{{Kind: model.PartText, Text: s}}} }

// Thinking is a step with one reasoning fragment.
func Thinking(s string) Step { return Step{Parts: []Part{{Kind: model.PartThinking, Text: s}}} }

// ToolCall is a step with one tool-call fragment (name may be empty after
// the call's first fragment).
func ToolCall(id, name, input string) Step {
	return Step{Parts: []Part{{Kind: model.PartToolCall, ID: id, Name: name, Text: input}}}
}

// Data is a step with one base64 data fragment; id may be empty.
func Data(id, mediaType, b64 string) Step {
	return Step{Parts: []Part{{Kind: model.PartData, ID: id, MediaType: mediaType, Text: b64}}}
}

// Multi joins the parts of several steps into one chunk (the usage of the
// last step that has one is kept).
func Multi(steps ...Step) Step {
	var out Step
	for _, s := range steps {
		out.Parts = append(out.Parts, s.Parts...)
		if s.Usage != nil {
			out.Usage = s.Usage
		}
	}
	return out
}

// Pause is a cancellable suspension point of d.
func Pause(d time.Duration) Step { return Step{Pause: d, IsPause: true} }

// Fail is a step that breaks the stream with err.
func Fail(err error) Step { return Step{Err: err} }

// WithUsage returns s reporting usage.
func (s Step) WithUsage(input, output int64) Step {
	s.Usage = &message.Usage{InputTokens: input, OutputTokens: output}
	return s
}

// Stream is a streamed turn.
func Stream(steps ...Step) Turn { return Turn{Steps: steps} }

// Reply is a non-streaming turn: its steps are joined into one response.
func Reply(steps ...Step) Turn { return Turn{Steps: steps, NonStreaming: true} }

// Failing is a turn whose call fails with err before streaming.
func Failing(err error) Turn { return Turn{Err: err} }

// Call is a request the model received, recorded with WithRecording. The
// fields are JSON snapshots taken when the call started.
type Call struct {
	Messages   []byte // JSON array of the messages
	Tools      []byte // JSON array of tool schemas
	ToolChoice []byte // JSON object or null
}

// Model plays its turns in order. It is safe for concurrent use; each call
// takes the next turn.
type Model struct {
	name   string
	record bool

	mu    sync.Mutex
	turns []compiled
	next  int
	calls []Call
}

// Option configures a Model.
type Option func(*Model)

// WithRecording makes the model keep a JSON snapshot of every request.
func WithRecording() Option { return func(m *Model) { m.record = true } }

// New returns a model named name playing turns. Blocks without an explicit
// id are named "t<turn>-<kind>-<index>" where turn counts from 0 over the
// whole script and index is the block's position in the turn's response.
func New(name string, turns []Turn, opts ...Option) *Model {
	m := &Model{name: name}
	for _, o := range opts {
		o(m)
	}
	m.Append(turns...)
	return m
}

// Append adds turns to the end of the script.
func (m *Model) Append(turns ...Turn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range turns {
		m.turns = append(m.turns, compile(len(m.turns), t))
	}
}

// Name returns the model name.
func (m *Model) Name() string { return m.name }

// Remaining returns how many turns have not been played.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.turns) - m.next
}

// Calls returns the recorded requests (WithRecording).
func (m *Model) Calls() []Call {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Call(nil), m.calls...)
}

// Rewind replays the script from its first turn.
func (m *Model) Rewind() {
	m.mu.Lock()
	m.next = 0
	m.mu.Unlock()
}

// compiled is a turn with block ids resolved.
type compiled struct {
	turn  Turn
	steps []cstep
	final []model.Part   // the complete content, for Explicit and NonStreaming
	usage *message.Usage // the last usage reported
}

type cstep struct {
	parts []model.Part
	usage *message.Usage
	err   error
	pause time.Duration
	isP   bool
}

func kindName(k model.PartKind) string { return k.String() }

func compile(index int, t Turn) compiled {
	c := compiled{turn: t}
	type key struct {
		kind  model.PartKind
		block string
	}
	ids := map[key]string{}
	var order []string // block ids in order of first appearance
	type acc struct {
		part model.Part
		data []byte
		b64  bool
	}
	blocks := map[string]*acc{}
	for _, s := range t.Steps {
		cs := cstep{usage: s.Usage, err: s.Err, pause: s.Pause, isP: s.IsPause}
		if s.Usage != nil {
			u := *s.Usage
			c.usage = &u
		}
		for _, p := range s.Parts {
			id := p.ID
			if id == "" {
				k := key{p.Kind, p.Block}
				if id = ids[k]; id == "" {
					id = "t" + strconv.Itoa(index) + "-" + kindName(p.Kind) + "-" + strconv.Itoa(len(order))
					ids[k] = id
				}
			}
			mp := model.Part{Kind: p.Kind, ID: id, Text: p.Text, Name: p.Name, MediaType: p.MediaType, URL: p.URL}
			cs.parts = append(cs.parts, mp)
			a, ok := blocks[id]
			if !ok {
				a = &acc{part: model.Part{Kind: p.Kind, ID: id, Name: p.Name, MediaType: p.MediaType}}
				blocks[id] = a
				order = append(order, id)
			}
			if p.Name != "" {
				a.part.Name = p.Name
			}
			switch {
			case p.Kind == model.PartData && p.URL != "":
				a.part.URL, a.part.MediaType = p.URL, p.MediaType
			case p.Kind == model.PartData:
				if b, err := base64.StdEncoding.DecodeString(p.Text); err == nil {
					a.data = append(a.data, b...)
					a.b64 = true
				}
			default:
				a.part.Text += p.Text
			}
		}
		c.steps = append(c.steps, cs)
	}
	for _, id := range order {
		a := blocks[id]
		if a.b64 {
			a.part.Text = base64.StdEncoding.EncodeToString(a.data)
		}
		c.final = append(c.final, a.part)
	}
	return c
}

func (m *Model) take(req *model.Request) (compiled, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.record {
		m.calls = append(m.calls, snapshot(req))
	}
	if m.next >= len(m.turns) {
		return compiled{}, ErrNoTurns
	}
	t := m.turns[m.next]
	m.next++
	return t, nil
}

func snapshot(req *model.Request) Call {
	msgs := []byte{'['}
	for i, msg := range req.Messages {
		if i > 0 {
			msgs = append(msgs, ',')
		}
		msgs = msg.AppendJSON(msgs)
	}
	msgs = append(msgs, ']')
	tools := []byte{'['}
	for i, t := range req.Tools {
		if i > 0 {
			tools = append(tools, ',')
		}
		b, _ := t.MarshalJSON()
		tools = append(tools, b...)
	}
	tools = append(tools, ']')
	choice := []byte("null")
	if req.ToolChoice != nil {
		choice, _ = req.ToolChoice.MarshalJSON()
	}
	return Call{Messages: msgs, Tools: tools, ToolChoice: choice}
}

// Stream plays the next turn. The call starts (and consumes its turn) when
// the returned sequence is iterated.
func (m *Model) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		t, err := m.take(req)
		if err == nil {
			err = t.turn.Err
		}
		if err != nil {
			yield(model.Chunk{}, err)
			return
		}
		if t.turn.NonStreaming {
			// One complete response; a failure or pause anywhere in the
			// script of a non-streaming turn happens before it.
			for _, s := range t.steps {
				if err := s.fail(ctx); err != nil {
					yield(model.Chunk{}, err)
					return
				}
			}
			yield(model.Chunk{Parts: t.final, Usage: t.usage}, nil)
			return
		}
		// Each chunk hands out the compiled step's own parts (clipped, so
		// an append cannot reach the next step's): copying them per chunk
		// was a tenth of a streamed text chunk's cost. Consumers read a
		// chunk's parts; they never write to them.
		for _, s := range t.steps {
			if err := s.fail(ctx); err != nil {
				yield(model.Chunk{}, err)
				return
			}
			if s.isP || (len(s.parts) == 0 && s.usage == nil) {
				continue
			}
			if !yield(model.Chunk{Parts: slices.Clip(s.parts), Usage: s.usage}, nil) {
				return
			}
		}
		if t.turn.Explicit {
			yield(model.Chunk{Parts: t.final, Usage: t.usage, Final: true}, nil)
		}
	}
}

// fail reports the step's scripted error, or waits out its pause.
func (s *cstep) fail(ctx context.Context) error {
	if s.err != nil {
		return s.err
	}
	if s.isP {
		return sleep(ctx, s.pause)
	}
	return nil
}

// sleep waits d or until ctx is done. A cancellation already pending is
// reported without waiting, also for d = 0: a pause is where the
// reference's model stream would receive its CancelledError.
func sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// String describes the model for logs.
func (m *Model) String() string {
	return fmt.Sprintf("scripted.Model(%s, %d/%d turns played)", m.name, m.next, len(m.turns))
}
