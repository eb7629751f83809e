package message_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"
	"time"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/stamp"
)

// replyStream is a generated, well-formed reply: its events and, as an
// independent model of the result, what each block must end up holding.
type replyStream struct {
	events []event.Event
	text   map[string]string // text and thinking block id → joined deltas
	input  map[string]string // tool-call id → joined argument fragments
	data   map[string][]byte // data block id → joined raw bytes
	// calls counts the tool_call blocks of each call id: a call re-opened
	// by a second TOOL_CALL_START gets a second, empty block (append_event
	// appends on every START, and deltas go to the first block of an id).
	calls map[string]int
	names map[string]string // tool-call id → tool name
	// results maps a tool-result data block id to its base64 text or URL.
	results map[string]string
}

type streamGen struct {
	t   *rapid.T
	src *stamp.Sequence
	n   int
	s   *replyStream
}

func (g *streamGen) emit(e event.Event) {
	event.Stamp(e, g.src)
	g.s.events = append(g.s.events, e)
}

func (g *streamGen) id(prefix string) string { g.n++; return fmt.Sprintf("%s%d", prefix, g.n) }

// str draws a short string of arbitrary Unicode (quotes, controls, astral
// runes) so that escaping is exercised too.
func (g *streamGen) str(label string) string {
	return rapid.StringN(0, 6, -1).Draw(g.t, label)
}

// nullStr draws null, "" or a short string: the wire keeps all three apart.
func (g *streamGen) nullStr(label string) block.NullString {
	switch rapid.IntRange(0, 2).Draw(g.t, label+" kind") {
	case 0:
		return block.NullString{}
	case 1:
		return block.Some("")
	}
	return block.Some(g.str(label))
}

func (g *streamGen) raw(label string, min int) []byte {
	return rapid.SliceOfN(rapid.Byte(), min, 40).Draw(g.t, label)
}

// drawReply generates REPLY_START, one to three model calls whose blocks
// (text, thinking, data, tool calls) stream interleaved, tool results with
// text and data deltas, confirmation and external-execution round trips,
// hints, and a REPLY_END (or none: a parked reply).
func drawReply(t *rapid.T) *replyStream {
	g := &streamGen{
		t:   t,
		src: stamp.NewSequence(time.Date(2026, 8, 22, 9, 14, 4, 0, time.Local)),
		s: &replyStream{text: map[string]string{}, input: map[string]string{}, data: map[string][]byte{},
			calls: map[string]int{}, names: map[string]string{}, results: map[string]string{}},
	}
	g.emit(&event.ReplyStart{SessionID: "s", ReplyID: "r", Name: "Friday"})
	for range rapid.IntRange(1, 3).Draw(t, "model calls") {
		g.emit(&event.ModelCallStart{ReplyID: "r", ModelName: "m"})
		var seqs [][]event.Event
		var calls []*block.ToolCall
		for range rapid.IntRange(0, 4).Draw(t, "blocks") {
			seqs = append(seqs, g.block(&calls))
		}
		// Interleave the blocks' events, keeping each block's own order.
		for len(seqs) > 0 {
			i := rapid.IntRange(0, len(seqs)-1).Draw(t, "next block")
			e := seqs[i][0]
			event.Stamp(e, g.src)
			g.s.events = append(g.s.events, e)
			if seqs[i] = seqs[i][1:]; len(seqs[i]) == 0 {
				seqs = append(seqs[:i], seqs[i+1:]...)
			}
		}
		g.emit(&event.ModelCallEnd{
			ReplyID:      "r",
			InputTokens:  rapid.Int64Range(0, 1e6).Draw(t, "in"),
			OutputTokens: rapid.Int64Range(0, 1e6).Draw(t, "out"),
		})
		for _, c := range calls {
			g.answer(c)
		}
		if rapid.Bool().Draw(t, "hint") {
			g.emit(&event.HintBlock{ReplyID: "r", BlockID: g.id("h"), Source: g.nullStr("hint source"), Hint: block.PlainBody(g.str("hint"))})
		}
	}
	if rapid.IntRange(0, 4).Draw(t, "ended") > 0 {
		end := &event.ReplyEnd{SessionID: "s", ReplyID: "r",
			FinishedReason: rapid.SampledFrom([]event.ReplyReason{event.ReplyCompleted, event.ReplyInterrupted, event.ReplyExceedMaxIters, event.ReplyError}).Draw(t, "reason")}
		if end.FinishedReason == event.ReplyError {
			end.Error = &event.ErrorInfo{Type: event.ErrUpstream, Message: g.str("error")}
		}
		g.emit(end)
	}
	return g.s
}

