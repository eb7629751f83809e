package message

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"unsafe"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
)

// Errors AppendEvent returns (wrapped in *FoldError). In each case the
// reference logs a warning (or raises) and leaves the message unchanged;
// AppendEvent leaves it unchanged too and says why.
var (
	// ErrOtherReply: the event's reply_id is not this message's id.
	ErrOtherReply = errors.New("event belongs to another reply")
	// ErrNoReplyID: the event carries no reply_id (CUSTOM); the reference
	// raises AttributeError here.
	ErrNoReplyID = errors.New("event has no reply_id")
	// ErrBlockNotFound: a delta or end names a block the message lacks.
	ErrBlockNotFound = errors.New("block not found")
	// ErrBadDelta: a delta cannot be applied (invalid base64, a base64 delta
	// to a URL source, an invalid URL).
	ErrBadDelta = errors.New("delta cannot be applied")
)

// FoldError reports an event AppendEvent could not apply.
type FoldError struct {
	Event event.Type
	ID    string // the block or tool-call id(s) concerned, if any
	Err   error  // one of the Err* values above, or block.ErrIllegalTransition
	Cause error  // the underlying error, if any (a *block.TransitionError for an illegal move)
}

func (e *FoldError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "append %s", e.Event)
	if e.ID != "" {
		fmt.Fprintf(&b, " (%s)", e.ID)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	if e.Cause != nil {
		fmt.Fprintf(&b, ": %v", e.Cause)
	}
	return b.String()
}

func (e *FoldError) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}

