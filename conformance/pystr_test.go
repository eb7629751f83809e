package conformance

import (
	"encoding/json"
	"testing"
)

// Injected extra fields are written as f"<{key}>{value}</{key}>", that is
// Python's str() of the decoded value: repr for containers.
func TestPyStrIsPythonStr(t *testing.T) {
	v, err := parseOrdered([]byte(`{"z": [1, 2.50, "it's"], "a": {"k": null, "t": true}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   any
		want string
	}{
		{"text", "text"}, {true, "True"}, {nil, "None"}, {json.Number("2.50"), "2.5"}, {json.Number("7"), "7"},
		{v, `{'z': [1, 2.5, "it's"], 'a': {'k': None, 't': True}}`},
	} {
		if got := pyStr(c.in); got != c.want {
			t.Errorf("pyStr(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}