// block returns the unstamped events of one model block.
func (g *streamGen) block(calls *[]*block.ToolCall) []event.Event {
	t := g.t
	id := g.id("b")
	n := rapid.IntRange(0, 5).Draw(t, "deltas")
	var seq []event.Event
	switch rapid.IntRange(0, 3).Draw(t, "kind") {
	case 0:
		seq = append(seq, &event.TextBlockStart{ReplyID: "r", BlockID: id})
		for range n {
			d := g.str("text")
			g.s.text[id] += d
			seq = append(seq, &event.TextBlockDelta{ReplyID: "r", BlockID: id, Delta: d})
		}
		seq = append(seq, &event.TextBlockEnd{ReplyID: "r", BlockID: id})
	case 1:
		seq = append(seq, &event.ThinkingBlockStart{ReplyID: "r", BlockID: id})
		for range n {
			d := g.str("thinking")
			g.s.text[id] += d
			seq = append(seq, &event.ThinkingBlockDelta{ReplyID: "r", BlockID: id, Delta: d})
		}
		seq = append(seq, &event.ThinkingBlockEnd{ReplyID: "r", BlockID: id})
	case 2:
		mt := rapid.SampledFrom([]string{"image/png", "audio/wav"}).Draw(t, "media")
		seq = append(seq, &event.DataBlockStart{ReplyID: "r", BlockID: id, MediaType: mt})
		g.s.data[id] = []byte{}
		for range n {
			raw := g.raw("data", 0)
			g.s.data[id] = append(g.s.data[id], raw...)
			seq = append(seq, &event.DataBlockDelta{ReplyID: "r", BlockID: id, MediaType: mt, Data: base64.StdEncoding.EncodeToString(raw)})
		}
		seq = append(seq, &event.DataBlockEnd{ReplyID: "r", BlockID: id})
	case 3:
		callID := "call_" + id
		name := rapid.SampledFrom([]string{"Bash", "Read", "external"}).Draw(t, "tool")
		seq = append(seq, &event.ToolCallStart{ReplyID: "r", ToolCallID: callID, ToolCallName: name})
		g.s.calls[callID], g.s.names[callID] = 1, name
		// Text may arrive between two fragments of the call: the reference
		// closes the call, streams the text, and re-opens the call with a
		// second TOOL_CALL_START that repeats the tool's name.
		reopen := -1
		if n > 0 && rapid.Bool().Draw(t, "text inside the call") {
			reopen = rapid.IntRange(0, n-1).Draw(t, "reopen before")
		}
		for i := range n {
			if i == reopen {
				tid := g.id("b")
				txt := g.str("text in call")
				g.s.text[tid] = txt
				g.s.calls[callID]++
				seq = append(seq, &event.ToolCallEnd{ReplyID: "r", ToolCallID: callID},
					&event.TextBlockStart{ReplyID: "r", BlockID: tid},
					&event.TextBlockDelta{ReplyID: "r", BlockID: tid, Delta: txt},
					&event.TextBlockEnd{ReplyID: "r", BlockID: tid},
					&event.ToolCallStart{ReplyID: "r", ToolCallID: callID, ToolCallName: name})
			}
			d := g.str("input")
			g.s.input[callID] += d
			seq = append(seq, &event.ToolCallDelta{ReplyID: "r", ToolCallID: callID, Delta: d})
		}
		seq = append(seq, &event.ToolCallEnd{ReplyID: "r", ToolCallID: callID})
		*calls = append(*calls, &block.ToolCall{ID: callID, Name: name})
	}
	return seq
}

