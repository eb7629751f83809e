package state_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/state"
)

// A state holding a nil block (or a nil message) is not written: as
// written it would not load again. A clean state marshals and loads.
func TestMarshalRejectsNilBlocks(t *testing.T) {
	var typedNil *block.Text
	reply := func(bs ...block.Block) *message.Msg {
		return &message.Msg{Name: "F", Role: event.RoleAssistant, ID: "m", Content: bs}
	}
	result := func(bs ...block.Block) *block.ToolResult {
		return &block.ToolResult{ID: "c1", Name: "t", Output: block.BlocksBody(bs...), State: block.ResultSuccess}
	}
	cases := map[string]func(st *state.AgentState){
		"nil content block":       func(st *state.AgentState) { st.Context = append(st.Context, reply(nil)) },
		"typed-nil content block": func(st *state.AgentState) { st.Context = append(st.Context, reply(typedNil)) },
		"nil block in a result":   func(st *state.AgentState) { st.Context = append(st.Context, reply(result(block.NewText("a"), nil))) },
		"typed nil in a hint": func(st *state.AgentState) {
			st.Context = append(st.Context, reply(&block.Hint{Hint: block.BlocksBody(typedNil)}))
		},
		"nil summary block": func(st *state.AgentState) { st.Summary = block.BlocksBody(nil) },
	}
	for name, spoil := range cases {
		st := state.New(nil)
		st.Context = append(st.Context, reply(result(block.NewText("fine"))))
		spoil(st)
		if _, err := st.MarshalJSON(); !errors.Is(err, message.ErrNilBlock) {
			t.Errorf("%s: MarshalJSON err %v, want ErrNilBlock", name, err)
		}
		if _, err := json.Marshal(st); !errors.Is(err, message.ErrNilBlock) {
			t.Errorf("%s: json.Marshal err %v, want ErrNilBlock", name, err)
		}
	}
	st := state.New(nil)
	st.Context = append(st.Context, nil)
	if _, err := st.MarshalJSON(); !errors.Is(err, state.ErrInvalid) {
		t.Errorf("nil message: err %v", err)
	}
	st = state.New(nil)
	st.Context = append(st.Context, reply(result(block.NewText("fine"))))
	b, err := st.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := state.Decode(b, nil); err != nil {
		t.Fatalf("clean state does not load: %v", err)
	}
}
