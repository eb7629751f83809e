package conformance

import (
	"bytes"
	"testing"

	"github.com/agentscope-go/agentscope/internal/fixture"
)

// The published golden traces all conform at level 1 (required) and at
// level 2 (ids related across the whole file, the goal).
func TestGolden(t *testing.T) {
	for _, level := range []int{1, 2} {
		results, err := Run([]string{fixture.Path(t, "conformance", "golden")}, level)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		passed, failed := Report(&out, results, false)
		if failed != 0 || passed != 39 {
			t.Fatalf("level %d: want 39 passed, 0 failed:\n%s", level, out.String())
		}
	}
}
