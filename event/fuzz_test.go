package event_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentscope-go/agentscope/event"
)

// FuzzDecode feeds arbitrary bytes to Decode. It must never panic; what it
// accepts must encode to valid JSON that decodes again to the same bytes.
// The seeds are the spec's 30 examples plus testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	for _, line := range specEventLines(f) {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := event.Decode(data)
		if err != nil {
			if e != nil {
				t.Fatalf("error %v with a non-nil event", err)
			}
			return
		}
		out := e.AppendJSON(nil)
		if !json.Valid(out) {
			t.Fatalf("invalid JSON from %q: %s", data, out)
		}
		again, err := event.Decode(out)
		if err != nil {
			t.Fatalf("our own output does not decode: %v\n%s", err, out)
		}
		if out2 := again.AppendJSON(nil); !bytes.Equal(out, out2) {
			t.Fatalf("not stable\nfirst  %s\nsecond %s", out, out2)
		}
		if m, _ := e.MarshalJSON(); !bytes.Equal(m, out) {
			t.Fatalf("MarshalJSON and AppendJSON differ")
		}
	})
}