// answer emits what follows a tool call: a streamed result (maybe after a
// confirmation), an external execution, or nothing (the reply parks).
func (g *streamGen) answer(c *block.ToolCall) {
	t := g.t
	call := func(st block.ToolCallState, rules []block.PermissionRule) *block.ToolCall {
		return &block.ToolCall{ID: c.ID, Name: c.Name, Input: g.s.input[c.ID], State: st, SuggestedRules: rules, CreatedAt: "2026-08-22T09:14:04"}
	}
	switch rapid.IntRange(0, 4).Draw(t, "answer") {
	case 0:
		g.result(c)
	case 1:
		rules := []block.PermissionRule{{ToolName: c.Name, RuleContent: g.nullStr("rule"), Behavior: block.Allow, Source: "suggested"}}
		g.emit(&event.RequireUserConfirm{ReplyID: "r", ToolCalls: []*block.ToolCall{call(block.CallAsking, rules)}})
		ok := rapid.Bool().Draw(t, "confirmed")
		var keep []block.PermissionRule
		if rapid.Bool().Draw(t, "keep rules") {
			keep = rules
		}
		g.emit(&event.UserConfirmResult{ReplyID: "r", ConfirmResults: []event.ConfirmResult{{Confirmed: ok, ToolCall: call(block.CallAsking, nil), Rules: keep}}})
		g.result(c)
	case 2:
		// The reference's order: the result opens, the reply parks, the
		// result streams in after the resume.
		g.emit(&event.ToolResultStart{ReplyID: "r", ToolCallID: c.ID, ToolCallName: c.Name})
		g.emit(&event.RequireExternalExecution{ReplyID: "r", ToolCalls: []*block.ToolCall{call(block.CallSubmitted, nil)}})
		g.resultDeltas(c)
	case 3:
		g.emit(&event.RequireExternalExecution{ReplyID: "r", ToolCalls: []*block.ToolCall{call(block.CallSubmitted, nil)}})
		txt := &block.Text{ID: g.id("x"), Text: g.str("external"), CreatedAt: "2026-08-22T09:14:05"}
		var out block.Body
		if rapid.Bool().Draw(t, "plain output") {
			out = block.PlainBody(txt.Text)
		} else {
			out = block.BlocksBody(txt)
		}
		g.emit(&event.ExternalExecutionResult{ReplyID: "r", ExecutionResults: []*block.ToolResult{{
			ID: c.ID, Name: c.Name, Output: out, State: block.ResultSuccess,
			Metadata: map[string]any{"source": "caller"}, CreatedAt: "2026-08-22T09:14:05",
		}}})
	case 4:
	}
}

func (g *streamGen) result(c *block.ToolCall) {
	g.emit(&event.ToolResultStart{ReplyID: "r", ToolCallID: c.ID, ToolCallName: c.Name})
	g.resultDeltas(c)
}

func (g *streamGen) resultDeltas(c *block.ToolCall) {
	t := g.t
	for range rapid.IntRange(0, 4).Draw(t, "result deltas") {
		switch rapid.IntRange(0, 2).Draw(t, "result delta") {
		case 0:
			g.emit(&event.ToolResultTextDelta{ReplyID: "r", ToolCallID: c.ID, Delta: g.str("result text")})
		case 1:
			id, data := g.id("d"), base64.StdEncoding.EncodeToString(g.raw("result data", 0)) // "" included
			g.s.results[id] = data
			g.emit(&event.ToolResultDataDelta{ReplyID: "r", ToolCallID: c.ID, BlockID: id, MediaType: "image/png", Data: block.Some(data)})
		case 2:
			id, u := g.id("d"), "https://example.com/"+g.id("u")+".png"
			g.s.results[id] = u
			g.emit(&event.ToolResultDataDelta{ReplyID: "r", ToolCallID: c.ID, BlockID: id, MediaType: "image/png", URL: block.Some(u)})
		}
	}
	st := rapid.SampledFrom([]block.ToolResultState{block.ResultSuccess, block.ResultError, block.ResultInterrupted, block.ResultDenied}).Draw(t, "state")
	g.emit(&event.ToolResultEnd{ReplyID: "r", ToolCallID: c.ID, State: st})
}

