package conformance

import (
	"bytes"
	"testing"

	"github.com/agentscope-go/agentscope/internal/fixture"
)

// The published golden traces all conform at level 1.
func TestGoldenLevel1(t *testing.T) {
	results, err := Run([]string{fixture.Path(t, "conformance", "golden")}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	passed, failed := Report(&out, results, false)
	if failed != 0 || passed != 39 {
		t.Fatalf("want 39 passed, 0 failed:\n%s", out.String())
	}
}
