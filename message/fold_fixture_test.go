package message_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/message"
)

type rebuildFixture struct {
	InitialMsg struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"initial_msg"`
	Steps []struct {
		Event    json.RawMessage `json:"event"`
		Expected any             `json:"expected_msg"`
	} `json:"steps"`
	WrongReplyIDEvent json.RawMessage   `json:"wrong_reply_id_event"`
	GhostEvents       []json.RawMessage `json:"ghost_events"`
}

// TestFoldFixtureWalk applies the reference's 39-event walk and compares the
// whole message after every event.
func TestFoldFixtureWalk(t *testing.T) {
	var fx rebuildFixture
	fixture.Load(t, &fx, "spec", "fixtures", "event_to_message_test.json")
	if len(fx.Steps) != 39 {
		t.Fatalf("fixture has %d steps, want 39", len(fx.Steps))
	}
	m, err := message.AssistantMsg(fx.InitialMsg.Name, nil, message.WithID(fx.InitialMsg.ID))
	if err != nil {
		t.Fatal(err)
	}
	initialCreated := m.CreatedAt
	subst := map[string]any{"<ANY_STRING>": nil, "<UNCHANGED_FROM_INITIAL>": initialCreated}
	for i, st := range fx.Steps {
		ev, err := event.Decode(st.Event)
		if err != nil {
			t.Fatalf("step %d: decode: %v", i, err)
		}
		if err := m.AppendEvent(ev); err != nil {
			t.Fatalf("step %d (%s): %v", i, ev.Type(), err)
		}
		got, err := fixture.Parse(m.AppendJSON(nil))
		if err != nil {
			t.Fatalf("step %d: our JSON does not parse: %v", i, err)
		}
		if err := fixture.Match(got, st.Expected, subst); err != nil {
			t.Fatalf("step %d (%s): %v", i, ev.Type(), err)
		}
	}
}

func TestFoldFixtureWrongReplyAndGhosts(t *testing.T) {
	var fx rebuildFixture
	fixture.Load(t, &fx, "spec", "fixtures", "event_to_message_test.json")
	m := message.AssistantText(fx.InitialMsg.Name, "x", message.WithID(fx.InitialMsg.ID))
	before := string(m.AppendJSON(nil))

	ev, err := event.Decode(fx.WrongReplyIDEvent)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AppendEvent(ev); !errors.Is(err, message.ErrOtherReply) {
		t.Fatalf("wrong reply id: got %v, want ErrOtherReply", err)
	}
	if len(fx.GhostEvents) != 7 {
		t.Fatalf("want 7 ghost events, got %d", len(fx.GhostEvents))
	}
	for _, raw := range fx.GhostEvents {
		ev, err := event.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		err = m.AppendEvent(ev)
		var fe *message.FoldError
		if !errors.As(err, &fe) || !errors.Is(err, message.ErrBlockNotFound) || fe.Event != ev.Type() {
			t.Fatalf("%s: got %v, want a FoldError wrapping ErrBlockNotFound", ev.Type(), err)
		}
	}
	if after := string(m.AppendJSON(nil)); after != before {
		t.Fatalf("message changed:\n%s\n%s", before, after)
	}
}
