package builtin

import (
	"encoding/json"
	"os"
	"testing"
)

// TestUnifiedDiffMatchesDifflib compares with diffs Python's difflib wrote
// (testdata/diff_cases.json), including files of more than 200 lines,
// where its popular-line heuristic applies.
func TestUnifiedDiffMatchesDifflib(t *testing.T) {
	raw, err := os.ReadFile("testdata/diff_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []struct{ A, B, Diff string }
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	for i, c := range file.Cases {
		if got := unifiedDiff(c.A, c.B, "a/f", "b/f"); got != c.Diff {
			t.Errorf("case %d:\ngot:\n%s\nwant:\n%s", i, got, c.Diff)
		}
	}
}