// AppendEvent applies one event of this message's reply (core-spec §2.4).
//
// It is the inverse of streaming: applying a reply's events in order to
// AssistantMsg(name, nil, WithID(replyID)) rebuilds the reply's Msg. Blocks
// created by an event take the event's created_at, and a block the event
// does not name (a tool-result text block) takes the event's id, so a fold is
// deterministic: the same events always build the same Msg.
//
// Events that only announce (REPLY_START, MODEL_CALL_START, EXCEED_MAX_ITERS,
// USER_INTERRUPT) change nothing. A *FoldError is returned, with the message
// unchanged, for an event of another reply, a CUSTOM event, a delta or end for
// a missing block, or an undecodable data delta. Tool calls change state by
// block.ToolCall.Replay: a move the state machine does not allow for a
// replay (a finished call asked again) is reported as an error wrapping
// block.ErrIllegalTransition, with that call unchanged. For
// REQUIRE_USER_CONFIRM, USER_CONFIRM_RESULT and REQUIRE_EXTERNAL_EXECUTION
// the calls that exist and move legally are updated; the missing ones and
// the illegal moves are reported in one error.
func (m *Msg) AppendEvent(e event.Event) error {
	rid, ok := event.ReplyIDOf(e)
	if !ok {
		return &FoldError{Event: e.Type(), Err: ErrNoReplyID}
	}
	if rid != m.ID {
		return &FoldError{Event: e.Type(), ID: rid, Err: ErrOtherReply}
	}
	switch e := e.(type) {
	case *event.ReplyEnd:
		m.FinishedAt = block.Some(e.CreatedAt)
		m.FinishedReason = e.FinishedReason
		if m.FinishedReason == "" {
			m.FinishedReason = event.ReplyCompleted
		}
		m.Error = nil
		if e.Error != nil {
			ei := *e.Error
			m.Error = &ei
		}
	case *event.ModelCallEnd:
		if m.Usage == nil {
			m.Usage = new(Usage)
		}
		m.Usage.Add(Usage{e.InputTokens, e.OutputTokens, e.CacheInputTokens, e.CacheCreationInputTokens})

	case *event.TextBlockStart:
		m.add(&block.Text{ID: e.BlockID, CreatedAt: e.CreatedAt})
	case *event.TextBlockDelta:
		t, err := findAs[*block.Text](m, e, block.KindText, e.BlockID)
		if err != nil {
			return err
		}
		t.AppendText(e.Delta)
	case *event.TextBlockEnd:
		t, err := findAs[*block.Text](m, e, block.KindText, e.BlockID)
		if err != nil {
			return err
		}
		t.FinishedAt = block.Some(e.CreatedAt)

	case *event.ThinkingBlockStart:
		m.add(&block.Thinking{ID: e.BlockID, CreatedAt: e.CreatedAt})
	case *event.ThinkingBlockDelta:
		t, err := findAs[*block.Thinking](m, e, block.KindThinking, e.BlockID)
		if err != nil {
			return err
		}
		t.AppendThinking(e.Delta)
	case *event.ThinkingBlockEnd:
		t, err := findAs[*block.Thinking](m, e, block.KindThinking, e.BlockID)
		if err != nil {
			return err
		}
		t.FinishedAt = block.Some(e.CreatedAt)

	case *event.DataBlockStart:
		m.add(&block.Data{ID: e.BlockID, Source: block.NewBase64(e.MediaType, ""), CreatedAt: e.CreatedAt})
	case *event.DataBlockDelta:
		d, err := findAs[*block.Data](m, e, block.KindData, e.BlockID)
		if err != nil || e.Data == "" {
			return err
		}
		src, ok := d.Source.(*block.Base64)
		if !ok {
			return &FoldError{Event: e.Type(), ID: e.BlockID, Err: ErrBadDelta, Cause: errors.New("base64 delta for a URL source")}
		}
		// The delta's media_type is ignored, as in the reference.
		if err := src.AppendBase64(e.Data); err != nil {
			return &FoldError{Event: e.Type(), ID: e.BlockID, Err: ErrBadDelta, Cause: err}
		}
	case *event.DataBlockEnd:
		d, err := findAs[*block.Data](m, e, block.KindData, e.BlockID)
		if err != nil {
			return err
		}
		d.FinishedAt = block.Some(e.CreatedAt)

	case *event.HintBlock:
		m.add(&block.Hint{
			ID: e.BlockID, Source: e.Source, Hint: e.Hint.Clone(),
			CreatedAt: e.CreatedAt, FinishedAt: block.Some(e.CreatedAt),
		})

	case *event.ToolCallStart:
		m.add(&block.ToolCall{
			ID: e.ToolCallID, Name: e.ToolCallName, State: block.CallPending,
			SuggestedRules: []block.PermissionRule{}, CreatedAt: e.CreatedAt,
		})
	case *event.ToolCallDelta:
		c, err := findAs[*block.ToolCall](m, e, block.KindToolCall, e.ToolCallID)
		if err != nil {
			return err
		}
		c.AppendInput(e.Delta)
	case *event.ToolCallEnd:
		c, err := findAs[*block.ToolCall](m, e, block.KindToolCall, e.ToolCallID)
		if err != nil {
			return err
		}
		c.FinishedAt = block.Some(e.CreatedAt)

	case *event.ToolResultStart:
		m.add(&block.ToolResult{
			ID: e.ToolCallID, Name: e.ToolCallName, Output: block.BlocksBody(),
			State: block.ResultRunning, CreatedAt: e.CreatedAt,
		})
	case *event.ToolResultTextDelta:
		r, err := findAs[*block.ToolResult](m, e, block.KindToolResult, e.ToolCallID)
		if err != nil {
			return err
		}
		listOutput(r, &e.Base)
		out := r.Output.Blocks
		if n := len(out); n > 0 {
			if t, ok := out[n-1].(*block.Text); ok {
				t.AppendText(e.Delta)
				return nil
			}
		}
		r.Output.Blocks = append(out, &block.Text{ID: e.ID, Text: e.Delta, CreatedAt: e.CreatedAt})
	case *event.ToolResultDataDelta:
		r, err := findAs[*block.ToolResult](m, e, block.KindToolResult, e.ToolCallID)
		if err != nil {
			return err
		}
		var src block.Source
		switch {
		// "data": "" is a valid, empty chunk; only null is absent.
		case e.Data.Valid && !e.URL.Valid:
			src = block.NewBase64(e.MediaType, e.Data.String)
		case e.URL.Valid && !e.Data.Valid:
			u, err := block.NewURL(e.MediaType, e.URL.String)
			if err != nil {
				return &FoldError{Event: e.Type(), ID: e.ToolCallID, Err: ErrBadDelta, Cause: err}
			}
			src = u
		default:
			return &FoldError{Event: e.Type(), ID: e.ToolCallID, Err: ErrBadDelta, Cause: event.Validate(e)}
		}
		listOutput(r, &e.Base)
		r.Output.Blocks = append(r.Output.Blocks, &block.Data{ID: e.BlockID, Source: src, CreatedAt: e.CreatedAt})
	case *event.ToolResultEnd:
		r, err := findAs[*block.ToolResult](m, e, block.KindToolResult, e.ToolCallID)
		if err != nil {
			return err
		}
		// The call first: a refused move leaves the whole message unchanged.
		if c, ok := m.Find(block.KindToolCall, e.ToolCallID).(*block.ToolCall); ok {
			if err := c.Replay(block.CallFinished); err != nil {
				return illegalMove(e, err)
			}
		}
		r.State = e.State
		r.Metadata = maps.Clone(e.Metadata)
		r.FinishedAt = block.Some(e.CreatedAt)

	case *event.RequireUserConfirm:
		return m.eachCall(e, e.ToolCalls, func(c, from *block.ToolCall) error {
			if err := c.Replay(block.CallAsking); err != nil {
				return err
			}
			c.SuggestedRules = append([]block.PermissionRule{}, from.SuggestedRules...)
			return nil
		})
	case *event.RequireExternalExecution:
		return m.eachCall(e, e.ToolCalls, func(c, _ *block.ToolCall) error { return c.Replay(block.CallSubmitted) })
	case *event.UserConfirmResult:
		calls := make([]*block.ToolCall, len(e.ConfirmResults))
		for i, r := range e.ConfirmResults {
			calls[i] = r.ToolCall
		}
		return m.eachCall(e, calls, func(c, from *block.ToolCall) error {
			// Stale answers (the call is no longer asking) are ignored.
			if c.State != block.CallAsking {
				return nil
			}
			for _, r := range e.ConfirmResults {
				if r.ToolCall == from {
					to := block.CallFinished
					if r.Confirmed {
						to = block.CallAllowed
					}
					if err := c.Replay(to); err != nil {
						return err
					}
				}
			}
			return nil
		})
	case *event.ExternalExecutionResult:
		for _, r := range e.ExecutionResults {
			if r == nil {
				continue
			}
			if m.Find(block.KindToolResult, r.ID) != nil {
				continue // already answered: the first result stands
			}
			c := r.CloneBlock().(*block.ToolResult)
			if !c.FinishedAt.Valid {
				c.FinishedAt = block.Some(e.CreatedAt)
			}
			m.add(c)
		}
	}
	return nil
}