func emptyReply(t interface{ Fatal(...any) }, start event.Event) *message.Msg {
	m, err := message.AssistantMsg("Friday", nil, message.WithID("r"), message.WithCreatedAt(start.Header().CreatedAt))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fold applies every event, failing on the first error.
func fold(t *rapid.T, events []event.Event) *message.Msg {
	m := emptyReply(t, events[0])
	for i, e := range events {
		if err := m.AppendEvent(e); err != nil {
			t.Fatalf("event %d (%s): %v", i, e.Type(), err)
		}
	}
	return m
}

// checkMsgRoundTrip: the Msg's JSON decodes to a Msg with the same JSON,
// and so does its deep copy.
func checkMsgRoundTrip(t *rapid.T, m *message.Msg) {
	want := m.AppendJSON(nil)
	if !json.Valid(want) {
		t.Fatalf("invalid JSON: %s", want)
	}
	var back message.Msg
	if err := json.Unmarshal(want, &back); err != nil {
		t.Fatalf("decode: %v\n%s", err, want)
	}
	if got := back.AppendJSON(nil); !bytes.Equal(got, want) {
		t.Fatalf("decode/encode differs\n got %s\nwant %s", got, want)
	}
	if got := m.Clone().AppendJSON(nil); !bytes.Equal(got, want) {
		t.Fatalf("clone differs\n got %s\nwant %s", got, want)
	}
}

// TestPropertyFoldPrefixes: folding any prefix of a well-formed reply never
// fails, and the Msg after every event survives a JSON round trip.
func TestPropertyFoldPrefixes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := drawReply(t)
		m := emptyReply(t, s.events[0])
		for i, e := range s.events {
			if err := m.AppendEvent(e); err != nil {
				t.Fatalf("event %d (%s): %v", i, e.Type(), err)
			}
			checkMsgRoundTrip(t, m)
		}
		checkModel(t, s, m)
	})
}

// checkModel compares the folded Msg with the generator's own record of
// what every block must hold.
func checkModel(t *rapid.T, s *replyStream, m *message.Msg) {
	for id, want := range s.text {
		switch b := m.Find(block.KindText, id).(type) {
		case *block.Text:
			if b.Text != want {
				t.Fatalf("text %s = %q, want %q", id, b.Text, want)
			}
		default:
			th, ok := m.Find(block.KindThinking, id).(*block.Thinking)
			if !ok || th.Thinking != want {
				t.Fatalf("block %s: want %q, have %v", id, want, m.Find(block.KindThinking, id))
			}
		}
	}
	for id, want := range s.input {
		c, ok := m.Find(block.KindToolCall, id).(*block.ToolCall)
		if !ok || c.Input != want {
			t.Fatalf("tool call %s: want input %q, have %v", id, want, c)
		}
	}
	for id, n := range s.calls {
		var got []*block.ToolCall
		for _, c := range message.BlocksOf[*block.ToolCall](m) {
			if c.ID == id {
				got = append(got, c)
			}
		}
		if len(got) != n {
			t.Fatalf("tool call %s: %d blocks, want %d", id, len(got), n)
		}
		for _, c := range got[1:] {
			if c.Name != s.names[id] || c.Input != "" || c.State != block.CallPending {
				t.Fatalf("tool call %s re-opened: want an empty pending %s block, have %+v", id, s.names[id], c)
			}
		}
	}
	outputs := map[string]*block.Data{}
	for _, r := range message.BlocksOf[*block.ToolResult](m) {
		for _, b := range r.Output.Blocks {
			if d, ok := b.(*block.Data); ok {
				outputs[d.ID] = d
			}
		}
	}
	for id, want := range s.results {
		d := outputs[id]
		if d == nil {
			t.Fatalf("tool result data %s missing", id)
		}
		var got string
		switch src := d.Source.(type) {
		case *block.Base64:
			got = src.Data()
		case *block.URL:
			got = src.URL
		}
		if d == nil || got != want {
			t.Fatalf("tool result data %s: got %q, want %q", id, got, want)
		}
	}
	for id, want := range s.data {
		d, ok := m.Find(block.KindData, id).(*block.Data)
		if !ok {
			t.Fatalf("data %s missing", id)
		}
		got, err := d.Source.(*block.Base64).Bytes()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("data %s: %v, got %x want %x", id, err, got, want)
		}
	}
}

