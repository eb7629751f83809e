package a2a

import (
	"encoding/json"
	"testing"
)

// appendResult writes what marshal(Response{…}) writes, byte for byte.
func TestAppendResultIsMarshal(t *testing.T) {
	results := [][]byte{
		marshal(StreamResponse{Task: &Task{ID: "t<&>1", ContextID: "c", Status: TaskStatus{State: TaskStateWorking}}}),
		[]byte(`{"a":"\u2028 <b>"}`),
		nil,
	}
	ids := []json.RawMessage{nil, json.RawMessage(`1`), json.RawMessage(`"a b <&>"`), json.RawMessage(`null`), json.RawMessage(` 7 `), json.RawMessage(`{"x": [1, 2]}`), json.RawMessage(`{bad`)}
	for _, id := range ids {
		for _, r := range results {
			want := marshal(Response{JSONRPC: "2.0", ID: id, Result: r})
			if got := appendResult(nil, id, r); string(got) != string(want) {
				t.Errorf("id %q, result %q:\n got %s\nwant %s", id, r, got, want)
			}
		}
	}
}