// listOutput turns a plain-string tool output into a one-text-block list
// before a delta is added to it.
func listOutput(r *block.ToolResult, ev *event.Base) {
	if !r.Output.Plain {
		return
	}
	r.Output = block.BlocksBody(&block.Text{ID: ev.ID, Text: r.Output.Text, CreatedAt: ev.CreatedAt})
}

func (m *Msg) add(b block.Block) { m.Content = append(m.Content, b) }

// eachCall applies an event to each call it names; apply's errors are
// refused moves, which leave that call unchanged.
func (m *Msg) eachCall(e event.Event, calls []*block.ToolCall, apply func(c, from *block.ToolCall) error) error {
	var missing []string
	var refused []error
	for _, from := range calls {
		if from == nil {
			continue
		}
		c, ok := m.Find(block.KindToolCall, from.ID).(*block.ToolCall)
		if !ok {
			missing = append(missing, from.ID)
			continue
		}
		if err := apply(c, from); err != nil {
			refused = append(refused, err)
		}
	}
	var illegal error
	if refused != nil {
		illegal = illegalMove(e, refused...)
	}
	if missing != nil {
		// Both kinds: one *FoldError still, the refused moves its cause.
		return &FoldError{Event: e.Type(), ID: strings.Join(missing, ", "), Err: ErrBlockNotFound, Cause: illegal}
	}
	return illegal
}

// illegalMove reports calls the state machine refused to move.
func illegalMove(e event.Event, refused ...error) error {
	ids := make([]string, 0, len(refused))
	for _, err := range refused {
		var te *block.TransitionError
		if errors.As(err, &te) {
			ids = append(ids, te.ID)
		}
	}
	return &FoldError{Event: e.Type(), ID: strings.Join(ids, ", "), Err: block.ErrIllegalTransition, Cause: errors.Join(refused...)}
}

func findAs[T block.Block](m *Msg, e event.Event, k block.Kind, id string) (T, error) {
	var zero T
	i := m.fold.find(m.Content, k, id)
	if i < 0 {
		return zero, &FoldError{Event: e.Type(), ID: id, Err: ErrBlockNotFound}
	}
	t, ok := m.Content[i].(T)
	if !ok {
		return zero, &FoldError{Event: e.Type(), ID: id, Err: ErrBlockNotFound}
	}
	return t, nil
}

// foldIndex finds blocks by (kind, id) in O(1): a map of first positions
// over the prefix of Content seen so far, extended as Content grows, plus
// the position of the last hit, since deltas come in runs.
type foldIndex struct {
	pos  map[blockKey]int
	n    int          // Content[:n] is indexed
	base *block.Block // the array Content[:n] was indexed in
	last int          // position of the last hit, plus one (0 = none)
}

type blockKey struct {
	k  block.Kind
	id string
}

func (x *foldIndex) find(content []block.Block, k block.Kind, id string) int {
	if l := x.last - 1; l >= 0 && l < len(content) {
		if b := content[l]; !block.IsNil(b) && b.Kind() == k && b.BlockID() == id {
			return l
		}
	}
	for attempt := 0; attempt < 2; attempt++ {
		// A new array (growth or replacement) or a shorter slice: reindex.
		// Growth doubles, so this stays amortized O(1) per block.
		if base := unsafe.SliceData(content); x.n > len(content) || x.pos == nil || base != x.base {
			x.pos, x.n, x.base = make(map[blockKey]int, len(content)), 0, base
		}
		for ; x.n < len(content); x.n++ {
			b := content[x.n]
			if block.IsNil(b) {
				continue
			}
			key := blockKey{b.Kind(), b.BlockID()}
			if _, dup := x.pos[key]; !dup {
				x.pos[key] = x.n
			}
		}
		i, ok := x.pos[blockKey{k, id}]
		if !ok {
			return -1
		}
		if i < len(content) && !block.IsNil(content[i]) && content[i].Kind() == k && content[i].BlockID() == id {
			x.last = i + 1
			return i
		}
		// Content was edited behind our back: rebuild once.
		x.pos = nil
	}
	return -1
}