// splitDeltas splits some deltas in two: strings at a rune boundary, data
// by splitting the raw bytes and encoding each half on its own. The first
// half keeps the event's id and time (a tool-result text block created by a
// delta is named after it), the second gets a new id.
func splitDeltas(t *rapid.T, events []event.Event) (out []event.Event, splits int) {
	cut := func(s string) (string, string) {
		var at []int
		for i := range s {
			at = append(at, i)
		}
		at = append(at, len(s))
		k := rapid.SampledFrom(at).Draw(t, "cut")
		return s[:k], s[k:]
	}
	second := func(b event.Base) event.Base { b.ID += "-2"; return b }
	for _, e := range events {
		if !rapid.Bool().Draw(t, "split") {
			out = append(out, e)
			continue
		}
		switch e := e.(type) {
		case *event.TextBlockDelta:
			a, b := cut(e.Delta)
			out = append(out, &event.TextBlockDelta{Base: e.Base, ReplyID: e.ReplyID, BlockID: e.BlockID, Delta: a},
				&event.TextBlockDelta{Base: second(e.Base), ReplyID: e.ReplyID, BlockID: e.BlockID, Delta: b})
		case *event.ThinkingBlockDelta:
			a, b := cut(e.Delta)
			out = append(out, &event.ThinkingBlockDelta{Base: e.Base, ReplyID: e.ReplyID, BlockID: e.BlockID, Delta: a},
				&event.ThinkingBlockDelta{Base: second(e.Base), ReplyID: e.ReplyID, BlockID: e.BlockID, Delta: b})
		case *event.ToolCallDelta:
			a, b := cut(e.Delta)
			out = append(out, &event.ToolCallDelta{Base: e.Base, ReplyID: e.ReplyID, ToolCallID: e.ToolCallID, Delta: a},
				&event.ToolCallDelta{Base: second(e.Base), ReplyID: e.ReplyID, ToolCallID: e.ToolCallID, Delta: b})
		case *event.ToolResultTextDelta:
			a, b := cut(e.Delta)
			out = append(out, &event.ToolResultTextDelta{Base: e.Base, ReplyID: e.ReplyID, ToolCallID: e.ToolCallID, Delta: a},
				&event.ToolResultTextDelta{Base: second(e.Base), ReplyID: e.ReplyID, ToolCallID: e.ToolCallID, Delta: b})
		case *event.DataBlockDelta:
			raw, err := base64.StdEncoding.DecodeString(e.Data)
			if err != nil {
				t.Fatal(err)
			}
			k := rapid.IntRange(0, len(raw)).Draw(t, "byte cut")
			enc := base64.StdEncoding.EncodeToString
			out = append(out, &event.DataBlockDelta{Base: e.Base, ReplyID: e.ReplyID, BlockID: e.BlockID, MediaType: e.MediaType, Data: enc(raw[:k])},
				&event.DataBlockDelta{Base: second(e.Base), ReplyID: e.ReplyID, BlockID: e.BlockID, MediaType: e.MediaType, Data: enc(raw[k:])})
		default:
			out = append(out, e)
			continue
		}
		splits++
	}
	return out, splits
}

// TestPropertySplitDelta: splitting deltas in two never changes the Msg.
func TestPropertySplitDelta(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := drawReply(t)
		want := fold(t, s.events).AppendJSON(nil)
		split, _ := splitDeltas(t, s.events)
		if got := fold(t, split).AppendJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("split stream folds differently\n got %s\nwant %s", got, want)
		}
	})
}

