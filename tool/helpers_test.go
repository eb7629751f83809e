package tool_test

import (
	"context"
	"encoding/json"
	"iter"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/tool"
)

// anyString marks fixture values that may be any string.
var anyString = map[string]any{"<ANY_STRING>": nil}

func loadToolkitFixture(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	var fx map[string]json.RawMessage
	fixture.Load(t, &fx, "spec", "fixtures", "toolkit_test.json")
	return fx
}

// matchJSON compares got (JSON) against want (JSON) with <ANY_STRING>
// slots.
func matchJSON(t *testing.T, what string, got, want []byte) {
	t.Helper()
	g, err := fixture.Parse(got)
	if err != nil {
		t.Fatalf("%s: %v in %s", what, err, got)
	}
	w, err := fixture.Parse(want)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := fixture.Match(g, w, anyString); err != nil {
		t.Errorf("%s: %v\n got %s\nwant %s", what, err, got, want)
	}
}

// must fails the test on a construction error: must(t)(tool.New(...)).
func must(t testing.TB) func(tool.Tool, error) tool.Tool {
	return func(tl tool.Tool, err error) tool.Tool {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
}

var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// chunks returns a body streaming the given chunks.
func chunks(cs ...tool.Chunk) tool.CallFunc {
	return func(context.Context, map[string]any) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) {
			for _, c := range cs {
				if !yield(c, nil) {
					return
				}
			}
		}
	}
}

// texts collects the text of each chunk.
func texts(cs []tool.Chunk) []string {
	var out []string
	for _, c := range cs {
		s := ""
		for _, b := range c.Content {
			s += textOf(b)
		}
		out = append(out, s)
	}
	return out
}

func collect(seq iter.Seq[tool.Chunk]) []tool.Chunk {
	var out []tool.Chunk
	for c := range seq {
		out = append(out, c)
	}
	return out
}

func seqStamp() stamp.Source { return stamp.NewSequence(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) }
