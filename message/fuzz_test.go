package message_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/message"
)

// FuzzAppendEvent folds arbitrary JSON lines into one reply. Undecodable
// lines are dropped; every decoded event is applied. AppendEvent may refuse
// an event but must never panic, and the Msg must stay encodable to JSON
// that decodes back to the same bytes. The seeds are the 39-event walk of
// event_to_message_test.json, the spec's event examples (reply "r1") and
// testdata/fuzz/FuzzAppendEvent.
func FuzzAppendEvent(f *testing.F) {
	var walk rebuildFixture
	fixture.Load(f, &walk, "spec", "fixtures", "event_to_message_test.json")
	var lines [][]byte
	for _, st := range walk.Steps {
		lines = append(lines, st.Event)
	}
	f.Add(bytes.Join(lines, []byte("\n")))
	for _, fence := range fixture.SpecFences(f, "#### 1.6.3") {
		f.Add([]byte(fence))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		var m *message.Msg
		for _, line := range bytes.Split(data, []byte("\n")) {
			e, err := event.Decode(line)
			if err != nil {
				continue
			}
			if m == nil {
				rid, ok := event.ReplyIDOf(e)
				if !ok {
					rid = "r"
				}
				m = message.AssistantText("Friday", "seed", message.WithID(rid))
			}
			before := m.AppendJSON(nil)
			if err := m.AppendEvent(e); err != nil {
				var fe *message.FoldError
				if !asFoldError(err, &fe) {
					t.Fatalf("%s: error %T is not a *FoldError: %v", e.Type(), err, err)
				}
				if fe.Event != e.Type() {
					t.Fatalf("FoldError names %s for a %s", fe.Event, e.Type())
				}
				// Only the partial confirmation events may apply part of
				// themselves before reporting the calls they lack.
				switch e.Type() {
				case event.TypeRequireUserConfirm, event.TypeRequireExternalExecution, event.TypeUserConfirmResult:
				default:
					if after := m.AppendJSON(nil); !bytes.Equal(after, before) {
						t.Fatalf("%s refused (%v) but changed the message", e.Type(), err)
					}
				}
			}
			out := m.AppendJSON(nil)
			var back message.Msg
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatalf("after %s: our JSON does not decode: %v\n%s", e.Type(), err, out)
			}
			if again := back.AppendJSON(nil); !bytes.Equal(again, out) {
				t.Fatalf("after %s: round trip differs\n got %s\nwant %s", e.Type(), again, out)
			}
		}
	})
}

func asFoldError(err error, target **message.FoldError) bool {
	fe, ok := err.(*message.FoldError)
	*target = fe
	return ok
}