// TestPropertyEventJSON: every event's JSON decodes to an event with the
// same JSON, and the decoded stream folds to the same Msg.
func TestPropertyEventJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := drawReply(t)
		decoded := make([]event.Event, len(s.events))
		for i, e := range s.events {
			want := e.AppendJSON(nil)
			if !json.Valid(want) || !utf8.Valid(want) {
				t.Fatalf("event %d: invalid JSON %q", i, want)
			}
			d, err := event.Decode(want)
			if err != nil {
				t.Fatalf("event %d: %v\n%s", i, err, want)
			}
			if got := d.AppendJSON(nil); !bytes.Equal(got, want) {
				t.Fatalf("event %d round trip\n got %s\nwant %s", i, got, want)
			}
			decoded[i] = d
		}
		want := fold(t, s.events).AppendJSON(nil)
		if got := fold(t, decoded).AppendJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("decoded stream folds differently\n got %s\nwant %s", got, want)
		}
	})
}

// TestGeneratorCoverage guards the properties above against a generator
// that never produces some event type or never splits anything.
func TestGeneratorCoverage(t *testing.T) {
	seen := map[event.Type]int{}
	cases := map[string]int{}
	splits := 0
	wanted := []string{
		"empty DATA_BLOCK_DELTA", "empty TOOL_RESULT_DATA_DELTA", "re-opened tool call",
		"rule_content valid=false empty=true", "rule_content valid=true empty=true", "rule_content valid=true empty=false",
		"hint source valid=false empty=true", "hint source valid=true empty=true", "hint source valid=true empty=false",
	}
	complete := func() bool {
		for _, c := range wanted {
			if cases[c] == 0 {
				return false
			}
		}
		for _, typ := range event.Types {
			switch typ {
			case event.TypeCustom, event.TypeUserInterrupt, event.TypeExceedMaxIters:
				continue
			}
			if seen[typ] == 0 {
				return false
			}
		}
		return splits > 0
	}
	// A case the generator draws rarely can miss one run of 100 streams;
	// up to ten runs make a miss a sign that it is never drawn at all.
	for round := 0; round < 10 && !complete(); round++ {
		rapid.Check(t, func(t *rapid.T) {
			s := drawReply(t)
			started := map[string]bool{}
			for _, e := range s.events {
				seen[e.Type()]++
				switch e := e.(type) {
				case *event.DataBlockDelta:
					if e.Data == "" {
						cases["empty DATA_BLOCK_DELTA"]++
					}
				case *event.ToolResultDataDelta:
					if e.Data == block.Some("") {
						cases["empty TOOL_RESULT_DATA_DELTA"]++
					}
				case *event.RequireUserConfirm:
					for _, c := range e.ToolCalls {
						for _, r := range c.SuggestedRules {
							cases[fmt.Sprintf("rule_content valid=%v empty=%v", r.RuleContent.Valid, r.RuleContent.String == "")]++
						}
					}
				case *event.HintBlock:
					cases[fmt.Sprintf("hint source valid=%v empty=%v", e.Source.Valid, e.Source.String == "")]++
				case *event.ToolCallStart:
					if started[e.ToolCallID] {
						cases["re-opened tool call"]++
					}
					started[e.ToolCallID] = true
				}
			}
			_, n := splitDeltas(t, s.events)
			splits += n
		})
	}
	if splits == 0 {
		t.Error("no delta was ever split")
	}
	for _, c := range wanted {
		if cases[c] == 0 {
			t.Errorf("the generator never produced: %s", c)
		}
	}
	for _, typ := range event.Types {
		switch typ {
		case event.TypeCustom, event.TypeUserInterrupt, event.TypeExceedMaxIters:
			continue // not part of a reply's fold (no-ops or refused)
		}
		if seen[typ] == 0 {
			t.Errorf("the generator never produced %s", typ)
		}
	}
	t.Logf("event counts over the run: %v", seen)
}
